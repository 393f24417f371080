// ResizeBicubic and ResizeArea: where each output pixel samples the input, and with
// what weights, computed in float as TensorFlow computes them; and ResizeBicubicGrad's
// per-pixel sums. Shared by the CPU kernels and the CUDA plugin's (__host__ __device__);
// the checks are resize_spec.h's (and conv_grad_spec.h's for the gradient).
//
// Bicubic mixes a 4x4 neighbourhood with the cubic convolution kernel, its weights taken
// at 1/1024-pixel steps as TensorFlow's table holds them (so results agree to float
// rounding). With half_pixel_centers the kernel is Keys' (a = -0.5) and taps outside the
// image get no weight (the rest renormalised); without, a = -0.75 and outside taps
// repeat the edge pixel.
// Area averages the input area an output pixel covers, partly covered pixels weighted by
// the fraction covered.
#pragma once

#include <cfloat>
#include <cmath>

#include "host_device.h"
#include "kernel_api_util.h"
#include "resize_spec.h"

namespace opgen {
namespace kernels {

constexpr int kCubicSteps = 1024;

// The cubic kernel at distance `step` / kCubicSteps (near) and 1 + that (far), evaluated
// in double and rounded to float, as TensorFlow fills its table.
OPGEN_HD inline float CubicNear(int64_t step, float a) {
  const double x = static_cast<double>(step) / kCubicSteps, ad = a;
  return static_cast<float>(((ad + 2) * x - (ad + 3)) * x * x + 1);
}
OPGEN_HD inline float CubicFar(int64_t step, float a) {
  const double x = static_cast<double>(step) / kCubicSteps + 1.0, ad = a;
  return static_cast<float>(((ad * x - 5 * ad) * x + 8 * ad) * x - 4 * ad);
}

struct CubicTaps {
  int64_t index[4];
  float weight[4];
};

OPGEN_HD inline CubicTaps CubicTapsAt(int64_t o, float scale, int64_t size, bool half_pixel) {
  const float a = half_pixel ? -0.5f : -0.75f;
  const float in = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                              : static_cast<float>(o) * scale;
  const float base_f = floorf(in);
  const int64_t base = static_cast<int64_t>(base_f);
  const int64_t step = static_cast<int64_t>(rintf((in - base_f) * kCubicSteps));
  const float w[4] = {CubicFar(step, a), CubicNear(step, a), CubicNear(kCubicSteps - step, a),
                      CubicFar(kCubicSteps - step, a)};
  CubicTaps taps;
  float sum = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t want = base - 1 + k;
    const int64_t i = want < 0 ? 0 : (want > size - 1 ? size - 1 : want);
    taps.index[k] = i;
    taps.weight[k] = half_pixel && i != want ? 0.0f : w[k];
    sum += taps.weight[k];
  }
  if (half_pixel && fabsf(sum) >= 1000.0f * FLT_MIN) {
    const float inv = 1.0f / sum;
    for (int k = 0; k < 4; ++k) taps.weight[k] *= inv;
  }
  return taps;
}

// The four taps' weighted sum, left to right.
OPGEN_HD inline float Cubic1D(const float* w, const float* v) {
  return w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3];
}

// ResizeBicubicGrad's scale: TensorFlow 2.21's kernel samples a one-pixel original as
// without align_corners (measured: its sums for a 1x1 original are the same either way).
inline float BicubicGradScale(int64_t original, int64_t resized, bool align_corners) {
  return ResizeScale(original, resized, align_corners && original > 1);
}

// ResizeBicubicGrad at original pixel (b, sy, sx, ch): the sum over the resized pixels
// whose taps read it of grad * y weight * x weight (in C, the output's type), added in
// the order TensorFlow's CPU kernel scatters them (resized pixels row-major, then the taps
// row by row), so float sums are its sums. `ytaps(y)` / `xtaps(x)` give a resized row's /
// column's CubicTaps.
template <typename C, typename Taps, typename ReadGrad>
OPGEN_HD inline C ResizeBicubicGradAt(int64_t oh, int64_t ow, int64_t c, int64_t b, int64_t sy, int64_t sx,
                                      int64_t ch, const Taps& ytaps, const Taps& xtaps, ReadGrad grad) {
  C acc = C(0);
  for (int64_t y = 0; y < oh; ++y) {
    const CubicTaps ys = ytaps(y);
    if (ys.index[0] != sy && ys.index[1] != sy && ys.index[2] != sy && ys.index[3] != sy) continue;
    for (int64_t x = 0; x < ow; ++x) {
      const CubicTaps xs = xtaps(x);
      if (xs.index[0] != sx && xs.index[1] != sx && xs.index[2] != sx && xs.index[3] != sx) continue;
      const C g = static_cast<C>(grad(((b * oh + y) * ow + x) * c + ch));
      for (int r = 0; r < 4; ++r) {
        if (ys.index[r] != sy) continue;
        for (int q = 0; q < 4; ++q)
          if (xs.index[q] == sx) acc += g * ys.weight[r] * xs.weight[q];
      }
    }
  }
  return acc;
}

// The input pixels output pixel o covers along one axis: [*first, *end) (indices past
// the image read its last pixel), and the covered fraction of pixel i.
OPGEN_HD inline void AreaSpan(int64_t o, float scale, int64_t* first, int64_t* end) {
  *first = static_cast<int64_t>(floorf(static_cast<float>(o) * scale));
  *end = static_cast<int64_t>(ceilf(static_cast<float>(o + 1) * scale));
}
OPGEN_HD inline float AreaWeight(int64_t o, float scale, int64_t i) {
  const float lo = static_cast<float>(o) * scale, hi = static_cast<float>(o + 1) * scale;
  const float fi = static_cast<float>(i);
  if (fi < lo) return fi + 1 > hi ? scale : fi + 1 - lo;
  return fi + 1 > hi ? hi - fi : 1.0f;
}
OPGEN_HD inline int64_t AreaIndex(int64_t i, int64_t size) { return i < size - 1 ? i : size - 1; }

// ResizeArea has align_corners only: ResizeAttrs with half_pixel_centers false.
inline void* CreateResizeArea(TF_OpKernelConstruction* ctx) {
  auto* a = new ResizeAttrs();
  StatusPtr s = NewStatus();
  a->align_corners = BoolAttr(ctx, "align_corners", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}

}  // namespace kernels
}  // namespace opgen
