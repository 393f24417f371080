// FusedBatchNormGrad, V2 and V3 on the GPU, both layouts: per-channel sums of dy and
// dy * (x - mean) (scaled first in training; one block per channel, in double), then one
// thread per element of x_backprop, as the CPU kernel computes them (../conv_grad_spec.h's checks and errors).
// Twin of ../cpu/batch_norm_grad.cc.
#include <cmath>
#include <utility>

#include "../conv_grad_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::BatchNormGradAttrs;

constexpr int kSumThreads = 256;

// sums[k] = sum(dy), sums[c + k] = sum(dy * (x - mean)) over channel k's rows; x is
// [outer, c, inner].
// Training scales x - mean by coef0 = 1 / sqrt(var + eps) before the product (as the
// CPU kernel, in float).
__device__ inline float Coef0(const float* variance, int64_t k, float epsilon) {
  return 1.0f / sqrtf(variance[k] + epsilon);
}

template <typename T>
__global__ void ChannelGradSumsKernel(const T* dy, const T* x, const float* mean, const float* variance,
                                      float epsilon, bool training, int64_t rows, int64_t c,
                                      int64_t inner, double* sums) {
  __shared__ double s_dy[kSumThreads], s_dyx[kSumThreads];
  for (int64_t k = blockIdx.x; k < c; k += gridDim.x) {
    double a = 0, b = 0;
    const float m = mean[k], coef0 = training ? Coef0(variance, k, epsilon) : 1.0f;
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
      const int64_t at = ((r / inner) * c + k) * inner + r % inner;
      const float g = static_cast<float>(Widen(dy[at]));
      const float xc = static_cast<float>(Widen(x[at])) - m;
      a += g;
      b += g * (training ? xc * coef0 : xc);
    }
    s_dy[threadIdx.x] = a;
    s_dyx[threadIdx.x] = b;
    __syncthreads();
    for (int half = kSumThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        s_dy[threadIdx.x] += s_dy[threadIdx.x + half];
        s_dyx[threadIdx.x] += s_dyx[threadIdx.x + half];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      sums[k] = s_dy[0];
      sums[c + k] = s_dyx[0];
    }
    __syncthreads();
  }
}

template <typename T>
struct DxElement {
  const T *dy, *x;
  const float *scale, *mean, *variance;
  const double* sums;
  int64_t c, inner, rows;
  float epsilon;
  bool training;
  T* dx;
  __device__ void operator()(int64_t e) const {
    const int64_t k = (e / inner) % c;
    const float coef0 = Coef0(variance, k, epsilon), coef1 = scale[k] * coef0;
    const float g = static_cast<float>(Widen(dy[e]));
    float v = g * coef1;
    if (training) {
      const float inv_n = 1.0f / static_cast<float>(rows);
      const float dy_mean = static_cast<float>(sums[k]) * inv_n;
      const float xs_mean = static_cast<float>(sums[c + k]) * inv_n;
      const float xs = (static_cast<float>(Widen(x[e])) - mean[k]) * coef0;
      v = coef1 * ((g - dy_mean) - xs * xs_mean);
    }
    dx[e] = Narrow<T>(static_cast<typename ComputeType<T>::type>(v));
  }
};

struct ScaleOffsetElement {
  const float* variance;
  const double* sums;
  int64_t c;
  float epsilon;
  bool training;
  float *dscale, *doffset;
  __device__ void operator()(int64_t k) const {
    const float sum = static_cast<float>(sums[c + k]);
    dscale[k] = training ? sum : sum * Coef0(variance, k, epsilon);
    doffset[k] = static_cast<float>(sums[k]);
  }
};

template <typename T>
void BatchNormGradCompute(void* state, TF_OpKernelContext* ctx, const char* op) {
  const BatchNormGradAttrs& a = *static_cast<BatchNormGradAttrs*>(state);
  kernels::BatchNormGradPlan p;
  if (!kernels::PlanBatchNormGrad(ctx, a, op, &p)) return;
  TensorPtr dx = AllocateOutput<T>(ctx, 0, p.dims);
  TensorPtr dscale = dx ? AllocateOutput<float>(ctx, 1, {p.c}) : nullptr;
  TensorPtr doffset = dscale ? AllocateOutput<float>(ctx, 2, {p.c}) : nullptr;
  if (!doffset || !AllocateOutput<float>(ctx, 3, {0}) || !AllocateOutput<float>(ctx, 4, {0})) return;
  if (p.c == 0) return;
  TensorPtr sums = AllocateTemp(ctx, TF_DOUBLE, {2 * p.c});
  if (!sums) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  double* s = Data<double>(sums);
  const float* variance = Data<float>(p.variance);
  const unsigned blocks = static_cast<unsigned>(p.c < 65535 ? p.c : 65535);
  ChannelGradSumsKernel<T><<<blocks, kSumThreads, 0, stream>>>(
      Data<T>(p.dy), Data<T>(p.x), Data<float>(p.mean), variance, a.epsilon, a.is_training, p.rows, p.c,
      p.inner, s);
  if (!CheckLaunch(ctx, op)) return;
  const DxElement<T> fdx{Data<T>(p.dy), Data<T>(p.x), Data<float>(p.scale), Data<float>(p.mean), variance,
                         s, p.c, p.inner, p.rows, a.epsilon, a.is_training, Data<T>(dx)};
  if (!LaunchForEach(ctx, NumElements(p.dims), fdx, op)) return;
  const ScaleOffsetElement fso{variance, s, p.c, a.epsilon, a.is_training, Data<float>(dscale),
                               Data<float>(doffset)};
  LaunchForEach(ctx, p.c, fso, op);
}

template <typename T>
void GradV1(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGrad"); }
template <typename T>
void GradV2(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGradV2"); }
template <typename T>
void GradV3(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGradV3"); }

}  // namespace

// As on the CPU: FusedBatchNormGrad on float, V2 and V3 on float, half and bfloat16.
void RegisterBatchNormGradKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"FusedBatchNormGrad", {{"T", TF_FLOAT}}, {}, GradV1<float>,
      kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
  const std::pair<TF_DataType, std::pair<ComputeFn, ComputeFn>> types[] = {
      {TF_FLOAT, {GradV2<float>, GradV3<float>}}, {TF_HALF, {GradV2<__half>, GradV3<__half>}},
      {TF_BFLOAT16, {GradV2<__nv_bfloat16>, GradV3<__nv_bfloat16>}}};
  for (const auto& [t, fns] : types) {
    RegisterKernel(kDevice, {"FusedBatchNormGradV2", {{"T", t}, {"U", TF_FLOAT}}, {}, fns.first,
        kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
    RegisterKernel(kDevice, {"FusedBatchNormGradV3", {{"T", t}, {"U", TF_FLOAT}}, {}, fns.second,
        kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
  }
}

}  // namespace cuda
}  // namespace opgen
