/* Stateful random ops through TensorFlow's eager C API alone: RandomUniform with seeds
 * run by TFE_Execute three times (a new TFE_Op each time, as a C binding makes them),
 * once more after TFE_ContextClearCaches, and once in a second context. Prints one
 * "key: bits..." line per run (the float32 values' bits in hex) for
 * test_random_capi.py, which compares them with TensorFlow's eager values. */
#include <stdint.h>
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

enum { kCount = 5 };

static void RunUniform(TFE_Context* ctx, const char* key, TF_Status* s) {
  const int64_t dims[1] = {1};
  TF_Tensor* shape = TF_AllocateTensor(TF_INT32, dims, 1, sizeof(int32_t));
  *(int32_t*)TF_TensorData(shape) = kCount;
  TFE_TensorHandle* shape_h = TFE_NewTensorHandle(shape, s);
  CHECK(s, "TFE_NewTensorHandle");
  TF_DeleteTensor(shape);

  TFE_Op* op = TFE_NewOp(ctx, "RandomUniform", s);
  CHECK(s, "TFE_NewOp");
  TFE_OpAddInput(op, shape_h, s);
  CHECK(s, "TFE_OpAddInput");
  TFE_OpSetAttrType(op, "dtype", TF_FLOAT);
  TFE_OpSetAttrInt(op, "seed", 17);
  TFE_OpSetAttrInt(op, "seed2", 4);
  TFE_TensorHandle* out = NULL;
  int num_out = 1;
  TFE_Execute(op, &out, &num_out, s);
  CHECK(s, "TFE_Execute");
  TF_Tensor* t = TFE_TensorHandleResolve(out, s);
  CHECK(s, "TFE_TensorHandleResolve");
  printf("%s:", key);
  const float* v = (const float*)TF_TensorData(t);
  for (int i = 0; i < kCount; ++i) {
    uint32_t bits;
    memcpy(&bits, &v[i], sizeof(bits));
    printf(" %08x", bits);
  }
  printf("\n");
  TF_DeleteTensor(t);
  TFE_DeleteTensorHandle(out);
  TFE_DeleteOp(op);
  TFE_DeleteTensorHandle(shape_h);
}

static TFE_Context* NewContext(TF_Status* s) {
  TFE_ContextOptions* opts = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(opts, s);
  CHECK(s, "TFE_NewContext");
  TFE_DeleteContextOptions(opts);
  return ctx;
}

int main(void) {
  TF_Status* s = TF_NewStatus();
  TFE_Context* ctx = NewContext(s);
  RunUniform(ctx, "call0", s);
  RunUniform(ctx, "call1", s);
  RunUniform(ctx, "call2", s);
  TFE_ContextClearCaches(ctx);
  RunUniform(ctx, "cleared", s);
  TFE_Context* other = NewContext(s);
  RunUniform(other, "other_context", s);
  TFE_DeleteContext(other);
  TFE_DeleteContext(ctx);
  TF_DeleteStatus(s);
  return 0;
}
