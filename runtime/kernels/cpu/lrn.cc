// LRN and LRNGrad on the CPU, float and half (TensorFlow's CPU types), computed in float
// with ../lrn_spec.h's sums (shared with ../cuda/lrn.cu), a row of depth per unit of work.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../lrn_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::LrnAttrs;
using kernels::LrnPlan;

template <typename T>
struct Read {
  const T* p;
  float operator()(int64_t i) const { return static_cast<float>(Widen(p[i])); }
};

int64_t RowsPerChunk(const LrnPlan& p, const LrnAttrs& a) {
  const int64_t window = std::min<int64_t>(p.depth, 2 * a.depth_radius + 1);
  return std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.depth * window, 1));
}

template <typename T>
void LrnCompute(void* state, TF_OpKernelContext* ctx) {
  const LrnAttrs& a = *static_cast<LrnAttrs*>(state);
  LrnPlan p;
  if (!kernels::PlanLrn(ctx, false, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
  if (!out || p.rows * p.depth == 0) return;
  const Read<T> x{Data<T>(p.x)};
  T* y = Data<T>(out);
  ParallelFor(p.rows, [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r)
      for (int64_t d = 0; d < p.depth; ++d) {
        const int64_t row = r * p.depth;
        const float n = kernels::LrnNorm<float>(x, row, d, p.depth, a);
        y[row + d] = Narrow<T>(x(row + d) * powf(n, -a.beta));
      }
  }, RowsPerChunk(p, a));
}

template <typename T>
void LrnGradCompute(void* state, TF_OpKernelContext* ctx) {
  const LrnAttrs& a = *static_cast<LrnAttrs*>(state);
  LrnPlan p;
  if (!kernels::PlanLrn(ctx, true, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
  if (!out || p.rows * p.depth == 0) return;
  const Read<T> g{Data<T>(p.grads)}, x{Data<T>(p.x)}, y{Data<T>(p.y)};
  T* dx = Data<T>(out);
  ParallelFor(p.rows, [&](int64_t first, int64_t last) {
    std::vector<float> norms(p.depth);
    for (int64_t r = first; r < last; ++r) {
      const int64_t row = r * p.depth;
      // The row's norms once (each input reads up to 2 * radius + 1 of them).
      for (int64_t d = 0; d < p.depth; ++d) norms[d] = kernels::LrnNorm<float>(x, row, d, p.depth, a);
      const auto norm = [&](int64_t i) { return norms[i - row]; };
      for (int64_t d = 0; d < p.depth; ++d)
        dx[row + d] = Narrow<T>(kernels::LrnGradAt<float>(g, x, y, norm, row, d, p.depth, a));
    }
  }, RowsPerChunk(p, a));
}

template <typename... Ts>
void RegisterLrn(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"LRN", {{"T", DtypeOf<Ts>::value}}, {}, LrnCompute<Ts>, kernels::CreateLrn,
                            kernels::DeleteLrn}, status), ...);
  (RegisterKernel(kDevice, {"LRNGrad", {{"T", DtypeOf<Ts>::value}}, {}, LrnGradCompute<Ts>,
                            kernels::CreateLrn, kernels::DeleteLrn}, status), ...);
}

}  // namespace

void RegisterLrnKernels(TF_Status* status) { RegisterLrn(Types<float, Half>(), status); }

}  // namespace cpu
}  // namespace opgen
