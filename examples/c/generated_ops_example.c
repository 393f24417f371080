/* graph_example.c again, with the generated C ops (opgen_ops.h) in place of hand-made
 * operation descriptions: builds y = relu(x @ W + b), runs it in a session with x fed,
 * and prints y one row per line. Every object made here is freed before exit.
 *
 *   cc generated_ops_example.c <generated>/c/opgen_ops.c -I<generated>/c \
 *      $(opgen config --cflags) $(opgen config --libs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_ops.h"

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

int main(void) {
  const float x_values[2 * 3] = {1, 2, 3, -4, 0.5f, 6};
  const float w_values[3 * 4] = {0.5f, -1, 2, 0, 1, 0.25f, -0.5f, 1, -1, 0.5f, 1, 2};
  const float b_values[4] = {0.1f, -0.2f, 0.3f, -4};
  const int64_t x_dims[2] = {2, 3}, w_dims[2] = {3, 4}, b_dims[1] = {4};

  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();

  /* Optional attrs: start from the defaults, change what differs. */
  opgen_PlaceholderAttrs x_attrs;
  opgen_PlaceholderAttrsInit(&x_attrs);
  const int64_t x_shape[2] = {-1, 3}; /* any number of rows */
  x_attrs.shape = x_shape;
  x_attrs.shape_num_dims = 2;
  TF_Output x, w, b, xw, pre, y;
  opgen_Placeholder(g, "x", TF_FLOAT, &x_attrs, &x, s);
  CHECK(s, "x");

  TF_Tensor* w_tensor = FloatTensor(w_dims, 2, w_values);
  TF_Tensor* b_tensor = FloatTensor(b_dims, 1, b_values);
  opgen_Const(g, "W", w_tensor, TF_FLOAT, &w, s); /* copies the tensor */
  CHECK(s, "W");
  opgen_Const(g, "b", b_tensor, TF_FLOAT, &b, s);
  CHECK(s, "b");
  TF_DeleteTensor(w_tensor);
  TF_DeleteTensor(b_tensor);

  opgen_MatMul(g, NULL, x, w, NULL, &xw, s); /* NULL attrs: no transposes */
  CHECK(s, "MatMul");
  opgen_BiasAdd(g, NULL, xw, b, NULL, &pre, s);
  CHECK(s, "BiasAdd");
  opgen_Relu(g, "y", pre, &y, s);
  CHECK(s, "y");

  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, options, s);
  CHECK(s, "TF_NewSession");
  TF_DeleteSessionOptions(options);

  TF_Tensor* x_tensor = FloatTensor(x_dims, 2, x_values);
  TF_Tensor* result = NULL;
  TF_SessionRun(session, NULL, &x, &x_tensor, 1, &y, &result, 1, NULL, 0, NULL, s);
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
