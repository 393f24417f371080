// float32 exp and tanh written branch-free, so loops over them vectorise (libm's
// expf and tanhf are scalar calls). Cephes' range reduction and polynomials: within
// 2 ulp of the exact result, with exp's overflow, underflow and NaN kept. They must
// stay free of branches under AVX2 and AVX-512 as well (simd_loops.cc): check with
// -fopt-info-vec when changing them. float32 Tanh and Exp run them through
// simd_loops.cc; the Sigmoid op keeps libm's expf (the fused epilogues' sigmoid and
// swish use SigmoidOf below).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "dtypes.h"

namespace opgen {
namespace cpu {

// Always inlined: GCC inlines into the AVX2 / AVX-512 clones of simd_loops.cc only
// functions that ask for it.
#if defined(__GNUC__)
#define OPGEN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define OPGEN_ALWAYS_INLINE inline
#endif

OPGEN_ALWAYS_INLINE float ExpFloat(float x) {
  // Clamped where exp already overflows to inf (n = 128) or underflows to 0 (n = -159)
  // in the final scaling, so those limits need no selects of their own: selects on x
  // next to the clamp made GCC branch instead of vectorising for AVX2 and AVX-512.
  constexpr float kMaxArg = 89.0f;
  constexpr float kMinArg = -110.0f;
  float c = x > kMaxArg ? kMaxArg : x;
  c = c < kMinArg ? kMinArg : c;
  // exp(x) = 2^n exp(r) with n = round(x / ln 2) and |r| <= ln(2) / 2; ln 2 is split
  // in two parts so n ln 2 subtracts exactly. n is rounded with float arithmetic
  // (adding 1.5 * 2^23 leaves it in the low mantissa bits): no float-to-int
  // conversion, which a NaN would make undefined; a NaN flows through to the result.
  const float scaled = c * 1.44269504088896341f;
  const float shifted = scaled + 12582912.0f;
  const float fn = shifted - 12582912.0f;
  const int32_t n = static_cast<int32_t>(FloatBits(shifted)) - 0x4B400000;
  float r = c - fn * 0.693359375f;
  r = r + fn * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  // 2^n as two factors: n reaches -159 (subnormal and zero results), beyond one float
  // exponent.
  const int32_t n1 = n / 2, n2 = n - n1;
  const float result = y * BitsFloat(static_cast<uint32_t>(n1 + 127) << 23) *
                       BitsFloat(static_cast<uint32_t>(n2 + 127) << 23);
  return x != x ? x : result;
}

OPGEN_ALWAYS_INLINE float TanhFloat(float x) {
  const float a = x < 0.0f ? -x : x;
  // Near zero, an odd polynomial; elsewhere 1 - 2 / (e^2|x| + 1), which cancels little.
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large = 1.0f - 2.0f / (ExpFloat(2.0f * a) + 1.0f);
  return a < 0.625f || x != x ? small : (x < 0.0f ? -large : large);
}

// The sigmoid family, written once for a float and for a GCC vector of floats (F, with
// U the unsigned 32-bit integers of the same width): the fused kernels' epilogues apply
// it in a loop GCC vectorises (simd_loops.cc) and to the registers of the depthwise
// kernel's output block (depthwise_float.cc). e^-x is only needed where 1 + e^-x is not
// yet inf, so x is clamped to [-87, 88], where 2^n fits one float exponent field: one
// scaling instead of ExpFloat's two and no selects beyond the clamp. Below -87 the
// result is e^-87 * x's worth off zero (under 1e-37); a NaN flows through the clamp and
// the polynomial to the result.
template <typename F>
OPGEN_ALWAYS_INLINE F SplatOf(float v) { return F{} + v; }

template <typename F, typename U>
OPGEN_ALWAYS_INLINE F ExpNormalRange(F x) {
  F c = x > SplatOf<F>(88.0f) ? SplatOf<F>(88.0f) : x;
  c = c < SplatOf<F>(-87.0f) ? SplatOf<F>(-87.0f) : c;
  const F shifted = c * 1.44269504088896341f + 12582912.0f;  // round(x / ln 2) + 1.5 * 2^23
  const F fn = shifted - 12582912.0f;
  F r = c - fn * 0.693359375f;
  r = r + fn * 2.12194440e-4f;
  F p = SplatOf<F>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = p * r * r + r + 1.0f;
  U bits;  // n sits in shifted's low mantissa bits; 2^n is (n + 127) << 23
  std::memcpy(&bits, &shifted, sizeof bits);
  bits = (bits - 0x4B400000u + 127u) << 23;
  F scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

template <typename F, typename U>
OPGEN_ALWAYS_INLINE F SigmoidOf(F x) {
  return 1.0f / (1.0f + ExpNormalRange<F, U>(-x));
}

template <typename F, typename U>
OPGEN_ALWAYS_INLINE F SwishOf(F x) {
  return x / (1.0f + ExpNormalRange<F, U>(-x));
}

}  // namespace cpu
}  // namespace opgen
