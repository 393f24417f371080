// libFuzzer target: eager ops with whatever attrs and inputs the bytes describe.
//
// The input is read as a small program: an op type from a table of ops whose attrs
// steer shapes and loops, up to four input tensors (dtype, rank, dims, values all from
// the bytes), then attr setter calls (setter kind, attr name from a table, value), and
// the capacity of the output array. The promise checked: `TFE_Execute` runs the op or
// sets a status with a message; an output it returns resolves to a tensor whose byte
// size matches its dims and dtype; nothing crashes, hangs or leaks.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"

static const char* const kOps[] = {
    "Reshape", "Fill", "Range", "Tile", "Pad", "MirrorPad", "Unpack", "Pack", "ConcatV2",
    "Split", "SplitV", "Cast", "MaxPool", "AvgPool", "Conv2D", "DepthwiseConv2dNative",
    "Conv2DBackpropInput", "Conv3D", "StridedSlice", "Slice", "Transpose", "OneHot", "Sum",
    "Mean", "Prod", "ArgMax", "BiasAdd", "MatMul", "BatchMatMulV2", "Einsum", "Softmax",
    "Relu", "ExpandDims", "Squeeze", "GatherV2", "Const", "AddN", "SelectV2", "TopKV2",
    "FusedBatchNormV3", "ResizeBilinear", "ResizeNearestNeighbor", "Cumsum", "SpaceToDepth",
    "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND", "BroadcastTo", "Where", "Shape",
    "IdentityN", "Add", "FloorMod", "Pow", "ClipByValue", "LeakyRelu", "Identity"};
enum { kNumOps = sizeof kOps / sizeof *kOps };

static const char* const kAttrNames[] = {
    "T", "Tidx", "Tshape", "N", "axis", "num", "ksize", "strides", "padding", "data_format",
    "dilations", "SrcT", "DstT", "Truncate", "begin_mask", "end_mask", "ellipsis_mask",
    "new_axis_mask", "shrink_axis_mask", "keep_dims", "output_type", "transpose_a",
    "transpose_b", "explicit_paddings", "Tpaddings", "Tmultiples", "Index", "TI",
    "num_split", "Tperm", "value", "dtype", "shape", "mode", "batch_dims", "Tindices",
    "Tparams", "Taxis", "epsilon", "is_training", "align_corners", "half_pixel_centers",
    "exclusive", "reverse", "block_size", "squeeze_dims", "equation", "k", "sorted",
    "alpha", "Tlen", "out_type", "adj_x", "adj_y", "U", "exponential_avg_factor", "bogus"};
enum { kNumAttrNames = sizeof kAttrNames / sizeof *kAttrNames };

static const TF_DataType kDtypes[] = {TF_FLOAT, TF_INT32, TF_INT64, TF_DOUBLE, TF_BOOL,
                                      TF_UINT8, TF_INT8, TF_INT16, TF_HALF, TF_BFLOAT16,
                                      TF_UINT16, TF_UINT32, TF_UINT64, TF_COMPLEX64};
enum { kNumDtypes = sizeof kDtypes / sizeof *kDtypes };

typedef struct { const uint8_t* data; size_t size, pos; } Reader;

static uint8_t byte(Reader* r) { return r->pos < r->size ? r->data[r->pos++] : 0; }
static bool more(const Reader* r) { return r->pos < r->size; }

// Mostly small numbers (shapes, axes, counts); one time in eight eight raw bytes, which
// reach the extremes (negative, INT64_MIN, 2^62 + 1).
static int64_t number(Reader* r) {
  uint8_t b = byte(r);
  if (b < 224) return (int64_t)b % 16 - 4;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | byte(r);
  return (int64_t)v;
}

static void fail(const char* what, TF_Status* status) {
  fprintf(stderr, "target_eager_attrs: %s: %s\n", what, status ? TF_Message(status) : "");
  abort();
}

static TFE_Context* g_context;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
#if !defined(__SANITIZE_ADDRESS__)
  // Without ASan's allocator limit, a tensor of absurd size must still fail to allocate.
  struct rlimit limit = {8ull << 30, 8ull << 30};
  setrlimit(RLIMIT_AS, &limit);
#endif
  TF_Status* status = TF_NewStatus();
  TFE_ContextOptions* options = TFE_NewContextOptions();
  g_context = TFE_NewContext(options, status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewContext", status);
  TFE_DeleteContextOptions(options);
  TF_DeleteStatus(status);
  return 0;
}

// A tensor of 0 to 4 dims of 0 to 5 elements each, filled from the input's bytes.
static TFE_TensorHandle* make_input(Reader* r, TF_Status* status) {
  TF_DataType dtype = kDtypes[byte(r) % kNumDtypes];
  int rank = byte(r) % 5;
  int64_t dims[4];
  size_t elements = 1;
  for (int i = 0; i < rank; i++) elements *= (size_t)(dims[i] = byte(r) % 6);
  TF_Tensor* tensor = TF_AllocateTensor(dtype, dims, rank, elements * TF_DataTypeSize(dtype));
  if (!tensor) return NULL;
  uint8_t* bytes = TF_TensorData(tensor);
  size_t n = TF_TensorByteSize(tensor);
  for (size_t i = 0; i < n; i++) bytes[i] = byte(r);
  if (dtype == TF_BOOL)
    for (size_t i = 0; i < n; i++) bytes[i] &= 1;  // a bool is 0 or 1
  TFE_TensorHandle* handle = TFE_NewTensorHandle(tensor, status);
  TF_DeleteTensor(tensor);
  return TF_GetCode(status) == TF_OK ? handle : NULL;
}

