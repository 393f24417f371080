// Running a plan that holds TensorFlow's v1 control flow (Switch, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger): values are tagged with a frame (one per
// while loop instance) and an iteration, nodes run when their inputs for that tag have
// arrived, and dead tensors (the untaken side of a Switch) propagate as TensorFlow
// defines it. Plans without these ops keep the static order of executor.cc; this file
// is only the scheduling, on the steps that plan built (same pruning, kernels, device
// copies, feeds and fetches).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph.h"
#include "kernel_registry.h"

namespace opgen {

// A step of an ExecutionPlan, as the frame executor sees it.
struct FrameStepView {
  const TF_Operation* op;
  const KernelInstance* kernel;  // null: a copy of the one input to `copy_to`
  const Device* copy_to;
  std::vector<int> input_slots;  // data inputs
  int first_output;              // outputs occupy slots [first_output, +num_outputs)
  int num_outputs;
};

// Whether a node of this type makes a plan need frames.
bool IsControlFlowOp(const std::string& type);

// The static half: each step's frame (TensorFlow's frame names), its in- and out-edges,
// and its initial pending count. Built once per plan.
class FrameGraph {
 public:
  // `feed_slots[i]` holds feed i's value; `fetch_slots` the fetched slots. Returns null
  // with `status` set for a graph no executor can run (a node with inputs from two
  // frames, an Exit outside any loop, a NextIteration that feeds no Merge, a Merge no
  // value can reach, a fetch inside a loop).
  static std::unique_ptr<FrameGraph> Build(std::vector<FrameStepView> steps,
                                           const std::vector<int>& feed_slots,
                                           const std::vector<int>& fetch_slots, int num_slots,
                                           TF_Status* status);
  ~FrameGraph();

  // One run: `feeds[i]` (owned by the run, in host memory) for feed i; on success
  // `fetches[i]` holds a tensor the caller owns for fetch i (on its device).
  // `step_id`: the run's (TF_StepId), which its kernels see.
  void Run(const std::vector<TF_Tensor*>& feeds, TF_Tensor** fetches, TF_Status* status,
           int64_t step_id) const;

  struct Edge {
    int dst;       // step
    int dst_input; // data input index of dst, or -1 for a control edge
    int src_port;  // output of the source, or -1 for a control edge
  };
  enum class Kind : uint8_t { kOther, kSwitch, kMerge, kEnter, kExit, kNextIteration,
                              kLoopCond, kControlTrigger, kCopy };
  struct Node {
    FrameStepView step;
    Kind kind = Kind::kOther;
    int frame = 0;         // static frame id; 0 is the root frame
    int local = 0;         // index among its frame's nodes
    int input_base = 0;    // first of its data inputs in its frame's input array
    int num_data_edges = 0;  // data inputs that arrive along edges (not fed)
    int num_control = 0;
    int initial_pending = 0;
    std::vector<Edge> out;
    std::vector<std::pair<int, int>> fed_inputs;  // (data input, feed index)
    std::vector<int> fetches;                     // fetch indices per output: see fetch_port
    std::vector<int> fetch_ports;
    // Enter: the child frame; is_constant
    int child_frame = -1;
    bool is_constant = false;
  };
  struct Frame {
    std::string name;  // "" for the root
    int parent = -1;
    int num_nodes = 0;
    int num_inputs = 0;
    int num_enters = 0;
    int64_t parallel_iterations = 10;
    std::vector<int> nodes;  // steps, by local index
    std::vector<int> exits;  // the Exit steps that leave it
  };

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Frame>& frames() const { return frames_; }
  int num_fetches() const { return num_fetches_; }

 private:
  FrameGraph() = default;
  std::vector<Node> nodes_;
  std::vector<Frame> frames_;
  int num_fetches_ = 0;
  std::vector<int> fed_fetch_;  // per fetch: the feed it returns, or -1
};

}  // namespace opgen
