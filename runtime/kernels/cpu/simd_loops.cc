// See simd_loops.h.
#include "simd_loops.h"

#include <limits>

#include "vector_math.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OPGEN_SIMD_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define OPGEN_SIMD_CLONES
#endif

namespace opgen {
namespace cpu {

OPGEN_SIMD_CLONES
void TanhFloatArray(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = TanhFloat(x[i]);
}

OPGEN_SIMD_CLONES
void ExpFloatArray(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = ExpFloat(x[i]);
}

OPGEN_SIMD_CLONES
void AddFloatArray(float* __restrict x, const float* __restrict bias, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += bias[i];
}

// max / min written as selects that keep a NaN x (x > 0 is false for NaN).
OPGEN_SIMD_CLONES
void ReluFloatArray(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];
}

OPGEN_SIMD_CLONES
void Relu6FloatArray(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] < 0.0f ? 0.0f : x[i];
    x[i] = v > 6.0f ? 6.0f : v;
  }
}

OPGEN_SIMD_CLONES
void LeakyReluFloatArray(float* __restrict x, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
}

OPGEN_SIMD_CLONES
void SigmoidFloatArray(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = SigmoidOf<float, uint32_t>(x[i]);
}

OPGEN_SIMD_CLONES
void SwishFloatArray(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = SwishOf<float, uint32_t>(x[i]);
}

OPGEN_SIMD_CLONES
void TanhFloatArrayInPlace(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = TanhFloat(x[i]);
}

OPGEN_SIMD_CLONES
void GeluTanhFloatArray(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    x[i] = 0.5f * v * (1.0f + TanhFloat(inner));
  }
}

namespace {

// Independent lanes keep the comparisons in vector registers; NaNs are tracked apart,
// as a mask, so the running extremum is a plain vector max / min.
template <bool kMax>
OPGEN_ALWAYS_INLINE float ExtremumFloat(const float* __restrict x, int64_t n) {
  constexpr int kLanes = 32;
  constexpr float kInit = kMax ? -std::numeric_limits<float>::infinity()
                               : std::numeric_limits<float>::infinity();
  float best[kLanes];
  uint32_t nan[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    best[j] = kInit;
    nan[j] = 0;
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      best[j] = (kMax ? v > best[j] : v < best[j]) ? v : best[j];
      nan[j] |= 0u - static_cast<uint32_t>(v != v);
    }
  }
  float result = kInit;
  uint32_t any_nan = 0;
  for (; i < n; ++i) {
    const float v = x[i];
    result = (kMax ? v > result : v < result) ? v : result;
    any_nan |= static_cast<uint32_t>(v != v);
  }
  for (int j = 0; j < kLanes; ++j) {
    result = (kMax ? best[j] > result : best[j] < result) ? best[j] : result;
    any_nan |= nan[j];
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : result;
}

}  // namespace

OPGEN_SIMD_CLONES
float MaxFloatArray(const float* x, int64_t n) { return ExtremumFloat<true>(x, n); }

OPGEN_SIMD_CLONES
float MinFloatArray(const float* x, int64_t n) { return ExtremumFloat<false>(x, n); }

}  // namespace cpu
}  // namespace opgen
