// ExtractImagePatches: attrs, TensorFlow's checks and output sizes, and where each output
// value comes from, shared by the CPU kernel and the CUDA plugin. The op only moves
// values (padding reads zero), so kernels work on the element's bytes, whatever its dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct PatchAttrs {
  int64_t ksize[2], stride[2], rate[2];
  bool same = false;
};

// A [1, r, c, 1] attr (only the spatial entries may differ from 1), as TensorFlow checks it.
inline bool ParseSpatialAttr(TF_OpKernelConstruction* ctx, const char* name, int64_t out[2],
                             TF_Status* s) {
  const std::vector<int64_t> v = IntListAttr(ctx, name, s);
  if (TF_GetCode(s) != TF_OK) return false;
  if (v.size() < 4) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(name) + " must have 4 values").c_str());
    return false;
  }
  if (v[0] != 1 || v[3] != 1) {
    TF_SetStatus(s, TF_UNIMPLEMENTED,
                 ("Only support " + std::string(name) + " across space.").c_str());
    return false;
  }
  if (v[1] < 1 || v[2] < 1) {
    TF_SetStatus(s, TF_OUT_OF_RANGE, (std::string(name) + " is out of range.").c_str());
    return false;
  }
  out[0] = v[1], out[1] = v[2];
  return true;
}

inline void* CreatePatchAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new PatchAttrs();
  const bool ok = ParseSpatialAttr(ctx, "ksizes", a->ksize, s.get()) &&
                  ParseSpatialAttr(ctx, "strides", a->stride, s.get()) &&
                  ParseSpatialAttr(ctx, "rates", a->rate, s.get());
  if (ok) a->same = StringAttr(ctx, "padding", s.get()) == "SAME";
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
inline void DeletePatchAttrs(void* a) { delete static_cast<PatchAttrs*>(a); }

struct PatchGeometry {
  int64_t batch, in_h, in_w, depth, out_h, out_w, pad_top, pad_left;
  int64_t ksize[2], stride[2], rate[2];
  int64_t out_depth() const { return ksize[0] * ksize[1] * depth; }
};

// One spatial dimension's output size and leading padding, as TensorFlow's windowed
// output size; false (reported) where that is negative.
inline bool PatchOutputSize(TF_OpKernelContext* ctx, int64_t in, int64_t k, int64_t stride,
                            int64_t rate, bool same, int64_t* out, int64_t* pad) {
  const int64_t effective = k + (k - 1) * (rate - 1);
  if (same) {
    *out = (in + stride - 1) / stride;
    const int64_t needed = (*out - 1) * stride + effective - in;
    *pad = needed > 0 ? needed / 2 : 0;
    return true;
  }
  *out = (in - effective + stride) / stride;
  *pad = 0;
  if (*out >= 0) return true;
  Fail(ctx, TF_INVALID_ARGUMENT,
       "Computed output size would be negative: " + std::to_string(*out) + " [input_size: " +
           std::to_string(in) + ", effective_filter_size: " + std::to_string(effective) +
           ", stride: " + std::to_string(stride) + "]");
  return false;
}

inline bool PlanPatches(TF_OpKernelContext* ctx, const PatchAttrs& a, const TF_Tensor* images,
                        PatchGeometry* g) {
  if (TF_NumDims(images) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be 4-dimensional" + ShapeString(Dims(images)));
    return false;
  }
  g->batch = TF_Dim(images, 0), g->in_h = TF_Dim(images, 1), g->in_w = TF_Dim(images, 2);
  g->depth = TF_Dim(images, 3);
  for (int d = 0; d < 2; ++d)
    g->ksize[d] = a.ksize[d], g->stride[d] = a.stride[d], g->rate[d] = a.rate[d];
  return PatchOutputSize(ctx, g->in_h, a.ksize[0], a.stride[0], a.rate[0], a.same, &g->out_h,
                         &g->pad_top) &&
         PatchOutputSize(ctx, g->in_w, a.ksize[1], a.stride[1], a.rate[1], a.same, &g->out_w,
                         &g->pad_left);
}

// The input element output element `n` copies (flat index), or -1 for padding. Output
// [batch, out_h, out_w, (kr, kc, depth)].
OPGEN_HD inline int64_t PatchSource(const PatchGeometry& g, int64_t n) {
  const int64_t od = g.ksize[0] * g.ksize[1] * g.depth;
  const int64_t k = n % od, pixel = n / od;
  const int64_t ox = pixel % g.out_w, oy = (pixel / g.out_w) % g.out_h;
  const int64_t b = pixel / (g.out_w * g.out_h);
  const int64_t d = k % g.depth, kc = (k / g.depth) % g.ksize[1], kr = k / (g.depth * g.ksize[1]);
  const int64_t y = oy * g.stride[0] - g.pad_top + kr * g.rate[0];
  const int64_t x = ox * g.stride[1] - g.pad_left + kc * g.rate[1];
  if (y < 0 || y >= g.in_h || x < 0 || x >= g.in_w) return -1;
  return ((b * g.in_h + y) * g.in_w + x) * g.depth + d;
}

}  // namespace kernels
}  // namespace opgen
