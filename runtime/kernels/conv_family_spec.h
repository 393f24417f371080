// The input checks and output sizes of DepthwiseConv2dNative, Conv2DBackpropInput and
// Conv3D, as TensorFlow computes them: shared by the CPU kernels and the CUDA plugin's.
// The 2-D ones read their attrs with window_spec.h's CreateWindow (same attr names as
// Conv2D, NHWC only).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"
#include "window_spec.h"

namespace opgen {
namespace kernels {

// DepthwiseConv2dNative(input [b, ih, iw, ic], filter [kh, kw, ic, multiplier]): output
// channel c * multiplier + m is input channel c convolved with filter[:, :, c, m]. In the
// plan, oc = ic * multiplier. False after reporting the failure.
inline bool PlanDepthwise(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan,
                          int64_t* multiplier) {
  plan->op = "DepthwiseConv2dNative";
  TensorPtr input = Input(ctx, 0), filter = Input(ctx, 1);
  if (!input || !filter) return false;
  const std::vector<int64_t> id = Dims(input.get()), fd = Dims(filter.get());
  int64_t oc = 0;
  if (id.size() != 4 || fd.size() != 4 || id[3] != fd[2] || fd[0] == 0 || fd[1] == 0 ||
      __builtin_mul_overflow(fd[2], fd[3], &oc)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "DepthwiseConv2dNative: input " + ShapeString(id) + " (NHWC) and filter " + ShapeString(fd) +
             " ([height, width, in_channels, multiplier]) do not fit");
    return false;
  }
  *multiplier = fd[3];
  plan->input = std::move(input);
  plan->filter = std::move(filter);
  plan->batch = id[0];
  plan->ih = id[1];
  plan->iw = id[2];
  plan->ic = id[3];
  plan->kh = fd[0];
  plan->kw = fd[1];
  plan->oc = oc;
  return PlanOutput(ctx, w, plan);
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop): the gradient of a Conv2D whose
// input had the shape input_sizes names. In the plan, ih/iw/ic are that input's sizes
// (the kernel's output), oh/ow/oc the convolution's output (out_backprop's), and
// `input` holds out_backprop.
inline bool PlanConv2DBackpropInput(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan) {
  plan->op = "Conv2DBackpropInput";
  TensorPtr sizes = Input(ctx, 0), filter = Input(ctx, 1), dy = Input(ctx, 2);
  if (!sizes || !filter || !dy) return false;
  const std::vector<int64_t> fd = Dims(filter.get()), dd = Dims(dy.get());
  if (TF_NumDims(sizes.get()) != 1 || (TF_TensorElementCount(sizes.get()) != 4 &&
                                       TF_TensorElementCount(sizes.get()) != 2)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Conv2DBackpropInput: input_sizes must be a 1-D tensor of 4 (or 2 spatial) sizes, got shape " +
             ShapeString(Dims(sizes.get())));
    return false;
  }
  if (fd.size() != 4 || dd.size() != 4 || fd[3] != dd[3] || fd[0] == 0 || fd[1] == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Conv2DBackpropInput: filter " + ShapeString(fd) + " (HWIO) and out_backprop " +
             ShapeString(dd) + " (NHWC) do not fit");
    return false;
  }
  std::vector<int64_t> in = IndexValues(sizes.get());
  if (in.size() == 2) in = {dd[0], in[0], in[1], fd[2]};
  if (CheckedNumElements(in) < 0 || in[0] != dd[0] || in[3] != fd[2]) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Conv2DBackpropInput: input_sizes " + ShapeString(in) + " does not fit filter " +
             ShapeString(fd) + " and out_backprop " + ShapeString(dd) +
             " (batch and channels must agree, sizes must not be negative)");
    return false;
  }
  plan->input = std::move(dy);
  plan->filter = std::move(filter);
  plan->batch = in[0];
  plan->ih = in[1];
  plan->iw = in[2];
  plan->ic = in[3];
  plan->kh = fd[0];
  plan->kw = fd[1];
  plan->oc = fd[3];
  if (!PlanOutput(ctx, w, plan)) return false;
  if (plan->oh != dd[1] || plan->ow != dd[2]) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Conv2DBackpropInput: out_backprop " + ShapeString(dd) + " is not the size a " +
             w.padding + " convolution of input_sizes " + ShapeString(in) + " gives (" +
             ShapeString({in[0], plan->oh, plan->ow, fd[3]}) + ")");
    return false;
  }
  plan->out_dims = in;
  return true;
}

