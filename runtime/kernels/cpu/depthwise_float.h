// The float32 NHWC depthwise convolution (DepthwiseConv2dNative) with the fused epilogue
// of conv2d_float.h (bias + activation), so that the graph optimizer can fuse
// DepthwiseConv2dNative + BiasAdd + Relu6 (MobileNet's and EfficientNet's hot path)
// into one pass over the output.
#pragma once

#include <cstdint>

#include "conv2d_float.h"

namespace opgen {
namespace cpu {

// NHWC input [batch, ih, iw, ic], filter [kh, kw, ic, multiplier], NHWC output
// [batch, oh, ow, ic * multiplier], with pad_top / pad_left rows / columns of zeros
// before. Output channel c * multiplier + m is input channel c convolved with
// filter[:, :, c, m].
struct DepthwiseGeometry {
  int64_t batch, ih, iw, ic;
  int64_t kh, kw, multiplier;
  int64_t oh, ow;
  int64_t stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left;
};

// output = act(depthwise_conv(input, filter) + bias); `ep.bias` has ic * multiplier
// values. `output` holds batch*oh*ow*ic*multiplier floats.
void DepthwiseConv2DFloat(const DepthwiseGeometry& g, const float* input, const float* filter,
                          float* output, const Epilogue& ep);

}  // namespace cpu
}  // namespace opgen
