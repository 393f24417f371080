// Conv2D (im2col + one BLAS GEMM per image), MaxPool and AvgPool, for NHWC data.
// NCHW is refused with TF_UNIMPLEMENTED rather than computed wrongly.
#include <algorithm>
#include <cstring>
#include <limits>

#include "gemm.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct Window2D {
  std::vector<int64_t> ksize{1, 1, 1, 1}, strides{1, 1, 1, 1}, dilations{1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings;
  std::string padding;
  bool nchw = false;
};

std::vector<int64_t> IntList(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &size, &total, s);
  std::vector<int64_t> out(size > 0 ? size : 0);
  if (TF_GetCode(s) == TF_OK && size > 0)
    TF_OpKernelConstruction_GetAttrInt64List(ctx, name, out.data(), size, s);
  return out;
}

std::string StringAttr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &size, &total, s);
  std::string out(total > 0 ? total : 0, '\0');
  if (TF_GetCode(s) == TF_OK && total > 0)
    TF_OpKernelConstruction_GetAttrString(ctx, name, out.data(), out.size(), s);
  return out;
}

// Reads the window attrs an op has; `is_conv` selects Conv2D's attr names.
void* CreateWindow(TF_OpKernelConstruction* ctx, bool is_conv) {
  auto* w = new Window2D();
  StatusPtr s = NewStatus();
  w->strides = IntList(ctx, "strides", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (is_conv) w->dilations = IntList(ctx, "dilations", s.get());
    else w->ksize = IntList(ctx, "ksize", s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK) w->padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK && TF_OpKernelConstruction_HasAttr(ctx, "explicit_paddings", s.get()))
    w->explicit_paddings = IntList(ctx, "explicit_paddings", s.get());
  if (TF_GetCode(s.get()) == TF_OK) w->nchw = StringAttr(ctx, "data_format", s.get()) != "NHWC";
  if (TF_GetCode(s.get()) == TF_OK) {
    if (w->nchw) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "only data_format NHWC is implemented on the CPU");
    } else if (w->strides.size() != 4 || w->ksize.size() != 4 || w->dilations.size() != 4) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "strides, ksize and dilations need 4 entries");
    } else if (w->strides[0] != 1 || w->strides[3] != 1 || w->ksize[0] != 1 || w->ksize[3] != 1 ||
               w->dilations[0] != 1 || w->dilations[3] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   "windows over the batch or channel dimension are not supported");
    } else if (w->padding == "EXPLICIT" && w->explicit_paddings.size() != 8) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "EXPLICIT padding needs 8 explicit_paddings");
    }
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return w;
}
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return CreateWindow(ctx, true); }
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return CreateWindow(ctx, false); }
void DeleteWindow(void* p) { delete static_cast<Window2D*>(p); }

// Output size and leading padding of one spatial dimension, as TensorFlow computes them.
void OutputSize(const Window2D& w, int d, int64_t in, int64_t k, int64_t* out, int64_t* pad_before) {
  const int64_t stride = w.strides[d], effective = (k - 1) * w.dilations[d] + 1;
  if (w.padding == "VALID") {
    *out = in >= effective ? (in - effective) / stride + 1 : 0;
    *pad_before = 0;
  } else if (w.padding == "SAME") {
    *out = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((*out - 1) * stride + effective - in, 0);
    *pad_before = total / 2;
  } else {  // EXPLICIT
    const int64_t before = w.explicit_paddings[2 * d], after = w.explicit_paddings[2 * d + 1];
    *out = (in + before + after - effective) / stride + 1;
    *pad_before = before;
  }
}

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
