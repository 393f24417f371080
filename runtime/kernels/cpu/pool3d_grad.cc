// MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad on NDHWC volumes (the gradients of
// Keras' MaxPooling3D / AveragePooling3D), float and bfloat16 as TensorFlow's CPU kernels.
// Each element gathers its sum (../pool3d_spec.h, shared with the CUDA twin) in the order
// TensorFlow's kernels scatter it, rounding to the element type after each step as they
// do, so float results are TensorFlow's bit for bit; threads over elements.
#include <algorithm>
#include <utility>
#include <vector>

#include "../pool3d_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

void* CreatePool3DGrad(TF_OpKernelConstruction* ctx) { return kernels::CreatePool3D(ctx, "CPU"); }

template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};
template <typename T>
struct Round {
  ComputeType<T> operator()(ComputeType<T> v) const { return Widen(Narrow<T>(v)); }
};

// Elements per thread chunk: each costs about a window's worth of steps.
int64_t Grain(const kernels::Pool3DGeometry& g) {
  const int64_t window = std::max<int64_t>(g.k[0] * g.k[1] * g.k[2], 1);
  return std::max<int64_t>(1, kParallelThreshold / std::min<int64_t>(window, 64));
}

enum class Kind { kMaxGrad, kAvgGrad, kMaxGradGrad };

template <typename T, Kind kKind>
struct Pool3DGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::Pool3DAttrs*>(state);
    kernels::Pool3DGradPlan p;
    const bool ok = kKind == Kind::kAvgGrad ? kernels::PlanAvgPool3DGrad(ctx, a, &p)
                                            : kernels::PlanMaxPool3DGrad(ctx, a, kKind == Kind::kMaxGradGrad, &p);
    if (!ok) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const kernels::Pool3DGeometry g = p.g;
    using C = ComputeType<T>;
    const Read<T> grad{Data<T>(p.grad)};
    const Read<T> in{kKind == Kind::kAvgGrad ? nullptr : Data<T>(p.in)};
    const Read<T> pooled{kKind == Kind::kAvgGrad ? nullptr : Data<T>(p.pooled)};
    T* out = Data<T>(output);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        C v;
        if constexpr (kKind == Kind::kAvgGrad) v = kernels::AvgPool3DGradAt<C>(g, e, grad, Round<T>());
        else if constexpr (kKind == Kind::kMaxGrad) v = kernels::MaxPool3DGradAt<C>(g, e, in, pooled, grad, Round<T>());
        else v = kernels::MaxPool3DGradGradAt<C>(g, e, in, pooled, grad);
        out[e] = Narrow<T>(v);
      }
    }, Grain(g));
  }
};

// MaxPool3DGrad's orig_input and orig_output (TInput) are of grad's type, as in TensorFlow.
template <Kind kKind, typename... Ts>
void RegisterPool3DGrad(const char* op, Types<Ts...>, TF_Status* status) {
  auto constraints = [](TF_DataType t) {
    std::vector<std::pair<const char*, TF_DataType>> c{{"T", t}};
    if (kKind == Kind::kMaxGrad) c.push_back({"TInput", t});
    return c;
  };
  (RegisterKernel(kDevice, {op, constraints(DtypeOf<Ts>::value), {}, &Pool3DGradKernel<Ts, kKind>::Compute,
       CreatePool3DGrad, kernels::DeletePool3D}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: float and bfloat16 (MaxPool3DGrad with TInput = T).
void RegisterPool3DGradKernels(TF_Status* status) {
  RegisterPool3DGrad<Kind::kMaxGrad>("MaxPool3DGrad", Types<float, BFloat16>(), status);
  RegisterPool3DGrad<Kind::kAvgGrad>("AvgPool3DGrad", Types<float, BFloat16>(), status);
  RegisterPool3DGrad<Kind::kMaxGradGrad>("MaxPool3DGradGrad", Types<float, BFloat16>(), status);
}

}  // namespace cpu
}  // namespace opgen
