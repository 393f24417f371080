// Shape functions of the neural-network ops: bias, convolution, pooling, batch norm.
// Image layouts are NHWC or NCHW (NDHWC / NCDHW for batch norm).
#include "shape_fn_context.h"
#include "shape_fns.h"

namespace opgen {
namespace {

// Index of the channel dimension in a tensor of `rank` dims laid out as `format`.
int64_t ChannelDim(const std::string& format, int64_t rank) {
  return format.size() > 1 && format[1] == 'C' ? 1 : rank - 1;
}

void BiasAdd(ShapeFnContext& c) {
  PartialShape value = c.InputWithRankAtLeast(0, 2, "value");
  const PartialShape bias = c.InputWithRank(1, 1, "bias");
  if (!value.rank_known) return c.SetOutput(0, value);
  const int64_t ch = ChannelDim(c.AttrString("data_format"), value.rank());
  value.dims[ch] = MergeDim(value.dims[ch], bias.dims[0], "channels of value against bias");
  c.SetOutput(0, value);
}

// Output size of one spatial dim of a window (size `window`, dilated by `dilation`)
// moved by `stride`, under `padding`; -1 when unknown.
int64_t WindowedSize(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                     const std::string& padding, int64_t pad_before, int64_t pad_after) {
  if (stride <= 0 || dilation <= 0) Fail("strides and dilations must be positive");
  if (window == 0) Fail("a window must not be empty");
  if (in < 0) return kUnknownDim;
  if (padding == "SAME") return in / stride + (in % stride != 0);
  if (window < 0) return kUnknownDim;
  int64_t span = 0, padded = in;  // (window - 1) * dilation + 1; the padded input
  if (__builtin_mul_overflow(window - 1, dilation, &span) || __builtin_add_overflow(span, 1, &span) ||
      (padding == "EXPLICIT" && (__builtin_add_overflow(in, pad_before, &padded) ||
                                 __builtin_add_overflow(padded, pad_after, &padded))))
    Fail("window, dilation and padding overflow int64");
  if (padded < span)
    Fail("a window of " + std::to_string(span) + " does not fit in " + std::to_string(padded) +
         " with padding " + padding);
  return (padded - span) / stride + 1;
}

// One attr list of four values, in the data layout's order.
std::vector<int64_t> FourInts(ShapeFnContext& c, const char* name) {
  std::vector<int64_t> v = c.AttrInts(name);
  if (v.size() != 4)
    Fail(std::string(name) + " must have 4 values, not " + std::to_string(v.size()));
  return v;
}

std::vector<int64_t> ExplicitPaddings(ShapeFnContext& c, const std::string& padding) {
  if (padding != "EXPLICIT") return std::vector<int64_t>(8, 0);
  std::vector<int64_t> p = c.AttrInts("explicit_paddings");
  if (p.size() != 8) Fail("explicit_paddings must have 8 values, not " + std::to_string(p.size()));
  for (int64_t x : p)
    if (x < 0) Fail("explicit_paddings must not be negative");
  return p;
}

void Conv2D(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 4, "input");
  const PartialShape filter = c.InputWithRank(1, 4, "filter");
  const std::vector<int64_t> strides = FourInts(c, "strides"), dilations = FourInts(c, "dilations");
  const std::string padding = c.AttrString("padding");
  const std::vector<int64_t> pads = ExplicitPaddings(c, padding);
  const bool nchw = c.AttrString("data_format") == "NCHW";
  const int64_t ch = nchw ? 1 : 3, h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  const int64_t in_depth = input.dims[ch], filter_depth = filter.dims[2];
  if (in_depth >= 0 && filter_depth > 0 && in_depth % filter_depth != 0)
    Fail("input depth " + std::to_string(in_depth) + " is not a multiple of the filter depth " +
         std::to_string(filter_depth));
  if (filter_depth == 0) Fail("filter depth is 0");
  PartialShape out = PartialShape::UnknownDims(4);
  out.dims[0] = input.dims[0];
  out.dims[ch] = filter.dims[3];
  out.dims[h] = WindowedSize(input.dims[h], filter.dims[0], strides[h], dilations[h], padding,
                             pads[2 * h], pads[2 * h + 1]);
  out.dims[w] = WindowedSize(input.dims[w], filter.dims[1], strides[w], dilations[w], padding,
                             pads[2 * w], pads[2 * w + 1]);
  c.SetOutput(0, out);
}

// MaxPool and AvgPool: every dim is windowed by its own ksize and stride (batch and
// channel windows are normally 1, leaving those dims unchanged).
void Pool(ShapeFnContext& c) {
  if (c.AttrString("data_format") == "NCHW_VECT_C") return c.SetOutput(0, PartialShape::Unknown());
  const PartialShape input = c.InputWithRank(0, 4, "input");
  const std::vector<int64_t> ksize = FourInts(c, "ksize"), strides = FourInts(c, "strides");
  for (int64_t k : ksize)
    if (k <= 0) Fail("ksize must be positive, got " + PartialShape::Of(ksize).ToString());
  const std::string padding = c.AttrString("padding");
  const std::vector<int64_t> pads = ExplicitPaddings(c, padding);
  PartialShape out = PartialShape::UnknownDims(4);
  for (int k = 0; k < 4; ++k)
    out.dims[k] = WindowedSize(input.dims[k], ksize[k], strides[k], 1, padding, pads[2 * k],
                               pads[2 * k + 1]);
  c.SetOutput(0, out);
}

// MaxPool3D and AvgPool3D: the same, over five dims (NDHWC or NCDHW).
PartialShape Pooled3D(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 5, "input");
  const std::vector<int64_t> ksize = c.AttrInts("ksize"), strides = c.AttrInts("strides");
  if (ksize.size() != 5 || strides.size() != 5) Fail("ksize and strides must have 5 values");
  for (int64_t k : ksize)
    if (k <= 0) Fail("ksize must be positive, got " + PartialShape::Of(ksize).ToString());
  const std::string padding = c.AttrString("padding");
  PartialShape out = PartialShape::UnknownDims(5);
  for (int k = 0; k < 5; ++k)
    out.dims[k] = WindowedSize(input.dims[k], ksize[k], strides[k], 1, padding, 0, 0);
  return out;
}
void Pool3D(ShapeFnContext& c) { c.SetOutput(0, Pooled3D(c)); }

