// The backprop ops of the convolution, pooling, batch-norm and resize families: input
// checks and sizes (host), and the per-element sums (__host__ __device__) that both the
// CPU kernels and the CUDA plugin's run, so the two compute the same thing. Each sum is
// written as a gather (one output element reads what feeds it), which needs no atomics
// and gives the same answer on any number of threads. NHWC only (as TensorFlow's CPU
// kernels); batch norm in both layouts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "conv_family_spec.h"
#include "kernel_api_util.h"
#include "nn_spec.h"
#include "resize_spec.h"
#include "window_spec.h"
#include "host_device.h"

namespace opgen {
namespace kernels {

// ---- plans (host) ------------------------------------------------------------------

// A window over NHWC images as plain numbers, by value into device code.
struct GradGeometry {
  int64_t batch, ih, iw, ic;   // the forward op's input
  int64_t oh, ow, oc;          // the forward op's output
  int64_t kh, kw;              // window (filter) size
  int64_t sh, sw, dh, dw;      // strides, dilations
  int64_t pt, pl;              // padding before
  int64_t multiplier;          // depthwise: output channels per input channel
};

inline GradGeometry GeometryOf(const WindowPlan& p, const Window2D& w, int64_t multiplier = 1) {
  return {p.batch, p.ih, p.iw, p.ic, p.oh, p.ow, p.oc, p.kh, p.kw, w.strides[1], w.strides[2],
          w.dilations[1], w.dilations[2], p.pt, p.pl, multiplier};
}

// Reads a 1-D int32 sizes input of 4 values; false after reporting the failure.
inline bool SizesInput(TF_OpKernelContext* ctx, int i, const std::string& op, const char* what,
                       std::vector<int64_t>* out) {
  TensorPtr t = Input(ctx, i);
  if (!t) return false;
  if (TF_NumDims(t.get()) != 1 || TF_TensorElementCount(t.get()) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": " + what + " must be a 1-D tensor of 4 sizes, got shape " +
                                       ShapeString(Dims(t.get())));
    return false;
  }
  *out = IndexValues(t.get());
  if (CheckedNumElements(*out) < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": " + what + " " + ShapeString(*out) + " must not be negative");
    return false;
  }
  return true;
}

// Checks that out_backprop (`dy`) has the shape the forward op's output would have.
inline bool CheckOutBackprop(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan,
                             const std::vector<int64_t>& dy, const char* what) {
  if (!PlanOutput(ctx, w, plan)) return false;
  if (dy != plan->out_dims) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(plan->op) + ": " + what + " " + ShapeString(dy) + " is not the shape the " +
             w.padding + " forward op gives (" + ShapeString(plan->out_dims) + ")");
    return false;
  }
  return true;
}

// TensorFlow's depthwise backprops take one stride for rows and columns.
inline bool CheckDepthwiseStrides(TF_OpKernelContext* ctx, const Window2D& w, const std::string& op) {
  if (w.strides[1] == w.strides[2]) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, op + ": strides " + ShapeString(w.strides) +
                                     " must be equal in the row and column dimensions");
  return false;
}

// The forward op's input dims (NHWC), window and output depth, into the plan.
inline void SetForwardGeometry(WindowPlan* plan, const std::vector<int64_t>& nhwc, int64_t kh,
                               int64_t kw, int64_t oc) {
  plan->batch = nhwc[0];
  plan->ih = nhwc[1];
  plan->iw = nhwc[2];
  plan->ic = nhwc[3];
  plan->kh = kh;
  plan->kw = kw;
  plan->oc = oc;
}

