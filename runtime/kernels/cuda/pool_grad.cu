// MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad on the GPU, NHWC only (NCHW refused, as on the CPU): one
// thread per input element gathering ../conv_grad_spec.h's per-element sums (no atomics),
// with the CPU kernels' checks and errors. Twin of ../cpu/pool_grad.cc.
#include "../conv_grad_spec.h"
#include "../pool_argmax_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::DeleteWindow;
using kernels::GradGeometry;
using kernels::Window2D;
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, false, "GPU"); }

template <typename T, bool kMax>
struct PoolGradElement {
  GradGeometry g;
  Read<T> in, grad;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t ch = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
    const int64_t b = e / (g.ic * g.iw * g.ih);
    using C = typename ComputeType<T>::type;
    if (kMax) out[e] = Narrow<T>(kernels::MaxPoolGradAt<C>(g, b, sy, sx, ch, in, grad));
    else out[e] = Narrow<T>(kernels::AvgPoolGradAt<C>(g, b, sy, sx, ch, grad));
  }
};

template <typename T, bool kMax>
struct PoolGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanPoolGrad(ctx, w, kMax, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const PoolGradElement<T, kMax> f{kernels::GeometryOf(p, w), {kMax ? Data<T>(p.input) : nullptr},
                                     {Data<T>(p.filter)}, Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, p.op);
  }
};
// MaxPoolGradGrad: one thread per output element, reading grad where its window holds
// its value.
template <typename T>
struct MaxPoolGradGradElement {
  GradGeometry g;
  Read<T> in, pooled, grad;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t ch = e % g.oc, x = (e / g.oc) % g.ow, y = (e / (g.oc * g.ow)) % g.oh;
    const int64_t b = e / (g.oc * g.ow * g.oh);
    using C = typename ComputeType<T>::type;
    out[e] = Narrow<T>(kernels::MaxPoolGradGradAt<C>(g, b, y, x, ch, pooled(e), in, grad));
  }
};

template <typename T>
struct MaxPoolGradGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    TensorPtr orig_output;
    if (!kernels::PlanMaxPoolGradGrad(ctx, w, &p, &orig_output)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const MaxPoolGradGradElement<T> f{kernels::GeometryOf(p, w), {Data<T>(p.input)},
                                      {Data<T>(orig_output)}, {Data<T>(p.filter)}, Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, p.op);
  }
};

template <typename T> using MaxPoolGradKernel = PoolGradKernel<T, true>;
template <typename T> using AvgPoolGradKernel = PoolGradKernel<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, std::vector<const char*> host, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, host, &Kernel<Ts>::Compute,
       CreatePoolWindow, DeleteWindow}, status), ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

// MaxPoolGradV2 / MaxPoolGradGradV2: the kernels above on the tensors' window.
template <template <typename> class Kernel, typename... Ts>
void RegisterV2(const char* op, CreateFn create, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {"ksize", "strides"},
                            &kernels::WithTensorWindow<&Kernel<Ts>::Compute>, create, kernels::DeletePoolV2},
                  status), ...);
}

}  // namespace

// As on the CPU: MaxPoolGrad(Grad) on every real type, AvgPoolGrad on the floats
// (orig_input_shape read on the host).
void RegisterPoolGradKernels(TF_Status* status) {
  RegisterWith<MaxPoolGradKernel>("MaxPoolGrad", {}, RealTypes(), status);
  RegisterWith<MaxPoolGradGradKernel>("MaxPoolGradGrad", {}, RealTypes(), status);
  RegisterWith<AvgPoolGradKernel>("AvgPoolGrad", {"orig_input_shape"}, FloatTypes(), status);
  RegisterV2<MaxPoolGradKernel>("MaxPoolGradV2", kernels::CreateMaxPoolGradV2, RealTypes(), status);
  RegisterV2<MaxPoolGradGradKernel>("MaxPoolGradGradV2", kernels::CreateMaxPoolGradGradV2, RealTypes(), status);
}

}  // namespace cuda
}  // namespace opgen
