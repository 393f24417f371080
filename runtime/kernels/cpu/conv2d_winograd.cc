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
// The transforms are vector code, one per instruction set (conv2d_simd_kernels.inc); the
// products run on that set's wide GEMM kernel.
#include <algorithm>
#include <cstring>

#include "conv2d_simd.h"
#include "parallel.h"

namespace opgen {
namespace cpu {

bool Conv2DFloatWinograd(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep, FilterCache* cache) {
  const SimdConvKernels* kernels = ConvKernels();
  if (kernels == nullptr || g.kh != 3 || g.kw != 3 || g.stride_h != 1 || g.stride_w != 1 ||
      g.dilation_h != 1 || g.dilation_w != 1)
    return false;
  const int64_t tiles_h = (g.oh + 1) / 2, tiles_w = (g.ow + 1) / 2;
  const int64_t T = g.batch * tiles_h * tiles_w, ic = g.ic, oc = g.oc;
  // Worth it where the products dominate: enough tiles to repay transforming the filter
  // (16 * ic * oc floats) and channels enough for the GEMMs to run near full speed.
  if (T < 32 || ic < 16 || oc < 16) return false;
  const int64_t mr = kernels->wide.mr, nr = kernels->wide.nr;
  const GemmBlockFn gemm = kernels->wide.run;
  const auto TransformFilter = kernels->winograd_filter;
  const auto TransformInput = kernels->winograd_input;
  const auto TransformOutput = kernels->winograd_output;
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
          gemm(T, ic, v + j * plane_v, ld, cached_u + j * panels * nr * ic, 0, n0, n1,
               mm + j * plane_m, oc, nullptr, kInRegNone, nullptr);
        return;
      }
      float* u = ThreadScratch(static_cast<size_t>(16 * gp * ic * nr));
      for (int64_t q = 0; q < gp; ++q)
        TransformFilter(filter, ic, oc, nr, p0 + q, u + q * ic * nr, gp * ic * nr);
      for (int j = 0; j < 16; ++j)
        gemm(T, ic, v + j * plane_v, ld, u + j * gp * ic * nr, n0, n0, n1,
             mm + j * plane_m, oc, nullptr, kInRegNone, nullptr);
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
  while (tb > mr && (T + tb - 1) / tb < 4 * threads) tb -= mr;  // as conv2d_blocked.cc
  RunTasks((T + tb - 1) / tb, [&](int64_t task) {
    const int64_t t0 = task * tb, tiles = std::min(tb, T - t0);
    const int64_t padded = (tiles + mr - 1) / mr * mr;
    float* v = ThreadScratch(static_cast<size_t>(16 * padded * (ld + oc)));
    float* mm = v + 16 * padded * ld;
    TransformInput(g, input, t0, tiles, padded, ld, padded * ld, tiles_h, tiles_w, v);
    for (int j = 0; j < 16; ++j)
      gemm(tiles, ic, v + j * padded * ld, ld, u + j * panels * nr * ic, 0, 0, oc,
           mm + j * padded * oc, oc, nullptr, kInRegNone, nullptr);
    TransformOutput(g, mm, t0, tiles, padded * oc, tiles_h, tiles_w, output, ep);
  });
  return true;
}

}  // namespace cpu
}  // namespace opgen
