// Conv2DBackpropFilter (im2col + one GEMM per group of images, accumulated), and
// DepthwiseConv2dNativeBackpropInput / BackpropFilter and Conv3DBackpropInputV2 /
// FilterV2 (../conv_grad_spec.h's per-element sums on all cores), on NHWC / NDHWC data; the 16-bit types are computed in float and rounded once.
// The attrs are Conv2D's (../window_spec.h, NCHW refused as TensorFlow's CPU kernels do),
// the input checks ../conv_grad_spec.h's, shared with the CUDA twin.
#include <algorithm>
#include <new>
#include <type_traits>
#include <vector>

#include "../conv_grad_spec.h"
#include "gemm.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::DeleteWindow;
using kernels::GradGeometry;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "CPU"); }

// Widening reads of a typed buffer, for the shared per-element sums.
template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};

// The GEMM's element type: double for double, float for the rest.
template <typename T> using GemmType = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The most im2col elements one GEMM's group of images may take (64 MiB of floats).
constexpr int64_t kMaxColumns = int64_t{16} << 20;

template <typename T>
struct Conv2DBackpropFilterKernel {
  // A filter_sizes far larger than the input (SAME padding allows it) asks for buffers
  // no machine has: an error, never an exception across the C API.
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    try {
      Run(state, ctx);
    } catch (const std::bad_alloc&) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "Conv2DBackpropFilter: out of memory for the filter_sizes given");
    }
  }
  static void Run(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, false, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    using G = GemmType<T>;
    const int64_t ih = p.ih, iw = p.iw, ic = p.ic, kh = p.kh, kw = p.kw, oc = p.oc;
    const int64_t oh = p.oh, ow = p.ow, K = kh * kw * ic, pixels = oh * ow;
    int64_t cells = 0;  // one image's im2col elements
    if (__builtin_mul_overflow(pixels, K, &cells)) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "Conv2DBackpropFilter: the im2col buffer of filter_sizes " +
                                           ShapeString(p.out_dims) + " overflows int64");
      return;
    }
    std::vector<G> acc(static_cast<size_t>(K * oc), G(0));
    const T* in = Data<T>(p.input);
    const T* dy = Data<T>(p.filter);
    if (pixels > 0 && K > 0 && oc > 0 && p.batch > 0) {
      // dW[K, oc] = sum over images of cols[pixels, K]^T @ dy[pixels, oc]; a group of
      // images is one GEMM (their rows stack), as many as kMaxColumns allows.
      const int64_t group = std::max<int64_t>(1, std::min<int64_t>(p.batch, kMaxColumns / std::max<int64_t>(cells, 1)));
      std::vector<G> cols(static_cast<size_t>(group * pixels * K)), part(static_cast<size_t>(K * oc));
      std::vector<G> dy_wide(std::is_same_v<T, G> ? 0 : static_cast<size_t>(group * pixels * oc));
      for (int64_t b0 = 0; b0 < p.batch; b0 += group) {
        const int64_t n = std::min(group, p.batch - b0), rows = n * pixels;
        ParallelFor(rows, [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = b0 + r / pixels, y = (r % pixels) / ow, x = r % ow;
            const T* image = in + b * ih * iw * ic;
            G* row = cols.data() + r * K;
            if (ic == 1) {  // one channel: a tap per element, the loop state in registers
              const int64_t x0 = x * w.strides[2] - p.pl;
              for (int64_t i = 0; i < kh; ++i) {
                const int64_t sy = y * w.strides[1] - p.pt + i * w.dilations[1];
                const bool inside = sy >= 0 && sy < ih;
                const T* src = image + (inside ? sy * iw : 0);
                for (int64_t j = 0, sx = x0; j < kw; ++j, sx += w.dilations[2])
                  *row++ = inside && sx >= 0 && sx < iw ? static_cast<G>(Widen(src[sx])) : G(0);
              }
              continue;
            }
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t sy = y * w.strides[1] - p.pt + i * w.dilations[1];
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t sx = x * w.strides[2] - p.pl + j * w.dilations[2];
                G* dst = row + (i * kw + j) * ic;
                if (sy < 0 || sy >= ih || sx < 0 || sx >= iw) {
                  std::fill_n(dst, ic, G(0));
                } else {
                  const T* src = image + (sy * iw + sx) * ic;
                  for (int64_t k = 0; k < ic; ++k) dst[k] = static_cast<G>(Widen(src[k]));
                }
              }
            }
          }
        }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(K, 1)));
        const G* dy_rows = nullptr;
        if constexpr (std::is_same_v<T, G>) {
          dy_rows = dy + b0 * pixels * oc;
        } else {
          const T* src = dy + b0 * pixels * oc;
          for (int64_t k = 0; k < rows * oc; ++k) dy_wide[k] = static_cast<G>(Widen(src[k]));
          dy_rows = dy_wide.data();
        }
        Gemm(true, false, K, oc, rows, cols.data(), dy_rows, part.data());
        for (size_t k = 0; k < acc.size(); ++k) acc[k] += part[k];
      }
    }
    T* out = Data<T>(output);
    for (size_t k = 0; k < acc.size(); ++k) out[k] = Narrow<T>(static_cast<ComputeType<T>>(acc[k]));
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
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w, mult);
    const Read<T> dy{Data<T>(p.input)}, f{Data<T>(p.filter)};
    T* out = Data<T>(output);
    const int64_t work = std::max<int64_t>(1, g.kh * g.kw * mult);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t c = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
        const int64_t b = e / (g.ic * g.iw * g.ih);
        out[e] = Narrow<T>(kernels::DepthwiseBackpropInputAt<ComputeType<T>>(g, b, sy, sx, c, dy, f));
      }
    }, std::max<int64_t>(1, kParallelThreshold / work));
  }
};

