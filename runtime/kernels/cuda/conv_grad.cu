// Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput and BackpropFilter, and
// Conv3DBackpropInputV2 / FilterV2 on the GPU, NHWC / NDHWC only (channels-first refused,
// as on the CPU): one thread per output element running ../grad_spec.h's per-element
// sums, with the CPU kernels' checks and errors. Twin of ../cpu/conv_grad.cc (which runs
// Conv2DBackpropFilter as im2col + GEMM).
#include <type_traits>
#include <vector>

#include "../grad_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::DeleteWindow;
using kernels::GradGeometry;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "GPU"); }

// Filter element e = ((i * kw + j) * ic + c) * per + m; output channel c * per + m for
// depthwise (per = multiplier), m for Conv2D (per = oc, c's own index ignored).
template <typename T, bool kDepthwise>
struct BackpropFilterElement {
  GradGeometry g;
  Read<T> in, dy;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t per = kDepthwise ? g.multiplier : g.oc;
    const int64_t m = e % per, c = (e / per) % g.ic, j = (e / (per * g.ic)) % g.kw;
    const int64_t i = e / (per * g.ic * g.kw);
    using C = typename ComputeType<T>::type;
    out[e] = Narrow<T>(kernels::BackpropFilterAt<C>(g, i, j, c, kDepthwise ? c * per + m : m, in, dy));
  }
};

template <typename T>
struct DepthwiseInputElement {
  GradGeometry g;
  Read<T> dy, f;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t c = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
    const int64_t b = e / (g.ic * g.iw * g.ih);
    using C = typename ComputeType<T>::type;
    out[e] = Narrow<T>(kernels::DepthwiseBackpropInputAt<C>(g, b, sy, sx, c, dy, f));
  }
};

template <typename T, bool kDepthwise>
struct BackpropFilterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, kDepthwise, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const BackpropFilterElement<T, kDepthwise> f{kernels::GeometryOf(p, w, mult), {Data<T>(p.input)},
                                                 {Data<T>(p.filter)}, Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, p.op);
  }
};
template <typename T> using Conv2DBackpropFilterKernel = BackpropFilterKernel<T, false>;
template <typename T> using DepthwiseBackpropFilterKernel = BackpropFilterKernel<T, true>;

template <typename T>
struct DepthwiseBackpropInputKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanDepthwiseBackpropInput(ctx, w, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const DepthwiseInputElement<T> f{kernels::GeometryOf(p, w, mult), {Data<T>(p.input)},
                                     {Data<T>(p.filter)}, Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, p.op);
  }
};

using kernels::DeleteWindow3D;
using kernels::Grad3DGeometry;
using kernels::Window3D;
void* CreateConv3DWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow3D(ctx, "GPU"); }

template <typename T, bool kFilter>
struct Conv3DElement {
  Grad3DGeometry g;
  int64_t dims[5];
  Read<T> dy, other;
  T* out;
  __device__ void operator()(int64_t e) const {
    int64_t idx[5], rest = e;
    for (int d = 4; d >= 0; --d) {
      idx[d] = rest % dims[d];
      rest /= dims[d];
    }
    using C = typename ComputeType<T>::type;
    if (kFilter) {
      const int64_t tap[3] = {idx[0], idx[1], idx[2]};
      using Acc = std::conditional_t<std::is_same_v<T, float>, double, C>;  // as the CPU kernel
      out[e] = Narrow<T>(static_cast<C>(kernels::Conv3DBackpropFilterAt<Acc>(g, tap, idx[3], idx[4], other, dy)));
    } else {
      const int64_t at[3] = {idx[1], idx[2], idx[3]};
      out[e] = Narrow<T>(kernels::Conv3DBackpropInputAt<C>(g, idx[0], at, idx[4], dy, other));
    }
  }
};

template <typename T, bool kFilter>
struct Conv3DBackpropKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Grad3DPlan p;
    if (!kernels::PlanConv3DBackprop(ctx, *static_cast<Window3D*>(state), kFilter, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    Conv3DElement<T, kFilter> f{p.g, {}, {Data<T>(p.dy)}, {Data<T>(kFilter ? p.input : p.filter)},
                                Data<T>(output)};
    for (int d = 0; d < 5; ++d) f.dims[d] = p.out_dims[d];
    LaunchForEach(ctx, NumElements(p.out_dims), f, kFilter ? "Conv3DBackpropFilterV2" : "Conv3DBackpropInputV2");
  }
};
template <typename T> using Conv3DBackpropInputKernel = Conv3DBackpropKernel<T, false>;
template <typename T> using Conv3DBackpropFilterKernel = Conv3DBackpropKernel<T, true>;

template <template <typename> class Kernel, typename... Ts>
void Register3D(const char* op, const char* sizes, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {sizes}, &Kernel<Ts>::Compute,
       CreateConv3DWindow, DeleteWindow3D}, status), ...);
}

// The sizes input (filter_sizes / input_sizes) is read on the host.
template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, const char* sizes, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {sizes}, &Kernel<Ts>::Compute,
       CreateConvWindow, DeleteWindow}, status), ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;

}  // namespace

void RegisterConvGradKernels(TF_Status* status) {
  RegisterWith<Conv2DBackpropFilterKernel>("Conv2DBackpropFilter", "filter_sizes", FloatTypes(), status);
  RegisterWith<DepthwiseBackpropInputKernel>("DepthwiseConv2dNativeBackpropInput", "input_sizes",
                                             FloatTypes(), status);
  RegisterWith<DepthwiseBackpropFilterKernel>("DepthwiseConv2dNativeBackpropFilter", "filter_sizes",
                                              FloatTypes(), status);
  Register3D<Conv3DBackpropInputKernel>("Conv3DBackpropInputV2", "input_sizes", FloatTypes(), status);
  Register3D<Conv3DBackpropFilterKernel>("Conv3DBackpropFilterV2", "filter_sizes", FloatTypes(), status);
}

}  // namespace cuda
}  // namespace opgen
