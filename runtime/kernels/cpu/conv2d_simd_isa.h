// The vector instruction sets the float32 convolution kernels are written for, as small
// traits structs: conv2d_simd_kernels.inc is written once against `Isa::` and compiled
// once per struct (conv2d_simd_avx512.cc, conv2d_simd_avx2.cc). Every member carries its
// ISA's target attribute, so this header compiles into a library that runs on any x86-64;
// the kernels are entered only after a run-time CPU check (ConvKernels()).
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstdint>

// vector_math.h's SigmoidOf / SwishOf return vectors wider than the baseline ABI's; they
// are always inlined into the kernels, so no call crosses that ABI.
#pragma GCC diagnostic ignored "-Wpsabi"
#include "vector_math.h"

#define OPGEN_CONV_SIMD 1
#define OPGEN_TARGET_AVX512 __attribute__((target("avx512f,fma")))
#define OPGEN_TARGET_AVX2 __attribute__((target("avx2,fma")))

namespace opgen {
namespace cpu {

// 16 floats per zmm register, 32 registers; masks are k registers.
struct Avx512 {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  // The first n lanes, n in [0, 16].
  OPGEN_TARGET_AVX512 static Mask FirstLanes(int64_t n) {
    return static_cast<__mmask16>((1u << n) - 1u);
  }
  OPGEN_TARGET_AVX512 static Vec Zero() { return _mm512_setzero_ps(); }
  OPGEN_TARGET_AVX512 static Vec Set1(float x) { return _mm512_set1_ps(x); }
  OPGEN_TARGET_AVX512 static Vec Load(const float* p) { return _mm512_loadu_ps(p); }
  OPGEN_TARGET_AVX512 static Vec LoadMasked(const float* p, Mask m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  OPGEN_TARGET_AVX512 static void Store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  OPGEN_TARGET_AVX512 static void StoreMasked(float* p, Mask m, Vec v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  OPGEN_TARGET_AVX512 static Vec Add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  OPGEN_TARGET_AVX512 static Vec Sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
  OPGEN_TARGET_AVX512 static Vec Mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  OPGEN_TARGET_AVX512 static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  // max(0, x) and min(6, max(0, x)) that return x where x is NaN, as TensorFlow's Relu
  // does (vmaxps / vminps return their second operand when either is NaN). The masked
  // forms avoid _mm512_max_ps's undefined pass-through, which GCC 12 warns about.
  OPGEN_TARGET_AVX512 static Vec Relu(Vec x) {
    const __m512 zero = _mm512_setzero_ps();
    return _mm512_mask_max_ps(zero, 0xFFFF, zero, x);
  }
  OPGEN_TARGET_AVX512 static Vec Relu6(Vec x) {
    const __m512 six = _mm512_set1_ps(6.0f);
    return _mm512_mask_min_ps(six, 0xFFFF, six, Relu(x));
  }
};

// 8 floats per ymm register, 16 registers; a mask is a lane vector plus whether it is
// full, so whole vectors take plain loads and stores (vmaskmovps stores are slow on
// several AMD cores).
struct Avx2 {
  using Vec = __m256;
  struct Mask {
    __m256i lanes;
    bool full;
  };
  static constexpr int kLanes = 8;
  OPGEN_TARGET_AVX2 static Mask FirstLanes(int64_t n) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return {_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), index), n >= 8};
  }
  OPGEN_TARGET_AVX2 static Vec Zero() { return _mm256_setzero_ps(); }
  OPGEN_TARGET_AVX2 static Vec Set1(float x) { return _mm256_set1_ps(x); }
  OPGEN_TARGET_AVX2 static Vec Load(const float* p) { return _mm256_loadu_ps(p); }
  OPGEN_TARGET_AVX2 static Vec LoadMasked(const float* p, const Mask& m) {
    return m.full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m.lanes);
  }
  OPGEN_TARGET_AVX2 static void Store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  OPGEN_TARGET_AVX2 static void StoreMasked(float* p, const Mask& m, Vec v) {
    if (m.full) _mm256_storeu_ps(p, v);
    else _mm256_maskstore_ps(p, m.lanes, v);
  }
  OPGEN_TARGET_AVX2 static Vec Add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  OPGEN_TARGET_AVX2 static Vec Sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
  OPGEN_TARGET_AVX2 static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  OPGEN_TARGET_AVX2 static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  // As Avx512's: vmaxps / vminps return the second operand (x) where either is NaN.
  OPGEN_TARGET_AVX2 static Vec Relu(Vec x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }
  OPGEN_TARGET_AVX2 static Vec Relu6(Vec x) { return _mm256_min_ps(_mm256_set1_ps(6.0f), Relu(x)); }
};

}  // namespace cpu
}  // namespace opgen

#endif
