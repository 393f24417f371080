// The float32 NHWC AvgPool rows (NASNet's 3x3 SAME stride-1 pools over every cell, and
// Inception's): a window's sum is split into a sum down the window's rows, once per
// input column for each output row, and a sum of those column sums across the window,
// so a kh x kw window costs kh + kw adds per output value rather than kh * kw.
#pragma once

#include <cstdint>

namespace opgen {
namespace cpu {

struct AvgPoolGeometry {
  int64_t batch, ih, iw, c;
  int64_t kh, kw, stride_h, stride_w;  // kh / kw may exceed the image (clipped)
  int64_t oh, ow, pad_top, pad_left;
};

// Output rows [begin, end) of the flattened [batch * oh] rows. Each average is over the
// window's part inside the image (TensorFlow's AvgPool: padding is not counted).
// `scratch` holds iw * c floats.
void AvgPoolFloatRows(const AvgPoolGeometry& g, const float* input, float* output, int64_t begin,
                      int64_t end, float* scratch);

}  // namespace cpu
}  // namespace opgen
