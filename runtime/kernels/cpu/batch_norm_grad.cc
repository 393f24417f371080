// FusedBatchNormGrad, V2 and V3: x and y_backprop in float, half or bfloat16 (computed in
// float), channels last or first (x seen as [outer, c, inner]). With is_training the
// gradient flows through the batch statistics (reserve_space_1/2: the batch mean and
// variance the forward op emits); without, they are constants. The last two outputs are
// empty, as TensorFlow's CPU kernel leaves them. Checks: ../conv_grad_spec.h, shared with the
// CUDA twin.
#include <cmath>
#include <utility>
#include <vector>

#include "../conv_grad_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::BatchNormGradAttrs;

template <typename T>
void BatchNormGradCompute(void* state, TF_OpKernelContext* ctx, const char* op) {
  const BatchNormGradAttrs& a = *static_cast<BatchNormGradAttrs*>(state);
  kernels::BatchNormGradPlan p;
  if (!kernels::PlanBatchNormGrad(ctx, a, op, &p)) return;
  const int64_t c = p.c, outer = p.outer, inner = p.inner;
  const T* dy = Data<T>(p.dy);
  const T* x = Data<T>(p.x);
  const float* scale = Data<float>(p.scale);
  const float* mean = Data<float>(p.mean);
  const float* var = Data<float>(p.variance);
  auto for_each = [&](auto&& fn) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < c; ++k) {
        const int64_t base = (o * c + k) * inner;
        for (int64_t i = 0; i < inner; ++i) fn(k, base + i);
      }
  };
  // Per channel, in TensorFlow's float formulation (sums kept in double): training
  // scales x first, x_scaled = (x - mean) / sqrt(var + eps), and sums dy * x_scaled;
  // inference sums dy * (x - mean) and scales the sum.
  std::vector<double> sum_dy(c, 0.0), sum_dyx(c, 0.0);
  std::vector<float> coef0(c);
  for (int64_t k = 0; k < c; ++k) coef0[k] = 1.0f / std::sqrt(var[k] + a.epsilon);
  auto centred = [&](int64_t k, int64_t at) {
    const float xc = static_cast<float>(x[at]) - mean[k];
    return a.is_training ? xc * coef0[k] : xc;
  };
  for_each([&](int64_t k, int64_t at) {
    const float g = static_cast<float>(dy[at]);
    sum_dy[k] += g;
    sum_dyx[k] += g * centred(k, at);
  });
  TensorPtr dx = AllocateOutput<T>(ctx, 0, p.dims);
  if (!dx) return;
  T* dxp = Data<T>(dx);
  const float inv_n = 1.0f / static_cast<float>(p.rows);
  std::vector<float> dy_mean(c), xs_mean(c), scale_bp(c);
  for (int64_t k = 0; k < c; ++k) {
    scale_bp[k] = a.is_training ? static_cast<float>(sum_dyx[k])
                                : static_cast<float>(sum_dyx[k]) * coef0[k];
    dy_mean[k] = static_cast<float>(sum_dy[k]) * inv_n;
    xs_mean[k] = scale_bp[k] * inv_n;
  }
  for_each([&](int64_t k, int64_t at) {
    const float g = static_cast<float>(dy[at]);
    const float coef1 = scale[k] * coef0[k];
    const float v = a.is_training ? coef1 * ((g - dy_mean[k]) - centred(k, at) * xs_mean[k]) : g * coef1;
    dxp[at] = Narrow<T>(v);
  });
  TensorPtr dscale = AllocateOutput<float>(ctx, 1, {c}), doffset = AllocateOutput<float>(ctx, 2, {c});
  if (!dscale || !doffset) return;
  for (int64_t k = 0; k < c; ++k) {
    Data<float>(dscale)[k] = scale_bp[k];
    Data<float>(doffset)[k] = static_cast<float>(sum_dy[k]);
  }
  if (!AllocateOutput<float>(ctx, 3, {0})) return;
  AllocateOutput<float>(ctx, 4, {0});
}

template <typename T>
void GradV1(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGrad"); }
template <typename T>
void GradV2(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGradV2"); }
template <typename T>
void GradV3(void* s, TF_OpKernelContext* ctx) { BatchNormGradCompute<T>(s, ctx, "FusedBatchNormGradV3"); }

}  // namespace

// TensorFlow's CPU registrations: FusedBatchNormGrad on float; V2 and V3 on float, half
// and bfloat16 with float statistics.
void RegisterBatchNormGradKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"FusedBatchNormGrad", {{"T", TF_FLOAT}}, {}, GradV1<float>,
      kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
  const std::pair<TF_DataType, std::pair<ComputeFn, ComputeFn>> types[] = {
      {TF_FLOAT, {GradV2<float>, GradV3<float>}}, {TF_HALF, {GradV2<Half>, GradV3<Half>}},
      {TF_BFLOAT16, {GradV2<BFloat16>, GradV3<BFloat16>}}};
  for (const auto& [t, fns] : types) {
    RegisterKernel(kDevice, {"FusedBatchNormGradV2", {{"T", t}, {"U", TF_FLOAT}}, {}, fns.first,
        kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
    RegisterKernel(kDevice, {"FusedBatchNormGradV3", {{"T", t}, {"U", TF_FLOAT}}, {}, fns.second,
        kernels::CreateBatchNormGrad, kernels::DeleteBatchNormGrad}, status);
  }
}

}  // namespace cpu
}  // namespace opgen