// Conv2DBackpropFilter and DepthwiseConv2dNativeBackpropFilter(input, filter_sizes,
// out_backprop). `input` holds the images, `filter` out_backprop; out_dims become
// filter_sizes. False after reporting the failure.
inline bool PlanBackpropFilter(TF_OpKernelContext* ctx, const Window2D& w, bool depthwise,
                               WindowPlan* plan, int64_t* multiplier) {
  plan->op = depthwise ? "DepthwiseConv2dNativeBackpropFilter" : "Conv2DBackpropFilter";
  const std::string op = plan->op;
  TensorPtr input = Input(ctx, 0), dy = Input(ctx, 2);
  std::vector<int64_t> fs;
  if (!input || !dy || !SizesInput(ctx, 1, op, "filter_sizes", &fs)) return false;
  const std::vector<int64_t> id = Dims(input.get()), dd = Dims(dy.get());
  if (id.size() != 4 || dd.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": input " + ShapeString(id) + " and out_backprop " +
                                       ShapeString(dd) + " must be 4-D (NHWC)");
    return false;
  }
  int64_t oc = fs[3];
  if (fs[2] != id[3] || fs[0] == 0 || fs[1] == 0 ||
      (depthwise && __builtin_mul_overflow(fs[2], fs[3], &oc))) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": filter_sizes " + ShapeString(fs) +
                                       " does not fit input " + ShapeString(id) +
                                       " (in_channels must equal the input's depth; taps non-zero)");
    return false;
  }
  if (depthwise && !CheckDepthwiseStrides(ctx, w, op)) return false;
  *multiplier = depthwise ? fs[3] : 1;
  plan->input = std::move(input);
  plan->filter = std::move(dy);
  SetForwardGeometry(plan, id, fs[0], fs[1], oc);
  if (!CheckOutBackprop(ctx, w, plan, dd, "out_backprop")) return false;
  plan->out_dims = fs;
  return true;
}

// DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop): `filter` holds
// the filter, `input` out_backprop; out_dims become input_sizes.
inline bool PlanDepthwiseBackpropInput(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan,
                                       int64_t* multiplier) {
  plan->op = "DepthwiseConv2dNativeBackpropInput";
  const std::string op = plan->op;
  TensorPtr filter = Input(ctx, 1), dy = Input(ctx, 2);
  std::vector<int64_t> in;
  if (!filter || !dy || !SizesInput(ctx, 0, op, "input_sizes", &in)) return false;
  const std::vector<int64_t> fd = Dims(filter.get()), dd = Dims(dy.get());
  int64_t oc = 0;
  if (fd.size() != 4 || dd.size() != 4 || fd[2] != in[3] || fd[0] == 0 || fd[1] == 0 ||
      __builtin_mul_overflow(fd[2], fd[3], &oc)) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": filter " + ShapeString(fd) +
                                       " ([height, width, in_channels, multiplier]) does not fit "
                                       "input_sizes " + ShapeString(in) + " and out_backprop " +
                                       ShapeString(dd));
    return false;
  }
  if (!CheckDepthwiseStrides(ctx, w, op)) return false;
  *multiplier = fd[3];
  plan->input = std::move(dy);
  plan->filter = std::move(filter);
  SetForwardGeometry(plan, in, fd[0], fd[1], oc);
  if (!CheckOutBackprop(ctx, w, plan, dd, "out_backprop")) return false;
  plan->out_dims = in;
  return true;
}

// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(orig_input_shape, grad):
// `input` holds orig_input (MaxPoolGrad only), `filter` grad; out_dims the input's shape.
inline bool PlanPoolGrad(TF_OpKernelContext* ctx, const Window2D& w, bool max, WindowPlan* plan) {
  plan->op = max ? "MaxPoolGrad" : "AvgPoolGrad";
  const std::string op = plan->op;
  std::vector<int64_t> id;
  TensorPtr grad = Input(ctx, max ? 2 : 1);
  if (!grad) return false;
  if (max) {
    TensorPtr orig_in = Input(ctx, 0), orig_out = Input(ctx, 1);
    if (!orig_in || !orig_out) return false;
    id = Dims(orig_in.get());
    if (Dims(orig_out.get()) != Dims(grad.get())) {
      Fail(ctx, TF_INVALID_ARGUMENT, op + ": orig_output " + ShapeString(Dims(orig_out.get())) +
                                         " and grad " + ShapeString(Dims(grad.get())) +
                                         " must have the same shape");
      return false;
    }
    plan->input = std::move(orig_in);
  } else if (!SizesInput(ctx, 0, op, "orig_input_shape", &id)) {
    return false;
  }
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": orig_input must be 4-D (NHWC), got " + ShapeString(id));
    return false;
  }
  const std::vector<int64_t> gd = Dims(grad.get());
  plan->filter = std::move(grad);
  SetForwardGeometry(plan, id, w.ksize[1], w.ksize[2], id[3]);
  if (!CheckOutBackprop(ctx, w, plan, gd, "grad")) return false;
  plan->out_dims = id;
  return true;
}

