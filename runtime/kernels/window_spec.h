// The attrs of a 2-D window over NHWC images (Conv2D, MaxPool, AvgPool), the input
// checks and the output size they give, as TensorFlow computes it: shared by the CPU
// kernels and the CUDA plugin's.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct Window2D {
  std::vector<int64_t> ksize{1, 1, 1, 1}, strides{1, 1, 1, 1}, dilations{1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings;
  std::string padding;
};

// Reads the window attrs an op has (the kernel's state); `is_conv` selects Conv2D's
// attr names. `device` ("CPU", "GPU") names where NCHW is missing, in the error.
inline Window2D* CreateWindow(TF_OpKernelConstruction* ctx, bool is_conv, const char* device) {
  auto* w = new Window2D();
  StatusPtr s = NewStatus();
  w->strides = IntListAttr(ctx, "strides", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (is_conv) w->dilations = IntListAttr(ctx, "dilations", s.get());
    else w->ksize = IntListAttr(ctx, "ksize", s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK) w->padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK &&
      TF_OpKernelConstruction_HasAttr(ctx, "explicit_paddings", s.get()))
    w->explicit_paddings = IntListAttr(ctx, "explicit_paddings", s.get());
  bool nchw = false;
  if (TF_GetCode(s.get()) == TF_OK) nchw = StringAttr(ctx, "data_format", s.get()) != "NHWC";
  if (TF_GetCode(s.get()) == TF_OK) {
    if (nchw) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   (std::string("only data_format NHWC is implemented on the ") + device).c_str());
    } else if (w->strides.size() != 4 || w->ksize.size() != 4 || w->dilations.size() != 4) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "strides, ksize and dilations need 4 entries");
    } else if (w->strides[0] != 1 || w->strides[3] != 1 || w->ksize[0] != 1 ||
               w->ksize[3] != 1 || w->dilations[0] != 1 || w->dilations[3] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   "windows over the batch or channel dimension are not supported");
    } else if (w->padding == "EXPLICIT" && w->explicit_paddings.size() != 8) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "EXPLICIT padding needs 8 explicit_paddings");
    } else if (w->padding != "VALID" && w->padding != "SAME" && w->padding != "EXPLICIT") {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("padding must be VALID, SAME or EXPLICIT, got '" + w->padding + "'").c_str());
    }
    for (int d = 1; d <= 2 && TF_GetCode(s.get()) == TF_OK; ++d) {
      // Zero or negative sizes would divide by zero or walk backwards through the input.
      if (w->strides[d] <= 0 || w->ksize[d] <= 0 || w->dilations[d] <= 0) {
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                     ("strides, ksize and dilations must be positive, got strides " +
                      ShapeString(w->strides) + (is_conv ? ", dilations " + ShapeString(w->dilations)
                                                         : ", ksize " + ShapeString(w->ksize)))
                         .c_str());
      } else if (w->padding == "EXPLICIT" &&
                 (w->explicit_paddings[2 * d] < 0 || w->explicit_paddings[2 * d + 1] < 0)) {
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                     ("explicit_paddings must not be negative, got " +
                      ShapeString(w->explicit_paddings)).c_str());
      }
    }
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return w;
}
inline void DeleteWindow(void* p) { delete static_cast<Window2D*>(p); }

// Output size and leading padding of spatial dimension `d` (1: height, 2: width), as
// TensorFlow computes them; false when a size overflows int64 or the (padded) input is
// shorter than the dilated window with VALID or EXPLICIT padding (TensorFlow's kernels
// return an empty tensor, garbage or die there; the shape functions refuse it). Strides, ksize and dilations are
// positive and explicit paddings non-negative (CreateWindow checked them).
inline bool OutputSize(const Window2D& w, int d, int64_t in, int64_t k, int64_t* out,
                       int64_t* pad_before) {
  const int64_t stride = w.strides[d];
  int64_t effective = 0;  // (k - 1) * dilation + 1
  if (k < 1 || __builtin_mul_overflow(k - 1, w.dilations[d], &effective) ||
      __builtin_add_overflow(effective, 1, &effective))
    return false;
  if (w.padding == "VALID") {
    if (in < effective) return false;
    *out = (in - effective) / stride + 1;
    *pad_before = 0;
  } else if (w.padding == "SAME") {
    *out = in / stride + (in % stride != 0);
    // (out - 1) * stride + effective can pass int64 (a window of 2^63 - 1); (out - 1) *
    // stride < in, so the padding, half of what the window passes the input by, fits.
    const __int128 covered =
        *out > 0 ? static_cast<__int128>(*out - 1) * stride + effective : 0;
    *pad_before = static_cast<int64_t>(std::max<__int128>(covered - in, 0) / 2);
  } else {  // EXPLICIT
    const int64_t before = w.explicit_paddings[2 * d], after = w.explicit_paddings[2 * d + 1];
    int64_t padded = 0;
    if (__builtin_add_overflow(in, before, &padded) || __builtin_add_overflow(padded, after, &padded) ||
        padded < effective)
      return false;
    *out = (padded - effective) / stride + 1;
    *pad_before = before;
  }
  return true;
}

