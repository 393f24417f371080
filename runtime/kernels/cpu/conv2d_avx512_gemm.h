// The AVX-512 GEMM pieces the float32 convolutions share (conv2d_avx512.cc's direct and
// im2col paths, conv2d_winograd.cc's transformed products): a register-blocked
// micro-kernel, the loop that runs it over a block of rows and packed filter panels,
// and per-thread scratch buffers. Internal to the CPU kernels; every function carries
// the AVX-512 target attribute and runs only after Conv2DFloatAvx512's CPU check.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OPGEN_CONV_AVX512 1
#define OPGEN_TARGET_AVX512 __attribute__((target("avx512f,fma")))

namespace opgen {
namespace cpu {
namespace avx512 {

// The activations applied in registers; the rest run over the block afterwards.
enum InRegisterActivation : int { kInRegNone, kInRegRelu, kInRegRelu6, kInRegLater };

// max(0, x) and min(6, max(0, x)) that return x where x is NaN, as TensorFlow's Relu
// does (vmaxps / vminps return their second operand when either is NaN). The masked
// forms avoid _mm512_max_ps's undefined pass-through, which GCC 12 warns about.
OPGEN_TARGET_AVX512 inline __m512 Relu(__m512 x) {
  const __m512 zero = _mm512_setzero_ps();
  return _mm512_mask_max_ps(zero, 0xFFFF, zero, x);
}
OPGEN_TARGET_AVX512 inline __m512 Relu6(__m512 x) {
  const __m512 six = _mm512_set1_ps(6.0f);
  return _mm512_mask_min_ps(six, 0xFFFF, six, Relu(x));
}

// C[rows, NV*16] = A[MR rows, K] @ B[K, NV*16] (+ bias, activation). A's MR rows are
// readable (rows beyond `rows` are computed and dropped), `lda` floats apart; B's rows
// `ldb` apart, NV*16 wide (packed, zero-padded); `masks` pick the columns to store.
// Accumulators: MR*NV zmm registers.
// Row r's pointer is base[r / 3] + (r % 3) * lda, so a handful of registers address all
// rows with base + index * scale.
// `side`, where not null, is added before the activation: a tensor laid out as C (the
// residual of a ResNet block).
template <int MR, int NV>
OPGEN_TARGET_AVX512 inline void MicroKernel(int64_t K, const float* a, int64_t lda, const float* b,
                                            int64_t ldb, float* c, int64_t ldc, int rows,
                                            const __mmask16* masks, const float* bias, int act,
                                            const float* side) {
  constexpr int Q = (MR + 2) / 3;
  __m512 acc[MR][NV];
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  __mmask16 m[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) m[v] = masks[v];
  const float* base[Q];
#pragma GCC unroll 16
  for (int q = 0; q < Q; ++q) base[q] = a + 3 * q * lda;
  for (int64_t k = 0; k < K; ++k) {
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
    b += ldb;
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(base[r / 3][(r % 3) * lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  __m512 bias_v[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    bias_v[v] = bias != nullptr ? _mm512_maskz_loadu_ps(m[v], bias + 16 * v) : _mm512_setzero_ps();
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
    if (r >= rows) break;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 x = _mm512_add_ps(acc[r][v], bias_v[v]);
      if (side != nullptr)
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m[v], side + r * ldc + 16 * v));
      if (act == kInRegRelu) x = Relu(x);
      else if (act == kInRegRelu6) x = Relu6(x);
      _mm512_mask_storeu_ps(c + r * ldc + 16 * v, m[v], x);
    }
  }
}

// One task's product: `rows` rows of A (MR-padded, readable) times columns [n0, n1) of
// B, packed in panels of NR columns (K rows of NR floats, zero-padded) from column pcol0;
// `side` (or null) is laid out as `c` and added before the activation.
// Columns go in blocks whose B part stays in L2; inside, each MR-row slice of A (in L1)
// meets every panel of the block.
template <int MR, int NV>
OPGEN_TARGET_AVX512 inline void GemmBlock(int64_t rows, int64_t K, const float* a, int64_t lda,
                                   const float* packed_b, int64_t pcol0, int64_t n0, int64_t n1,
                                   float* c,
                                   int64_t ldc, const float* bias, int act,
                                   const float* side = nullptr) {
  constexpr int64_t NR = 16 * NV;
  const int64_t nb_cols = std::max<int64_t>(NR, (int64_t{1} << 20) / (4 * K) / NR * NR);
  for (int64_t nb = n0; nb < n1; nb += nb_cols) {
    const int64_t nb_end = std::min(n1, nb + nb_cols);
    for (int64_t m = 0; m < rows; m += MR) {
      const int r = static_cast<int>(std::min<int64_t>(MR, rows - m));
      for (int64_t n = nb; n < nb_end; n += NR) {
        __mmask16 masks[NV];
        for (int v = 0; v < NV; ++v) {
          const int64_t left = std::clamp<int64_t>(nb_end - n - 16 * v, 0, 16);
          masks[v] = static_cast<__mmask16>((1u << left) - 1u);
        }
        MicroKernel<MR, NV>(K, a + m * lda, lda, packed_b + (n - pcol0) * K, NR,
                            c + m * ldc + n, ldc, r, masks, bias != nullptr ? bias + n : nullptr,
                            act, side != nullptr ? side + m * ldc + n : nullptr);
      }
    }
  }
}

using GemmBlockFn = void (*)(int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                             int64_t, int64_t, float*, int64_t, const float*, int, const float*);

// Columns [c0, c1) of B (the [K, N] filter) as panels of `nr` columns: panel p holds K
// rows of nr floats, zero-padded past c1. Contiguous panels keep the kernel's B loads on
// few pages and in prefetch order.
inline void PackFilterColumns(const float* filter, int64_t K, int64_t N, int64_t nr, int64_t c0,
                              int64_t c1, float* packed) {
  for (int64_t n0 = c0; n0 < c1; n0 += nr) {
    const int64_t cols = std::min(nr, c1 - n0);
    float* dst = packed + (n0 - c0) * K;
    for (int64_t k = 0; k < K; ++k, dst += nr) {
      std::memcpy(dst, filter + k * N + n0, sizeof(float) * cols);
      if (cols < nr) std::memset(dst + cols, 0, sizeof(float) * (nr - cols));
    }
  }
}

// A row stride for copied tiles of `k` floats: a 16-float multiple, never a 1 KiB
// multiple (MR rows 1 KiB apart would share a few L1 sets and evict each other).
inline int64_t TileStride(int64_t k) {
  const int64_t ld = (k + 15) / 16 * 16;
  return ld % 256 == 0 ? ld + 16 : ld;
}

// Per-thread buffers, grown as needed and kept: a task's A tile or packed filter chunk,
// and, on the calling thread, the A or packed filter that all tasks share.
inline float* Grown(std::vector<float>& buffer, size_t floats) {
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}
inline float* ThreadScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
inline float* SharedAScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
inline float* SharedBScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}

}  // namespace avx512
}  // namespace cpu
}  // namespace opgen

#endif
