/* The runtime's share of a small eager op, without Python: AddV2 on two 4-element
 * float32 tensors through a resolved kernel (OPGEN_EagerKernelExecute), and the
 * wrapping of two caller buffers as tensors (TF_NewTensor), in ns per call. For the
 * breakdown in RESULTS.md next to bench_eager_dispatch.py, which times the same op
 * from Python against numpy.
 *
 *   cc -O2 benchmarks/bench_eager_kernel.c -Iruntime/include -L"$LIBDIR" -lopgen_runtime \
 *      -Wl,-rpath,"$LIBDIR" -o /tmp/bench_eager_kernel && /tmp/bench_eager_kernel
 *
 * with LIBDIR the folder of libopgen_runtime.so (a CMake build folder, or
 * site-packages/opgen/lib; then also LD_PRELOAD the scipy-openblas32 library). */
#include <stdio.h>
#include <time.h>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/eager/c_api.h"

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void KeepBuffer(void* data, size_t len, void* arg) {}

static int Check(TF_Status* status, const char* what) {
  if (TF_GetCode(status) == TF_OK) return 0;
  fprintf(stderr, "%s: %s\n", what, TF_Message(status));
  return 1;
}

int main(void) {
  TF_Status* status = TF_NewStatus();
  TFE_ContextOptions* options = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(options, status);
  if (Check(status, "TFE_NewContext")) return 1;
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  int64_t dims[1] = {4};
  TF_Tensor* ta = TF_NewTensor(TF_FLOAT, dims, 1, a, sizeof a, KeepBuffer, NULL);
  TF_Tensor* tb = TF_NewTensor(TF_FLOAT, dims, 1, b, sizeof b, KeepBuffer, NULL);
  TFE_TensorHandle* ha = TFE_NewTensorHandle(ta, status);
  TFE_TensorHandle* hb = TFE_NewTensorHandle(tb, status);
  TFE_Op* op = TFE_NewOp(ctx, "AddV2", status);
  TFE_OpAddInput(op, ha, status);
  TFE_OpAddInput(op, hb, status);
  OPGEN_EagerKernel* kernel = OPGEN_NewEagerKernel(op, status);
  if (Check(status, "OPGEN_NewEagerKernel")) return 1;
  TF_Tensor* inputs[2] = {ta, tb};
  const int calls = 1000000;
  for (int repeat = 0; repeat < 5; ++repeat) {
    double start = Now();
    for (int i = 0; i < calls; ++i) {
      TF_Tensor* out;
      OPGEN_EagerKernelExecute(kernel, inputs, 2, &out, 1, status);
      TF_DeleteTensor(out);
    }
    double middle = Now();
    for (int i = 0; i < calls; ++i) {
      TF_Tensor* x = TF_NewTensor(TF_FLOAT, dims, 1, a, sizeof a, KeepBuffer, NULL);
      TF_Tensor* y = TF_NewTensor(TF_FLOAT, dims, 1, b, sizeof b, KeepBuffer, NULL);
      TF_DeleteTensor(x);
      TF_DeleteTensor(y);
    }
    double end = Now();
    printf("kernel execute + delete output: %6.1f ns   wrap + delete two inputs: %6.1f ns\n",
           (middle - start) / calls * 1e9, (end - middle) / calls * 1e9);
  }
  if (Check(status, "OPGEN_EagerKernelExecute")) return 1;
  OPGEN_DeleteEagerKernel(kernel);
  TFE_DeleteOp(op);
  TFE_DeleteTensorHandle(ha);
  TFE_DeleteTensorHandle(hb);
  TF_DeleteTensor(ta);
  TF_DeleteTensor(tb);
  TFE_DeleteContext(ctx);
  TFE_DeleteContextOptions(options);
  TF_DeleteStatus(status);
  return 0;
}