// MaxPoolGradGrad(orig_input, orig_output, grad): `input` holds orig_input, `filter` grad
// (shaped as orig_input), `orig_output` orig_output; out_dims its shape, which the window
// must give.
inline bool PlanMaxPoolGradGrad(TF_OpKernelContext* ctx, const Window2D& w, WindowPlan* plan,
                                TensorPtr* orig_output) {
  plan->op = "MaxPoolGradGrad";
  const std::string op = plan->op;
  TensorPtr orig_in = Input(ctx, 0), orig_out = Input(ctx, 1), grad = Input(ctx, 2);
  if (!orig_in || !orig_out || !grad) return false;
  const std::vector<int64_t> id = Dims(orig_in.get()), od = Dims(orig_out.get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": orig_input must be 4-D (NHWC), got " + ShapeString(id));
    return false;
  }
  if (Dims(grad.get()) != id) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": grad " + ShapeString(Dims(grad.get())) +
                                       " and orig_input " + ShapeString(id) +
                                       " must have the same shape");
    return false;
  }
  plan->input = std::move(orig_in);
  plan->filter = std::move(grad);
  *orig_output = std::move(orig_out);
  SetForwardGeometry(plan, id, w.ksize[1], w.ksize[2], id[3]);
  if (!CheckOutBackprop(ctx, w, plan, od, "orig_output")) return false;
  plan->out_dims = od;
  return true;
}

// ResizeBilinearGrad(grads, original_image) and ResizeNearestNeighborGrad(grads, size):
// the forward resize went from [batch, ih, iw, c] (the gradient's shape, out_dims) to
// [batch, oh, ow, c] (grads'), with the forward op's scales.
struct ResizeGradPlan {
  TensorPtr grads;
  int64_t batch = 0, ih = 0, iw = 0, c = 0, oh = 0, ow = 0;
  float scale_h = 0, scale_w = 0;
  std::vector<int64_t> out_dims;
};

// `from_image`: the original size comes from original_image (ResizeBilinearGrad, and
// ResizeBicubicGrad, named by `name`), else from size (ResizeNearestNeighborGrad).
inline bool PlanResizeGrad(TF_OpKernelContext* ctx, const ResizeAttrs& a, bool from_image,
                           ResizeGradPlan* plan, const char* name = nullptr) {
  const std::string op = name ? name : from_image ? "ResizeBilinearGrad" : "ResizeNearestNeighborGrad";
  const bool bilinear = from_image;
  TensorPtr grads = Input(ctx, 0), other = Input(ctx, 1);
  if (!grads || !other) return false;
  const std::vector<int64_t> gd = Dims(grads.get());
  if (gd.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": grads must be 4-D, got " + ShapeString(gd));
    return false;
  }
  std::vector<int64_t> od;
  if (bilinear) {
    od = Dims(other.get());
    if (od.size() != 4 || od[0] != gd[0] || od[3] != gd[3]) {
      Fail(ctx, TF_INVALID_ARGUMENT, op + ": original_image " + ShapeString(od) +
                                         " must be 4-D with the batch and channels of grads " +
                                         ShapeString(gd));
      return false;
    }
  } else {
    if (TF_NumDims(other.get()) != 1 || TF_TensorElementCount(other.get()) != 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, op + ": size must be 1-D with 2 elements, got shape " +
                                         ShapeString(Dims(other.get())));
      return false;
    }
    const std::vector<int64_t> s = IndexValues(other.get());
    if (s[0] <= 0 || s[1] <= 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, op + ": size must be positive, got " + ShapeString(s));
      return false;
    }
    od = {gd[0], s[0], s[1], gd[3]};
  }
  if (od[1] <= 0 || od[2] <= 0 || gd[1] <= 0 || gd[2] <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": images must be of non-zero size, got grads " +
                                       ShapeString(gd) + " for an original of " + ShapeString(od));
    return false;
  }
  if (!CheckShapeSize(ctx, op, od)) return false;
  plan->grads = std::move(grads);
  plan->batch = gd[0];
  plan->oh = gd[1];
  plan->ow = gd[2];
  plan->c = gd[3];
  plan->ih = od[1];
  plan->iw = od[2];
  plan->scale_h = ResizeScale(plan->ih, plan->oh, a.align_corners);
  plan->scale_w = ResizeScale(plan->iw, plan->ow, a.align_corners);
  plan->out_dims = od;
  return true;
}

