/* Resource variables through TensorFlow's C API alone (what C, C++, Rust and Go bindings
 * call): a graph with VarHandleOp / AssignVariableOp / AssignAddVariableOp /
 * ReadVariableOp and a NoOp train op run by sessions, and the same ops run eagerly.
 * Prints one "key: values" line per check for test_resource_variables_c.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"

#define CHECK(status, what)                                                  \
  do {                                                                       \
    if (TF_GetCode(status) != TF_OK) {                                       \
      fprintf(stderr, "%s failed: %s\n", what, TF_Message(status));          \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

static TF_Tensor* FloatVector(int n, const float* values) {
  const int64_t dims[1] = {n};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 1, n * sizeof(float));
  memcpy(TF_TensorData(t), values, n * sizeof(float));
  return t;
}

static TF_Operation* Const(TF_Graph* g, const char* name, TF_Tensor* value, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", value, s);
  CHECK(s, "TF_SetAttrTensor");
  TF_SetAttrType(d, "dtype", TF_TensorType(value));
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK(s, name);
  TF_DeleteTensor(value);
  return op;
}

static TF_Operation* Update(TF_Graph* g, const char* type, const char* name, TF_Operation* var,
                            TF_Operation* value, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){var, 0});
  TF_AddInput(d, (TF_Output){value, 0});
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK(s, name);
  return op;
}

static void PrintFloats(const char* key, TF_Tensor* t) {
  printf("%s:", key);
  const float* v = (const float*)TF_TensorData(t);
  for (int64_t i = 0; i < TF_TensorElementCount(t); ++i) printf(" %.6f", v[i]);
  printf("\n");
}

/* Runs `session` for `fetch` (or only `target`); prints the values or the error code. */
static void Run(TF_Session* session, const char* key, TF_Operation* fetch, TF_Operation* target,
                TF_Status* s) {
  TF_Output out = {fetch, 0};
  TF_Tensor* value = NULL;
  const TF_Operation* targets[1] = {target};
  TF_SessionRun(session, NULL, NULL, NULL, 0, fetch ? &out : NULL, fetch ? &value : NULL,
                fetch ? 1 : 0, target ? targets : NULL, target ? 1 : 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) {
    printf("%s: error %d %s\n", key, (int)TF_GetCode(s), TF_Message(s));
    return;
  }
  if (value != NULL) {
    PrintFloats(key, value);
    TF_DeleteTensor(value);
  } else {
    printf("%s: ok\n", key);
  }
}

static TFE_TensorHandle* Eager(TFE_Context* ctx, const char* type, TFE_TensorHandle* a,
                               TFE_TensorHandle* b, TF_Status* s) {
  TFE_Op* op = TFE_NewOp(ctx, type, s);
  CHECK(s, type);
  if (strcmp(type, "VarHandleOp") == 0) {
    const int64_t dims[1] = {2};
    TFE_OpSetAttrType(op, "dtype", TF_FLOAT);
    TFE_OpSetAttrShape(op, "shape", dims, 1, s);
    TFE_OpSetAttrString(op, "shared_name", "v", 1);
  }
  if (strcmp(type, "ReadVariableOp") == 0) TFE_OpSetAttrType(op, "dtype", TF_FLOAT);
  if (a != NULL) TFE_OpAddInput(op, a, s);
  if (b != NULL) TFE_OpAddInput(op, b, s);
  TFE_TensorHandle* result = NULL;
  int num_results = 1;
  TFE_Execute(op, &result, &num_results, s);
  TFE_DeleteOp(op);
  return TF_GetCode(s) == TF_OK && num_results == 1 ? result : NULL;
}

