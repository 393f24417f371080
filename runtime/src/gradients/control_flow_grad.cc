// Gradients of v1 conditionals (Switch and Merge outside while loops), with TensorFlow's
// formulas for ops outside a control-flow context (its control_flow_grad.py): a Switch's
// gradient merges its outputs' gradients, each switched again on the predicate; a Merge's
// gradient goes to the input that was live (a Switch on value_index == i), the others'
// being dead. Dead tensors then carry "not taken" back through the branch, as in the
// forward pass. While loops (Enter, Exit, NextIteration, LoopCond) have no gradient: the
// backward pass would have to rebuild their frames.
#include <cstring>
#include <vector>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

bool IsType(TF_Operation* op, const char* type) {
  return std::strcmp(TF_OperationOpType(op), type) == 0;
}

bool IsLoopOp(TF_Operation* op) {
  return IsType(op, "Enter") || IsType(op, "Exit") || IsType(op, "NextIteration") ||
         IsType(op, "LoopCond");
}

void LoopError(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "gradients through v1 while loops (Enter, Exit, NextIteration) are not "
               "supported: build loops with functional control flow (While) to differentiate "
               "them");
}

// Switch(data, pred): each output's gradient switched again on pred (so the one of the
// branch not taken is dead even where it did not depend on that branch), then merged:
// data gets the live one. pred gets none.
void SwitchGrad(GradBuilder& b) {
  const TF_Output pred = b.input(1);
  if (IsLoopOp(pred.oper)) return LoopError(b);
  if (!b.needs(0)) return;
  TF_Operation* on_false = b.Node("Switch", {b.grad(0), pred});
  TF_Operation* on_true = b.Node("Switch", {b.grad(1), pred});
  if (!b.ok()) return;
  TF_Operation* merge =
      b.Node("Merge", {std::vector<TF_Output>{TF_Output{on_false, 0}, TF_Output{on_true, 1}}});
  if (b.ok()) b.Set(0, TF_Output{merge, 0});
}

// Merge(inputs) -> (output, value_index): input i gets the gradient when it was the live
// one (value_index == i), a dead tensor otherwise. A Merge fed by Enter or NextIteration
// is a while loop's.
void MergeGrad(GradBuilder& b) {
  const int n = b.num_inputs();
  for (int i = 0; i < n; ++i)
    if (IsLoopOp(b.input(i).oper)) return LoopError(b);
  for (int i = 0; i < n; ++i) {
    if (!b.needs(i)) continue;
    const TF_Output taken = b.Op("Equal", {b.output(1), b.Int32(i)});
    TF_Operation* sw = b.Node("Switch", {b.grad(0), taken});
    if (b.ok()) b.Set(i, TF_Output{sw, 1});
  }
}

}  // namespace

void RegisterControlFlowGradients() {
  RegisterGrad("Switch", SwitchGrad);
  RegisterGrad("Merge", MergeGrad);
}

}  // namespace gradients
}  // namespace opgen
