// DepthwiseConv2dNative, Conv2DBackpropInput (Keras' Conv2DTranspose) and Conv3D on NHWC
// / NDHWC data. float32 depthwise runs depthwise_float.cc's vectorised kernel; the rest
// is im2col (or its transpose, col2im) around one GEMM per image, computed in float
// for the 16-bit types. NCHW is refused with TF_UNIMPLEMENTED, as Conv2D.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../conv_family_spec.h"
#include "conv_grad_tiles.h"
#include "depthwise_float.h"
#include "gemm.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::DeleteWindow;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "CPU"); }

template <typename T>
struct DepthwiseKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanDepthwise(ctx, w, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const T* in = Data<T>(p.input);
    const T* f = Data<T>(p.filter);
    T* out = Data<T>(output);
    const DepthwiseGeometry g{p.batch, p.ih, p.iw, p.ic, p.kh, p.kw, mult, p.oh, p.ow,
                              w.strides[1], w.strides[2], w.dilations[1], w.dilations[2], p.pt, p.pl};
    if constexpr (std::is_same_v<T, float>) {
      DepthwiseConv2DFloat(g, in, f, out, Epilogue{});
    } else {
      using C = ComputeType<T>;
      const int64_t c = p.ic, oc = p.oc, rows = p.batch * p.oh;
      ParallelFor(rows, [&](int64_t begin, int64_t end) {
        std::vector<C> acc(oc);
        for (int64_t row = begin; row < end; ++row) {
          const int64_t b = row / g.oh, y = row % g.oh;
          for (int64_t x = 0; x < g.ow; ++x) {
            std::fill(acc.begin(), acc.end(), C(0));
            for (int64_t i = 0; i < g.kh; ++i) {
              const int64_t sy = y * g.stride_h - g.pad_top + i * g.dilation_h;
              if (sy < 0 || sy >= g.ih) continue;
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t sx = x * g.stride_w - g.pad_left + j * g.dilation_w;
                if (sx < 0 || sx >= g.iw) continue;
                const T* px = in + ((b * g.ih + sy) * g.iw + sx) * c;
                const T* fx = f + (i * g.kw + j) * oc;
                for (int64_t k = 0; k < oc; ++k) acc[k] += Widen(px[k / mult]) * Widen(fx[k]);
              }
            }
            T* o = out + (row * g.ow + x) * oc;
            for (int64_t k = 0; k < oc; ++k) o[k] = Narrow<T>(acc[k]);
          }
        }
      }, 1);
    }
  }
};

// The GEMM's element type: the 16-bit floats go through float (gemm.h widens them).
template <typename T>
struct Conv2DBackpropInputKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanConv2DBackpropInput(ctx, w, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const T* dy = Data<T>(p.input);
    const T* f = Data<T>(p.filter);
    T* out = Data<T>(output);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {  // stride 1: a convolution
      if (Conv2DBackpropInputAsConv(p, w, dy, f, out)) return;
    }
    if constexpr (!std::is_integral_v<T>) {  // images in parallel, tiles in cache
      if (Conv2DBackpropInputByImages(p, w, dy, f, out)) return;
    }
    const int64_t ih = p.ih, iw = p.iw, ic = p.ic, kh = p.kh, kw = p.kw, oc = p.oc;
    const int64_t oh = p.oh, ow = p.ow, K = kh * kw * ic, pixels = oh * ow;
    using C = ComputeType<T>;
    // cols[pixel, (i, j, c)] = sum_o dy[pixel, o] * filter[i, j, c, o]: the filter read as
    // a [K, oc] matrix, transposed. Then each column adds into the input pixel it came from.
    std::vector<T> cols(static_cast<size_t>(std::max<int64_t>(pixels * K, 0)));
    std::vector<C> acc(static_cast<size_t>(ih * iw * ic));
    for (int64_t b = 0; b < p.batch; ++b) {
      std::fill(acc.begin(), acc.end(), C(0));
      if (pixels > 0 && K > 0 && oc > 0) {
        Gemm(false, true, pixels, K, oc, dy + b * pixels * oc, f, cols.data());
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x)
            AddColumnRow(p, w, y, x, cols.data() + (y * ow + x) * K, acc.data());
      }
      T* o = out + b * ih * iw * ic;
      for (int64_t k = 0; k < ih * iw * ic; ++k) o[k] = Narrow<T>(acc[k]);
    }
  }
};

using kernels::DeleteWindow3D;
using kernels::Window3D;
void* CreateConv3DWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow3D(ctx, "CPU"); }

template <typename T>
struct Conv3DKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Conv3DPlan p;
    if (!kernels::PlanConv3D(ctx, *static_cast<Window3D*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const T* in = Data<T>(p.input);
    const T* f = Data<T>(p.filter);
    T* out = Data<T>(output);
    const int64_t ic = p.ic, taps = p.k[0] * p.k[1] * p.k[2], K = taps * ic;
    const int64_t pixels = p.out[0] * p.out[1] * p.out[2];
    const int64_t in_image = p.in[0] * p.in[1] * p.in[2] * ic;
    std::vector<T> cols(static_cast<size_t>(pixels * K));
    for (int64_t b = 0; b < p.batch; ++b) {
      const T* image = in + b * in_image;
      for (int64_t z = 0; z < p.out[0]; ++z)
        for (int64_t y = 0; y < p.out[1]; ++y)
          for (int64_t x = 0; x < p.out[2]; ++x) {
            T* row = cols.data() + ((z * p.out[1] + y) * p.out[2] + x) * K;
            for (int64_t a = 0; a < p.k[0]; ++a) {
              const int64_t sz = z * p.stride[0] - p.pad[0] + a * p.dilation[0];
              for (int64_t i = 0; i < p.k[1]; ++i) {
                const int64_t sy = y * p.stride[1] - p.pad[1] + i * p.dilation[1];
                for (int64_t j = 0; j < p.k[2]; ++j) {
                  const int64_t sx = x * p.stride[2] - p.pad[2] + j * p.dilation[2];
                  T* dst = row + ((a * p.k[1] + i) * p.k[2] + j) * ic;
                  if (sz < 0 || sz >= p.in[0] || sy < 0 || sy >= p.in[1] || sx < 0 || sx >= p.in[2])
                    std::fill_n(dst, ic, Narrow<T>(0));
                  else
                    std::copy_n(image + ((sz * p.in[1] + sy) * p.in[2] + sx) * ic, ic, dst);
                }
              }
            }
          }
      Gemm(false, false, pixels, p.oc, K, cols.data(), f, out + b * pixels * p.oc);
    }
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, void* (*create)(TF_OpKernelConstruction*),
                  void (*destroy)(void*), TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create,
       destroy}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: floats for all three, int32 too for Conv2DBackpropInput.
void RegisterConvFamilyKernels(TF_Status* status) {
  RegisterWith<DepthwiseKernel>("DepthwiseConv2dNative", FloatTypes(), CreateConvWindow, DeleteWindow, status);
  RegisterWith<Conv2DBackpropInputKernel>("Conv2DBackpropInput", Concat<FloatTypes, Types<int32_t>>(),
                                          CreateConvWindow, DeleteWindow, status);
  RegisterWith<Conv3DKernel>("Conv3D", FloatTypes(), CreateConv3DWindow, DeleteWindow3D, status);
}

}  // namespace cpu
}  // namespace opgen
