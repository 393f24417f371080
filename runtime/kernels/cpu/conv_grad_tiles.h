// The CPU convolution gradients' tiled building blocks (conv_grad.cc, conv_family.cc):
// im2col of a range of patch rows, a convolution done as cache-sized tiles of patch rows
// each multiplied by the filter on one thread (Conv2DBackpropInput at stride 1, on the
// turned filter), and Conv2DBackpropInput with images spread over the threads (any stride).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../window_spec.h"
#include "conv2d_float.h"
#include "conv2d_simd.h"
#include "gemm.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {

// Writes the im2col rows [r0, r1) of the batch (row = image, y, x of the output; K =
// kh * kw * ic taps each, zeros where a tap falls in the padding) to dst.
template <typename T, typename G>
void FillPatchRows(const kernels::WindowPlan& p, const kernels::Window2D& w, const T* in, int64_t r0,
                   int64_t r1, G* dst) {
  const int64_t ih = p.ih, iw = p.iw, ic = p.ic, kh = p.kh, kw = p.kw, oh = p.oh, ow = p.ow;
  const int64_t K = kh * kw * ic, pixels = oh * ow;
  // (image, y, x) of row r0, then stepped: no divisions per row
  int64_t b = r0 / pixels, y = (r0 % pixels) / ow, x = r0 % ow;
  for (int64_t r = r0; r < r1; ++r) {
    const T* image = in + b * ih * iw * ic;
    G* row = dst + (r - r0) * K;
    // The taps [j0, j1) of this column inside the image; the rest are zeros.
    const int64_t sx0 = x * w.strides[2] - p.pl, dw = w.dilations[2];
    int64_t j0 = 0, j1 = kw;
    while (j0 < kw && sx0 + j0 * dw < 0) ++j0;
    while (j1 > j0 && sx0 + (j1 - 1) * dw >= iw) --j1;
    for (int64_t i = 0; i < kh; ++i) {
      const int64_t sy = y * w.strides[1] - p.pt + i * w.dilations[1];
      G* out = row + i * kw * ic;
      if (sy < 0 || sy >= ih || j0 == j1) {
        std::fill_n(out, kw * ic, G(0));
        continue;
      }
      std::fill_n(out, j0 * ic, G(0));
      const T* src = image + (sy * iw + sx0) * ic;
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t k = 0; k < ic; ++k) out[j * ic + k] = static_cast<G>(Widen(src[j * dw * ic + k]));
      std::fill_n(out + j1 * ic, (kw - j1) * ic, G(0));
    }
    if (++x == ow) {
      x = 0;
      if (++y == oh) {
        y = 0;
        ++b;
      }
    }
  }
}

// Tiles of about this many im2col elements (an L2's worth), at least kBackpropInputMinRows
// rows (TiledConv: 4 times that, its GEMM's inner dimension is the tile's patch width).
constexpr int64_t kBackpropInputTileElements = int64_t{1} << 16;
constexpr int64_t kBackpropInputMinRows = 32;

// Conv2DBackpropInput for the floating types when there are images enough to keep every
// thread busy: each thread takes whole images, one at a time, and walks an image in tiles
// of output pixels: a cache-sized GEMM (the tile's out_backprop times the filter's
// transpose, one row of K = kh * kw * ic taps per pixel), then each tap added into the
// input pixel it came from. Threads never share an image: no locks, no partial copies.
// The 16-bit types are computed in float and rounded once. False (nothing done) with
// fewer images than threads: the caller's per-image GEMM then splits over the pool.
// col2im for one output pixel (y, x): `row` holds its (i, j, c) columns; each tap that
// lands inside the input adds its `ic` values into `image` (the [ih, iw, ic] input
// gradient, of accumulator type D), widened from the row's type.
template <typename S, typename D>
inline void AddColumnRow(const kernels::WindowPlan& p, const kernels::Window2D& w, int64_t y,
                         int64_t x, const S* row, D* image) {
  for (int64_t i = 0; i < p.kh; ++i) {
    const int64_t sy = y * w.strides[1] - p.pt + i * w.dilations[1];
    if (sy < 0 || sy >= p.ih) continue;
    for (int64_t j = 0; j < p.kw; ++j) {
      const int64_t sx = x * w.strides[2] - p.pl + j * w.dilations[2];
      if (sx < 0 || sx >= p.iw) continue;
      D* to = image + (sy * p.iw + sx) * p.ic;
      const S* from = row + (i * p.kw + j) * p.ic;
      for (int64_t k = 0; k < p.ic; ++k) to[k] += static_cast<D>(Widen(from[k]));
    }
  }
}