// FusedBatchNormGrad, V2, V3: the attrs, and the inputs seen as [outer, c, inner].
struct BatchNormGradAttrs {
  float epsilon = 1e-4f;
  bool is_training = true;
  bool channels_first = false;
  int rank = 4;
};

inline void* CreateBatchNormGrad(TF_OpKernelConstruction* ctx) {
  auto* a = new BatchNormGradAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &a->epsilon, s.get());
  std::string format;
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  a->channels_first = format.size() > 1 && format[1] == 'C';
  a->rank = format.size() == 5 ? 5 : 4;
  if (TF_GetCode(s.get()) == TF_OK) a->is_training = BoolAttr(ctx, "is_training", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteBatchNormGrad(void* p) { delete static_cast<BatchNormGradAttrs*>(p); }

struct BatchNormGradPlan {
  TensorPtr dy, x, scale, mean, variance;
  std::vector<int64_t> dims;
  int64_t c = 0, rows = 0, outer = 0, inner = 1;
};

inline bool PlanBatchNormGrad(TF_OpKernelContext* ctx, const BatchNormGradAttrs& a, const char* op,
                              BatchNormGradPlan* p) {
  p->dy = Input(ctx, 0);
  p->x = Input(ctx, 1);
  p->scale = Input(ctx, 2);
  p->mean = Input(ctx, 3);
  p->variance = Input(ctx, 4);
  if (!p->dy || !p->x || !p->scale || !p->mean || !p->variance) return false;
  p->dims = Dims(p->x.get());
  if (static_cast<int>(p->dims.size()) != a.rank || Dims(p->dy.get()) != p->dims) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": x " + ShapeString(p->dims) + " and y_backprop " +
                                       ShapeString(Dims(p->dy.get())) + " must have one " +
                                       std::to_string(a.rank) + "-D shape");
    return false;
  }
  const int axis = a.channels_first ? 1 : a.rank - 1;
  p->c = p->dims[axis];
  OuterInner(p->dims, axis, &p->outer, &p->inner);
  p->rows = p->outer * p->inner;
  const char* names[] = {"scale", "reserve_space_1", "reserve_space_2"};
  const TensorPtr* stats[] = {&p->scale, &p->mean, &p->variance};
  for (int i = 0; i < 3; ++i) {
    const std::vector<int64_t> d = Dims(stats[i]->get());
    if (d.size() != 1 || d[0] != p->c) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + names[i] + " " + ShapeString(d) +
                                         " must be 1-D with one value per channel (" +
                                         std::to_string(p->c) + ")");
      return false;
    }
  }
  return true;
}

// Conv3DBackpropInputV2(input_sizes, filter, out_backprop) and Conv3DBackpropFilterV2(
// input, filter_sizes, out_backprop) on NDHWC data: the window attrs are Conv3D's
// (conv_family_spec.h's CreateWindow3D); the geometry by value into device code.
struct Grad3DGeometry {
  int64_t batch, ic, oc;
  int64_t in[3], out[3], k[3], stride[3], dilation[3], pad[3];
};

struct Grad3DPlan {
  TensorPtr input, filter, dy;  // the tensors the op has (input or filter is null)
  Grad3DGeometry g{};
  std::vector<int64_t> out_dims;
};