template <typename T>
struct DepthwiseBackpropFilterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, true, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w, mult);
    const Read<T> in{Data<T>(p.input)}, dy{Data<T>(p.filter)};
    T* out = Data<T>(output);
    // Element (i, j, c, m) of the filter; output channel c * mult + m.
    const int64_t work = std::max<int64_t>(1, g.batch * g.oh * g.ow);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t m = e % mult, c = (e / mult) % g.ic, j = (e / (mult * g.ic)) % g.kw;
        const int64_t i = e / (mult * g.ic * g.kw);
        out[e] = Narrow<T>(kernels::BackpropFilterAt<ComputeType<T>>(g, i, j, c, c * mult + m, in, dy));
      }
    }, std::max<int64_t>(1, kParallelThreshold / work));
  }
};

using kernels::DeleteWindow3D;
using kernels::Window3D;
void* CreateConv3DWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow3D(ctx, "CPU"); }

// Conv3DBackpropInputV2 / FilterV2: ../conv_grad_spec.h's per-element sums on all cores.
template <typename T, bool kFilter>
struct Conv3DBackpropKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Grad3DPlan p;
    if (!kernels::PlanConv3DBackprop(ctx, *static_cast<Window3D*>(state), kFilter, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const kernels::Grad3DGeometry& g = p.g;
    const Read<T> dy{Data<T>(p.dy)}, other{Data<T>(kFilter ? p.input : p.filter)};
    T* out = Data<T>(output);
    const std::vector<int64_t>& dims = p.out_dims;
    const int64_t work = kFilter ? g.batch * g.out[0] * g.out[1] * g.out[2] : g.k[0] * g.k[1] * g.k[2] * g.oc;
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        // Filter [kd, kh, kw, ic, oc] / input [b, d, h, w, ic], innermost last.
        int64_t idx[5], rest = e;
        for (int d = 4; d >= 0; --d) {
          idx[d] = rest % dims[d];
          rest /= dims[d];
        }
        if constexpr (kFilter) {
          const int64_t tap[3] = {idx[0], idx[1], idx[2]};
          // float sums of many products in double: TensorFlow's blocked GEMM rounds less
          // than one running float sum would.
          using Acc = std::conditional_t<std::is_same_v<T, float>, double, ComputeType<T>>;
          out[e] = Narrow<T>(static_cast<ComputeType<T>>(
              kernels::Conv3DBackpropFilterAt<Acc>(g, tap, idx[3], idx[4], other, dy)));
        } else {
          const int64_t at[3] = {idx[1], idx[2], idx[3]};
          out[e] = Narrow<T>(kernels::Conv3DBackpropInputAt<ComputeType<T>>(g, idx[0], at, idx[4], dy, other));
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(work, 1)));
  }
};
template <typename T> using Conv3DBackpropInputKernel = Conv3DBackpropKernel<T, false>;
template <typename T> using Conv3DBackpropFilterKernel = Conv3DBackpropKernel<T, true>;

template <template <typename> class Kernel, typename... Ts>
void Register3D(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       CreateConv3DWindow, DeleteWindow3D}, status), ...);
}

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       CreateConvWindow, DeleteWindow}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: the four float types for each (Conv3DBackpropInputV2
// for either Tshape).
void RegisterConvGradKernels(TF_Status* status) {
  RegisterWith<Conv2DBackpropFilterKernel>("Conv2DBackpropFilter", FloatTypes(), status);
  RegisterWith<DepthwiseBackpropInputKernel>("DepthwiseConv2dNativeBackpropInput", FloatTypes(), status);
  RegisterWith<DepthwiseBackpropFilterKernel>("DepthwiseConv2dNativeBackpropFilter", FloatTypes(), status);
  Register3D<Conv3DBackpropInputKernel>("Conv3DBackpropInputV2", FloatTypes(), status);
  Register3D<Conv3DBackpropFilterKernel>("Conv3DBackpropFilterV2", FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