// ---- Conv3D ------------------------------------------------------------------------

struct Window3D {
  std::vector<int64_t> strides, dilations;
  bool same = false;  // padding SAME (else VALID)
};

inline Window3D* CreateWindow3D(TF_OpKernelConstruction* ctx, const char* device) {
  auto* w = new Window3D();
  StatusPtr s = NewStatus();
  w->strides = IntListAttr(ctx, "strides", s.get());
  if (TF_GetCode(s.get()) == TF_OK) w->dilations = IntListAttr(ctx, "dilations", s.get());
  std::string padding, format;
  if (TF_GetCode(s.get()) == TF_OK) padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    w->same = padding == "SAME";
    if (format != "NDHWC") {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   (std::string("Conv3D: only data_format NDHWC is implemented on the ") + device).c_str());
    } else if (w->strides.size() != 5 || w->dilations.size() != 5) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "Conv3D: strides and dilations need 5 entries");
    } else if (w->strides[0] != 1 || w->strides[4] != 1 || w->dilations[0] != 1 || w->dilations[4] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   "Conv3D: strides and dilations over the batch or channel dimension are not supported");
    } else if (padding != "SAME" && padding != "VALID") {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, ("Conv3D: padding must be SAME or VALID, got '" + padding + "'").c_str());
    }
    for (int d = 1; d <= 3 && TF_GetCode(s.get()) == TF_OK; ++d)
      if (w->strides[d] <= 0 || w->dilations[d] <= 0)
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                     ("Conv3D: strides and dilations must be positive, got strides " +
                      ShapeString(w->strides) + ", dilations " + ShapeString(w->dilations)).c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return w;
}
inline void DeleteWindow3D(void* p) { delete static_cast<Window3D*>(p); }

// Conv3D(input [b, d, h, w, ic], filter [kd, kh, kw, ic, oc]) -> [b, od, oh, ow, oc].
struct Conv3DPlan {
  TensorPtr input, filter;
  int64_t batch = 0, ic = 0, oc = 0;
  int64_t in[3] = {0, 0, 0}, k[3] = {0, 0, 0}, out[3] = {0, 0, 0}, pad[3] = {0, 0, 0};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  std::vector<int64_t> out_dims;
};

inline bool PlanConv3D(TF_OpKernelContext* ctx, const Window3D& w, Conv3DPlan* plan) {
  TensorPtr input = Input(ctx, 0), filter = Input(ctx, 1);
  if (!input || !filter) return false;
  const std::vector<int64_t> id = Dims(input.get()), fd = Dims(filter.get());
  if (id.size() != 5 || fd.size() != 5 || id[4] != fd[3] || NumElements(fd) == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Conv3D: input " + ShapeString(id) + " (NDHWC) and filter " +
                                       ShapeString(fd) + " (DHWIO) do not fit");
    return false;
  }
  Window2D as2d;  // one spatial dim at a time through the 2-D rule (index 1)
  as2d.padding = w.same ? "SAME" : "VALID";
  for (int d = 0; d < 3; ++d) {
    as2d.strides[1] = plan->stride[d] = w.strides[1 + d];
    as2d.dilations[1] = plan->dilation[d] = w.dilations[1 + d];
    plan->in[d] = id[1 + d];
    plan->k[d] = fd[d];
    if (!OutputSize(as2d, 1, id[1 + d], fd[d], &plan->out[d], &plan->pad[d])) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Conv3D: filter " + ShapeString(fd) + " with strides " +
                                         ShapeString(w.strides) + " and dilations " +
                                         ShapeString(w.dilations) + " and padding " +
                                         as2d.padding + " is larger than input " +
                                         ShapeString(id) + ", or its size overflows");
      return false;
    }
  }
  plan->batch = id[0];
  plan->ic = id[4];
  plan->oc = fd[4];
  plan->input = std::move(input);
  plan->filter = std::move(filter);
  plan->out_dims = {plan->batch, plan->out[0], plan->out[1], plan->out[2], plan->oc};
  return true;
}

}  // namespace kernels
}  // namespace opgen
