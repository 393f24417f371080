// 3x3 stride-1 convolutions by Winograd F(2x2, 3x3): each 2x2 block of outputs comes
// from a 4x4 block of input, transformed (V = Bt d B), multiplied position by position
// with the transformed filter (U = G g Gt) as 16 GEMMs over the blocks' channels, and
// transformed back (Y = At M A): 16 multiply-adds per 4 outputs instead of 36, so 2.25x
// fewer in the GEMMs. F(2x2) rather than F(4x4): its transforms only add and halve, so
// it stays within float rounding of the direct sum (~1e-6 of the output's largest value
// on ResNet-like layers); F(4x4)'s larger transform coefficients cost about an order
// of magnitude more error for a further 1.8x fewer multiplications.
//
// Tasks take blocks of tiles: the input transform of a block, its 16 products and the
// output transform (with bias and activation) run while the block's data sit in L2.
#include <algorithm>
#include <cstring>

#include "conv2d_avx512.h"
#include "conv2d_avx512_gemm.h"
#include "parallel.h"

namespace opgen {
namespace cpu {

#ifdef OPGEN_CONV_AVX512
namespace {

using namespace avx512;

// u[j * j_stride + c * nr + o] = (G g Gt)[j] for input channel c and output channel
// panel * nr + o (zero past oc).
OPGEN_TARGET_AVX512 void TransformFilter(const float* filter, int64_t ic, int64_t oc, int64_t nr,
                                         int64_t panel, float* u, int64_t j_stride) {
  for (int64_t c = 0; c < ic; ++c) {
    for (int64_t o = 0; o < nr; o += 16) {
      const int64_t n0 = panel * nr + o;
      const int64_t left = std::clamp<int64_t>(oc - n0, 0, 16);
      const __mmask16 m = static_cast<__mmask16>((1u << left) - 1u);
      __m512 g[3][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          g[i][j] = _mm512_maskz_loadu_ps(m, filter + ((i * 3 + j) * ic + c) * oc + n0);
      const __m512 half = _mm512_set1_ps(0.5f);
      __m512 r[4][3];  // G g
      for (int j = 0; j < 3; ++j) {
        r[0][j] = g[0][j];
        r[1][j] = _mm512_mul_ps(half, _mm512_add_ps(_mm512_add_ps(g[0][j], g[1][j]), g[2][j]));
        r[2][j] = _mm512_mul_ps(half, _mm512_add_ps(_mm512_sub_ps(g[0][j], g[1][j]), g[2][j]));
        r[3][j] = g[2][j];
      }
      for (int i = 0; i < 4; ++i) {  // (G g) Gt
        const __m512 u0 = r[i][0];
        const __m512 u1 = _mm512_mul_ps(half, _mm512_add_ps(_mm512_add_ps(r[i][0], r[i][1]), r[i][2]));
        const __m512 u2 = _mm512_mul_ps(half, _mm512_add_ps(_mm512_sub_ps(r[i][0], r[i][1]), r[i][2]));
        const __m512 u3 = r[i][2];
        const __m512 row[4] = {u0, u1, u2, u3};
        for (int j = 0; j < 4; ++j)
          _mm512_storeu_ps(u + (i * 4 + j) * j_stride + c * nr + o, row[j]);
      }
    }
  }
}

// v[j * plane + t * ld + c] for tiles [t0, t0 + tiles): the 4x4 input block at
// (2*ty - pad_top, 2*tx - pad_left), zeros outside the image; rows up to `padded` zeros.
OPGEN_TARGET_AVX512 void TransformInput(const Conv2DGeometry& g, const float* input, int64_t t0,
                                        int64_t tiles, int64_t padded, int64_t ld, int64_t plane,
                                        int64_t tiles_h, int64_t tiles_w, float* v) {
  const int64_t per_image = tiles_h * tiles_w;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t id = t0 + t, b = id / per_image;
    const int64_t y0 = (id % per_image) / tiles_w * 2 - g.pad_top;
    const int64_t x0 = id % tiles_w * 2 - g.pad_left;
    const float* image = input + b * g.ih * g.iw * g.ic;
    const float* src[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int64_t y = y0 + i, x = x0 + j;
        src[i][j] = (y < 0 || y >= g.ih || x < 0 || x >= g.iw) ? nullptr
                                                               : image + (y * g.iw + x) * g.ic;
      }
    for (int64_t c = 0; c < g.ic; c += 16) {
      const __mmask16 m = static_cast<__mmask16>((1u << std::min<int64_t>(16, g.ic - c)) - 1u);
      __m512 d[4][4];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          d[i][j] = src[i][j] != nullptr ? _mm512_maskz_loadu_ps(m, src[i][j] + c)
                                         : _mm512_setzero_ps();
      __m512 r[4][4];  // Bt d
      for (int j = 0; j < 4; ++j) {
        r[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
        r[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
        r[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
        r[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
      }
      for (int i = 0; i < 4; ++i) {  // (Bt d) B
        const __m512 row[4] = {_mm512_sub_ps(r[i][0], r[i][2]), _mm512_add_ps(r[i][1], r[i][2]),
                               _mm512_sub_ps(r[i][2], r[i][1]), _mm512_sub_ps(r[i][1], r[i][3])};
        for (int j = 0; j < 4; ++j)
          _mm512_mask_storeu_ps(v + (i * 4 + j) * plane + t * ld + c, m, row[j]);
      }
    }
  }
  for (int j = 0; j < 16; ++j)
    for (int64_t t = tiles; t < padded; ++t) std::memset(v + j * plane + t * ld, 0, sizeof(float) * g.ic);
}

// Output pixels of tiles [t0, t0 + tiles) from M[j][t][o] (`ldm` apart): At M A, plus
// the bias, then Relu/Relu6 in registers (other activations: ApplyActivationBlock).
OPGEN_TARGET_AVX512 void TransformOutput(const Conv2DGeometry& g, const float* mm, int64_t t0,
                                         int64_t tiles, int64_t plane, int64_t tiles_h,
                                         int64_t tiles_w, float* output, const Epilogue& ep) {
  const int64_t per_image = tiles_h * tiles_w, oc = g.oc;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t id = t0 + t, b = id / per_image;
    const int64_t y0 = (id % per_image) / tiles_w * 2, x0 = id % tiles_w * 2;
    float* dst[2][2];
    const float* side[2][2];  // the residual at the same pixels, or null
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        const bool inside = y0 + i < g.oh && x0 + j < g.ow;
        const int64_t at = ((b * g.oh + y0 + i) * g.ow + x0 + j) * oc;
        dst[i][j] = inside ? output + at : nullptr;
        side[i][j] = inside && ep.residual != nullptr ? ep.residual + at : nullptr;
      }
    for (int64_t o = 0; o < oc; o += 16) {
      const __mmask16 m = static_cast<__mmask16>((1u << std::min<int64_t>(16, oc - o)) - 1u);
      __m512 s[2][4];  // At M
      for (int j = 0; j < 4; ++j) {
        const float* p = mm + t * oc + o;
        const __m512 m0 = _mm512_maskz_loadu_ps(m, p + (0 * 4 + j) * plane);
        const __m512 m1 = _mm512_maskz_loadu_ps(m, p + (1 * 4 + j) * plane);
        const __m512 m2 = _mm512_maskz_loadu_ps(m, p + (2 * 4 + j) * plane);
        const __m512 m3 = _mm512_maskz_loadu_ps(m, p + (3 * 4 + j) * plane);
        s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
        s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
      }
      const __m512 bias =
          ep.bias != nullptr ? _mm512_maskz_loadu_ps(m, ep.bias + o) : _mm512_setzero_ps();
      for (int i = 0; i < 2; ++i) {  // (At M) A
        __m512 y[2] = {_mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]),
                       _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3])};
        for (int j = 0; j < 2; ++j) {
          if (dst[i][j] == nullptr) continue;
          __m512 x = _mm512_add_ps(y[j], bias);
          if (side[i][j] != nullptr) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, side[i][j] + o));
          if (ep.activation == Activation::kRelu) x = Relu(x);
          else if (ep.activation == Activation::kRelu6) x = Relu6(x);
          _mm512_mask_storeu_ps(dst[i][j] + o, m, x);
        }
      }
    }
    if (ep.activation != Activation::kNone && ep.activation != Activation::kRelu &&
        ep.activation != Activation::kRelu6)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          if (dst[i][j] != nullptr) ApplyActivationBlock(dst[i][j], 1, oc, oc, ep);
  }
}

}  // namespace

