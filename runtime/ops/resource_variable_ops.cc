// Resource variables, with TensorFlow's OpDefs: a VarHandleOp names a variable of the
// session's (or eager context's) resource manager; the other ops read, assign, update,
// test and delete it through that handle. Every op with a resource arg is stateful, so
// constant folding leaves them alone.
#include "op_table.h"

namespace opgen {

namespace {

// ReadVariableOp's value: its shape is the variable's, unknown while the graph is built.
void UnknownOutputShape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* unknown = TF_NewShapeHandle();
  TF_ShapeInferenceContextSetOutput(ctx, 0, unknown, status);
  TF_DeleteShapeHandle(unknown);
}

OpRegistration UpdateOp(const char* name, const char* summary) {
  return OpRegistration{
      name, {"dtype: type"}, {"resource: resource", "value: dtype"}, {},
      shape_fns::kNoOutputs, summary,
      "The variable must hold a value of `value`'s dtype and shape (NOT_FOUND when it does "
      "not exist); readers that ran before keep the value they read.",
      {{"resource", "The handle of the variable."}, {"value", "The operand."},
       {"dtype", "The dtype of the variable's value."}}};
}

}  // namespace

void RegisterResourceVariableOps(TF_Status* status) {
  RegisterOps({
      {"VarHandleOp",
       {"container: string = ''", "shared_name: string = ''", "debug_name: string = ''",
        "dtype: type", "shape: shape", "allowed_devices: list(string) = []"},
       {}, {"resource: resource"}, shape_fns::kScalar,
       "Makes a handle to the variable (container, shared_name) of the resource manager.",
       "The variable itself is made by its first assignment. An empty container is "
       "\"localhost\"; the shared_name \"cd2c89b7-88b7-44c8-ad83-06c2a9158347\" names a new "
       "variable on every run.",
       {{"resource", "A scalar resource handle."},
        {"container", "The container of the variable."},
        {"shared_name", "The name of the variable."},
        {"debug_name", "A name for messages."},
        {"dtype", "The dtype of the variable's value."},
        {"shape", "The shape of the variable's value (may be partly unknown)."},
        {"allowed_devices", "Devices the handle may be used on (not enforced)."}}},
      {"VariableShape", {"out_type: {int32, int64} = DT_INT32"}, {"input: resource"},
       {"output: out_type"}, shape_fns::kVariableShape,
       "Returns the shape of the variable that `input` names.",
       "FAILED_PRECONDITION when the variable was never assigned.",
       {{"input", "The handle of the variable."}, {"output", "Its dimensions."}}},
      {"ReadVariableOp", {"dtype: type"}, {"resource: resource"}, {"value: dtype"},
       UnknownOutputShape, "Reads the value of a variable.",
       "FAILED_PRECONDITION when the variable was never assigned. The value read is a "
       "snapshot: later assignments do not change it.",
       {{"resource", "The handle of the variable."}, {"value", "The variable's value."},
        {"dtype", "The dtype of the variable's value."}}},
      {"AssignVariableOp", {"dtype: type", "validate_shape: bool = false"},
       {"resource: resource", "value: dtype"}, {}, shape_fns::kNoOutputs,
       "Sets the value of a variable, making the variable if needed.",
       "A variable that holds a value keeps its dtype; its shape may change unless "
       "`validate_shape`.",
       {{"resource", "The handle of the variable."}, {"value", "The new value."},
        {"dtype", "The dtype of the value."},
        {"validate_shape", "Refuse a value whose shape differs from the current one."}}},
      UpdateOp("AssignAddVariableOp", "Adds `value` to a variable."),
      UpdateOp("AssignSubVariableOp", "Subtracts `value` from a variable."),
      {"VarIsInitializedOp", {}, {"resource: resource"}, {"is_initialized: bool"},
       shape_fns::kScalar, "Whether a variable has been assigned a value.", "",
       {{"resource", "The handle of the variable."},
        {"is_initialized", "True when the variable holds a value."}}},
      {"DestroyResourceOp", {"ignore_lookup_error: bool = true"}, {"resource: resource"}, {},
       shape_fns::kNoOutputs, "Deletes the resource a handle names.",
       "Ops running on it finish with the value they hold.",
       {{"resource", "The handle of the resource."},
        {"ignore_lookup_error", "Succeed when the resource does not exist."}}},
      {"DisableCopyOnRead", {}, {"resource: resource"}, {}, shape_fns::kNoOutputs,
       "Turns off a variable's copy-on-read mode.",
       "TensorFlow's SavedModels run it before saving a variable. opgen's variables "
       "have no such mode: the op does nothing.",
       {{"resource", "The handle of the variable."}}},
  }, status);
}

}  // namespace opgen
