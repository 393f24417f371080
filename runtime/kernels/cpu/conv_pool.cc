// Conv2D (im2col + one BLAS GEMM per image; grouped ones a convolution per group),
// MaxPool and AvgPool, for NHWC data.
// NCHW is refused with TF_UNIMPLEMENTED rather than computed wrongly.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "conv2d_float.h"
#include "conv_groups.h"
#include "depthwise_float.h"
#include "gemm.h"
#include "../pool_argmax_spec.h"
#include "../window_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "pool_float.h"

namespace opgen {
namespace cpu {
namespace {

// The window attrs, input checks and output sizes: ../window_spec.h, shared with the
// CUDA plugin; here the arithmetic.
using kernels::DeleteWindow;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "CPU"); }
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, false, "CPU"); }

// One ordinary (ungrouped) convolution of `p`'s geometry with `ic` input and `oc` output
// channels.
template <typename T>
void ConvolveOnce(const Window2D& w, const kernels::WindowPlan& p, int64_t ic, int64_t oc,
                  const T* in, const T* f, T* out) {
  const int64_t batch = p.batch, ih = p.ih, iw = p.iw;
  const int64_t kh = p.kh, kw = p.kw, oh = p.oh, ow = p.ow, pt = p.pt, pl = p.pl;
  if constexpr (std::is_same_v<T, float>) {  // the tuned core (conv2d_float.h)
    const Conv2DGeometry g{batch, ih, iw, ic, kh, kw, oc, oh, ow, w.strides[1], w.strides[2],
                           w.dilations[1], w.dilations[2], pt, pl};
    Conv2DFloat(g, in, f, out, Epilogue{});
    return;
  }
  // im2col: one row per output pixel, kh*kw*ic columns, then [oh*ow, K] @ [K, oc].
  const int64_t K = kh * kw * ic;
  std::vector<T> cols(static_cast<size_t>(oh * ow * K));
  for (int64_t b = 0; b < batch; ++b) {
    const T* image = in + b * ih * iw * ic;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        T* row = cols.data() + (y * ow + x) * K;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t sy = y * w.strides[1] - pt + i * w.dilations[1];
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t sx = x * w.strides[2] - pl + j * w.dilations[2];
            T* dst = row + (i * kw + j) * ic;
            if (sy < 0 || sy >= ih || sx < 0 || sx >= iw) std::fill_n(dst, ic, Narrow<T>(0));
            else std::copy_n(image + (sy * iw + sx) * ic, ic, dst);
          }
        }
      }
    }
    Gemm(false, false, oh * ow, oc, K, cols.data(), f, out + b * oh * ow * oc);
  }
}

template <typename T>
struct Conv2DKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanConv2D(ctx, w, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || p.batch * p.oh * p.ow * p.oc == 0) return;
    const T* in = Data<T>(p.input);
    const T* f = Data<T>(p.filter);
    T* out = Data<T>(output);
    if (p.groups == 1) {
      ConvolveOnce(w, p, p.ic, p.oc, in, f, out);
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      // A group per input channel (ConvNeXt's, Xception's) is a depthwise convolution,
      // whose filter [kh, kw, 1, ic * m] lies in memory as depthwise's [kh, kw, ic, m].
      if (p.groups == p.ic) {
        DepthwiseConv2DFloat(DepthwiseOf(w, p), in, f, out, Epilogue{});
        return;
      }
    }
    ForEachConvGroup(p, in, f, out, [&](const T* in_g, const T* f_g, T* out_g, int64_t ic, int64_t oc) {
      ConvolveOnce(w, p, ic, oc, in_g, f_g, out_g);
    });
  }
};

