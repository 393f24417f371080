// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3: one kernel, x in float, half or
// bfloat16 (computed in float, rounded once), statistics in float, channels
// last (NHWC, NDHWC) or first (NCHW, NCDHW): x is seen as [outer, c, inner]. Inference
// normalises with the given statistics; training computes them over every dimension but
// the channel one and blends them into the running ones with exponential_avg_factor.
// V3 has a sixth output (reserve_space_3), empty here. The attrs and input checks are
// ../nn_spec.h's, shared with the CUDA plugin.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "../nn_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::BatchNormAttrs;

template <typename T>
void BatchNormCompute(void* state, TF_OpKernelContext* ctx) {
  const BatchNormAttrs& a = *static_cast<BatchNormAttrs*>(state);
  kernels::BatchNormPlan p;
  if (!kernels::PlanBatchNorm(ctx, a, &p)) return;
  const TensorPtr &x = p.x, &scale = p.scale, &offset = p.offset;
  const TensorPtr &mean = p.mean, &variance = p.variance;
  const int64_t c = p.c, rows = p.rows, outer = p.outer, inner = p.inner;
  const T* xp = Data<T>(x);
  // Element (o, k, i) of x sits at (o * c + k) * inner + i.
  auto for_each = [&](auto&& fn) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < c; ++k) {
        const int64_t base = (o * c + k) * inner;
        for (int64_t i = 0; i < inner; ++i) fn(k, base + i);
      }
  };
  std::vector<double> batch_mean(c, 0.0), batch_var(c, 0.0);
  if (a.is_training) {
    for_each([&](int64_t k, int64_t at) { batch_mean[k] += static_cast<float>(xp[at]); });
    // No rows: the statistics of nothing are NaN (0/0), as TensorFlow's.
    for (int64_t k = 0; k < c; ++k) batch_mean[k] /= static_cast<double>(rows);
    for_each([&](int64_t k, int64_t at) {
      const double d = static_cast<float>(xp[at]) - batch_mean[k];
      batch_var[k] += d * d;
    });
    for (int64_t k = 0; k < c; ++k) batch_var[k] /= static_cast<double>(rows);
  } else {
    for (int64_t k = 0; k < c; ++k) {
      batch_mean[k] = Data<float>(mean)[k];
      batch_var[k] = Data<float>(variance)[k];
    }
  }
  TensorPtr y = AllocateOutput<T>(ctx, 0, p.dims);
  if (!y) return;
  T* yp = Data<T>(y);
  std::vector<float> multiplier(c), shift(c);
  for (int64_t k = 0; k < c; ++k) {
    multiplier[k] = static_cast<float>(Data<float>(scale)[k] / std::sqrt(batch_var[k] + a.epsilon));
    shift[k] = static_cast<float>(Data<float>(offset)[k] - batch_mean[k] * multiplier[k]);
  }
  if (inner == 1) {  // channels last: rows of c
    for (int64_t r = 0; r < outer; ++r)
      for (int64_t k = 0; k < c; ++k)
        yp[r * c + k] = Narrow<T>(static_cast<float>(xp[r * c + k]) * multiplier[k] + shift[k]);
  } else {
    for_each([&](int64_t k, int64_t at) {
      yp[at] = Narrow<T>(static_cast<float>(xp[at]) * multiplier[k] + shift[k]);
    });
  }
  // Outputs 1..4: running statistics and the reserve spaces; V3's output 5 is empty.
  std::vector<float> running_mean(c), running_var(c);
  for (int64_t k = 0; k < c; ++k) {
    if (a.is_training) {
      const double f = a.exponential_avg_factor;
      const double corrected = rows > 1 ? batch_var[k] * rows / (rows - 1) : batch_var[k];
      const double old_mean = p.has_mean ? Data<float>(mean)[k] : 0.0;
      const double old_var = p.has_variance ? Data<float>(variance)[k] : 0.0;
      running_mean[k] = static_cast<float>((1 - f) * old_mean + f * batch_mean[k]);
      running_var[k] = static_cast<float>((1 - f) * old_var + f * corrected);
    } else {
      running_mean[k] = static_cast<float>(batch_mean[k]);
      running_var[k] = static_cast<float>(batch_var[k]);
    }
  }
  const std::vector<float>* values[] = {&running_mean, &running_var, &running_mean, &running_var};
  for (int i = 0; i < 4; ++i) {
    TensorPtr out = AllocateOutput<float>(ctx, 1 + i, {c});
    if (!out) return;
    std::copy(values[i]->begin(), values[i]->end(), Data<float>(out));
    if (a.is_training && i >= 2) {  // reserve spaces hold the batch statistics themselves
      for (int64_t k = 0; k < c; ++k)
        Data<float>(out)[k] = static_cast<float>(i == 2 ? batch_mean[k] : batch_var[k]);
    }
  }
  if (TF_NumOutputs(ctx) > 5) AllocateOutput<float>(ctx, 5, {0});
}

}  // namespace

// TensorFlow's CPU registrations: channels first or last; FusedBatchNorm on float, V2
// and V3 on float, half and bfloat16 x with float statistics.
void RegisterBatchNormKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"FusedBatchNorm", {{"T", TF_FLOAT}}, {}, BatchNormCompute<float>,
      kernels::CreateBatchNorm, kernels::DeleteBatchNorm}, status);
  const std::pair<TF_DataType, ComputeFn> types[] = {
      {TF_FLOAT, BatchNormCompute<float>}, {TF_HALF, BatchNormCompute<Half>},
      {TF_BFLOAT16, BatchNormCompute<BFloat16>}};
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"})
    for (const auto& [t, compute] : types)
      RegisterKernel(kDevice, {op, {{"T", t}, {"U", TF_FLOAT}}, {}, compute,
          kernels::CreateBatchNorm, kernels::DeleteBatchNorm}, status);
}

}  // namespace cpu
}  // namespace opgen
