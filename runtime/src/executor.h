// Running a graph: an ExecutionPlan is built once per (feeds, fetches, targets)
// signature of a session — the pruned nodes in dependency order, each with its kernel
// and the slots its inputs come from — and then runs many times, from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "frame_executor.h"
#include "graph.h"
#include "kernel_registry.h"

namespace opgen {

// One kernel per node for the life of a session, created on first use, so kernels that
// decode attrs at construction (Const) do so once.
class SessionKernels {
 public:
  // `resources`: the session's, handed to every kernel (it outlives them).
  explicit SessionKernels(ResourceMgr* resources = nullptr) : resources_(resources) {}
  // The node's kernel, or nullptr with `status` set (no kernel, or creation failed).
  // `lean`: the kernel of a While carrying its gradient's accumulators that runs the plain
  // loop (for plans that read none of them; function_call.h).
  const KernelInstance* Get(const TF_Operation* op, TF_Status* status, bool lean = false);
  // Forgets the kernel of `op` (changed in place since it was made): the next Get makes a
  // new one. The old one lives on with this object, for plans still running it.
  void Retire(const TF_Operation* op);
  ResourceMgr* resources() const { return resources_; }

 private:
  ResourceMgr* resources_;
  std::mutex mu_;
  std::unordered_map<const TF_Operation*, std::unique_ptr<KernelInstance>> kernels_, lean_;
  std::vector<std::unique_ptr<KernelInstance>> retired_;
};

class ExecutionPlan {
 public:
  // Prunes `graph` to what `fetches` and `targets` need given `feeds`, orders it, and
  // instantiates kernels through `kernels` (which must outlive the plan). Bad
  // signatures (foreign or out-of-range outputs, a feed given twice, a cycle) and
  // missing kernels are reported in `status` with nullptr.
  static std::unique_ptr<ExecutionPlan> Build(TF_Graph* graph, const TF_Output* feeds,
                                              int num_feeds, const TF_Output* fetches,
                                              int num_fetches,
                                              const TF_Operation* const* targets,
                                              int num_targets, SessionKernels* kernels,
                                              TF_Status* status);
  ~ExecutionPlan();

  // One run: `feed_values` borrowed (checked against the fed outputs' dtypes and the
  // placeholders' shapes), `fetch_values` filled with new tensors the caller owns, or
  // all null on failure. Safe to call from several threads at once. `take_feeds`: the
  // run takes the feed tensors over (and frees them, whatever happens), so a kernel that
  // reads a fed value last may change it in place when nothing else holds it.
  void Run(TF_Tensor* const* feed_values, TF_Tensor** fetch_values, TF_Status* status,
           bool take_feeds = false) const;

 private:
  struct Step {
    const TF_Operation* op;
    const KernelInstance* kernel;
    int first_input;   // into input_slots_ / the run's input array
    int num_inputs;
    int first_output;  // the node's outputs occupy slots [first_output, +num_outputs)
    int num_outputs;
    int first_release;  // into release_slots_: slots no later step reads
    int num_releases;
    uint64_t forwardable;  // bit j: input j is read last here (KernelInstance::Compute)
    // A copy step (kernel == nullptr) moves its one input to this device for op.
    const Device* copy_to;
  };
  struct Feed {
    int slot;
    TF_DataType dtype;
    bool check_shape;  // a placeholder with a known-rank shape attr
    Shape shape;
    std::string name;  // "x:0"
  };
  // Tensors of one run in flight; pooled so a run allocates nothing of its own.
  struct RunState {
    std::vector<TF_Tensor*> slots;
    std::vector<TF_Tensor*> inputs;
  };

  ExecutionPlan() = default;
  std::unique_ptr<RunState> AcquireState() const;
  void ReleaseState(std::unique_ptr<RunState> state) const;
  bool CheckFeed(const Feed& feed, const TF_Tensor* value, TF_Status* status) const;
  // Run for plans with control flow: the frame executor schedules the same steps.
  void RunWithFrames(TF_Tensor* const* feed_values, TF_Tensor** fetch_values,
                     TF_Status* status, bool take_feeds, int64_t step_id) const;

  std::vector<Step> steps_;
  std::vector<int> input_slots_;
  std::vector<int> release_slots_;
  std::vector<Feed> feeds_;
  std::vector<int> fetch_slots_;
  std::vector<bool> slot_is_fetched_;
  int num_slots_ = 0;
  int num_inputs_ = 0;
  std::unique_ptr<FrameGraph> frames_;  // set for graphs with v1 control flow
  ResourceMgr* resources_ = nullptr;    // the session's: a run empties its step container

  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<RunState>> pool_;
};

}  // namespace opgen