template <typename T, bool kMax>
struct PoolKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanPool(ctx, w, &p, kMax ? "MaxPool" : "AvgPool")) return;
    const int64_t batch = p.batch, ih = p.ih, iw = p.iw, c = p.ic;
    const int64_t oh = p.oh, ow = p.ow, pt = p.pt, pl = p.pl;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const T* in = Data<T>(p.input);
    T* out = Data<T>(output);
    if (batch * oh * ow * c == 0) return;
    // One output row (b, y) per step, on all cores; inside, the channels are the inner
    // loop (contiguous in NHWC, so it vectorises), each channel visiting the window in
    // the same order as a per-channel loop would: max keeps the first of equal values
    // and a NaN only where it comes first, as std::max(acc, v) does.
    const int64_t row_work = std::max<int64_t>(1, ow * c * std::min<int64_t>(w.ksize[1] * w.ksize[2], 64));
    if constexpr (!kMax && std::is_same_v<T, float>) {
      const AvgPoolGeometry g{batch, ih, iw, c, w.ksize[1], w.ksize[2], w.strides[1], w.strides[2],
                             oh, ow, pt, pl};
      ParallelFor(batch * oh, [&](int64_t first, int64_t last) {
        std::vector<float> scratch(static_cast<size_t>(iw * c));
        AvgPoolFloatRows(g, in, out, first, last, scratch.data());
      }, std::max<int64_t>(1, kParallelThreshold / row_work));
      return;
    }
    ParallelFor(batch * oh, [&](int64_t first, int64_t last) {
      std::vector<ComputeType<T>> acc(static_cast<size_t>(c));
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / oh, y = row % oh;
        // Only the window's part inside the image is visited: the cost follows the
        // input, not ksize (which may be 2^31 - 1).
        const kernels::Span rows = kernels::ClipWindow(y * w.strides[1] - pt, w.ksize[1], ih);
        for (int64_t x = 0; x < ow; ++x) {
          const kernels::Span cols = kernels::ClipWindow(x * w.strides[2] - pl, w.ksize[2], iw);
          std::fill(acc.begin(), acc.end(), kMax ? Lowest<T>() : ComputeType<T>(0));
          for (int64_t sy = rows.begin; sy < rows.end; ++sy)
            for (int64_t sx = cols.begin; sx < cols.end; ++sx) {
              const T* src = in + ((b * ih + sy) * iw + sx) * c;
              for (int64_t ch = 0; ch < c; ++ch) {
                const ComputeType<T> v = Widen(src[ch]);
                acc[ch] = kMax ? (acc[ch] < v ? v : acc[ch]) : acc[ch] + v;
              }
            }
          // The average is over the window's part inside the image.
          const int64_t count = (rows.end - rows.begin) * (cols.end - cols.begin);
          T* dst = out + ((b * oh + y) * ow + x) * c;
          for (int64_t ch = 0; ch < c; ++ch) {
            ComputeType<T> a = acc[ch];
            if (!kMax && count > 0) a /= static_cast<ComputeType<T>>(count);
            dst[ch] = Narrow<T>(a);
          }
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / row_work));
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWindowed(const char* op, Types<Ts...>, void* (*create)(TF_OpKernelConstruction*),
                      TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create,
       DeleteWindow}, status),
   ...);
}

template <typename T> using MaxPoolKernel = PoolKernel<T, true>;
template <typename T> using AvgPoolKernel = PoolKernel<T, false>;

// MaxPoolV2: MaxPool's kernel on the window its ksize and strides tensors give.
template <typename... Ts>
void RegisterMaxPoolV2(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MaxPoolV2", {{"T", DtypeOf<Ts>::value}}, {"ksize", "strides"},
                            &kernels::WithTensorWindow<&MaxPoolKernel<Ts>::Compute>,
                            kernels::CreateMaxPoolV2, kernels::DeletePoolV2}, status),
   ...);
}

}  // namespace

// TensorFlow's CPU registrations: Conv2D on floats and int32, MaxPool on every real
// type its OpDef allows (no uint32 or uint64), AvgPool on floats.
void RegisterConvPoolKernels(TF_Status* status) {
  RegisterWindowed<Conv2DKernel>("Conv2D", Concat<FloatTypes, Types<int32_t>>(), CreateConvWindow, status);
  RegisterWindowed<MaxPoolKernel>("MaxPool", Concat<FloatTypes, SignedIntTypes, Types<uint8_t, uint16_t>>(),
                                  CreatePoolWindow, status);
  RegisterMaxPoolV2(Concat<FloatTypes, SignedIntTypes, Types<uint8_t, uint16_t>>(), status);
  RegisterWindowed<AvgPoolKernel>("AvgPool", FloatTypes(), CreatePoolWindow, status);
}

}  // namespace cpu
}  // namespace opgen
