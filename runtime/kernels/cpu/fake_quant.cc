// The FakeQuantWithMinMax* ops and their gradients on the CPU, float only (as their
// OpDefs): the nudging and per-element rule are ../fake_quant_spec.h's, shared with the
// CUDA twin (../cuda/fake_quant.cu).
#include <vector>

#include "../fake_quant_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::FakeQuantAttrs;
using kernels::FakeQuantPlan;
using kernels::NudgedRange;

// The range of channel c: the Args attrs, or min[c] / max[c].
struct Ranges {
  const float* min = nullptr;
  const float* max = nullptr;
  float fixed_min = 0, fixed_max = 0;
  float Min(int64_t c) const { return min ? min[c] : fixed_min; }
  float Max(int64_t c) const { return max ? max[c] : fixed_max; }
};

Ranges RangesOf(const FakeQuantAttrs& a, const FakeQuantPlan& p) {
  Ranges r;
  r.fixed_min = a.min;
  r.fixed_max = a.max;
  if (p.min) {
    r.min = Data<float>(p.min);
    r.max = Data<float>(p.max);
  }
  return r;
}

template <int kKind>
void FakeQuantCompute(void* state, TF_OpKernelContext* ctx) {
  const FakeQuantAttrs& a = *static_cast<FakeQuantAttrs*>(state);
  FakeQuantPlan p;
  if (!kernels::PlanFakeQuant(ctx, kKind, false, &p)) return;
  TensorPtr out = AllocateOutput<float>(ctx, 0, p.dims);
  if (!out || p.rows * p.channels == 0) return;
  const Ranges r = RangesOf(a, p);
  std::vector<NudgedRange> nudged(p.channels);
  std::vector<char> zero(p.channels);
  for (int64_t c = 0; c < p.channels; ++c) {
    nudged[c] = kernels::Nudge(r.Min(c), r.Max(c), a.quant_min, a.quant_max);
    zero[c] = kKind != 0 && kernels::BothZero(r.Min(c), r.Max(c));
  }
  const float* x = Data<float>(p.inputs);
  float* y = Data<float>(out);
  const int64_t channels = p.channels;
  ParallelFor(p.rows * channels, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t c = i % channels;
      y[i] = zero[c] ? 0.0f : kernels::FakeQuantValue(x[i], nudged[c]);
    }
  });
}

// gradients where the input lies in the nudged range (0 elsewhere); the Vars ops also sum,
// per channel, the gradients below it (to min) and above it (to max). A zero range passes
// every gradient to the input.
template <int kKind>
void FakeQuantGradCompute(void* state, TF_OpKernelContext* ctx) {
  const FakeQuantAttrs& a = *static_cast<FakeQuantAttrs*>(state);
  FakeQuantPlan p;
  if (!kernels::PlanFakeQuant(ctx, kKind, true, &p)) return;
  TensorPtr dx = AllocateOutput<float>(ctx, 0, p.dims);
  if (!dx) return;
  TensorPtr dmin, dmax;
  if (kKind != 0) {
    const std::vector<int64_t> range_dims = kKind == 2 ? std::vector<int64_t>{p.channels} : std::vector<int64_t>{};
    dmin = AllocateOutput<float>(ctx, 1, range_dims);
    dmax = AllocateOutput<float>(ctx, 2, range_dims);
    if (!dmin || !dmax) return;
  }
  const Ranges r = RangesOf(a, p);
  const float* g = Data<float>(p.gradients);
  const float* x = Data<float>(p.inputs);
  float* d = Data<float>(dx);
  const int64_t channels = p.channels, rows = p.rows;
  // By channel, so each channel's sums are one thread's, in row order.
  ParallelFor(channels, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      const bool zero = kKind != 0 && kernels::BothZero(r.Min(c), r.Max(c));
      const NudgedRange n = kernels::Nudge(r.Min(c), r.Max(c), a.quant_min, a.quant_max);
      float below = 0.0f, above = 0.0f;
      for (int64_t row = 0; row < rows; ++row) {
        const int64_t i = row * channels + c;
        if (zero) {
          d[i] = g[i];
          continue;
        }
        const bool inside = x[i] >= n.min && x[i] <= n.max;
        d[i] = g[i] * (inside ? 1.0f : 0.0f);
        if (x[i] < n.min) below += g[i];
        if (x[i] > n.max) above += g[i];
      }
      if (kKind != 0) {
        Data<float>(dmin)[c] = below;
        Data<float>(dmax)[c] = above;
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(rows, 1)));
}

}  // namespace

void RegisterFakeQuantKernels(TF_Status* status) {
  using kernels::CreateFakeQuantArgs;
  using kernels::CreateFakeQuantVars;
  using kernels::DeleteFakeQuant;
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxArgs", {}, {}, FakeQuantCompute<0>, CreateFakeQuantArgs,
                           DeleteFakeQuant}, status);
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxVars", {}, {}, FakeQuantCompute<1>, CreateFakeQuantVars,
                           DeleteFakeQuant}, status);
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxVarsPerChannel", {}, {}, FakeQuantCompute<2>,
                           CreateFakeQuantVars, DeleteFakeQuant}, status);
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxArgsGradient", {}, {}, FakeQuantGradCompute<0>,
                           CreateFakeQuantArgs, DeleteFakeQuant}, status);
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxVarsGradient", {}, {}, FakeQuantGradCompute<1>,
                           CreateFakeQuantVars, DeleteFakeQuant}, status);
  RegisterKernel(kDevice, {"FakeQuantWithMinMaxVarsPerChannelGradient", {}, {}, FakeQuantGradCompute<2>,
                           CreateFakeQuantVars, DeleteFakeQuant}, status);
}

}  // namespace cpu
}  // namespace opgen
