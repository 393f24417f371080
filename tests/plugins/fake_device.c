/* A device plugin whose "device memory" is host memory stored scrambled (every byte
 * XOR 0x5A), so the runtime's device model can be tested without a GPU: any place
 * where the runtime read or wrote device memory directly, instead of through the
 * device's copy functions, would show up as wrong numbers.
 *
 * It adds FAKE:0 and FAKE:1 and kernels for them:
 *   AddV2 (float)        inputs and output in device memory
 *   Reshape (float)      "shape" in host memory, checked with TF_IsHostMemoryInput;
 *                        the output shares the input's buffer (TF_TensorBitcastFrom)
 *   Shape (float->int32) "output" in host memory
 * Every kernel checks that TF_GetStream returns the stream its device registered with,
 * and TF_GetDeviceId its ordinal. Registration runs from a load-time constructor. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen/device_plugin.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_tensor.h"

#define KEY 0x5A

struct SP_Stream_st {
  int ordinal;
  long queued; /* copies and kernels "queued" on the device */
};

static struct SP_Stream_st streams[2];
static long live_allocations;

static void scramble(void* dst, const void* src, size_t n) {
  const unsigned char* s = (const unsigned char*)src;
  unsigned char* d = (unsigned char*)dst;
  for (size_t i = 0; i < n; ++i) d[i] = s[i] ^ KEY;
}

static void* fake_allocate(void* state, size_t size, TF_Status* status) {
  void* p = malloc(size ? size : 1);
  if (p == NULL) TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "fake device: out of memory");
  else __atomic_add_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  return p;
}
static void fake_deallocate(void* state, void* ptr, size_t size) {
  __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  free(ptr);
}
static void fake_to_device(void* state, void* dst, const void* src, size_t n, TF_Status* s) {
  ((struct SP_Stream_st*)state)->queued++;
  scramble(dst, src, n);
}
static void fake_to_host(void* state, void* dst, const void* src, size_t n, TF_Status* s) {
  ((struct SP_Stream_st*)state)->queued++;
  scramble(dst, src, n);
}
static void fake_within(void* state, void* dst, const void* src, size_t n, TF_Status* s) {
  ((struct SP_Stream_st*)state)->queued++;
  memcpy(dst, src, n);
}
static void fake_synchronize(void* state, TF_Status* status) {}

/* The number of device buffers alive (for leak checks from the tests). */
__attribute__((visibility("default"))) long fake_device_live_allocations(void) {
  return __atomic_load_n(&live_allocations, __ATOMIC_RELAXED);
}

static int check_device(TF_OpKernelContext* ctx) {
  TF_Status* s = TF_NewStatus();
  SP_Stream stream = TF_GetStream(ctx, s);
  int id = TF_GetDeviceId(ctx);
  int ok = TF_GetCode(s) == TF_OK && id >= 0 && id < 2 && stream == &streams[id];
  if (!ok) {
    TF_SetStatus(s, TF_INTERNAL, "fake device: wrong stream or device id");
    TF_OpKernelContext_Failure(ctx, s);
  } else {
    stream->queued++;
  }
  TF_DeleteStatus(s);
  return ok;
}

static void add_compute(void* kernel, TF_OpKernelContext* ctx) {
  if (!check_device(ctx)) return;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL, *z = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &y, s);
  if (TF_GetCode(s) == TF_OK && (TF_IsHostMemoryInput(ctx, 0, s) || TF_IsHostMemoryOutput(ctx, 0, s)))
    TF_SetStatus(s, TF_INTERNAL, "fake device: AddV2 args should be in device memory");
  if (TF_GetCode(s) == TF_OK && TF_TensorElementCount(x) != TF_TensorElementCount(y))
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "fake device: AddV2 needs same-shape inputs");
  if (TF_GetCode(s) == TF_OK) {
    int n = TF_NumDims(x);
    int64_t dims[8];
    for (int i = 0; i < n && i < 8; ++i) dims[i] = TF_Dim(x, i);
    z = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, n, TF_TensorByteSize(x), s);
  }
  if (TF_GetCode(s) == TF_OK) {
    const float* a = (const float*)TF_TensorData(x);
    const float* b = (const float*)TF_TensorData(y);
    float* c = (float*)TF_TensorData(z);
    for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) {
      float u, v, w;
      scramble(&u, &a[i], 4);
      scramble(&v, &b[i], 4);
      w = u + v;
      scramble(&c[i], &w, 4);
    }
  } else {
    TF_OpKernelContext_Failure(ctx, s);
  }
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteTensor(z);
  TF_DeleteStatus(s);
}

