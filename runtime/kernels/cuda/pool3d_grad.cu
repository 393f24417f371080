// MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad on the GPU: one thread per output
// element gathering ../pool3d_spec.h's per-element sums (no atomics), with the CPU
// kernels' checks, types and rounding. Twin of ../cpu/pool3d_grad.cc.
#include <utility>
#include <vector>

#include "../pool3d_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

void* CreatePool3DGrad(TF_OpKernelConstruction* ctx) { return kernels::CreatePool3D(ctx, "GPU"); }

// Rounds a compute-type value to T's precision, as each step of the CPU kernels does.
template <typename T>
struct Round {
  using C = typename ComputeType<T>::type;
  __host__ __device__ C operator()(C v) const { return Widen(Narrow<T>(v)); }
};

enum class Kind { kMaxGrad, kAvgGrad, kMaxGradGrad };

template <typename T, Kind kKind>
struct Pool3DGradElement {
  kernels::Pool3DGeometry g;
  const T *in, *pooled, *grad;
  T* out;
  __device__ void operator()(int64_t e) const {
    using C = typename ComputeType<T>::type;
    const Read<T> rg{grad}, ri{in}, rp{pooled};
    C v;
    if constexpr (kKind == Kind::kAvgGrad) v = kernels::AvgPool3DGradAt<C>(g, e, rg, Round<T>());
    else if constexpr (kKind == Kind::kMaxGrad) v = kernels::MaxPool3DGradAt<C>(g, e, ri, rp, rg, Round<T>());
    else v = kernels::MaxPool3DGradGradAt<C>(g, e, ri, rp, rg);
    out[e] = Narrow<T>(v);
  }
};

template <typename T, Kind kKind>
struct Pool3DGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::Pool3DAttrs*>(state);
    const char* op = kKind == Kind::kAvgGrad ? "AvgPool3DGrad"
                     : kKind == Kind::kMaxGrad ? "MaxPool3DGrad" : "MaxPool3DGradGrad";
    kernels::Pool3DGradPlan p;
    const bool ok = kKind == Kind::kAvgGrad ? kernels::PlanAvgPool3DGrad(ctx, a, &p)
                                            : kernels::PlanMaxPool3DGrad(ctx, a, kKind == Kind::kMaxGradGrad, &p);
    if (!ok) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const bool avg = kKind == Kind::kAvgGrad;
    const Pool3DGradElement<T, kKind> f{p.g, avg ? nullptr : Data<T>(p.in), avg ? nullptr : Data<T>(p.pooled),
                                        Data<T>(p.grad), Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, op);
  }
};

// MaxPool3DGrad's orig_input and orig_output (TInput) are of grad's type, as on the CPU.
template <Kind kKind, typename... Ts>
void RegisterPool3DGrad(const char* op, std::vector<const char*> host, Types<Ts...>, TF_Status* status) {
  auto constraints = [](TF_DataType t) {
    std::vector<std::pair<const char*, TF_DataType>> c{{"T", t}};
    if (kKind == Kind::kMaxGrad) c.push_back({"TInput", t});
    return c;
  };
  (RegisterKernel(kDevice, {op, constraints(DtypeOf<Ts>::value), host, &Pool3DGradKernel<Ts, kKind>::Compute,
       CreatePool3DGrad, kernels::DeletePool3D}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/pool3d_grad.cc); orig_input_shape on the host.
void RegisterPool3DGradKernels(TF_Status* status) {
  RegisterPool3DGrad<Kind::kMaxGrad>("MaxPool3DGrad", {}, Types<float, __nv_bfloat16>(), status);
  RegisterPool3DGrad<Kind::kAvgGrad>("AvgPool3DGrad", {"orig_input_shape"}, Types<float, __nv_bfloat16>(),
                                     status);
  RegisterPool3DGrad<Kind::kMaxGradGrad>("MaxPool3DGradGrad", {}, Types<float, __nv_bfloat16>(), status);
}

}  // namespace cuda
}  // namespace opgen
