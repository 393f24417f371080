// MaxPool3D, AvgPool3D and their backprop ops (MaxPool3DGrad, AvgPool3DGrad,
// MaxPool3DGradGrad): attrs, input checks, output sizes, each output's window and the
// backprop ops' per-element sums, shared by the CPU kernels and the CUDA plugin's (NDHWC
// only, refused as TensorFlow's CPU kernels refuse NCDHW; windows and strides over batch
// and channels refused as unimplemented). Padded positions take no part: a max is over
// the window's positions inside the volume, an average divides by their count.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct Pool3DAttrs {
  std::vector<int64_t> ksize, strides;
  bool same = false;  // padding SAME (else VALID)
};

inline void* CreatePool3D(TF_OpKernelConstruction* ctx, const char* device) {
  auto* a = new Pool3DAttrs();
  StatusPtr s = NewStatus();
  a->ksize = IntListAttr(ctx, "ksize", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->strides = IntListAttr(ctx, "strides", s.get());
  std::string padding, format;
  if (TF_GetCode(s.get()) == TF_OK) padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    a->same = padding == "SAME";
    if (format != "NDHWC") {
      // TensorFlow's CPU kernels refuse NCDHW as an invalid argument; its GPU ones take it.
      const bool cpu = std::string(device) == "CPU";
      TF_SetStatus(s.get(), cpu ? TF_INVALID_ARGUMENT : TF_UNIMPLEMENTED,
                   (std::string("3-D pooling: only data_format NDHWC is supported on device type ") +
                    device).c_str());
    } else if (a->ksize.size() != 5 || a->strides.size() != 5) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "3-D pooling: ksize and strides need 5 entries");
    } else if (a->ksize[0] != 1 || a->ksize[4] != 1 || a->strides[0] != 1 || a->strides[4] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   "3-D pooling: windows and strides over the batch or channel dimension are not supported");
    }
    for (int d = 1; d <= 3 && TF_GetCode(s.get()) == TF_OK; ++d)
      if (a->ksize[d] <= 0 || a->strides[d] <= 0)
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                     ("3-D pooling: ksize and strides must be positive, got ksize " +
                      ShapeString(a->ksize) + ", strides " + ShapeString(a->strides)).c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeletePool3D(void* p) { delete static_cast<Pool3DAttrs*>(p); }

// The geometry of one call, in plain values a device kernel can take by value.
struct Pool3DGeometry {
  int64_t batch, c, in[3], out[3], k[3], stride[3], pad[3];
};

// The input positions [*lo, *hi) that output position o's window covers along dim d.
OPGEN_HD inline void Pool3DSpan(const Pool3DGeometry& g, int d, int64_t o, int64_t* lo, int64_t* hi) {
  const int64_t start = o * g.stride[d] - g.pad[d];
  *lo = start > 0 ? start : 0;
  *hi = start + g.k[d] < g.in[d] ? start + g.k[d] : g.in[d];
}

struct Pool3DPlan {
  TensorPtr input;
  Pool3DGeometry g;
  std::vector<int64_t> out_dims;
};

// The geometry of pooling a volume of dims `id` (NDHWC); false after reporting a failure.
inline bool Pool3DGeometryOf(TF_OpKernelContext* ctx, const Pool3DAttrs& a, const char* op,
                             const std::vector<int64_t>& id, Pool3DGeometry* geometry) {
  if (id.size() != 5) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input must be 5-D, got " + ShapeString(id));
    return false;
  }
  Pool3DGeometry& g = *geometry;
  g.batch = id[0];
  g.c = id[4];
  for (int d = 0; d < 3; ++d) {
    const int64_t in = id[d + 1], k = a.ksize[d + 1], s = a.strides[d + 1];
    g.in[d] = in;
    g.k[d] = k;
    g.stride[d] = s;
    if (a.same) {
      g.out[d] = in / s + (in % s != 0);
      const int64_t total = (g.out[d] - 1) * s + k - in;
      g.pad[d] = total > 0 ? total / 2 : 0;
    } else {
      if (in < k) {
        Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": a window of " + ShapeString(a.ksize) +
                                           " does not fit in the input " + ShapeString(id));
        return false;
      }
      g.out[d] = (in - k) / s + 1;
      g.pad[d] = 0;
    }
  }
  return true;
}

inline std::vector<int64_t> Pool3DOutDims(const Pool3DGeometry& g) {
  return {g.batch, g.out[0], g.out[1], g.out[2], g.c};
}