static void reshape_compute(void* kernel, TF_OpKernelContext* ctx) {
  if (!check_device(ctx)) return;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *shape = NULL, *out = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &shape, s);
  if (TF_GetCode(s) == TF_OK && (!TF_IsHostMemoryInput(ctx, 1, s) || TF_IsHostMemoryInput(ctx, 0, s)))
    TF_SetStatus(s, TF_INTERNAL, "fake device: Reshape's shape should be in host memory, tensor not");
  if (TF_GetCode(s) == TF_OK) {
    int64_t dims[8], total = 1;
    int n = (int)TF_TensorElementCount(shape);
    const int32_t* v = (const int32_t*)TF_TensorData(shape); /* plain: host memory */
    for (int i = 0; i < n && i < 8; ++i) total *= (dims[i] = v[i]);
    if (n > 8 || total != TF_TensorElementCount(x)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, "fake device: bad Reshape shape");
    } else {
      /* The output shares the input's device buffer: TF_TensorBitcastFrom must keep the
       * buffer's device, or the host would later read scrambled bytes. */
      TF_GetInput(ctx, 0, &out, s);
      if (TF_GetCode(s) == TF_OK) TF_TensorBitcastFrom(x, TF_FLOAT, out, dims, n, s);
      if (TF_GetCode(s) == TF_OK) TF_SetOutput(ctx, 0, out, s);
    }
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(x);
  TF_DeleteTensor(shape);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

static void shape_compute(void* kernel, TF_OpKernelContext* ctx) {
  if (!check_device(ctx)) return;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *out = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK && !TF_IsHostMemoryOutput(ctx, 0, s))
    TF_SetStatus(s, TF_INTERNAL, "fake device: Shape's output should be in host memory");
  if (TF_GetCode(s) == TF_OK) {
    int64_t rank = TF_NumDims(x);
    out = TF_AllocateOutput(ctx, 0, TF_INT32, &rank, 1, (size_t)rank * 4, s);
    if (TF_GetCode(s) == TF_OK)
      for (int i = 0; i < rank; ++i) ((int32_t*)TF_TensorData(out))[i] = (int32_t)TF_Dim(x, i);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(x);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

static void register_kernel(const char* op, void (*compute)(void*, TF_OpKernelContext*),
                            const char* host_arg, TF_Status* s) {
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, "FAKE", NULL, compute, NULL);
  TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, s);
  if (host_arg != NULL) TF_KernelBuilder_HostMemory(b, host_arg);
  if (TF_GetCode(s) == TF_OK) TF_RegisterKernelBuilder(op, b, s);
  else TF_DeleteKernelBuilder(b);
}

__attribute__((constructor)) static void register_fake_device(void) {
  TF_Status* s = TF_NewStatus();
  for (int i = 0; i < 2 && TF_GetCode(s) == TF_OK; ++i) {
    OPGEN_DeviceFunctions fns;
    memset(&fns, 0, sizeof fns);
    streams[i].ordinal = i;
    fns.struct_size = OPGEN_DEVICE_FUNCTIONS_STRUCT_SIZE;
    fns.state = &streams[i];
    fns.allocate = fake_allocate;
    fns.deallocate = fake_deallocate;
    fns.copy_host_to_device = fake_to_device;
    fns.copy_device_to_host = fake_to_host;
    fns.copy_device_to_device = fake_within;
    fns.synchronize = fake_synchronize;
    fns.stream = &streams[i];
    OPGEN_RegisterDevice("FAKE", i, "a scrambling test device", 1 << 20, &fns, s);
  }
  if (TF_GetCode(s) == TF_OK) register_kernel("AddV2", add_compute, NULL, s);
  if (TF_GetCode(s) == TF_OK) register_kernel("Reshape", reshape_compute, "shape", s);
  if (TF_GetCode(s) == TF_OK) register_kernel("Shape", shape_compute, "output", s);
  if (TF_GetCode(s) != TF_OK) fprintf(stderr, "fake device: %s\n", TF_Message(s));
  TF_DeleteStatus(s);
}
