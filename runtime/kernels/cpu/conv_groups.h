// Grouped Conv2D: a filter whose in-channels are a 1/groups share of the input's (Keras'
// Conv2D(groups=...), as ResNeXt, RegNet and ConvNeXt freeze it). Each group is an
// ordinary convolution of its share of the input channels to its share of the output
// channels; here those shares are packed contiguous, convolved by the caller's core, and
// written back in place. A group per input channel is a depthwise convolution instead
// (DepthwiseOf), without the packing.
#pragma once

#include <cstdint>
#include <vector>

#include "../window_spec.h"
#include "depthwise_float.h"

namespace opgen {
namespace cpu {

// Calls conv(in_g, filter_g, out_g, group_ic, group_oc) once per group of the planned
// convolution `p` (p.groups > 1): in_g is NHWC [batch, ih, iw, group_ic], filter_g HWIO
// [kh, kw, group_ic, group_oc], out_g NHWC [batch, oh, ow, group_oc].
template <typename T, typename Conv>
void ForEachConvGroup(const kernels::WindowPlan& p, const T* in, const T* filter, T* out, Conv conv) {
  const int64_t groups = p.groups, gic = p.ic / groups, goc = p.oc / groups;
  const int64_t pixels = p.batch * p.ih * p.iw, out_pixels = p.batch * p.oh * p.ow;
  const int64_t taps = p.kh * p.kw * gic;
  std::vector<T> in_g(static_cast<size_t>(pixels * gic)), filter_g(static_cast<size_t>(taps * goc)),
      out_g(static_cast<size_t>(out_pixels * goc));
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t i = 0; i < pixels; ++i)
      for (int64_t c = 0; c < gic; ++c) in_g[i * gic + c] = in[i * p.ic + g * gic + c];
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t k = 0; k < goc; ++k) filter_g[t * goc + k] = filter[t * p.oc + g * goc + k];
    conv(in_g.data(), filter_g.data(), out_g.data(), gic, goc);
    for (int64_t i = 0; i < out_pixels; ++i)
      for (int64_t k = 0; k < goc; ++k) out[i * p.oc + g * goc + k] = out_g[i * goc + k];
  }
}

// The depthwise geometry of a grouped convolution with a group per input channel
// (p.groups == p.ic): each channel makes p.oc / p.ic outputs.
inline DepthwiseGeometry DepthwiseOf(const kernels::Window2D& w, const kernels::WindowPlan& p) {
  return DepthwiseGeometry{p.batch, p.ih, p.iw, p.ic, p.kh, p.kw, p.oc / p.ic, p.oh, p.ow,
                           w.strides[1], w.strides[2], w.dilations[1], w.dilations[2], p.pt, p.pl};
}

}  // namespace cpu
}  // namespace opgen