bool Conv2DFloatWinograd(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep, FilterCache* cache) {
  static const bool supported = __builtin_cpu_supports("avx512f");
  if (!supported || g.kh != 3 || g.kw != 3 || g.stride_h != 1 || g.stride_w != 1 ||
      g.dilation_h != 1 || g.dilation_w != 1)
    return false;
  const int64_t tiles_h = (g.oh + 1) / 2, tiles_w = (g.ow + 1) / 2;
  const int64_t T = g.batch * tiles_h * tiles_w, ic = g.ic, oc = g.oc;
  // Worth it where the products dominate: enough tiles to repay transforming the filter
  // (16 * ic * oc floats) and channels enough for the GEMMs to run near full speed.
  if (T < 32 || ic < 16 || oc < 16) return false;
  constexpr int64_t mr = 14, nr = 32;
  const int64_t panels = (oc + nr - 1) / nr, ld = TileStride(ic), threads = ParallelWorkers();
  // The whole transformed filter U (16 products x panels x ic x nr), on all cores.
  auto transform_all = [&](float* u) {
    RunTasks(panels, [&](int64_t p) {
      TransformFilter(filter, ic, oc, nr, p, u + p * ic * nr, panels * ic * nr);
    });
  };
  const float* cached_u =
      cache != nullptr ? cache->Get(FilterCache::kWinograd, nr,
                                    static_cast<size_t>(16 * panels * nr * ic), transform_all)
                       : nullptr;
  if (oc > T) {
    // The transformed filter (16 * ic * oc) outweighs the tiles (deep layers, small
    // maps): transform all tiles once, then let tasks split the output channels, each
    // transforming only its own filter columns (into L2, never to memory) and running
    // the 16 products over all tiles; the output transform follows over tile slices.
    const int64_t padded = (T + mr - 1) / mr * mr, plane_v = padded * ld, plane_m = padded * oc;
    float* v = SharedAScratch(static_cast<size_t>(16 * plane_v));
    float* mm = SharedBScratch(static_cast<size_t>(16 * plane_m));
    RunTasks(padded / mr, [&](int64_t s) {
      TransformInput(g, input, s * mr, std::min(mr, T - s * mr), mr, ld, plane_v, tiles_h,
                     tiles_w, v + s * mr * ld);
    });
    const int64_t group = std::max<int64_t>(1, panels / (4 * threads));
    RunTasks((panels + group - 1) / group, [&](int64_t task) {
      const int64_t p0 = task * group, gp = std::min(group, panels - p0);
      const int64_t n0 = p0 * nr, n1 = std::min(oc, (p0 + gp) * nr);
      if (cached_u != nullptr) {
        for (int j = 0; j < 16; ++j)
          GemmBlock<14, 2>(T, ic, v + j * plane_v, ld, cached_u + j * panels * nr * ic, 0, n0, n1,
                           mm + j * plane_m, oc, nullptr, kInRegNone);
        return;
      }
      float* u = ThreadScratch(static_cast<size_t>(16 * gp * ic * nr));
      for (int64_t q = 0; q < gp; ++q)
        TransformFilter(filter, ic, oc, nr, p0 + q, u + q * ic * nr, gp * ic * nr);
      for (int j = 0; j < 16; ++j)
        GemmBlock<14, 2>(T, ic, v + j * plane_v, ld, u + j * gp * ic * nr, n0, n0, n1,
                         mm + j * plane_m, oc, nullptr, kInRegNone);
    });
    RunTasks(padded / mr, [&](int64_t s) {
      TransformOutput(g, mm + s * mr * oc, s * mr, std::min(mr, T - s * mr), plane_m, tiles_h,
                      tiles_w, output, ep);
    });
    return true;
  }
  // Many tiles: the filter is transformed once, shared; tasks take blocks of tiles whose
  // V (16 x tb x ld) and M (16 x tb x oc) stay within ~1 MiB of L2.
  const float* u = cached_u;
  if (u == nullptr) {
    float* scratch = SharedBScratch(static_cast<size_t>(16 * panels * nr * ic));
    transform_all(scratch);
    u = scratch;
  }
  int64_t tb = std::clamp<int64_t>((1 << 20) / (64 * (ld + oc)) / mr, 1, 8) * mr;
  while (tb > mr && (T + tb - 1) / tb < 4 * threads) tb -= mr;  // as conv2d_avx512.cc
  RunTasks((T + tb - 1) / tb, [&](int64_t task) {
    const int64_t t0 = task * tb, tiles = std::min(tb, T - t0);
    const int64_t padded = (tiles + mr - 1) / mr * mr;
    float* v = ThreadScratch(static_cast<size_t>(16 * padded * (ld + oc)));
    float* mm = v + 16 * padded * ld;
    TransformInput(g, input, t0, tiles, padded, ld, padded * ld, tiles_h, tiles_w, v);
    for (int j = 0; j < 16; ++j)
      GemmBlock<14, 2>(tiles, ic, v + j * padded * ld, ld, u + j * panels * nr * ic, 0, 0, oc,
                       mm + j * padded * oc, oc, nullptr, kInRegNone);
    TransformOutput(g, mm, t0, tiles, padded * oc, tiles_h, tiles_w, output, ep);
  });
  return true;
}

#else

bool Conv2DFloatWinograd(const Conv2DGeometry&, const float*, const float*, float*, const Epilogue&,
                         FilterCache*) {
  return false;
}

#endif

}  // namespace cpu
}  // namespace opgen