int main(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();

  TF_OperationDescription* d = TF_NewOperation(g, "VarHandleOp", "w");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t shape[1] = {2};
  TF_SetAttrShape(d, "shape", shape, 1);
  TF_SetAttrString(d, "shared_name", "w", 1);
  TF_Operation* w = TF_FinishOperation(d, s);
  CHECK(s, "w");

  const float init_values[2] = {1, 2}, delta_values[2] = {0.5f, 0.25f};
  TF_Operation* init_value = Const(g, "init_value", FloatVector(2, init_values), s);
  TF_Operation* delta = Const(g, "delta", FloatVector(2, delta_values), s);
  TF_Operation* init = Update(g, "AssignVariableOp", "init", w, init_value, s);
  TF_Operation* add = Update(g, "AssignAddVariableOp", "add", w, delta, s);
  d = TF_NewOperation(g, "NoOp", "train");
  TF_AddControlInput(d, add);
  TF_Operation* train = TF_FinishOperation(d, s);
  CHECK(s, "train");
  d = TF_NewOperation(g, "ReadVariableOp", "read");
  TF_AddInput(d, (TF_Output){w, 0});
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* read = TF_FinishOperation(d, s);
  CHECK(s, "read");
  int32_t wrong = 7;
  TF_Tensor* wrong_tensor = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof wrong);
  memcpy(TF_TensorData(wrong_tensor), &wrong, sizeof wrong);
  TF_Operation* wrong_value = Const(g, "wrong_value", wrong_tensor, s);
  TF_Operation* assign_wrong = Update(g, "AssignVariableOp", "assign_wrong", w, wrong_value, s);

  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Session* first = TF_NewSession(g, options, s);
  CHECK(s, "TF_NewSession");
  TF_Session* second = TF_NewSession(g, options, s);
  CHECK(s, "TF_NewSession");
  TF_DeleteSessionOptions(options);

  Run(first, "before_init", read, NULL, s);
  Run(first, "init", NULL, init, s);
  for (int i = 0; i < 3; ++i) Run(first, "train", NULL, train, s);
  Run(first, "after_3_steps", read, NULL, s);
  Run(second, "other_session", read, NULL, s);
  Run(first, "wrong_dtype", NULL, assign_wrong, s);
  Run(first, "still", read, NULL, s);

  TF_CloseSession(first, s);
  TF_DeleteSession(first, s);
  TF_CloseSession(second, s);
  TF_DeleteSession(second, s);
  TF_DeleteGraph(g);

  /* Eagerly: the context keeps the variable between ops. */
  TFE_ContextOptions* opts = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(opts, s);
  CHECK(s, "TFE_NewContext");
  TFE_DeleteContextOptions(opts);
  TFE_TensorHandle* handle = Eager(ctx, "VarHandleOp", NULL, NULL, s);
  CHECK(s, "VarHandleOp");
  TFE_TensorHandle* missing = Eager(ctx, "ReadVariableOp", handle, NULL, s);
  printf("eager_uninitialized: %d %s\n", (int)TF_GetCode(s), missing ? "" : TF_Message(s));
  TF_Tensor* t = FloatVector(2, init_values);
  TFE_TensorHandle* value = TFE_NewTensorHandle(t, s);
  TF_DeleteTensor(t);
  Eager(ctx, "AssignVariableOp", handle, value, s);
  CHECK(s, "AssignVariableOp");
  t = FloatVector(2, delta_values);
  TFE_TensorHandle* step = TFE_NewTensorHandle(t, s);
  TF_DeleteTensor(t);
  Eager(ctx, "AssignSubVariableOp", handle, step, s);
  CHECK(s, "AssignSubVariableOp");
  TFE_TensorHandle* now = Eager(ctx, "ReadVariableOp", handle, NULL, s);
  CHECK(s, "ReadVariableOp");
  t = TFE_TensorHandleResolve(now, s);
  CHECK(s, "resolve");
  PrintFloats("eager_after_sub", t);
  TF_DeleteTensor(t);
  printf("eager_handle_dtype: %d\n", (int)TFE_TensorHandleDataType(handle));
  Eager(ctx, "DestroyResourceOp", handle, NULL, s);
  CHECK(s, "DestroyResourceOp");
  TFE_DeleteTensorHandle(Eager(ctx, "ReadVariableOp", handle, NULL, s));
  printf("eager_destroyed: %d\n", (int)TF_GetCode(s));
  TFE_DeleteTensorHandle(now);
  TFE_DeleteTensorHandle(step);
  TFE_DeleteTensorHandle(value);
  TFE_DeleteTensorHandle(handle);
  TFE_DeleteContext(ctx);
  TF_DeleteStatus(s);
  return 0;
}