template <typename T>
bool Conv2DBackpropInputByImages(const kernels::WindowPlan& p, const kernels::Window2D& w, const T* dy,
                                 const T* filter, T* out) {
  using G = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t workers = ParallelWorkers();
  if (p.batch < workers) return false;
  const int64_t ih = p.ih, iw = p.iw, ic = p.ic, kh = p.kh, kw = p.kw, oc = p.oc;
  const int64_t oh = p.oh, ow = p.ow, K = kh * kw * ic, pixels = oh * ow, image = ih * iw * ic;
  const int64_t tile = std::min(std::max<int64_t>(1, pixels),
                                std::max(kBackpropInputMinRows, kBackpropInputTileElements / std::max<int64_t>(K, 1)));
  const int64_t threads = std::min(workers, p.batch);
  constexpr bool kSame = std::is_same_v<T, G>;
  // Allocated here, where bad_alloc reaches the caller, not inside a pool thread.
  std::vector<G> wide_filter(kSame ? 0 : static_cast<size_t>(K * oc));
  for (size_t k = 0; k < wide_filter.size(); ++k) wide_filter[k] = static_cast<G>(Widen(filter[k]));
  const G* f = nullptr;
  if constexpr (kSame) f = filter; else f = wide_filter.data();
  std::vector<G> cols(static_cast<size_t>(threads * tile * K));
  std::vector<G> dy_wide(kSame ? 0 : static_cast<size_t>(threads * tile * oc));
  std::vector<G> acc(kSame ? 0 : static_cast<size_t>(threads * image));
  std::atomic<int64_t> next{0};
  RunTasks(threads, [&](int64_t t) {
    G* buf = cols.data() + t * tile * K;
    for (int64_t b; (b = next.fetch_add(1)) < p.batch;) {
      G* dst = nullptr;
      if constexpr (kSame) dst = out + b * image; else dst = acc.data() + t * image;
      std::fill_n(dst, image, G(0));
      for (int64_t p0 = 0; p0 < pixels; p0 += tile) {
        const int64_t n = std::min(tile, pixels - p0);
        const G* rows = nullptr;
        if constexpr (kSame) {
          rows = dy + (b * pixels + p0) * oc;
        } else {
          G* wide = dy_wide.data() + t * tile * oc;
          const T* src = dy + (b * pixels + p0) * oc;
          for (int64_t k = 0; k < n * oc; ++k) wide[k] = static_cast<G>(Widen(src[k]));
          rows = wide;
        }
        std::fill_n(buf, n * K, G(0));
        GemmAccumulate(false, true, n, K, oc, rows, oc, f, oc, buf, K);
        for (int64_t r = 0; r < n; ++r) {
          const int64_t y = (p0 + r) / ow, x = (p0 + r) % ow;
          AddColumnRow(p, w, y, x, buf + r * K, dst);
        }
      }
      if constexpr (!kSame) {
        T* o = out + b * image;
        for (int64_t k = 0; k < image; ++k) o[k] = Narrow<T>(static_cast<ComputeType<T>>(dst[k]));
      }
    }
  });
  return true;
}

