/* Builds y = relu(x @ W + b) through TensorFlow's C API, runs it in a session with x
 * fed, and prints y one row per line. Every object made here is freed before exit.
 *
 *   cc graph_example.c -I<include dir> -L<lib dir> -lopgen_runtime -Wl,-rpath,<lib dir>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

#define CHECK(status, what)                                                  \
  do {                                                                       \
    if (TF_GetCode(status) != TF_OK) {                                       \
      fprintf(stderr, "%s failed: %s\n", what, TF_Message(status));          \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

/* A float tensor of `dims` holding a copy of `values`; the caller owns it. */
static TF_Tensor* FloatTensor(const int64_t* dims, int rank, const float* values) {
  size_t count = 1;
  for (int i = 0; i < rank; ++i) count *= (size_t)dims[i];
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, rank, count * sizeof(float));
  memcpy(TF_TensorData(t), values, count * sizeof(float));
  return t;
}

static TF_Operation* Constant(TF_Graph* g, const char* name, TF_Tensor* value, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", value, s); /* copies the tensor */
  CHECK(s, "TF_SetAttrTensor");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK(s, name);
  return op;
}

static TF_Operation* Binary(TF_Graph* g, const char* type, const char* name, TF_Operation* a,
                            TF_Operation* b, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation* op = TF_FinishOperation(d, s);
  CHECK(s, name);
  return op;
}

int main(void) {
  const float x_values[2 * 3] = {1, 2, 3, -4, 0.5f, 6};
  const float w_values[3 * 4] = {0.5f, -1, 2, 0, 1, 0.25f, -0.5f, 1, -1, 0.5f, 1, 2};
  const float b_values[4] = {0.1f, -0.2f, 0.3f, -4};
  const int64_t x_dims[2] = {2, 3}, w_dims[2] = {3, 4}, b_dims[1] = {4};

  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();

  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t x_shape[2] = {-1, 3}; /* any number of rows */
  TF_SetAttrShape(d, "shape", x_shape, 2);
  TF_Operation* x = TF_FinishOperation(d, s);
  CHECK(s, "x");

  TF_Tensor* w_tensor = FloatTensor(w_dims, 2, w_values);
  TF_Tensor* b_tensor = FloatTensor(b_dims, 1, b_values);
  TF_Operation* w = Constant(g, "W", w_tensor, s);
  TF_Operation* b = Constant(g, "b", b_tensor, s);
  TF_DeleteTensor(w_tensor);
  TF_DeleteTensor(b_tensor);

  TF_Operation* xw = Binary(g, "MatMul", "xw", x, w, s);
  TF_Operation* pre = Binary(g, "BiasAdd", "pre", xw, b, s);
  d = TF_NewOperation(g, "Relu", "y");
  TF_AddInput(d, (TF_Output){pre, 0});
  TF_Operation* y = TF_FinishOperation(d, s);
  CHECK(s, "y");

  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, options, s);
  CHECK(s, "TF_NewSession");
  TF_DeleteSessionOptions(options);

  TF_Output feed = {x, 0}, fetch = {y, 0};
  TF_Tensor* x_tensor = FloatTensor(x_dims, 2, x_values);
  TF_Tensor* result = NULL;
  TF_SessionRun(session, NULL, &feed, &x_tensor, 1, &fetch, &result, 1, NULL, 0, NULL, s);
  CHECK(s, "TF_SessionRun");
  TF_DeleteTensor(x_tensor); /* the caller keeps ownership of fed tensors */

  const float* values = (const float*)TF_TensorData(result);
  for (int64_t i = 0; i < TF_Dim(result, 0); ++i) {
    for (int64_t j = 0; j < TF_Dim(result, 1); ++j)
      printf("%s%.6f", j ? " " : "", values[i * TF_Dim(result, 1) + j]);
    printf("\n");
  }
  TF_DeleteTensor(result); /* fetched tensors belong to the caller */

  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
