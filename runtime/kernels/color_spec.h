// The colour ops' per-pixel maths, shared by the CPU kernels and the CUDA plugin
// (__host__ __device__): RGBToHSV / HSVToRGB (tf.image.rgb_to_hsv, hsv_to_rgb), and the
// hue and saturation adjustments, each written from the formulas TensorFlow documents
// (hue in [0, 1) turns, HSV's hexcone), in the order of operations TensorFlow's kernels use.
// Also the ops' input checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

template <typename C> OPGEN_HD inline C Max3(C a, C b, C c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }
template <typename C> OPGEN_HD inline C Min3(C a, C b, C c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }
template <typename C> OPGEN_HD inline C Clamp01(C v) { return v < C(0) ? C(0) : (v > C(1) ? C(1) : v); }

// No rounding: float and double images compute in their own type.
struct Exact {
  template <typename C> OPGEN_HD C operator()(C v) const { return v; }
};

// RGBToHSV of one pixel, in C (float or double); `rd` rounds each result to the image's
// type (half and bfloat16 arithmetic rounds every step: a tiny channel range overflows
// 1 / range there, as in TensorFlow).
template <typename C, typename Round = Exact>
OPGEN_HD inline void RgbToHsv(const C* rgb, C* hsv, Round rd = Round()) {
  const C r = rgb[0], g = rgb[1], b = rgb[2];
  const C v = Max3(r, g, b), range = rd(v - Min3(r, g, b));
  const C norm = rd(rd(C(1) / range) * rd(C(1) / C(6)));
  C h = r == v ? rd(norm * rd(g - b))
               : (g == v ? rd(rd(norm * rd(b - r)) + rd(C(2) / C(6)))
                         : rd(rd(norm * rd(r - g)) + rd(C(4) / C(6))));
  if (!(range > C(0))) h = C(0);
  if (h < C(0)) h = rd(h + C(1));
  hsv[0] = h;
  hsv[1] = v > C(0) ? rd(range / v) : C(0);
  hsv[2] = v;
}

// HSVToRGB of one pixel: each channel a clamped triangle of the hue, mixed with white by
// the saturation, scaled by the value.
template <typename C, typename Round = Exact>
OPGEN_HD inline void HsvToRgb(const C* hsv, C* rgb, Round rd = Round()) {
  const C h6 = rd(hsv[0] * C(6)), s = hsv[1], v = hsv[2];
  const C dr = Clamp01(rd(std::fabs(rd(h6 - C(3))) - C(1)));
  const C dg = Clamp01(rd(-std::fabs(rd(h6 - C(2))) + C(2)));
  const C db = Clamp01(rd(-std::fabs(rd(h6 - C(4))) + C(2)));
  const C one_s = rd(-s + C(1));
  rgb[0] = rd(rd(one_s + rd(s * dr)) * v);
  rgb[1] = rd(rd(one_s + rd(s * dg)) * v);
  rgb[2] = rd(rd(one_s + rd(s * db)) * v);
}