// MaxPool3DGradGrad: MaxPool3D's output for orig_input (input 0), which orig_output must
// fit; grad is shaped as orig_input.
void MaxPool3DGradGrad(ShapeFnContext& c) {
  PartialShape out = Pooled3D(c);
  const PartialShape in = c.InputWithRank(0, 5, "orig_input"), g = c.InputWithRank(2, 5, "grad");
  const PartialShape pooled = c.InputWithRank(1, 5, "orig_output");
  for (int64_t d = 0; d < 5; ++d) {
    MergeDim(in.dims[d], g.dims[d], "grad against orig_input");
    out.dims[d] = MergeDim(out.dims[d], pooled.dims[d], "orig_output against the pooled shape");
  }
  c.SetOutput(0, out);
}

void FusedBatchNorm(ShapeFnContext& c) {
  const std::string format = c.AttrString("data_format");
  const int64_t rank = format.size() == 5 ? 5 : 4;
  PartialShape x = c.InputWithRank(0, rank, "x");
  const int64_t ch = ChannelDim(format, rank);
  const bool is_training = c.AttrBool("is_training");
  static const char* const kStats[] = {"scale", "offset", "mean", "variance"};
  int64_t channels = x.dims[ch];
  for (int i = 1; i <= 4; ++i) {
    if (is_training && i >= 3) continue;  // running statistics may be empty when training
    const PartialShape s = c.InputWithRank(i, 1, kStats[i - 1]);
    channels = MergeDim(channels, s.dims[0], std::string(kStats[i - 1]) + " against channels of x");
  }
  x.dims[ch] = channels;
  c.SetOutput(0, x);
  for (int i = 1; i <= 4; ++i) c.SetOutput(i, PartialShape::Of({channels}));
  c.SetOutput(5, PartialShape::Unknown());  // reserve_space_3: a kernel's private workspace
}

}  // namespace

namespace shape_fns {
const OpShapeFn kBiasAdd = ShapeFn<BiasAdd>;
const OpShapeFn kConv2D = ShapeFn<Conv2D>;
const OpShapeFn kPool = ShapeFn<Pool>;
const OpShapeFn kPool3D = ShapeFn<Pool3D>;
const OpShapeFn kMaxPool3DGradGrad = ShapeFn<MaxPool3DGradGrad>;
const OpShapeFn kFusedBatchNorm = ShapeFn<FusedBatchNorm>;
}  // namespace shape_fns

}  // namespace opgen