// The positions [begin, end) of a window of `size` taps starting at `start` (may be
// negative: padding) that fall inside [0, extent): without overflow for any size.
struct Span {
  int64_t begin = 0, end = 0;
};
inline Span ClipWindow(int64_t start, int64_t size, int64_t extent) {
  Span s;
  s.begin = std::max<int64_t>(start, 0);
  // start + size, saturated: size can be near INT64_MAX with start near it too.
  const int64_t stop = size > extent - start ? extent : start + size;
  s.end = std::min<int64_t>(stop, extent);
  if (s.end < s.begin) s.end = s.begin;
  return s;
}

// One windowed op's call: the NHWC input [batch, ih, iw, ic], a kh x kw window, and the
// output [batch, oh, ow, oc] with pt / pl rows / columns of padding before.
struct WindowPlan {
  const char* op = "Conv2D";  // for errors
  TensorPtr input;
  TensorPtr filter;  // Conv2D's HWIO filter [kh, kw, ic, oc]; null for pooling
  int64_t batch = 0, ih = 0, iw = 0, ic = 0;
  int64_t kh = 0, kw = 0;
  int64_t oh = 0, ow = 0, oc = 0;
  int64_t pt = 0, pl = 0;
  // Conv2D: ic / the filter's in-channels (Keras' Conv2D(groups=...)); oc divides by it.
  int64_t groups = 1;
  std::vector<int64_t> out_dims;
};

// False after reporting the failure.
inline bool PlanOutput(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan) {
  if (!OutputSize(w, 1, plan->ih, plan->kh, &plan->oh, &plan->pt) ||
      !OutputSize(w, 2, plan->iw, plan->kw, &plan->ow, &plan->pl)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "a " + std::to_string(plan->kh) + "x" + std::to_string(plan->kw) + " " + plan->op +
             " window (strides " + ShapeString(w.strides) + ", dilations " +
             ShapeString(w.dilations) + ", padding " + w.padding +
             ") is larger than the (padded) input " + std::to_string(plan->ih) + "x" +
             std::to_string(plan->iw) + " of shape " +
             ShapeString({plan->batch, plan->ih, plan->iw, plan->ic}) + ", or its size overflows");
    return false;
  }
  plan->out_dims = {plan->batch, plan->oh, plan->ow, plan->oc};
  return true;
}

// Conv2D(input, filter). False after reporting the failure.
inline bool PlanConv2D(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan) {
  TensorPtr input = Input(ctx, 0), filter = Input(ctx, 1);
  if (!input || !filter) return false;
  const std::vector<int64_t> id = Dims(input.get()), fd = Dims(filter.get());
  // A filter with fewer in-channels than the input convolves groups of them: the
  // input's depth a multiple of the filter's, the output's a multiple of the groups.
  if (id.size() != 4 || fd.size() != 4 || NumElements(fd) == 0 || id[3] < fd[2] ||
      id[3] % fd[2] != 0 || fd[3] % (id[3] / fd[2]) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Conv2D: input " + ShapeString(id) + " (NHWC) and filter " +
                                       ShapeString(fd) +
                                       " (HWIO) do not fit: the input's depth must be a multiple "
                                       "of the filter's, and the filter's output depth a "
                                       "multiple of their ratio (the groups)");
    return false;
  }
  plan->groups = id[3] / fd[2];
  plan->input = std::move(input);
  plan->filter = std::move(filter);
  plan->batch = id[0];
  plan->ih = id[1];
  plan->iw = id[2];
  plan->ic = id[3];
  plan->kh = fd[0];
  plan->kw = fd[1];
  plan->oc = fd[3];
  return PlanOutput(ctx, w, plan);
}

// MaxPool / AvgPool(input) (`op` names which): the window is ksize, channels stay
// (oc == ic). False after reporting the failure.
inline bool PlanPool(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan, const char* op) {
  plan->op = op;
  TensorPtr input = Input(ctx, 0);
  if (!input) return false;
  const std::vector<int64_t> id = Dims(input.get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "pooling needs a 4-D NHWC input, got " + ShapeString(id));
    return false;
  }
  plan->input = std::move(input);
  plan->batch = id[0];
  plan->ih = id[1];
  plan->iw = id[2];
  plan->ic = plan->oc = id[3];
  plan->kh = w.ksize[1];
  plan->kw = w.ksize[2];
  return PlanOutput(ctx, w, plan);
}

}  // namespace kernels
}  // namespace opgen
