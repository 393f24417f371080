// CheckNumerics(V2), EnsureShape and Snapshot on the GPU. Twin of ../cpu/debug.cc: the
// scan for NaN and Inf runs on the device and sets bits of one word, which the host reads
// to build TensorFlow's message (../debug_spec.h).
#include <cmath>

#include "../debug_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T>
__global__ void ScanNumerics(const T* __restrict__ x, int64_t n, unsigned* found) {
  unsigned bits = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const auto v = Widen(x[i]);
    if (isnan(v)) bits |= kernels::kFoundNaN;
    else if (isinf(v)) bits |= v > 0 ? kernels::kFoundPosInf : kernels::kFoundNegInf;
  }
  if (bits) atomicOr(found, bits);
}

bool Forward(TF_OpKernelContext* ctx, TF_Tensor* input) {
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, input, s);
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

template <typename T, bool kV2>
struct CheckNumericsKernel {
  static void Compute(void* attrs, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    const int64_t n = TF_TensorElementCount(input.get());
    unsigned found = 0;
    if (n > 0) {
      cudaStream_t stream = GetStream(ctx);
      if (stream == nullptr) return;
      TensorPtr flag = AllocateTemp(ctx, TF_UINT32, {1});
      if (!flag) return;
      unsigned* d_found = Data<unsigned>(flag);
      if (!CheckCuda(ctx, cudaMemsetAsync(d_found, 0, sizeof(unsigned), stream), "CheckNumerics"))
        return;
      ScanNumerics<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(input), n, d_found);
      if (!CheckLaunch(ctx, "CheckNumerics")) return;
      if (!CheckCuda(ctx, cudaMemcpyAsync(&found, d_found, sizeof(unsigned),
                                          cudaMemcpyDeviceToHost, stream), "CheckNumerics") ||
          !CheckCuda(ctx, cudaStreamSynchronize(stream), "CheckNumerics"))
        return;
    }
    if (found)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  kernels::NumericsMessage(found, kV2, *static_cast<std::string*>(attrs)));
    Forward(ctx, input.get());
  }
};

void EnsureShapeCompute(void* attrs, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  if (kernels::CheckExpectedShape(ctx, *static_cast<kernels::ExpectedShape*>(attrs),
                                  Dims(input.get())))
    Forward(ctx, input.get());
}

void SnapshotCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  TensorPtr out = AllocateOutput(ctx, 0, TF_TensorType(input.get()), Dims(input.get()));
  const size_t bytes = TF_TensorByteSize(input.get());
  if (!out || bytes == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(out.get()), TF_TensorData(input.get()), bytes,
                                 cudaMemcpyDeviceToDevice, stream), "Snapshot");
}

template <typename T> using CheckV1 = CheckNumericsKernel<T, false>;
template <typename T> using CheckV2 = CheckNumericsKernel<T, true>;

template <typename... Ts>
void RegisterChecks(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CheckNumerics", {{"T", DtypeOf<Ts>::value}}, {}, &CheckV1<Ts>::Compute,
                            kernels::CreateMessage, kernels::DeleteMessage}, status), ...);
  (RegisterKernel(kDevice, {"CheckNumericsV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &CheckV2<Ts>::Compute, kernels::CreateMessage,
                            kernels::DeleteMessage}, status), ...);
}

}  // namespace

void RegisterDebugKernels(TF_Status* status) {
  RegisterChecks(Types<float, double, __half, __nv_bfloat16>(), status);
  for (TF_DataType t : kDataTypes) {
    RegisterKernel(kDevice, {"EnsureShape", {{"T", t}}, {}, EnsureShapeCompute,
                             kernels::CreateExpectedShape, kernels::DeleteExpectedShape}, status);
    RegisterKernel(kDevice, {"Snapshot", {{"T", t}}, {}, SnapshotCompute}, status);
  }
}

}  // namespace cuda
}  // namespace opgen
