// See conv2d_avx512.h. C[M pixels, N output channels] = A[M, K] @ B[K, N], B being the
// HWIO filter as it is (row k = (tap, input channel), N contiguous floats), A either the
// input itself (1x1, stride 1) or im2col rows of one block of pixels.
#include "conv2d_avx512.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "parallel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define OPGEN_CONV_AVX512 1
#define OPGEN_TARGET_AVX512 __attribute__((target("avx512f,fma")))
#endif

namespace opgen {
namespace cpu {

#ifdef OPGEN_CONV_AVX512
namespace {

// The activations applied in registers; the rest run over the block afterwards.
enum InRegisterActivation : int { kInRegNone, kInRegRelu, kInRegRelu6, kInRegLater };

// C[rows, NV*16] = A[MR rows, K] @ B[K, NV*16] (+ bias, activation). A's MR rows are
// readable (rows beyond `rows` are computed and dropped), `lda` floats apart; B's rows
// `ldb` apart, masked to the panel's valid columns. Accumulators: MR*NV zmm registers.
// Row r's pointer is base[r / 3] + (r % 3) * lda, so a handful of registers address all
// rows with base + index * scale.
template <int MR, int NV>
OPGEN_TARGET_AVX512 inline void MicroKernel(int64_t K, const float* a, int64_t lda, const float* b,
                                            int64_t ldb, float* c, int64_t ldc, int rows,
                                            const __mmask16* masks, const float* bias, int act) {
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
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_maskz_loadu_ps(m[v], b + 16 * v);
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
  const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6.0f);
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
    if (r >= rows) break;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 x = _mm512_add_ps(acc[r][v], bias_v[v]);
      // max(0, x) / min(6, .) return x when x is NaN, as TensorFlow's Relu does.
      if (act == kInRegRelu) x = _mm512_max_ps(zero, x);
      else if (act == kInRegRelu6) x = _mm512_min_ps(six, _mm512_max_ps(zero, x));
      _mm512_mask_storeu_ps(c + r * ldc + 16 * v, m[v], x);
    }
  }
}

// One task's product: `rows` rows of A (MR-padded, readable) times columns [n0, n1) of
// B, packed in panels of NR columns (K rows of NR floats, zero-padded) from column pcol0.
// Columns go in blocks whose B part stays in L2; inside, each MR-row slice of A (in L1)
// meets every panel of the block.
template <int MR, int NV>
OPGEN_TARGET_AVX512 void GemmBlock(int64_t rows, int64_t K, const float* a, int64_t lda,
                                   const float* packed_b, int64_t pcol0, int64_t n0, int64_t n1,
                                   float* c,
                                   int64_t ldc, const float* bias, int act) {
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
                            act);
      }
    }
  }
}

using GemmBlockFn = void (*)(int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                             int64_t, int64_t, float*, int64_t, const float*, int);

// Columns [c0, c1) of B (the [K, N] filter) as panels of `nr` columns: panel p holds K
// rows of nr floats, zero-padded past c1. Contiguous panels keep the kernel's B loads on
// few pages and in prefetch order.
void PackFilterColumns(const float* filter, int64_t K, int64_t N, int64_t nr, int64_t c0,
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

// Copies output pixels [p0, p0 + rows) 's im2col rows (K = kh*kw*ic floats each, `ld`
// apart) into `dst`; rows up to `padded_rows` are zeros.
void Im2colRows(const Conv2DGeometry& g, const float* input, int64_t p0, int64_t rows,
                int64_t padded_rows, int64_t ld, float* dst) {
  const int64_t K = g.kh * g.kw * g.ic, pixels = g.oh * g.ow;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t p = p0 + r, b = p / pixels, y = (p % pixels) / g.ow, x = p % g.ow;
    const float* image = input + b * g.ih * g.iw * g.ic;
    float* row = dst + r * ld;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t sy = y * g.stride_h - g.pad_top + i * g.dilation_h;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t sx = x * g.stride_w - g.pad_left + j * g.dilation_w;
        float* out = row + (i * g.kw + j) * g.ic;
        if (sy < 0 || sy >= g.ih || sx < 0 || sx >= g.iw)
          std::memset(out, 0, sizeof(float) * g.ic);
        else
          std::memcpy(out, image + (sy * g.iw + sx) * g.ic, sizeof(float) * g.ic);
      }
    }
  }
  for (int64_t r = rows; r < padded_rows; ++r) std::memset(dst + r * ld, 0, sizeof(float) * K);
}

// Per-thread buffers, grown as needed and kept: a task's A tile or packed filter chunk,
// and, on the calling thread, the A or packed filter that all tasks share.
float* Grown(std::vector<float>& buffer, size_t floats) {
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}
float* ThreadScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
float* SharedAScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
float* SharedBScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}

}  // namespace