inline bool PlanConv3DBackprop(TF_OpKernelContext* ctx, const Window3D& w, bool filter_grad, Grad3DPlan* p) {
  const std::string op = filter_grad ? "Conv3DBackpropFilterV2" : "Conv3DBackpropInputV2";
  const char* sizes_name = filter_grad ? "filter_sizes" : "input_sizes";
  TensorPtr known = Input(ctx, filter_grad ? 0 : 1), sizes = Input(ctx, 1 - (filter_grad ? 0 : 1)),
            dy = Input(ctx, 2);
  if (!known || !sizes || !dy) return false;
  if (TF_NumDims(sizes.get()) != 1 || TF_TensorElementCount(sizes.get()) != 5) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": " + sizes_name + " must be a 1-D tensor of 5 sizes, got shape " +
                                       ShapeString(Dims(sizes.get())));
    return false;
  }
  const std::vector<int64_t> sv = IndexValues(sizes.get());
  if (CheckedNumElements(sv) < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": " + sizes_name + " " + ShapeString(sv) + " must not be negative");
    return false;
  }
  const std::vector<int64_t> kd = Dims(known.get()), dd = Dims(dy.get());
  const std::vector<int64_t>& id = filter_grad ? kd : sv;  // [b, d, h, w, ic]
  const std::vector<int64_t>& fd = filter_grad ? sv : kd;  // [kd, kh, kw, ic, oc]
  if (id.size() != 5 || fd.size() != 5 || dd.size() != 5 || id[4] != fd[3] || fd[0] == 0 || fd[1] == 0 ||
      fd[2] == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": input " + ShapeString(id) + " (NDHWC), filter " +
                                       ShapeString(fd) + " (DHWIO) and out_backprop " + ShapeString(dd) +
                                       " do not fit");
    return false;
  }
  Grad3DGeometry& g = p->g;
  Window2D as2d;  // one spatial dim at a time through the 2-D rule (index 1)
  as2d.padding = w.same ? "SAME" : "VALID";
  for (int d = 0; d < 3; ++d) {
    as2d.strides[1] = g.stride[d] = w.strides[1 + d];
    as2d.dilations[1] = g.dilation[d] = w.dilations[1 + d];
    g.in[d] = id[1 + d];
    g.k[d] = fd[d];
    if (!OutputSize(as2d, 1, id[1 + d], fd[d], &g.out[d], &g.pad[d])) {
      Fail(ctx, TF_INVALID_ARGUMENT, op + ": filter " + ShapeString(fd) + " with strides " +
                                         ShapeString(w.strides) + " and padding " + as2d.padding +
                                         " is larger than input " + ShapeString(id) + ", or its size overflows");
      return false;
    }
  }
  g.batch = id[0];
  g.ic = id[4];
  g.oc = fd[4];
  const std::vector<int64_t> want = {g.batch, g.out[0], g.out[1], g.out[2], g.oc};
  if (dd != want) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": out_backprop " + ShapeString(dd) + " is not the shape the " +
                                       as2d.padding + " Conv3D gives (" + ShapeString(want) + ")");
    return false;
  }
  (filter_grad ? p->input : p->filter) = std::move(known);
  p->dy = std::move(dy);
  p->out_dims = filter_grad ? fd : id;
  return CheckShapeSize(ctx, op, p->out_dims);
}

// ---- per-element sums (host and device) --------------------------------------------

// The clipped window of output position o: [begin, end) of input rows.
OPGEN_HD inline void PoolSpan(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t extent,
                                   int64_t* begin, int64_t* end) {
  const int64_t start = o * stride - pad;
  *begin = start > 0 ? start : 0;
  const int64_t stop = k > extent - start ? extent : start + k;
  *end = stop < extent ? stop : extent;
  if (*end < *begin) *end = *begin;
}

// Pool windows covering input row s: outputs o with o * stride - pad <= s < o * stride -
// pad + k, as [first, last].
OPGEN_HD inline void CoveringWindows(int64_t s, int64_t stride, int64_t pad, int64_t k, int64_t out,
                                          int64_t* first, int64_t* last) {
  const int64_t q = s + pad;  // o * stride <= q and o * stride > q - k
  const int64_t hi = q / stride;
  const int64_t lo_num = q - k + 1;
  const int64_t lo = lo_num <= 0 ? 0 : lo_num / stride + (lo_num % stride != 0);
  *first = lo;
  *last = hi < out - 1 ? hi : out - 1;
}