inline bool PlanPool3D(TF_OpKernelContext* ctx, const Pool3DAttrs& a, const char* op, Pool3DPlan* plan) {
  TensorPtr input = Input(ctx, 0);
  if (!input || !Pool3DGeometryOf(ctx, a, op, Dims(input.get()), &plan->g)) return false;
  plan->out_dims = Pool3DOutDims(plan->g);
  plan->input = std::move(input);
  return true;
}

// ---- MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad ----
//
// TensorFlow's CPU kernels for MaxPool3DGrad and AvgPool3DGrad spread each output's
// gradient over a span per dim that equals the window clipped to the volume, except
// when the window is longer than the volume and starts in the padding: the span then
// covers the whole volume (so AvgPool3DGrad divides by more positions than the forward
// op averaged). Both kernels here use that span, so their results are TensorFlow's.
OPGEN_HD inline void Pool3DGradSpan(const Pool3DGeometry& g, int d, int64_t o, int64_t* lo, int64_t* hi) {
  int64_t start = o * g.stride[d], size = g.k[d];
  if (start < g.pad[d]) {
    size = g.k[d] + start - g.pad[d];
    start = 0;
  } else {
    start -= g.pad[d];
  }
  if (start + g.k[d] > g.in[d]) size = g.in[d] - start < g.k[d] ? g.in[d] - start : g.k[d];
  *lo = start;
  *hi = start + size;
}

// The outputs [*first, *last) along dim d whose span may hold input position i (each
// still to be checked against Pool3DGradSpan).
OPGEN_HD inline void Pool3DGradCandidates(const Pool3DGeometry& g, int d, int64_t i, int64_t* first,
                                          int64_t* last) {
  const int64_t s = g.stride[d], after = (i + g.pad[d]) / s + 1;
  *last = after < g.out[d] ? after : g.out[d];
  const int64_t reach = i + g.pad[d] - g.k[d] + 1;  // o * s must be at least this
  *first = g.k[d] > g.in[d] || reach <= 0 ? 0 : (reach + s - 1) / s;
}

OPGEN_HD inline bool Pool3DGradCovers(const Pool3DGeometry& g, int d, int64_t o, int64_t i) {
  int64_t lo, hi;
  Pool3DGradSpan(g, d, o, &lo, &hi);
  return lo <= i && i < hi;
}

// Element e of an NDHWC tensor of the given spatial dims: its batch, position, channel.
struct Pool3DIndex {
  int64_t b, pos[3], ch;
};
OPGEN_HD inline Pool3DIndex Pool3DIndexOf(int64_t e, const int64_t dims[3], int64_t c) {
  Pool3DIndex i;
  i.ch = e % c;
  int64_t rest = e / c;
  for (int d = 2; d >= 0; --d) {
    i.pos[d] = rest % dims[d];
    rest /= dims[d];
  }
  i.b = rest;
  return i;
}
OPGEN_HD inline int64_t Pool3DOffset(int64_t b, int64_t z, int64_t y, int64_t x, const int64_t dims[3],
                                     int64_t c, int64_t ch) {
  return (((b * dims[0] + z) * dims[1] + y) * dims[2] + x) * c + ch;
}

// Calls f(output offset, oz, oy, ox) for each output whose span holds input element
// `at`, in the order TensorFlow's CPU kernels add their gradients: width outermost,
// depth innermost.
template <typename F>
OPGEN_HD inline void ForEachPool3DWindowOf(const Pool3DGeometry& g, const Pool3DIndex& at, F& f) {
  int64_t f0, l0, f1, l1, f2, l2;
  Pool3DGradCandidates(g, 0, at.pos[0], &f0, &l0);
  Pool3DGradCandidates(g, 1, at.pos[1], &f1, &l1);
  Pool3DGradCandidates(g, 2, at.pos[2], &f2, &l2);
  for (int64_t ox = f2; ox < l2; ++ox) {
    if (!Pool3DGradCovers(g, 2, ox, at.pos[2])) continue;
    for (int64_t oy = f1; oy < l1; ++oy) {
      if (!Pool3DGradCovers(g, 1, oy, at.pos[1])) continue;
      for (int64_t oz = f0; oz < l0; ++oz) {
        if (!Pool3DGradCovers(g, 0, oz, at.pos[0])) continue;
        f(Pool3DOffset(at.b, oz, oy, ox, g.out, g.c, at.ch), oz, oy, ox);
      }
    }
  }
}

