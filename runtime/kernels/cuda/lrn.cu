// LRN and LRNGrad on the GPU, float and half, in float with ../lrn_spec.h's sums: one
// thread per element; LRNGrad first writes every element's norm to scratch memory, then
// gathers. Twin of ../cpu/lrn.cc.
#include <cmath>

#include "../lrn_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::LrnAttrs;
using kernels::LrnPlan;

template <typename T>
struct ReadF {
  const T* p;
  __device__ float operator()(int64_t i) const { return static_cast<float>(Widen(p[i])); }
};

template <typename T>
struct LrnElement {
  LrnAttrs a;
  ReadF<T> x;
  T* y;
  int64_t depth;
  __device__ void operator()(int64_t e) const {
    const int64_t d = e % depth, row = e - d;
    const float n = kernels::LrnNorm<float>(x, row, d, depth, a);
    y[e] = Narrow<T>(x(e) * powf(n, -a.beta));
  }
};

template <typename T>
struct LrnNormElement {
  LrnAttrs a;
  ReadF<T> x;
  float* norms;
  int64_t depth;
  __device__ void operator()(int64_t e) const {
    const int64_t d = e % depth;
    norms[e] = kernels::LrnNorm<float>(x, e - d, d, depth, a);
  }
};

struct ReadNorm {
  const float* p;
  __device__ float operator()(int64_t i) const { return p[i]; }
};

template <typename T>
struct LrnGradElement {
  LrnAttrs a;
  ReadF<T> g, x, y;
  ReadNorm norm;
  T* dx;
  int64_t depth;
  __device__ void operator()(int64_t e) const {
    const int64_t d = e % depth;
    dx[e] = Narrow<T>(kernels::LrnGradAt<float>(g, x, y, norm, e - d, d, depth, a));
  }
};

template <typename T>
void LrnCompute(void* state, TF_OpKernelContext* ctx) {
  const LrnAttrs& a = *static_cast<LrnAttrs*>(state);
  LrnPlan p;
  if (!kernels::PlanLrn(ctx, false, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
  if (!out) return;
  const LrnElement<T> f{a, {Data<T>(p.x)}, Data<T>(out), p.depth};
  LaunchForEach(ctx, p.rows * p.depth, f, "LRN");
}

template <typename T>
void LrnGradCompute(void* state, TF_OpKernelContext* ctx) {
  const LrnAttrs& a = *static_cast<LrnAttrs*>(state);
  LrnPlan p;
  if (!kernels::PlanLrn(ctx, true, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
  if (!out || p.rows * p.depth == 0) return;
  TensorPtr norms = AllocateTemp(ctx, TF_FLOAT, p.dims);
  if (!norms) return;
  const LrnNormElement<T> fn{a, {Data<T>(p.x)}, Data<float>(norms), p.depth};
  if (!LaunchForEach(ctx, p.rows * p.depth, fn, "LRNGrad")) return;
  const LrnGradElement<T> f{a, {Data<T>(p.grads)}, {Data<T>(p.x)}, {Data<T>(p.y)}, {Data<float>(norms)},
                            Data<T>(out), p.depth};
  LaunchForEach(ctx, p.rows * p.depth, f, "LRNGrad");
}

template <typename... Ts>
void RegisterLrn(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"LRN", {{"T", DtypeOf<Ts>::value}}, {}, LrnCompute<Ts>, kernels::CreateLrn,
                            kernels::DeleteLrn}, status), ...);
  (RegisterKernel(kDevice, {"LRNGrad", {{"T", DtypeOf<Ts>::value}}, {}, LrnGradCompute<Ts>,
                            kernels::CreateLrn, kernels::DeleteLrn}, status), ...);
}

}  // namespace

void RegisterLrnKernels(TF_Status* status) { RegisterLrn(Types<float, __half>(), status); }

}  // namespace cuda
}  // namespace opgen