// d input[b, sy, sx, ch] of MaxPool: the grads of the windows whose first maximum (in
// row-major order, later values taking over only when strictly larger, so a NaN never
// does unless it comes first) sits here. Read(i) widens element i.
template <typename C, typename ReadIn, typename ReadGrad>
OPGEN_HD inline C MaxPoolGradAt(const GradGeometry& g, int64_t b, int64_t sy, int64_t sx, int64_t ch,
                                     ReadIn in, ReadGrad grad) {
  C acc = C(0);
  int64_t y0, y1, x0, x1;
  CoveringWindows(sy, g.sh, g.pt, g.kh, g.oh, &y0, &y1);
  CoveringWindows(sx, g.sw, g.pl, g.kw, g.ow, &x0, &x1);
  for (int64_t y = y0; y <= y1; ++y) {
    int64_t rb, re;
    PoolSpan(y, g.sh, g.pt, g.kh, g.ih, &rb, &re);
    for (int64_t x = x0; x <= x1; ++x) {
      int64_t cb, ce;
      PoolSpan(x, g.sw, g.pl, g.kw, g.iw, &cb, &ce);
      int64_t best_y = -1, best_x = -1;
      C best = C(0);
      for (int64_t r = rb; r < re; ++r)
        for (int64_t q = cb; q < ce; ++q) {
          const C v = in(((b * g.ih + r) * g.iw + q) * g.ic + ch);
          if (best_y < 0 || best < v) {
            best = v;
            best_y = r;
            best_x = q;
          }
        }
      if (best_y == sy && best_x == sx) acc += grad(((b * g.oh + y) * g.ow + x) * g.oc + ch);
    }
  }
  return acc;
}

// MaxPoolGradGrad at output [b, y, x, ch], whose value is `out`: grad at the first element
// of the window (row-major) equal to it, or zero where none is (a NaN maximum, or an
// orig_output that is not the pool of orig_input), as TensorFlow's CPU kernel.
template <typename C, typename ReadIn, typename ReadGrad>
OPGEN_HD inline C MaxPoolGradGradAt(const GradGeometry& g, int64_t b, int64_t y, int64_t x,
                                         int64_t ch, C out, ReadIn in, ReadGrad grad) {
  int64_t rb, re, cb, ce;
  PoolSpan(y, g.sh, g.pt, g.kh, g.ih, &rb, &re);
  PoolSpan(x, g.sw, g.pl, g.kw, g.iw, &cb, &ce);
  for (int64_t r = rb; r < re; ++r)
    for (int64_t q = cb; q < ce; ++q) {
      const int64_t i = ((b * g.ih + r) * g.iw + q) * g.ic + ch;
      if (in(i) == out) return grad(i);
    }
  return C(0);
}

// d input[b, sy, sx, ch] of AvgPool: each covering window's grad over its clipped size.
template <typename C, typename ReadGrad>
OPGEN_HD inline C AvgPoolGradAt(const GradGeometry& g, int64_t b, int64_t sy, int64_t sx, int64_t ch,
                                     ReadGrad grad) {
  C acc = C(0);
  int64_t y0, y1, x0, x1;
  CoveringWindows(sy, g.sh, g.pt, g.kh, g.oh, &y0, &y1);
  CoveringWindows(sx, g.sw, g.pl, g.kw, g.ow, &x0, &x1);
  for (int64_t y = y0; y <= y1; ++y) {
    int64_t rb, re;
    PoolSpan(y, g.sh, g.pt, g.kh, g.ih, &rb, &re);
    for (int64_t x = x0; x <= x1; ++x) {
      int64_t cb, ce;
      PoolSpan(x, g.sw, g.pl, g.kw, g.iw, &cb, &ce);
      const int64_t count = (re - rb) * (ce - cb);
      if (count > 0) acc += grad(((b * g.oh + y) * g.ow + x) * g.oc + ch) / static_cast<C>(count);
    }
  }
  return acc;
}