// The size of output (oz, oy, ox)'s span, as the float TensorFlow divides by.
OPGEN_HD inline float Pool3DGradSpanSize(const Pool3DGeometry& g, int64_t oz, int64_t oy, int64_t ox) {
  const int64_t o[3] = {oz, oy, ox};
  float size = 1.0f;
  for (int d = 0; d < 3; ++d) {
    int64_t lo, hi;
    Pool3DGradSpan(g, d, o[d], &lo, &hi);
    size *= static_cast<float>(hi - lo);
  }
  return size;
}

// One window's step of the sums below, for one channel (the CPU kernels run them a pixel
// at a time over the channels): AvgPool3DGrad adds grad times the reciprocal of the
// window's span size; MaxPool3DGrad adds grad where the input is within 1e-5 of the
// window's maximum. Both in the element type (`round` narrows a C to T's precision and
// back), as TensorFlow's kernels compute.
template <typename C, typename Round>
OPGEN_HD inline C AvgPool3DGradScale(const Pool3DGeometry& g, int64_t oz, int64_t oy, int64_t ox, Round round) {
  return round(static_cast<C>(1.0f / Pool3DGradSpanSize(g, oz, oy, ox)));
}
template <typename C, typename Round>
OPGEN_HD inline C AvgPool3DGradStep(C acc, C grad, C scale, Round round) {
  return round(acc + round(grad * scale));
}
template <typename C, typename Round>
OPGEN_HD inline C MaxPool3DGradStep(C acc, C value, C pooled, C grad, Round round) {
  const C diff = round(value - pooled);
  return (diff < C(0) ? -diff : diff) < round(static_cast<C>(1e-5f)) ? round(acc + grad) : acc;
}

// AvgPool3DGrad at input element e: each covering window's grad times the reciprocal of
// its span size, added in the element type (`round` narrows a C to T's precision and
// back), as TensorFlow does.
template <typename C, typename Round, typename ReadGrad>
struct AvgPool3DGradSum {
  const Pool3DGeometry& g;
  ReadGrad grad;
  Round round;
  C acc;
  OPGEN_HD void operator()(int64_t o, int64_t oz, int64_t oy, int64_t ox) {
    acc = AvgPool3DGradStep(acc, grad(o), AvgPool3DGradScale<C>(g, oz, oy, ox, round), round);
  }
};
template <typename C, typename Round, typename ReadGrad>
OPGEN_HD inline C AvgPool3DGradAt(const Pool3DGeometry& g, int64_t e, ReadGrad grad, Round round) {
  AvgPool3DGradSum<C, Round, ReadGrad> sum{g, grad, round, C(0)};
  ForEachPool3DWindowOf(g, Pool3DIndexOf(e, g.in, g.c), sum);
  return sum.acc;
}

// MaxPool3DGrad at input element e: every covering window whose orig_output is within
// 1e-5 of this input value gives it that window's grad (ties all take it), as
// TensorFlow's CPU kernel selects them.
template <typename C, typename Round, typename ReadGrad>
struct MaxPool3DGradSum {
  C value;
  ReadGrad pooled, grad;
  Round round;
  C acc;
  OPGEN_HD void operator()(int64_t o, int64_t, int64_t, int64_t) {
    acc = MaxPool3DGradStep(acc, value, pooled(o), grad(o), round);
  }
};
template <typename C, typename Round, typename ReadGrad>
OPGEN_HD inline C MaxPool3DGradAt(const Pool3DGeometry& g, int64_t e, ReadGrad in, ReadGrad pooled,
                                  ReadGrad grad, Round round) {
  MaxPool3DGradSum<C, Round, ReadGrad> sum{in(e), pooled, grad, round, C(0)};
  ForEachPool3DWindowOf(g, Pool3DIndexOf(e, g.in, g.c), sum);
  return sum.acc;
}

// The window [lo, hi) (clipped to the volume) of output position `pos`.
OPGEN_HD inline void Pool3DWindow(const Pool3DGeometry& g, const int64_t pos[3], int64_t lo[3], int64_t hi[3]) {
  for (int d = 0; d < 3; ++d) Pool3DSpan(g, d, pos[d], &lo[d], &hi[d]);
}

// MaxPool3DGradGrad's rule: the offset of the first input (row-major) in the window of
// image b, channel ch, equal to `target` (orig_output there), or -1 where none is.
template <typename C, typename ReadIn>
OPGEN_HD inline int64_t MaxPool3DFirstMatch(const Pool3DGeometry& g, int64_t b, const int64_t lo[3],
                                            const int64_t hi[3], int64_t ch, ReadIn in, C target) {
  for (int64_t z = lo[0]; z < hi[0]; ++z)
    for (int64_t y = lo[1]; y < hi[1]; ++y)
      for (int64_t x = lo[2]; x < hi[2]; ++x) {
        const int64_t i = Pool3DOffset(b, z, y, x, g.in, g.c, ch);
        if (in(i) == target) return i;
      }
  return -1;
}