bool Conv2DFloatAvx512(const Conv2DGeometry& g, const float* input, const float* filter,
                       float* output, const Epilogue& ep) {
  static const bool supported = __builtin_cpu_supports("avx512f");
  if (!supported) return false;
  const int64_t M = g.batch * g.oh * g.ow, K = g.kh * g.kw * g.ic, N = g.oc;
  // A 1x1 stride-1 unpadded convolution reads its rows straight from the input, unless
  // the row stride is a multiple of 2 KiB: then the MR rows would share a few L1 sets
  // and evict each other, and a copy with a padded stride is cheaper.
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.stride_h == 1 && g.stride_w == 1 &&
                         g.pad_top == 0 && g.pad_left == 0 && g.oh == g.ih && g.ow == g.iw;
  const bool direct = pointwise && g.ic % 512 != 0;
  const int act = ep.activation == Activation::kNone    ? kInRegNone
                  : ep.activation == Activation::kRelu  ? kInRegRelu
                  : ep.activation == Activation::kRelu6 ? kInRegRelu6
                                                        : kInRegLater;
  // Register blocking: 14 rows x 32 channels; 7 x 64 where there are few pixels (7x7
  // maps: 49 = 7 * 7); 14 x 16 for narrow outputs.
  int64_t mr, nr;
  GemmBlockFn gemm;
  if (N <= 16) mr = 14, nr = 16, gemm = GemmBlock<14, 1>;
  else if (M < 112) mr = 7, nr = 64, gemm = GemmBlock<7, 4>;
  else mr = 14, nr = 32, gemm = GemmBlock<14, 2>;
  // A's row stride in copied tiles: a 16-float multiple, never a 1 KiB multiple.
  int64_t ld = (K + 15) / 16 * 16;
  if (ld % 256 == 0) ld += 16;
  const int64_t threads = ParallelWorkers(), panels = (N + nr - 1) / nr;

  // Rows [p0, p0 + rows) of A into `tile` (`ld` apart, zero rows up to a multiple of MR).
  auto fill_rows = [&](int64_t p0, int64_t rows, float* tile) {
    const int64_t padded = (rows + mr - 1) / mr * mr;
    if (pointwise) {
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(tile + r * ld, input + (p0 + r) * K, sizeof(float) * K);
      for (int64_t r = rows; r < padded; ++r) std::memset(tile + r * ld, 0, sizeof(float) * K);
    } else {
      Im2colRows(g, input, p0, rows, padded, ld, tile);
    }
  };
  // out[rows p0.., columns n0..n1) for A rows read in place from the input (all but a
  // partial last MR slice, which goes through a small copy) or from `tile`.
  auto multiply = [&](int64_t p0, int64_t rows, const float* tile, const float* packed,
                      int64_t pcol0, int64_t n0, int64_t n1) {
    float* out = output + p0 * N;
    if (tile != nullptr) {
      gemm(rows, K, tile, ld, packed, pcol0, n0, n1, out, N, ep.bias, act);
      return;
    }
    const int64_t full = rows / mr * mr;
    if (full > 0) gemm(full, K, input + p0 * K, K, packed, pcol0, n0, n1, out, N, ep.bias, act);
    if (full < rows) {
      float* last = ThreadScratch(static_cast<size_t>(mr * ld));
      fill_rows(p0 + full, rows - full, last);
      gemm(rows - full, K, last, ld, packed, pcol0, n0, n1, out + full * N, N, ep.bias, act);
    }
  };

  if (N > M) {
    // The filter outweighs the activations (deep layers on small maps): A is made once
    // and shared, tasks split the output channels, and each packs only its own columns,
    // in L2-sized chunks, so the filter is read from memory once.
    const float* tile = nullptr;
    if (!direct) {
      const int64_t padded = (M + mr - 1) / mr * mr;
      float* shared = SharedAScratch(static_cast<size_t>(padded * ld));
      const int64_t slices = padded / mr;
      RunTasks(slices, [&](int64_t s) {
        fill_rows(s * mr, std::min(mr, M - s * mr), shared + s * mr * ld);
      });
      tile = shared;
    }
    const int64_t col_tasks = std::min(panels, 4 * threads);
    const int64_t cb = (panels + col_tasks - 1) / col_tasks * nr;
    const int64_t chunk = std::max<int64_t>(nr, (int64_t{1} << 20) / (4 * K) / nr * nr);
    RunTasks((N + cb - 1) / cb, [&](int64_t t) {
      const int64_t n0 = t * cb, n1 = std::min(N, n0 + cb);
      float* packed = ThreadScratch(static_cast<size_t>(K * chunk) + mr * ld);
      for (int64_t c0 = n0; c0 < n1; c0 += chunk) {
        const int64_t c1 = std::min(n1, c0 + chunk);
        PackFilterColumns(filter, K, N, nr, c0, c1, packed);
        multiply(0, M, tile, packed, c0, c0, c1);
      }
      if (act == kInRegLater) ApplyActivationBlock(output + n0, M, n1 - n0, N, ep);
    });
    return true;
  }

  // Many pixels: the filter is packed once and shared; tasks split the pixels in blocks
  // whose A tile (~512 KiB) stays in L2 while every panel of B meets it.
  float* packed = SharedBScratch(static_cast<size_t>(panels * nr * K));
  RunTasks(panels, [&](int64_t p) {
    PackFilterColumns(filter, K, N, nr, p * nr, std::min(N, (p + 1) * nr), packed + p * nr * K);
  });
  int64_t mb = std::clamp<int64_t>((512 << 10) / (4 * ld) / mr, 1, 16) * mr;
  while (mb > mr && (M + mb - 1) / mb < 2 * threads) mb -= mr;
  RunTasks((M + mb - 1) / mb, [&](int64_t t) {
    const int64_t p0 = t * mb, rows = std::min(mb, M - p0);
    float* tile = nullptr;
    if (!direct) {
      tile = ThreadScratch(static_cast<size_t>((rows + mr - 1) / mr * mr * ld));
      fill_rows(p0, rows, tile);
    }
    multiply(p0, rows, tile, packed, 0, 0, N);
    if (act == kInRegLater) ApplyActivationBlock(output + p0 * N, rows, N, N, ep);
  });
  return true;
}

#else  // no x86-64 GCC/Clang: the caller's portable path runs instead

bool Conv2DFloatAvx512(const Conv2DGeometry&, const float*, const float*, float*, const Epilogue&) {
  return false;
}

#endif

}  // namespace cpu
}  // namespace opgen