// d input[b, sy, sx, c] of DepthwiseConv2dNative: dy (out_backprop) through the taps.
// Every tap counts: where no output pixel reads this input pixel through tap (i, j)
// (padding, or between strides), the tap adds 0 * filter, so a non-finite filter value
// gives NaN there, as TensorFlow's kernel (which multiplies a zero-filled window) does.
template <typename C, typename ReadDy, typename ReadF>
OPGEN_HD inline C DepthwiseBackpropInputAt(const GradGeometry& g, int64_t b, int64_t sy, int64_t sx,
                                                int64_t c, ReadDy dy, ReadF f) {
  C acc = C(0);
  const int64_t m_count = g.multiplier;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ry = sy + g.pt - i * g.dh;
    const bool row = ry >= 0 && ry % g.sh == 0 && ry / g.sh < g.oh;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t rx = sx + g.pl - j * g.dw;
      const int64_t f_at = ((i * g.kw + j) * g.ic + c) * m_count;
      if (row && rx >= 0 && rx % g.sw == 0 && rx / g.sw < g.ow) {
        const int64_t dy_at = ((b * g.oh + ry / g.sh) * g.ow + rx / g.sw) * g.oc + c * m_count;
        for (int64_t m = 0; m < m_count; ++m) acc += dy(dy_at + m) * f(f_at + m);
      } else {
        for (int64_t m = 0; m < m_count; ++m) acc += C(0) * f(f_at + m);
      }
    }
  }
  return acc;
}

// d filter[i, j, c, o] of Conv2D (depthwise: d filter[i, j, c, m], o = c * multiplier +
// m, input channel c), over the images and output pixels. A tap in the padding adds
// 0 * out_backprop (NaN for a non-finite one), as a zero-padded im2col product does.
template <typename C, typename ReadIn, typename ReadDy>
OPGEN_HD inline C BackpropFilterAt(const GradGeometry& g, int64_t i, int64_t j, int64_t c, int64_t o,
                                        ReadIn in, ReadDy dy) {
  C acc = C(0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.oh; ++y) {
      const int64_t sy = y * g.sh - g.pt + i * g.dh;
      const bool row = sy >= 0 && sy < g.ih;
      for (int64_t x = 0; x < g.ow; ++x) {
        const int64_t sx = x * g.sw - g.pl + j * g.dw;
        const C d = dy(((b * g.oh + y) * g.ow + x) * g.oc + o);
        if (row && sx >= 0 && sx < g.iw) acc += in(((b * g.ih + sy) * g.iw + sx) * g.ic + c) * d;
        else acc += C(0) * d;
      }
    }
  return acc;
}