static void set_attr(TFE_Op* op, Reader* r, TF_Status* status) {
  uint8_t kind = byte(r) % 12;
  const char* name = kAttrNames[byte(r) % kNumAttrNames];
  int64_t ints[6];
  float floats[6];
  unsigned char bools[6];
  TF_DataType types[6];
  int count = byte(r) % 7;
  for (int i = 0; i < count; i++) {
    ints[i] = number(r);
    floats[i] = (float)ints[i] / 4.0f;
    bools[i] = byte(r) & 1;
    types[i] = (TF_DataType)(byte(r) % 32);  // some are not dtypes at all
  }
  switch (kind) {
    case 0: TFE_OpSetAttrInt(op, name, number(r)); break;
    case 1: TFE_OpSetAttrFloat(op, name, (float)number(r) / 8.0f); break;
    case 2: TFE_OpSetAttrBool(op, name, byte(r)); break;
    case 3: TFE_OpSetAttrType(op, name, (TF_DataType)(byte(r) % 32)); break;
    case 4: TFE_OpSetAttrIntList(op, name, ints, count); break;
    case 5: TFE_OpSetAttrFloatList(op, name, floats, count); break;
    case 6: TFE_OpSetAttrBoolList(op, name, bools, count); break;
    case 7: TFE_OpSetAttrTypeList(op, name, types, count); break;
    case 8: TFE_OpSetAttrShape(op, name, ints, byte(r) & 1 ? -1 : count, status); break;
    case 9: {
      const int64_t* dims[2] = {ints, ints + count / 2};
      int ranks[2] = {count / 2, count - count / 2};
      TFE_OpSetAttrShapeList(op, name, dims, ranks, byte(r) % 3, status);
      break;
    }
    case 10: {
      static const char* const kStrings[] = {"SAME", "VALID", "EXPLICIT", "NHWC", "NCHW",
                                             "REFLECT", "SYMMETRIC", "ij,jk->ik", "", "x"};
      const char* s = kStrings[byte(r) % 10];
      TFE_OpSetAttrString(op, name, s, strlen(s));
      break;
    }
    default: {
      int64_t dims[1] = {count};
      TF_Tensor* value = TF_AllocateTensor(TF_INT64, dims, 1, (size_t)count * 8);
      if (value) {
        memcpy(TF_TensorData(value), ints, (size_t)count * 8);
        TFE_OpSetAttrTensor(op, name, value, status);
        TF_DeleteTensor(value);
      }
      break;
    }
  }
  TF_SetStatus(status, TF_OK, "");  // a setter's refusal is reported again by TFE_Execute
}

static void check_output(TFE_TensorHandle* handle, TF_Status* status) {
  TF_Tensor* tensor = TFE_TensorHandleResolve(handle, status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_TensorHandleResolve of an output", status);
  size_t elements = 1;
  for (int i = 0; i < TF_NumDims(tensor); i++) {
    if (TF_Dim(tensor, i) < 0) fail("an output with a negative dim", NULL);
    elements *= (size_t)TF_Dim(tensor, i);
  }
  size_t element_size = TF_DataTypeSize(TF_TensorType(tensor));
  if (element_size && TF_TensorByteSize(tensor) != elements * element_size)
    fail("an output whose byte size does not match its dims", NULL);
  TF_DeleteTensor(tensor);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r = {data, size, 0};
  TF_Status* status = TF_NewStatus();
  TFE_Op* op = TFE_NewOp(g_context, kOps[byte(&r) % kNumOps], status);
  if (TF_GetCode(status) != TF_OK) fail("TFE_NewOp of a built-in op", status);

  TFE_TensorHandle* inputs[4] = {NULL};
  int num_inputs = byte(&r) % 5;
  for (int i = 0; i < num_inputs; i++) {
    inputs[i] = make_input(&r, status);
    TF_SetStatus(status, TF_OK, "");
  }
  for (int i = 0; i < num_inputs;) {
    int list = byte(&r) % 3;  // 0: one input; else a list of up to `list + 1`
    if (!inputs[i]) { i++; continue; }
    if (list == 0) {
      TFE_OpAddInput(op, inputs[i++], status);
    } else {
      int n = 0;
      while (n <= list && i + n < num_inputs && inputs[i + n]) n++;
      TFE_OpAddInputList(op, inputs + i, n, status);
      i += n;
    }
    TF_SetStatus(status, TF_OK, "");
  }
  for (int calls = 0; calls < 12 && more(&r); calls++) set_attr(op, &r, status);

  TFE_TensorHandle* outputs[8] = {NULL};
  int num_outputs = 1 + byte(&r) % 8;
  TFE_Execute(op, outputs, &num_outputs, status);
  if (TF_GetCode(status) != TF_OK) {
    if (TF_Message(status)[0] == '\0') fail("a refusal without a message", status);
  } else {
    if (num_outputs < 0 || num_outputs > 8) fail("TFE_Execute returned too many outputs", NULL);
    for (int i = 0; i < num_outputs; i++) {
      if (!outputs[i]) fail("TFE_Execute returned a NULL output", NULL);
      check_output(outputs[i], status);
      TFE_DeleteTensorHandle(outputs[i]);
    }
  }
  for (int i = 0; i < num_inputs; i++)
    if (inputs[i]) TFE_DeleteTensorHandle(inputs[i]);
  TFE_DeleteOp(op);
  TF_DeleteStatus(status);
  return 0;
}