// MaxPool3DGradGrad at output element e: grad at that first match; zero if none.
template <typename C, typename ReadGrad>
OPGEN_HD inline C MaxPool3DGradGradAt(const Pool3DGeometry& g, int64_t e, ReadGrad in, ReadGrad pooled,
                                      ReadGrad grad) {
  const Pool3DIndex at = Pool3DIndexOf(e, g.out, g.c);
  int64_t lo[3], hi[3];
  Pool3DWindow(g, at.pos, lo, hi);
  const int64_t i = MaxPool3DFirstMatch<C>(g, at.b, lo, hi, at.ch, in, static_cast<C>(pooled(e)));
  return i < 0 ? C(0) : grad(i);
}

// The checks of the backprop ops, with TensorFlow's messages: the geometry comes from
// orig_input (MaxPool3DGrad, MaxPool3DGradGrad) or orig_input_shape (AvgPool3DGrad),
// and the other tensors must have the shapes it gives.
inline bool CheckPool3DShape(TF_OpKernelContext* ctx, const char* op, const char* what,
                             const std::vector<int64_t>& want, const TF_Tensor* t) {
  const std::vector<int64_t> got = Dims(t);
  if (got == want) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Expected " + what + " shape to be " +
                                     ShapeString(want) + ", but got " + ShapeString(got));
  return false;
}

struct Pool3DGradPlan {
  TensorPtr in, pooled, grad;  // pooled and in empty for AvgPool3DGrad
  Pool3DGeometry g;
  std::vector<int64_t> out_dims;
};

// MaxPool3DGrad(orig_input, orig_output, grad) -> shaped as orig_input;
// MaxPool3DGradGrad(orig_input, orig_output, grad) -> shaped as orig_output.
inline bool PlanMaxPool3DGrad(TF_OpKernelContext* ctx, const Pool3DAttrs& a, bool grad_grad,
                              Pool3DGradPlan* plan) {
  const char* op = grad_grad ? "MaxPool3DGradGrad" : "MaxPool3DGrad";
  TensorPtr in = Input(ctx, 0), pooled = Input(ctx, 1), grad = Input(ctx, 2);
  if (!in || !pooled || !grad) return false;
  for (const TF_Tensor* t : {in.get(), pooled.get(), grad.get()})
    if (TF_NumDims(t) != 5) {
      const char* name = t == in.get() ? "tensor_in" : t == pooled.get() ? "tensor_out" : "out_backprop";
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + name + " must be 5-dimensional");
      return false;
    }
  const std::vector<int64_t> id = Dims(in.get());
  if (!Pool3DGeometryOf(ctx, a, op, id, &plan->g)) return false;
  const std::vector<int64_t> od = Pool3DOutDims(plan->g);
  if (!CheckPool3DShape(ctx, op, "orig_output", od, pooled.get()) ||
      !CheckPool3DShape(ctx, op, "grad", grad_grad ? id : od, grad.get()))
    return false;
  plan->out_dims = grad_grad ? od : id;
  plan->in = std::move(in);
  plan->pooled = std::move(pooled);
  plan->grad = std::move(grad);
  return true;
}

// AvgPool3DGrad(orig_input_shape, grad) -> of orig_input_shape.
inline bool PlanAvgPool3DGrad(TF_OpKernelContext* ctx, const Pool3DAttrs& a, Pool3DGradPlan* plan) {
  const char* op = "AvgPool3DGrad";
  TensorPtr shape = Input(ctx, 0), grad = Input(ctx, 1);
  if (!shape || !grad) return false;
  if (TF_NumDims(shape.get()) != 1 || TF_TensorElementCount(shape.get()) != 5) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": tensor_in must be 1-dimensional and 5 elements");
    return false;
  }
  if (TF_NumDims(grad.get()) != 5) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": out_backprop must be 5-dimensional");
    return false;
  }
  const std::vector<int64_t> id = IndexValues(shape.get());
  for (int64_t d : id)
    if (d < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": orig_input_shape must not be negative, got " +
                                         ShapeString(id));
      return false;
    }
  if (!Pool3DGeometryOf(ctx, a, op, id, &plan->g) ||
      !CheckPool3DShape(ctx, op, "grad", Pool3DOutDims(plan->g), grad.get()) ||
      !CheckShapeSize(ctx, op, id))
    return false;
  plan->out_dims = id;
  plan->grad = std::move(grad);
  return true;
}

}  // namespace kernels
}  // namespace opgen