// The hue as a position in [0, 6) along the hexcone's edges, with the smallest and
// largest channel (AdjustHue keeps those and turns the hue).
OPGEN_HD inline void RgbToHueRange(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int sector;
  if (r < g) {
    if (b < r) { *hi = g; mid = r; *lo = b; sector = 1; }
    else if (b > g) { *hi = b; mid = g; *lo = r; sector = 3; }
    else { *hi = g; mid = b; *lo = r; sector = 2; }
  } else {
    if (b < g) { *hi = r; mid = g; *lo = b; sector = 0; }
    else if (b > r) { *hi = b; mid = r; *lo = g; sector = 4; }
    else { *hi = r; mid = b; *lo = g; sector = 5; }
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float t = (mid - *lo) / (*hi - *lo);
  *h = sector + ((sector & 1) == 0 ? t : 1 - t);
}

OPGEN_HD inline void HueRangeToRgb(float h, float lo, float hi, float* rgb) {
  const int sector = static_cast<int>(h);
  float t = h - sector;
  if ((sector & 1) != 0) t = 1 - t;
  const float mid = lo + t * (hi - lo);
  const float by_sector[6][3] = {{hi, mid, lo}, {mid, hi, lo}, {lo, hi, mid},
                                 {lo, mid, hi}, {mid, lo, hi}, {hi, lo, mid}};
  const int k = sector >= 0 && sector < 5 ? sector : 5;
  rgb[0] = by_sector[k][0], rgb[1] = by_sector[k][1], rgb[2] = by_sector[k][2];
}

// AdjustHue of one pixel: the hue turned by delta (in turns), wrapped into [0, 6).
OPGEN_HD inline void AdjustHuePixel(const float* in, float delta, float* out) {
  float h, lo, hi;
  RgbToHueRange(in[0], in[1], in[2], &h, &lo, &hi);
  h += delta * 6.0f;
  while (h < 0) h += 6.0f;
  while (h >= 6.0f) h -= 6.0f;
  HueRangeToRgb(h, lo, hi, out);
}

// AdjustSaturation of one pixel: to HSV, saturation scaled and clamped to [0, 1], back.
OPGEN_HD inline void AdjustSaturationPixel(const float* in, float scale, float* out) {
  const float r = in[0], g = in[1], b = in[2];
  const float v = Max3(r, g, b), range = v - Min3(r, g, b);
  float s = v > 0 ? range / v : 0.0f;
  const float norm = 1.0f / (6.0f * range);
  float h = r == v ? norm * (g - b)
                   : (g == v ? norm * (b - r) + static_cast<float>(2.0 / 6.0)
                             : norm * (r - g) + static_cast<float>(4.0 / 6.0));
  if (range <= 0.0f) h = 0;
  if (h < 0.0f) h += 1;
  s = Clamp01(s * scale);
  const float c = s * v, m = v - c, h6 = h * 6;
  const int sector = static_cast<int>(h6);
  float f = h6;
  while (f <= 0) f += 2.0f;
  while (f >= 2.0f) f -= 2.0f;
  const float x = c * (1 - std::fabs(f - 1));
  float rr = 0, gg = 0, bb = 0;
  switch (sector) {
    case 0: rr = c; gg = x; break;
    case 1: rr = x; gg = c; break;
    case 2: gg = c; bb = x; break;
    case 3: gg = x; bb = c; break;
    case 4: rr = x; bb = c; break;
    case 5: rr = c; bb = x; break;
    default: break;
  }
  out[0] = rr + m, out[1] = gg + m, out[2] = bb + m;
}

// RGBToHSV / HSVToRGB: at least one dimension, the last of 3 channels.
inline bool CheckColorImage(TF_OpKernelContext* ctx, const TF_Tensor* t) {
  if (TF_NumDims(t) < 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be at least 1D" + ShapeString(Dims(t)));
    return false;
  }
  const int64_t c = TF_Dim(t, TF_NumDims(t) - 1);
  if (c != 3) {
    Fail(ctx, TF_FAILED_PRECONDITION, "input must have 3 channels but input only has " +
                                          std::to_string(c) + " channels.");
    return false;
  }
  return true;
}

// AdjustHue / AdjustSaturation (`three_channels`) and AdjustContrastv2: images of rank 3
// or more and a scalar factor named `what`.
inline bool CheckAdjustInputs(TF_OpKernelContext* ctx, const TF_Tensor* images,
                              const TF_Tensor* factor, const char* what, bool three_channels) {
  std::string error;
  if (TF_NumDims(images) < 3)
    error = "input must be at least 3-D, got shape" + ShapeString(Dims(images));
  else if (TF_NumDims(factor) != 0)
    error = std::string(what) + " must be scalar: " + ShapeString(Dims(factor));
  else if (three_channels && TF_Dim(images, TF_NumDims(images) - 1) != 3)
    error = "input must have 3 channels but instead has " +
            std::to_string(TF_Dim(images, TF_NumDims(images) - 1)) + " channels.";
  if (error.empty()) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, error);
  return false;
}

}  // namespace kernels
}  // namespace opgen
