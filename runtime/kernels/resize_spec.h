// ResizeBilinear and ResizeNearestNeighbor: attrs, input checks, and where each output
// pixel samples the input, computed as TensorFlow computes it (in float, with its
// align_corners and half_pixel_centers rules). Shared by the CPU kernels and the CUDA
// plugin's; the sampling math is __host__ __device__ so both run the same code.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"
#include "host_device.h"

namespace opgen {
namespace kernels {

struct ResizeAttrs {
  bool align_corners = false, half_pixel_centers = false;
};

inline void* CreateResize(TF_OpKernelConstruction* ctx) {
  auto* a = new ResizeAttrs();
  StatusPtr s = NewStatus();
  a->align_corners = BoolAttr(ctx, "align_corners", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->half_pixel_centers = BoolAttr(ctx, "half_pixel_centers", s.get());
  if (TF_GetCode(s.get()) == TF_OK && a->align_corners && a->half_pixel_centers)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 "If half_pixel_centers is True, align_corners must be False.");
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteResize(void* p) { delete static_cast<ResizeAttrs*>(p); }

// The input size over the output size; with align_corners (and more than one output
// pixel) the corner centres line up instead.
OPGEN_HD inline float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

// Bilinear: output index o reads input indices lo and hi, weighted 1 - lerp and lerp.
OPGEN_HD inline void BilinearTap(int64_t o, float scale, int64_t in_size, bool half_pixel,
                                        int64_t* lo, int64_t* hi, float* lerp) {
  const float in = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                              : static_cast<float>(o) * scale;
  const float in_floor = floorf(in);
  const int64_t f = static_cast<int64_t>(in_floor), c = static_cast<int64_t>(ceilf(in));
  *lo = f > 0 ? f : 0;
  *hi = c < in_size - 1 ? c : in_size - 1;
  *lerp = in - in_floor;
}

// Nearest neighbour: the input index output index o reads.
OPGEN_HD inline int64_t NearestTap(int64_t o, float scale, int64_t in_size,
                                          bool align_corners, bool half_pixel) {
  const float in = half_pixel ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
  int64_t i = static_cast<int64_t>(align_corners ? roundf(in) : floorf(in));
  if (i > in_size - 1) i = in_size - 1;
  if (half_pixel && i < 0) i = 0;
  return i;
}

// One resize: images [batch, ih, iw, c] to [batch, oh, ow, c].
struct ResizePlan {
  TensorPtr images;
  int64_t batch = 0, ih = 0, iw = 0, c = 0, oh = 0, ow = 0;
  float scale_h = 0, scale_w = 0;
  std::vector<int64_t> out_dims;
};

inline bool PlanResize(TF_OpKernelContext* ctx, const ResizeAttrs& a, const char* op, ResizePlan* plan) {
  TensorPtr images = Input(ctx, 0), size = Input(ctx, 1);
  if (!images || !size) return false;
  const std::vector<int64_t> id = Dims(images.get()), sd = Dims(size.get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": images must be 4-D, got " + ShapeString(id));
    return false;
  }
  if (sd.size() != 1 || sd[0] != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be 1-D with 2 elements, got shape " +
                                       ShapeString(sd));
    return false;
  }
  const std::vector<int64_t> s = IndexValues(size.get());
  if (s[0] <= 0 || s[1] <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be positive, got " + ShapeString(s));
    return false;
  }
  if (id[1] <= 0 || id[2] <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input image must be of non-zero size, got " +
                                       ShapeString(id));
    return false;
  }
  plan->out_dims = {id[0], s[0], s[1], id[3]};
  if (!CheckShapeSize(ctx, op, plan->out_dims)) return false;
  plan->images = std::move(images);
  plan->batch = id[0];
  plan->ih = id[1];
  plan->iw = id[2];
  plan->c = id[3];
  plan->oh = s[0];
  plan->ow = s[1];
  plan->scale_h = ResizeScale(plan->ih, plan->oh, a.align_corners);
  plan->scale_w = ResizeScale(plan->iw, plan->ow, a.align_corners);
  return true;
}

}  // namespace kernels
}  // namespace opgen
