// TensorFlow's v1 control-flow ops: Switch, Merge, Enter, Exit, NextIteration, LoopCond
// and ControlTrigger. Their meaning lives in the session executor (frames, iterations,
// dead tensors: runtime/src/frame_executor.h); here are their signatures and shapes.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Both outputs have the data's shape (only one of them is live in a run).
void SwitchShape(ShapeFnContext& c) {
  c.SetOutput(0, c.Input(0));
  c.SetOutput(1, c.Input(0));
}

// Output 0 is any of the inputs: the dims they agree on; value_index is a scalar.
void MergeShape(ShapeFnContext& c) {
  PartialShape out = c.Input(0);
  for (int i = 1; i < c.num_inputs() && out.rank_known; ++i) {
    const PartialShape s = c.Input(i);
    if (!s.rank_known || s.rank() != out.rank()) {
      out = PartialShape::Unknown();
      break;
    }
    for (size_t d = 0; d < out.dims.size(); ++d)
      if (out.dims[d] != s.dims[d]) out.dims[d] = kUnknownDim;
  }
  c.SetOutput(0, out);
  c.SetOutput(1, PartialShape::Of({}));
}

void Unchanged(ShapeFnContext& c) { c.SetOutput(0, c.Input(0)); }
void LoopCondShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 0, "input")); }
void NoOutputs(ShapeFnContext&) {}

}  // namespace

void RegisterControlFlowOps(TF_Status* status) {
  RegisterOps({
      {"Switch", {"T: type"}, {"data: T", "pred: bool"}, {"output_false: T", "output_true: T"},
       ShapeFn<SwitchShape>, "Forwards `data` to the output `pred` selects.",
       "The other output is dead: the nodes that read it do not run in this step (their "
       "outputs are dead too), up to a Merge.",
       {{"data", "The tensor to forward."}, {"pred", "A scalar: which output gets `data`."},
        {"output_false", "`data` when `pred` is false, else dead."},
        {"output_true", "`data` when `pred` is true, else dead."}}},
      {"Merge", {"T: type", "N: int >= 1"}, {"inputs: N * T"}, {"output: T", "value_index: int32"},
       ShapeFn<MergeShape>, "Forwards the first of its inputs that is live.",
       "Merge runs as soon as one input is live, without waiting for the others; it is "
       "dead only when every input is dead. In a while loop its inputs are the loop's "
       "Enter (first iteration) and NextIteration (every later one).",
       {{"inputs", "The candidates, at most one of them live per step."},
        {"output", "The live input."}, {"value_index", "The index of the live input."}}},
      {"Enter", {"T: type", "frame_name: string", "is_constant: bool = false",
                 "parallel_iterations: int = 10"},
       {"data: T"}, {"output: T"}, ShapeFn<Unchanged>,
       "Moves `data` into the child frame (a while loop) named `frame_name`.",
       "A constant Enter makes `data` visible to every iteration of the loop; otherwise it "
       "is the value of the loop's first iteration.",
       {{"data", "The tensor entering the frame."}, {"output", "The same tensor, in the frame."},
        {"frame_name", "The name of the child frame."},
        {"is_constant", "Whether the value is a loop invariant, seen by every iteration."},
        {"parallel_iterations", "How many iterations may run at once."}}},
      {"Exit", {"T: type"}, {"data: T"}, {"output: T"}, ShapeFn<Unchanged>,
       "Moves `data` from a while loop's frame to the enclosing frame.", "",
       {{"data", "The tensor leaving the frame."},
        {"output", "The same tensor, in the parent frame."}}},
      {"NextIteration", {"T: type"}, {"data: T"}, {"output: T"}, ShapeFn<Unchanged>,
       "Passes `data` to the next iteration of the while loop.",
       "Its reader is the loop's Merge, which then runs in the next iteration.",
       {{"data", "The value for the next iteration."},
        {"output", "The same tensor, in the next iteration."}}},
      {"LoopCond", {}, {"input: bool"}, {"output: bool"}, ShapeFn<LoopCondShape>,
       "The predicate of a while loop: whether another iteration runs.",
       "The loop's Switches read it; a false value sends the loop variables to the Exits.",
       {{"input", "A boolean scalar."}, {"output", "The same boolean."}}},
      {"ControlTrigger", {}, {}, {}, ShapeFn<NoOutputs>,
       "Does nothing; its control output is never dead.",
       "Runs once all its control inputs are done, whether they were dead or live.", {}},
  }, status);
}

}  // namespace opgen