// out[rows, oc] = patches(in)[rows, K] @ filter[K, oc], NHWC / HWIO as p and w describe,
// in tiles of patch rows handed out one at a time to the threads: each tile is im2col-ed
// into a cache-sized buffer of its thread's and multiplied there. 1x1 windows that read
// every input pixel in order skip the im2col: one GEMM over all rows.
template <typename T>
void TiledConv(const kernels::WindowPlan& p, const kernels::Window2D& w, const T* in, const T* filter,
               T* out) {
  const int64_t K = p.kh * p.kw * p.ic, oc = p.oc, rows = p.batch * p.oh * p.ow;
  if (rows == 0 || oc == 0) return;
  if (p.kh == 1 && p.kw == 1 && w.strides[1] == 1 && w.strides[2] == 1 && p.pt == 0 && p.pl == 0 &&
      p.oh == p.ih && p.ow == p.iw) {
    Gemm(false, false, rows, oc, K, in, filter, out);
    return;
  }
  // OpenBLAS packs the [K, oc] filter again for every tile: 2 * oc rows or more keep that
  // below the tile's own patches; yet a tile per thread at least.
  const int64_t workers = ParallelWorkers();
  const int64_t tile = std::min((rows + workers - 1) / workers,
                                std::max({kBackpropInputMinRows * 4, kBackpropInputTileElements / std::max<int64_t>(K, 1), 2 * oc}));
  const int64_t tiles = (rows + tile - 1) / tile, threads = std::min(workers, tiles);
  std::vector<T> cols(static_cast<size_t>(threads * tile * K));
  std::atomic<int64_t> next{0};
  RunTasks(threads, [&](int64_t t) {
    T* buf = cols.data() + t * tile * K;
    for (int64_t i; (i = next.fetch_add(1)) < tiles;) {
      const int64_t r0 = i * tile, n = std::min(tile, rows - r0);
      FillPatchRows(p, w, in, r0, r0 + n, buf);
      std::fill_n(out + r0 * oc, n * oc, T(0));
      GemmAccumulate(false, false, n, oc, K, buf, K, filter, oc, out + r0 * oc, oc);
    }
  });
}

// float and double, stride 1: the input gradient is the forward convolution of
// out_backprop with the filter turned 180 degrees and its channel axes swapped, padded by
// (k - 1) * dilation less the forward padding on each side. float32 with vector kernels
// (AVX-512 or AVX2 + FMA) runs it through Conv2DFloat (conv2d_float.h, called as is:
// Winograd, the packed GEMM), the rest through TiledConv. False where that padding would be negative (EXPLICIT paddings) or
// the filter is not all finite.
template <typename T>
bool Conv2DBackpropInputAsConv(const kernels::WindowPlan& p, const kernels::Window2D& w, const T* dy,
                               const T* filter, T* out) {
  if (w.strides[1] != 1 || w.strides[2] != 1) return false;
  const int64_t kh = p.kh, kw = p.kw, ic = p.ic, oc = p.oc, dh = w.dilations[1], dw = w.dilations[2];
  const int64_t top = (kh - 1) * dh - p.pt, left = (kw - 1) * dw - p.pl;
  const int64_t bottom = p.ih - p.oh - top + (kh - 1) * dh, right = p.iw - p.ow - left + (kw - 1) * dw;
  if (top < 0 || left < 0 || bottom < 0 || right < 0) return false;
  std::vector<T> turned(static_cast<size_t>(kh * kw * ic * oc));
  bool finite = true;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) {
      const T* src = filter + (i * kw + j) * ic * oc;
      T* dst = turned.data() + ((kh - 1 - i) * kw + (kw - 1 - j)) * oc * ic;
      for (int64_t c = 0; c < ic; ++c)
        for (int64_t o = 0; o < oc; ++o) {
          dst[o * ic + c] = src[c * oc + o];
          finite &= std::isfinite(src[c * oc + o]);
        }
    }
  // The padding's zeros meet every filter tap here, where a col2im never multiplies them:
  // an inf or NaN in the filter would make NaNs TensorFlow does not.
  if (!finite) return false;
  if constexpr (std::is_same_v<T, float>) {
    if (ConvKernels() != nullptr) {  // else Conv2DFloat would be the portable im2col
      Conv2DGeometry g{};
      g.batch = p.batch;
      g.ih = p.oh, g.iw = p.ow, g.ic = oc;
      g.kh = kh, g.kw = kw, g.oc = ic;
      g.oh = p.ih, g.ow = p.iw;
      g.stride_h = 1, g.stride_w = 1, g.dilation_h = dh, g.dilation_w = dw;
      g.pad_top = top, g.pad_left = left;
      Conv2DFloat(g, dy, turned.data(), out, Epilogue{});
      return true;
    }
  }
  kernels::WindowPlan tp;
  tp.batch = p.batch, tp.ih = p.oh, tp.iw = p.ow, tp.ic = oc;
  tp.kh = kh, tp.kw = kw, tp.oh = p.ih, tp.ow = p.iw, tp.oc = ic, tp.pt = top, tp.pl = left;
  kernels::Window2D tw;
  tw.dilations = w.dilations;
  TiledConv(tp, tw, dy, turned.data(), out);
  return true;
}

}  // namespace cpu
}  // namespace opgen
