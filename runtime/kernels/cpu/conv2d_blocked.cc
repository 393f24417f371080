// See conv2d_simd.h. C[M pixels, N output channels] = A[M, K] @ B[K, N], B being the
// HWIO filter as it is (row k = (tap, input channel), N contiguous floats), A either the
// input itself (1x1, stride 1) or im2col rows of one block of pixels. Work is split into
// (pixel block x output-channel block) tasks over ParallelFor's pool; the bias, the
// residual and Relu/Relu6/Sigmoid/Swish are applied in registers, other activations per
// block while it is hot.
#include <algorithm>
#include <cstring>

#include "conv2d_simd.h"
#include "cpu_isa.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

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
      const int64_t sx0 = x * g.stride_w - g.pad_left;
      if (g.dilation_w == 1 && sy >= 0 && sy < g.ih && sx0 >= 0 && sx0 + g.kw <= g.iw) {
        // The window's row lies inside the image: kw pixels, contiguous in NHWC.
        std::memcpy(row + i * g.kw * g.ic, image + (sy * g.iw + sx0) * g.ic,
                    sizeof(float) * g.kw * g.ic);
        continue;
      }
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

}  // namespace

const SimdConvKernels* ConvKernels() {
  static const SimdConvKernels* const best = [] {
    // OPGEN_CPU_ISA=avx2 keeps an AVX-512 machine on the AVX2 kernels, "portable" on
    // im2col + OpenBLAS (the tests run every path this way).
    switch (WidestCpuIsa()) {
      case CpuIsa::kAvx512: return Avx512ConvKernels();
      case CpuIsa::kAvx2: return Avx2ConvKernels();
      case CpuIsa::kPortable: break;
    }
    return static_cast<const SimdConvKernels*>(nullptr);
  }();
  return best;
}

bool Conv2DFloatBlocked(const Conv2DGeometry& g, const float* input, const float* filter,
                        float* output, const Epilogue& ep, FilterCache* cache) {
  const SimdConvKernels* kernels = ConvKernels();
  if (kernels == nullptr) return false;
  const int64_t M = g.batch * g.oh * g.ow, K = g.kh * g.kw * g.ic, N = g.oc;
  // A 1x1 stride-1 unpadded convolution reads its rows straight from the input, unless
  // the row stride is a multiple of 2 KiB: then the MR rows would share a few L1 sets
  // and evict each other, and a copy with a padded stride is cheaper.
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.stride_h == 1 && g.stride_w == 1 &&
                         g.pad_top == 0 && g.pad_left == 0 && g.oh == g.ih && g.ow == g.iw;
  const bool direct = pointwise && g.ic % 512 != 0;
  const int act = InRegister(ep.activation);
  // The instruction set's register blocking for this shape (conv2d_simd_avx*.cc).
  const GemmKernel& kernel = N <= kernels->narrow.nr ? kernels->narrow
                             : M < 112               ? kernels->few_pixels
                                                     : kernels->wide;
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const GemmBlockFn gemm = kernel.run;
  const int64_t ld = TileStride(K);
  const int64_t threads = ParallelWorkers(), panels = (N + nr - 1) / nr;
  // All panels of the filter, packed on all cores.
  auto pack_all = [&](float* packed) {
    RunTasks(panels, [&](int64_t p) {
      PackFilterColumns(filter, K, N, nr, p * nr, std::min(N, (p + 1) * nr), packed + p * nr * K);
    });
  };
  const float* prepacked =
      cache != nullptr
          ? cache->Get(FilterCache::kGemmPanels, nr, static_cast<size_t>(panels * nr * K), pack_all)
          : nullptr;

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
  // `spare` holds mr * ld floats for that copy.
  auto multiply = [&](int64_t p0, int64_t rows, const float* tile, const float* packed,
                      int64_t pcol0, int64_t n0, int64_t n1, float* spare) {
    float* out = output + p0 * N;
    const float* side = ep.residual != nullptr ? ep.residual + p0 * N : nullptr;
    if (tile != nullptr) {
      gemm(rows, K, tile, ld, packed, pcol0, n0, n1, out, N, ep.bias, act, side);
      return;
    }
    const int64_t full = rows / mr * mr;
    if (full > 0)
      gemm(full, K, input + p0 * K, K, packed, pcol0, n0, n1, out, N, ep.bias, act, side);
    if (full < rows) {
      fill_rows(p0 + full, rows - full, spare);
      gemm(rows - full, K, spare, ld, packed, pcol0, n0, n1, out + full * N, N, ep.bias, act,
           side != nullptr ? side + full * N : nullptr);
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
      if (prepacked != nullptr) {
        multiply(0, M, tile, prepacked, 0, n0, n1, ThreadScratch(static_cast<size_t>(mr * ld)));
        if (act == kInRegLater) ApplyActivationBlock(output + n0, M, n1 - n0, N, ep);
        return;
      }
      float* packed = ThreadScratch(static_cast<size_t>(K * chunk) + mr * ld);
      for (int64_t c0 = n0; c0 < n1; c0 += chunk) {
        const int64_t c1 = std::min(n1, c0 + chunk);
        PackFilterColumns(filter, K, N, nr, c0, c1, packed);
        multiply(0, M, tile, packed, c0, c0, c1, packed + K * chunk);
      }
      if (act == kInRegLater) ApplyActivationBlock(output + n0, M, n1 - n0, N, ep);
    });
    return true;
  }

  // Many pixels: the filter is packed once and shared; tasks split the pixels in blocks
  // whose A tile (~512 KiB) stays in L2 while every panel of B meets it.
  const float* packed = prepacked;
  if (packed == nullptr) {
    float* scratch = SharedBScratch(static_cast<size_t>(panels * nr * K));
    pack_all(scratch);
    packed = scratch;
  }
  int64_t mb = std::clamp<int64_t>((512 << 10) / (4 * ld) / mr, 1, 16) * mr;
  // At least 4 tasks per thread: a thread the OS runs late (a busy machine) then holds
  // back a small part of the layer, which the others finish.
  while (mb > mr && (M + mb - 1) / mb < 4 * threads) mb -= mr;
  RunTasks((M + mb - 1) / mb, [&](int64_t t) {
    const int64_t p0 = t * mb, rows = std::min(mb, M - p0);
    // The A tile, or (rows read in place) room for a partial last slice.
    float* scratch = ThreadScratch(static_cast<size_t>((rows + mr - 1) / mr * mr * ld));
    if (!direct) fill_rows(p0, rows, scratch);
    multiply(p0, rows, direct ? nullptr : scratch, packed, 0, 0, N, scratch);
    if (act == kInRegLater) ApplyActivationBlock(output + p0 * N, rows, N, N, ep);
  });
  return true;
}

}  // namespace cpu
}  // namespace opgen
