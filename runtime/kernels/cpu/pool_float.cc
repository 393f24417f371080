// Compiled for AVX2 and the x86-64 baseline (GCC's target_clones, as simd_loops.cc): the
// loops run along contiguous channels and vectorise as written.
#include "pool_float.h"

#include <algorithm>

namespace opgen {
namespace cpu {
namespace {

// [begin, end) of a window of `size` from `start`, inside [0, extent); `size` may be
// near INT64_MAX (a global pool), so the end is computed without overflow.
inline void Clip(int64_t start, int64_t size, int64_t extent, int64_t* begin, int64_t* end) {
  *begin = std::max<int64_t>(start, 0);
  *end = size > extent - start ? extent : start + size;
  if (*end < *begin) *end = *begin;
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void AvgPoolFloatRows(const AvgPoolGeometry& g, const float* input, float* output, int64_t begin,
                      int64_t end, float* scratch) {
  const int64_t c = g.c, row_len = g.iw * c;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.oh, y = row % g.oh;
    int64_t y_lo, y_hi;
    Clip(y * g.stride_h - g.pad_top, g.kh, g.ih, &y_lo, &y_hi);
    float* out = output + row * g.ow * c;
    // Column sums down the window's rows (zeros where no row is inside).
    const float* image = input + b * g.ih * row_len;
    if (y_lo == y_hi) std::fill(scratch, scratch + row_len, 0.0f);
    for (int64_t sy = y_lo; sy < y_hi; ++sy) {
      const float* src = image + sy * row_len;
      if (sy == y_lo) std::copy(src, src + row_len, scratch);
      else
        for (int64_t i = 0; i < row_len; ++i) scratch[i] += src[i];
    }
    for (int64_t x = 0; x < g.ow; ++x) {
      int64_t x_lo, x_hi;
      Clip(x * g.stride_w - g.pad_left, g.kw, g.iw, &x_lo, &x_hi);
      float* dst = out + x * c;
      const int64_t count = (y_hi - y_lo) * (x_hi - x_lo);
      if (count == 0) {
        std::fill(dst, dst + c, 0.0f);
        continue;
      }
      const float* col = scratch + x_lo * c;
      std::copy(col, col + c, dst);
      for (int64_t sx = x_lo + 1; sx < x_hi; ++sx) {
        col = scratch + sx * c;
        for (int64_t k = 0; k < c; ++k) dst[k] += col[k];
      }
      const float n = static_cast<float>(count);
      for (int64_t k = 0; k < c; ++k) dst[k] /= n;
    }
  }
}

}  // namespace cpu
}  // namespace opgen