// d input[b, z, y, x, c] of Conv3D: the taps through which an output voxel read this one
// (unlike the depthwise gradient, TensorFlow's kernel skips the others: a non-finite
// filter value does not reach input voxels it never touched).
template <typename C, typename ReadDy, typename ReadF>
OPGEN_HD inline C Conv3DBackpropInputAt(const Grad3DGeometry& g, int64_t b, const int64_t (&at)[3],
                                             int64_t c, ReadDy dy, ReadF f) {
  C acc = C(0);
  for (int64_t a = 0; a < g.k[0]; ++a)
    for (int64_t i = 0; i < g.k[1]; ++i)
      for (int64_t j = 0; j < g.k[2]; ++j) {
        const int64_t tap[3] = {a, i, j};
        int64_t o[3];
        bool hit = true;
        for (int d = 0; d < 3; ++d) {
          const int64_t r = at[d] + g.pad[d] - tap[d] * g.dilation[d];
          hit = hit && r >= 0 && r % g.stride[d] == 0 && r / g.stride[d] < g.out[d];
          o[d] = hit ? r / g.stride[d] : 0;
        }
        if (!hit) continue;
        const int64_t f_at = (((a * g.k[1] + i) * g.k[2] + j) * g.ic + c) * g.oc;
        const int64_t dy_at = (((b * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]) * g.oc;
        for (int64_t q = 0; q < g.oc; ++q) acc += dy(dy_at + q) * f(f_at + q);
      }
  return acc;
}

// d filter[a, i, j, c, o] of Conv3D over the images and output voxels (0 * out_backprop
// for taps in the padding).
template <typename C, typename ReadIn, typename ReadDy>
OPGEN_HD inline C Conv3DBackpropFilterAt(const Grad3DGeometry& g, const int64_t (&tap)[3], int64_t c,
                                              int64_t o, ReadIn in, ReadDy dy) {
  C acc = C(0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t z = 0; z < g.out[0]; ++z) {
      const int64_t sz = z * g.stride[0] - g.pad[0] + tap[0] * g.dilation[0];
      for (int64_t y = 0; y < g.out[1]; ++y) {
        const int64_t sy = y * g.stride[1] - g.pad[1] + tap[1] * g.dilation[1];
        for (int64_t x = 0; x < g.out[2]; ++x) {
          const int64_t sx = x * g.stride[2] - g.pad[2] + tap[2] * g.dilation[2];
          const C d = dy((((b * g.out[0] + z) * g.out[1] + y) * g.out[2] + x) * g.oc + o);
          if (sz >= 0 && sz < g.in[0] && sy >= 0 && sy < g.in[1] && sx >= 0 && sx < g.in[2])
            acc += in((((b * g.in[0] + sz) * g.in[1] + sy) * g.in[2] + sx) * g.ic + c) * d;
          else
            acc += C(0) * d;
        }
      }
    }
  return acc;
}

// d image[b, sy, sx, ch] of ResizeBilinear: the grads of the output pixels that read it,
// each term grad * y weight * x weight in float, added in the order TensorFlow's kernel
// adds them (output pixel by pixel; top-left, top-right, bottom-left, bottom-right), so
// float and double results are TensorFlow's bit for bit. Every row (column) is scanned:
// which read this pixel follows from the float sampling, not a closed form.
template <typename C, typename ReadGrad>
OPGEN_HD inline C ResizeBilinearGradAt(int64_t oh, int64_t ow, int64_t ih, int64_t iw, int64_t c,
                                            float scale_h, float scale_w, bool half_pixel, int64_t b,
                                            int64_t sy, int64_t sx, int64_t ch, ReadGrad grad) {
  C acc = C(0);
  for (int64_t y = 0; y < oh; ++y) {
    int64_t top, bottom;
    float ly;
    BilinearTap(y, scale_h, ih, half_pixel, &top, &bottom, &ly);
    if (top != sy && bottom != sy) continue;
    const float y_weights[2] = {1.0f - ly, ly};
    const bool y_hit[2] = {top == sy, bottom == sy};
    for (int64_t x = 0; x < ow; ++x) {
      int64_t left, right;
      float lx;
      BilinearTap(x, scale_w, iw, half_pixel, &left, &right, &lx);
      if (left != sx && right != sx) continue;
      const float x_weights[2] = {1.0f - lx, lx};
      const bool x_hit[2] = {left == sx, right == sx};
      const float g = static_cast<float>(grad(((b * oh + y) * ow + x) * c + ch));
      for (int r = 0; r < 2; ++r)
        for (int q = 0; q < 2; ++q)
          if (y_hit[r] && x_hit[q]) acc += static_cast<C>(g * y_weights[r] * x_weights[q]);
    }
  }
  return acc;
}

// d image[b, sy, sx, ch] of ResizeNearestNeighbor: the grads of the pixels copied from it.
template <typename C, typename ReadGrad>
OPGEN_HD inline C ResizeNearestGradAt(int64_t oh, int64_t ow, int64_t ih, int64_t iw, int64_t c,
                                           float scale_h, float scale_w, bool align, bool half_pixel,
                                           int64_t b, int64_t sy, int64_t sx, int64_t ch, ReadGrad grad) {
  C acc = C(0);
  for (int64_t y = 0; y < oh; ++y) {
    if (NearestTap(y, scale_h, ih, align, half_pixel) != sy) continue;
    for (int64_t x = 0; x < ow; ++x)
      if (NearestTap(x, scale_w, iw, align, half_pixel) == sx) acc += grad(((b * oh + y) * ow + x) * c + ch);
  }
  return acc;
}

}  // namespace kernels
}  // namespace opgen
