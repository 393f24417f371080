// Function calls and functional control flow: PartitionedCall, StatefulPartitionedCall,
// If, StatelessIf, Case, StatelessCase, While and StatelessWhile. Their meaning lives in
// the runtime's call kernels (runtime/src/function_call.h), which instantiate the
// functions their func attrs name from the graph's library; here are their signatures.
// Output shapes are left unknown (they are whatever the called functions make), but for
// a loop's ranks.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

void UnknownOutputs(ShapeFnContext&) {}

// A loop variable keeps its rank (the loop refuses a body that changes it) but its dims
// may change from one iteration to the next.
void LoopVariableRanks(ShapeFnContext& c) {
  for (int i = 0; i < c.num_inputs() && i < c.num_outputs(); ++i) {
    const PartialShape in = c.Input(i);
    c.SetOutput(i, in.rank_known ? PartialShape::UnknownDims(in.rank()) : PartialShape::Unknown());
  }
}

OpRegistration Call(const char* name, bool stateful) {
  OpRegistration op{
      name,
      {"Tin: list(type) >= 0", "Tout: list(type) >= 0", "f: func", "config: string = ''",
       "config_proto: string = ''", "executor_type: string = ''"},
      {"args: Tin"}, {"output: Tout"}, ShapeFn<UnknownOutputs>,
      "Calls the function `f` on `args`.",
      "`f` names a function of the graph's library (or the eager context's); it is "
      "instantiated once per node and run on the caller's resources.",
      {{"args", "The function's arguments."}, {"output", "The function's results."},
       {"Tin", "The types of the arguments."}, {"Tout", "The types of the results."},
       {"f", "The function to call."}, {"config", "Unused (a TensorFlow executor setting)."},
       {"config_proto", "Unused (a serialized ConfigProto for the call)."},
       {"executor_type", "Unused (which TensorFlow executor runs the call)."}}};
  op.is_stateful = stateful;
  op.is_distributed_communication = stateful;  // as TensorFlow 2.21 marks it
  return op;
}

OpRegistration IfOp(const char* name, bool stateful) {
  OpRegistration op{
      name,
      {"Tcond: type", "Tin: list(type) >= 0", "Tout: list(type) >= 0", "then_branch: func",
       "else_branch: func", "output_shapes: list(shape) = []"},
      {"cond: Tcond", "input: Tin"}, {"output: Tout"}, ShapeFn<UnknownOutputs>,
      "Calls `then_branch` or `else_branch` on `input`, as `cond` says.",
      "A non-scalar `cond` is true when it has elements; a scalar is true when it is not "
      "zero (a string: not empty).",
      {{"cond", "Which branch runs."}, {"input", "The branch's arguments."},
       {"output", "The branch's results."}, {"Tcond", "The type of `cond`."},
       {"Tin", "The types of the arguments."}, {"Tout", "The types of the results."},
       {"then_branch", "The function called when `cond` is true."},
       {"else_branch", "The function called when `cond` is false."},
       {"output_shapes", "The shapes of the results, when known."}}};
  op.is_stateful = stateful;
  return op;
}

OpRegistration WhileOp(const char* name, bool stateful) {
  OpRegistration op{
      name,
      {"T: list(type) >= 0", "cond: func", "body: func", "output_shapes: list(shape) = []",
       "parallel_iterations: int = 10"},
      {"input: T"}, {"output: T"}, ShapeFn<LoopVariableRanks>,
      "Runs `body` on the loop variables while `cond` of them is true.",
      "`cond` takes the loop variables and returns one tensor, read as If reads its "
      "condition; `body` takes them and returns their next values, of the same types "
      "and ranks.",
      {{"input", "The loop variables' first values."}, {"output", "Their last values."},
       {"T", "The types of the loop variables."},
       {"cond", "The function that says whether another iteration runs."},
       {"body", "The function that computes the next values."},
       {"output_shapes", "The shapes of the results, when known."},
       {"parallel_iterations", "Unused: iterations run one after another."}}};
  op.is_stateful = stateful;
  return op;
}

OpRegistration CaseOp(const char* name, bool stateful) {
  OpRegistration op{
      name,
      {"Tin: list(type) >= 0", "Tout: list(type) >= 0", "branches: list(func) >= 1",
       "output_shapes: list(shape) = []"},
      {"branch_index: int32", "input: Tin"}, {"output: Tout"}, ShapeFn<UnknownOutputs>,
      "Calls the function `branches[branch_index]` on `input`.",
      "An index out of range calls the last branch.",
      {{"branch_index", "A scalar: which branch runs."}, {"input", "The branch's arguments."},
       {"output", "The branch's results."}, {"Tin", "The types of the arguments."},
       {"Tout", "The types of the results."}, {"branches", "The functions to choose from."},
       {"output_shapes", "The shapes of the results, when known."}}};
  op.is_stateful = stateful;
  return op;
}

}  // namespace

void RegisterFunctionalOps(TF_Status* status) {
  RegisterOps({Call("PartitionedCall", false), Call("StatefulPartitionedCall", true),
               IfOp("If", true), IfOp("StatelessIf", false), CaseOp("Case", true),
               CaseOp("StatelessCase", false),
               WhileOp("While", true), WhileOp("StatelessWhile", false)},
              status);
}

}  // namespace opgen
