// Conv2D (im2col + one BLAS GEMM per image), MaxPool and AvgPool, for NHWC data.
// NCHW is refused with TF_UNIMPLEMENTED rather than computed wrongly.
#include <algorithm>
#include <cstring>
#include <limits>

#include "gemm.h"
#include "../window_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// The window attrs and output sizes: ../window_spec.h, shared with the CUDA plugin.
using kernels::DeleteWindow;
using kernels::OutputSize;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "CPU"); }
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, false, "CPU"); }

template <typename T>
struct Conv2DKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    TensorPtr input = Input(ctx, 0), filter = Input(ctx, 1);
    if (!input || !filter) return;
    std::vector<int64_t> id = Dims(input.get()), fd = Dims(filter.get());
    if (id.size() != 4 || fd.size() != 4 || id[3] != fd[2]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Conv2D: input " + ShapeString(id) + " (NHWC) and filter " +
                                         ShapeString(fd) + " (HWIO) do not fit");
      return;
    }
    const int64_t batch = id[0], ih = id[1], iw = id[2], ic = id[3];
    const int64_t kh = fd[0], kw = fd[1], oc = fd[3];
    int64_t oh, ow, pt, pl;
    OutputSize(w, 1, ih, kh, &oh, &pt);
    OutputSize(w, 2, iw, kw, &ow, &pl);
    TensorPtr output = AllocateOutput<T>(ctx, 0, {batch, oh, ow, oc});
    if (!output || batch * oh * ow * oc == 0) return;
    const T* in = Data<T>(input);
    const T* f = Data<T>(filter);
    T* out = Data<T>(output);
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
};

template <typename T, bool kMax>
struct PoolKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    std::vector<int64_t> id = Dims(input.get());
    if (id.size() != 4) {
      Fail(ctx, TF_INVALID_ARGUMENT, "pooling needs a 4-D NHWC input, got " + ShapeString(id));
      return;
    }
    const int64_t batch = id[0], ih = id[1], iw = id[2], c = id[3];
    int64_t oh, ow, pt, pl;
    OutputSize(w, 1, ih, w.ksize[1], &oh, &pt);
    OutputSize(w, 2, iw, w.ksize[2], &ow, &pl);
    TensorPtr output = AllocateOutput<T>(ctx, 0, {batch, oh, ow, c});
    if (!output) return;
    const T* in = Data<T>(input);
    T* out = Data<T>(output);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t ch = 0; ch < c; ++ch) {
            ComputeType<T> acc = kMax ? Lowest<T>() : ComputeType<T>(0);
            int64_t count = 0;  // average over the window's part inside the image
            for (int64_t i = 0; i < w.ksize[1]; ++i) {
              const int64_t sy = y * w.strides[1] - pt + i;
              if (sy < 0 || sy >= ih) continue;
              for (int64_t j = 0; j < w.ksize[2]; ++j) {
                const int64_t sx = x * w.strides[2] - pl + j;
                if (sx < 0 || sx >= iw) continue;
                const ComputeType<T> v = Widen(in[((b * ih + sy) * iw + sx) * c + ch]);
                acc = kMax ? std::max(acc, v) : acc + v;
                ++count;
              }
            }
            if (!kMax && count > 0) acc /= static_cast<ComputeType<T>>(count);
            out[((b * oh + y) * ow + x) * c + ch] = Narrow<T>(acc);
          }
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWindowed(const char* op, Types<Ts...>, void* (*create)(TF_OpKernelConstruction*),
                      TF_Status* status) {
  (RegisterKernel(op, "T", DtypeOf<Ts>::value, &Kernel<Ts>::Compute, status, create, DeleteWindow),
   ...);
}

template <typename T> using MaxPoolKernel = PoolKernel<T, true>;
template <typename T> using AvgPoolKernel = PoolKernel<T, false>;

}  // namespace

// TensorFlow's CPU registrations: Conv2D on floats and int32, MaxPool on every real
// type, AvgPool on floats.
void RegisterConvPoolKernels(TF_Status* status) {
  RegisterWindowed<Conv2DKernel>("Conv2D", Concat<FloatTypes, Types<int32_t>>(), CreateConvWindow, status);
  RegisterWindowed<MaxPoolKernel>("MaxPool", RealTypes(), CreatePoolWindow, status);
  RegisterWindowed<AvgPoolKernel>("AvgPool", FloatTypes(), CreatePoolWindow, status);
}

}  // namespace cpu
}  // namespace opgen
