// Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput and BackpropFilter, and
// Conv3DBackpropInputV2 / FilterV2 on the GPU, NHWC / NDHWC only (channels-first refused,
// as on the CPU): one thread per output element running ../conv_grad_spec.h's per-element
// sums, but Conv2DBackpropFilter, which is im2col + cuBLAS GEMMs as on the CPU; the CPU
// kernels' checks and errors. Twin of ../cpu/conv_grad.cc.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../conv_grad_spec.h"
#include "cuda_kernels.h"
#include "gemm.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
// Kernel functors of Conv2DBackpropFilter's GEMM path, in a named namespace: nvcc's host
// stubs fail to name these (but not the other functors) from the anonymous one.
namespace conv_grad_detail {

using kernels::GradGeometry;

// cols[r, (i, j, c)] for row r = (image, y, x) of the group: the input value under tap
// (i, j) of output pixel (y, x), zero in the padding.
template <typename T>
struct Im2ColElement {
  GradGeometry g;
  const T* in;  // the group's first image
  T* cols;
  __device__ void operator()(int64_t e) const {
    const int64_t taps = g.kh * g.kw * g.ic;
    const int64_t r = e / taps, t = e % taps;
    const int64_t c = t % g.ic, j = (t / g.ic) % g.kw, i = t / (g.ic * g.kw);
    const int64_t x = r % g.ow, y = (r / g.ow) % g.oh, b = r / (g.ow * g.oh);
    const int64_t sy = y * g.sh - g.pt + i * g.dh, sx = x * g.sw - g.pl + j * g.dw;
    cols[e] = sy >= 0 && sy < g.ih && sx >= 0 && sx < g.iw ? in[((b * g.ih + sy) * g.iw + sx) * g.ic + c]
                                                           : Narrow<T>(typename ComputeType<T>::type(0));
  }
};

// acc[e] += part[e] (first: acc[e] = part[e]); last: out[e] = acc[e] rounded.
template <typename T>
struct AccumulateElement {
  const T* part;
  float* acc;
  T* out;
  bool first, last;
  __device__ void operator()(int64_t e) const {
    const float v = (first ? 0.0f : acc[e]) + static_cast<float>(Widen(part[e]));
    if (last) out[e] = Narrow<T>(static_cast<typename ComputeType<T>::type>(v));
    else acc[e] = v;
  }
};

}  // namespace conv_grad_detail

namespace {

using conv_grad_detail::AccumulateElement;
using conv_grad_detail::Im2ColElement;

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
template <typename T> using DepthwiseBackpropFilterKernel = BackpropFilterKernel<T, true>;

// ---- Conv2DBackpropFilter: im2col + cuBLAS, as the CPU kernel ----------------------------

// The im2col elements one GEMM's group of images may take (as Conv2D's forward).
constexpr int64_t kIm2ColElements = int64_t{1} << 26;

// dW[K, oc] = sum over images of cols[pixels, K]^T @ dy[pixels, oc]: one GEMM straight
// into the output when the batch fits one im2col buffer, else one per group of images,
// added up in float (double problems that large take the direct per-element sum, which
// keeps double precision).
template <typename T>
struct Conv2DBackpropFilterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, false, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t filter_elements = NumElements(p.out_dims);
    if (!output || filter_elements == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w);
    const int64_t taps = g.kh * g.kw * g.ic, pixels = g.oh * g.ow;
    int64_t per_image = 0;
    if (__builtin_mul_overflow(pixels, taps, &per_image)) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "Conv2DBackpropFilter: the im2col buffer overflows int64");
      return;
    }
    if (pixels == 0 || g.batch == 0) {  // nothing read: the gradient is zero
      const BackpropFilterElement<T, false> f{g, {Data<T>(p.input)}, {Data<T>(p.filter)}, Data<T>(output)};
      LaunchForEach(ctx, filter_elements, f, p.op);
      return;
    }
    const int64_t group = std::max<int64_t>(1, std::min<int64_t>(g.batch, kIm2ColElements / std::max<int64_t>(per_image, 1)));
    if (std::is_same_v<T, double> && group < g.batch) {
      const BackpropFilterElement<T, false> f{g, {Data<T>(p.input)}, {Data<T>(p.filter)}, Data<T>(output)};
      LaunchForEach(ctx, filter_elements, f, p.op);
      return;
    }
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    TensorPtr cols = AllocateTemp(ctx, DtypeOf<T>::value, {group * per_image});
    if (!cols) return;
    const bool one_group = group >= g.batch;
    TensorPtr part, acc;
    if (!one_group) {
      part = AllocateTemp(ctx, DtypeOf<T>::value, {filter_elements});
      acc = AllocateTemp(ctx, TF_FLOAT, {filter_elements});
      if (!part || !acc) return;
    }
    const T* in = Data<T>(p.input);
    const T* dy = Data<T>(p.filter);
    for (int64_t b0 = 0; b0 < g.batch; b0 += group) {
      const int64_t n = std::min(group, g.batch - b0), rows = n * pixels;
      const Im2ColElement<T> im2col{g, in + b0 * g.ih * g.iw * g.ic, Data<T>(cols)};
      if (!LaunchForEach(ctx, rows * taps, im2col, "Conv2DBackpropFilter im2col")) return;
      T* dst = one_group ? Data<T>(output) : Data<T>(part);
      if (!Gemm<T>(ctx, stream, true, false, taps, g.oc, rows, Data<T>(cols), dy + b0 * pixels * g.oc, dst))
        return;
      if (!one_group) {
        const AccumulateElement<T> add{Data<T>(part), Data<float>(acc), Data<T>(output), b0 == 0,
                                       b0 + group >= g.batch};
        if (!LaunchForEach(ctx, filter_elements, add, "Conv2DBackpropFilter")) return;
      }
    }
  }
};

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
