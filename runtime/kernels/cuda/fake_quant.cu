// The FakeQuantWithMinMax* ops and their gradients on the GPU: min and max are device
// inputs (as in TensorFlow), so each thread nudges its channel's range itself with
// ../fake_quant_spec.h's rule. The gradients take one block per channel, which sums the
// out-of-range gradients in shared memory. Twin of ../cpu/fake_quant.cc.
#include <vector>

#include "../fake_quant_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::FakeQuantAttrs;
using kernels::FakeQuantPlan;
using kernels::NudgedRange;

struct Range {
  const float* min;
  const float* max;
  float fixed_min, fixed_max;
  int quant_min, quant_max;
  bool vars;
  __device__ float Min(int64_t c) const { return min ? min[c] : fixed_min; }
  __device__ float Max(int64_t c) const { return max ? max[c] : fixed_max; }
};

Range RangeOf(const FakeQuantAttrs& a, const FakeQuantPlan& p) {
  return {p.min ? Data<float>(p.min) : nullptr, p.max ? Data<float>(p.max) : nullptr, a.min, a.max,
          a.quant_min, a.quant_max, static_cast<bool>(p.min)};
}

struct FakeQuantElement {
  Range r;
  const float* x;
  float* y;
  int64_t channels;
  __device__ void operator()(int64_t i) const {
    const int64_t c = i % channels;
    const float lo = r.Min(c), hi = r.Max(c);
    if (r.vars && kernels::BothZero(lo, hi)) {
      y[i] = 0.0f;
      return;
    }
    y[i] = kernels::FakeQuantValue(x[i], kernels::Nudge(lo, hi, r.quant_min, r.quant_max));
  }
};

template <int kKind>
void FakeQuantCompute(void* state, TF_OpKernelContext* ctx) {
  const FakeQuantAttrs& a = *static_cast<FakeQuantAttrs*>(state);
  FakeQuantPlan p;
  if (!kernels::PlanFakeQuant(ctx, kKind, false, &p)) return;
  TensorPtr out = AllocateOutput<float>(ctx, 0, p.dims);
  if (!out) return;
  const FakeQuantElement f{RangeOf(a, p), Data<float>(p.inputs), Data<float>(out), p.channels};
  LaunchForEach(ctx, p.rows * p.channels, f, "FakeQuantWithMinMax");
}

constexpr int kSumThreads = 256;

// Block c: channel c's input gradients, and (with dmin) its below / above sums.
__global__ void FakeQuantGradKernel(Range r, const float* g, const float* x, float* dx, float* dmin,
                                    float* dmax, int64_t rows, int64_t channels) {
  __shared__ float s_below[kSumThreads], s_above[kSumThreads];
  const int64_t c = blockIdx.x;
  const float lo = r.Min(c), hi = r.Max(c);
  const bool zero = r.vars && kernels::BothZero(lo, hi);
  const NudgedRange n = kernels::Nudge(lo, hi, r.quant_min, r.quant_max);
  float below = 0.0f, above = 0.0f;
  for (int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
    const int64_t i = row * channels + c;
    if (zero) {
      dx[i] = g[i];
      continue;
    }
    const bool inside = x[i] >= n.min && x[i] <= n.max;
    dx[i] = g[i] * (inside ? 1.0f : 0.0f);
    if (x[i] < n.min) below += g[i];
    if (x[i] > n.max) above += g[i];
  }
  if (dmin == nullptr) return;
  s_below[threadIdx.x] = below;
  s_above[threadIdx.x] = above;
  __syncthreads();
  for (int half = kSumThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      s_below[threadIdx.x] += s_below[threadIdx.x + half];
      s_above[threadIdx.x] += s_above[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    dmin[c] = s_below[0];
    dmax[c] = s_above[0];
  }
}

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
  if (p.channels == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  FakeQuantGradKernel<<<static_cast<unsigned>(p.channels), kSumThreads, 0, stream>>>(
      RangeOf(a, p), Data<float>(p.gradients), Data<float>(p.inputs), Data<float>(dx),
      dmin ? Data<float>(dmin) : nullptr, dmax ? Data<float>(dmax) : nullptr, p.rows, p.channels);
  CheckLaunch(ctx, "FakeQuantWithMinMax gradient");
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

}  // namespace cuda
}  // namespace opgen
