// libFuzzer target: the tf.Example reader behind ParseExampleV2. The first input byte
// picks the dtypes of the keys; the rest is one serialized Example, parsed in a batch
// beside its first half (a truncated copy).
//
// The promise checked: `TFE_Execute` parses or sets a status with a message, never
// crashes, hangs or leaks; what it returns is consistent: as many sparse indices as
// values, [batch, longest] sparse shapes, row splits from 0 to the number of values, and
// a dense batch of [2, padded length].

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"
#include "tensorflow/c/tf_tstring.h"

static const TF_DataType kValueTypes[] = {TF_FLOAT, TF_INT64, TF_STRING};

static void fail(const char* what, TF_Status* status) {
  fprintf(stderr, "target_parse_example: %s: %s\n", what, status ? TF_Message(status) : "");
  abort();
}

static TFE_Context* g_context;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  TF_Status* status = TF_NewStatus();
  TFE_ContextOptions* options = TFE_NewContextOptions();
  g_context = TFE_NewContext(options, status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewContext", status);
  TFE_DeleteContextOptions(options);
  TF_DeleteStatus(status);
  return 0;
}

// A string vector (or scalar when rank is 0) of `n` strings.
static TFE_TensorHandle* strings(const char* const* values, const size_t* sizes, int n,
                                 int rank, TF_Status* status) {
  int64_t dims[1] = {n};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, rank, (size_t)n * sizeof(TF_TString));
  TF_TString* s = TF_TensorData(t);
  for (int i = 0; i < n; i++) {
    TF_StringInit(&s[i]);
    TF_StringCopy(&s[i], values[i], sizes[i]);
  }
  TFE_TensorHandle* h = TFE_NewTensorHandle(t, status);
  TF_DeleteTensor(t);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewTensorHandle of strings", status);
  return h;
}

// The padding value of a variable-length dense key: a scalar of `dtype`.
static TFE_TensorHandle* padding(TF_DataType dtype, TF_Status* status) {
  if (dtype == TF_STRING) {
    const char* pad = "pad";
    size_t size = 3;
    return strings(&pad, &size, 1, 0, status);
  }
  TF_Tensor* t = TF_AllocateTensor(dtype, NULL, 0, TF_DataTypeSize(dtype));
  memset(TF_TensorData(t), 0, TF_DataTypeSize(dtype));
  TFE_TensorHandle* h = TFE_NewTensorHandle(t, status);
  TF_DeleteTensor(t);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewTensorHandle of a padding value", status);
  return h;
}

static TF_Tensor* resolve(TFE_TensorHandle* h, TF_Status* status) {
  TF_Tensor* t = TFE_TensorHandleResolve(h, status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_TensorHandleResolve of an output", status);
  return t;
}

static void check(TFE_TensorHandle** out, TF_Status* status) {
  // outputs: sparse indices, values, shape; dense values; ragged values, row splits
  TF_Tensor* indices = resolve(out[0], status);
  TF_Tensor* values = resolve(out[1], status);
  TF_Tensor* shape = resolve(out[2], status);
  TF_Tensor* dense = resolve(out[3], status);
  TF_Tensor* ragged = resolve(out[4], status);
  TF_Tensor* splits = resolve(out[5], status);
  if (TF_NumDims(indices) != 2 || TF_Dim(indices, 1) != 2 || TF_Dim(indices, 0) != TF_Dim(values, 0))
    fail("sparse indices do not match the sparse values", NULL);
  const int64_t* sparse_shape = TF_TensorData(shape);
  const int64_t* ix = TF_TensorData(indices);
  for (int64_t i = 0; i < TF_Dim(indices, 0); i++)
    if (ix[2 * i] < 0 || ix[2 * i] >= 2 || ix[2 * i + 1] < 0 || ix[2 * i + 1] >= sparse_shape[1])
      fail("a sparse index outside the sparse shape", NULL);
  if (sparse_shape[0] != 2) fail("a sparse shape whose batch is not 2", NULL);
  if (TF_NumDims(dense) != 2 || TF_Dim(dense, 0) != 2) fail("a dense batch not [2, n]", NULL);
  const int64_t* s = TF_TensorData(splits);
  if (TF_Dim(splits, 0) != 3 || s[0] != 0 || s[1] < 0 || s[1] > s[2] || s[2] != TF_Dim(ragged, 0))
    fail("row splits that do not partition the ragged values", NULL);
  TF_DeleteTensor(indices);
  TF_DeleteTensor(values);
  TF_DeleteTensor(shape);
  TF_DeleteTensor(dense);
  TF_DeleteTensor(ragged);
  TF_DeleteTensor(splits);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  TF_DataType sparse_type = kValueTypes[data[0] % 3];
  TF_DataType dense_type = kValueTypes[(data[0] / 3) % 3];
  TF_DataType ragged_type = kValueTypes[(data[0] / 9) % 3];
  const char* example = (const char*)data + 1;
  size_t example_size = size - 1;

  TF_Status* status = TF_NewStatus();
  const char* serialized[2] = {example, example};
  size_t serialized_sizes[2] = {example_size, example_size / 2};
  const char* key = "a";
  size_t key_size = 1;
  TFE_TensorHandle* inputs[6] = {
      strings(serialized, serialized_sizes, 2, 1, status), strings(NULL, NULL, 0, 1, status),
      strings(&key, &key_size, 1, 1, status), strings(&key, &key_size, 1, 1, status),
      strings(&key, &key_size, 1, 1, status), padding(dense_type, status)};
  TFE_Op* op = TFE_NewOp(g_context, "ParseExampleV2", status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewOp(ParseExampleV2)", status);
  for (int i = 0; i < 5; i++) TFE_OpAddInput(op, inputs[i], status);
  TFE_OpAddInputList(op, inputs + 5, 1, status);
  TFE_OpSetAttrInt(op, "num_sparse", 1);
  TFE_OpSetAttrTypeList(op, "sparse_types", &sparse_type, 1);
  TFE_OpSetAttrTypeList(op, "Tdense", &dense_type, 1);
  TFE_OpSetAttrTypeList(op, "ragged_value_types", &ragged_type, 1);
  TF_DataType split_type = TF_INT64;
  TFE_OpSetAttrTypeList(op, "ragged_split_types", &split_type, 1);
  int64_t variable[1] = {-1};
  const int64_t* shapes[1] = {variable};
  int ranks[1] = {1};
  TFE_OpSetAttrShapeList(op, "dense_shapes", shapes, ranks, 1, status);
  if (TF_GetCode(status) != TF_OK) fail("building the op", status);

  TFE_TensorHandle* outputs[6] = {NULL};
  int num_outputs = 6;
  TFE_Execute(op, outputs, &num_outputs, status);
  if (TF_GetCode(status) != TF_OK) {
    if (TF_Message(status)[0] == '\0') fail("a refusal without a message", status);
  } else {
    if (num_outputs != 6) fail("ParseExampleV2 returned other than 6 outputs", NULL);
    check(outputs, status);
    for (int i = 0; i < 6; i++) TFE_DeleteTensorHandle(outputs[i]);
  }
  for (int i = 0; i < 6; i++) TFE_DeleteTensorHandle(inputs[i]);
  TFE_DeleteOp(op);
  TF_DeleteStatus(status);
  return 0;
}
