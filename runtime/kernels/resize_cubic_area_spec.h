// ResizeBicubic and ResizeArea: where each output pixel samples the input, and with
// what weights, computed in float as TensorFlow computes them. Shared by the CPU kernels
// and the CUDA plugin's (__host__ __device__); the checks are resize_spec.h's.
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

// The cubic kernel at distance `step` / kCubicSteps (near) and 1 + that (far).
OPGEN_HD inline float CubicNear(int64_t step, float a) {
  const float x = static_cast<float>(step) * (1.0f / kCubicSteps);
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
OPGEN_HD inline float CubicFar(int64_t step, float a) {
  const float x = static_cast<float>(step) * (1.0f / kCubicSteps) + 1.0f;
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
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
