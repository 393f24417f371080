// Shape functions of the convolution-family and image ops (conv_image_ops.cc). Image
// layouts are NHWC or NCHW (NDHWC / NCDHW for Conv3D).
#include "conv_image_shape_fns.h"

#include <optional>
#include <string>
#include <vector>

#include "shape_fn_context.h"

namespace opgen {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Output size of one spatial dim of a window of `window` taps dilated by `dilation` and
// moved by `stride`; -1 when unknown.
int64_t WindowOut(int64_t in, int64_t window, int64_t stride, int64_t dilation,
                  const std::string& padding, int64_t before, int64_t after) {
  if (stride <= 0 || dilation <= 0) Fail("strides and dilations must be positive");
  if (window == 0) Fail("a filter must not be empty");
  if (in < 0) return kUnknownDim;
  if (padding == "SAME") return in / stride + (in % stride != 0);
  if (window < 0) return kUnknownDim;
  int64_t span = 0, padded = in;
  if (__builtin_mul_overflow(window - 1, dilation, &span) || __builtin_add_overflow(span, 1, &span) ||
      (padding == "EXPLICIT" && (__builtin_add_overflow(in, before, &padded) ||
                                 __builtin_add_overflow(padded, after, &padded))))
    Fail("filter, dilation and padding overflow int64");
  if (padded < span)
    Fail("a filter spanning " + Str(span) + " does not fit in " + Str(padded) + " with padding " +
         padding);
  return (padded - span) / stride + 1;
}

std::vector<int64_t> Ints(ShapeFnContext& c, const char* name, size_t n) {
  std::vector<int64_t> v = c.AttrInts(name);
  if (v.size() != n) Fail(std::string(name) + " must have " + Str(n) + " values, not " + Str(v.size()));
  return v;
}

std::vector<int64_t> Paddings(ShapeFnContext& c, const std::string& padding) {
  if (padding != "EXPLICIT") return std::vector<int64_t>(8, 0);
  std::vector<int64_t> p = c.AttrInts("explicit_paddings");
  if (p.size() != 8) Fail("explicit_paddings must have 8 values, not " + Str(p.size()));
  for (int64_t x : p)
    if (x < 0) Fail("explicit_paddings must not be negative");
  return p;
}

void DepthwiseConv2D(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 4, "input");
  const PartialShape filter = c.InputWithRank(1, 4, "filter");
  const std::vector<int64_t> strides = Ints(c, "strides", 4), dilations = Ints(c, "dilations", 4);
  const std::string padding = c.AttrString("padding");
  const std::vector<int64_t> pads = Paddings(c, padding);
  const bool nchw = c.AttrString("data_format") == "NCHW";
  const int64_t ch = nchw ? 1 : 3, h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  const int64_t depth = MergeDim(input.dims[ch], filter.dims[2], "input depth against filter in_channels");
  const int64_t mult = filter.dims[3];
  PartialShape out = PartialShape::UnknownDims(4);
  out.dims[0] = input.dims[0];
  if (depth >= 0 && mult >= 0) {
    if (__builtin_mul_overflow(depth, mult, &out.dims[ch])) Fail("output depth overflows int64");
  }
  out.dims[h] = WindowOut(input.dims[h], filter.dims[0], strides[h], dilations[h], padding,
                          pads[2 * h], pads[2 * h + 1]);
  out.dims[w] = WindowOut(input.dims[w], filter.dims[1], strides[w], dilations[w], padding,
                          pads[2 * w], pads[2 * w + 1]);
  c.SetOutput(0, out);
}

// The output is the shape input_sizes names: all four dims, or only the spatial two
// (batch from out_backprop, channels from the filter).
void Conv2DBackpropInput(ShapeFnContext& c) {
  const PartialShape sizes = c.InputWithRank(0, 1, "input_sizes");
  const PartialShape filter = c.InputWithRank(1, 4, "filter");
  const PartialShape dy = c.InputWithRank(2, 4, "out_backprop");
  const bool nchw = c.AttrString("data_format") == "NCHW";
  const int64_t ch = nchw ? 1 : 3, h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  std::optional<std::vector<int64_t>> v = c.InputInts(0);
  PartialShape out = PartialShape::UnknownDims(4);
  out.dims[0] = dy.dims[0];
  out.dims[ch] = filter.dims[2];
  if (v) {
    if (v->size() == 4) {
      out = PartialShape::Of(*v);
    } else if (v->size() == 2) {
      out.dims[h] = (*v)[0];
      out.dims[w] = (*v)[1];
    } else {
      Fail("input_sizes must have 4 or 2 elements, not " + Str(v->size()));
    }
    for (int64_t d : out.dims)
      if (d < -1) Fail("input_sizes must not be negative");
  } else if (sizes.dims[0] >= 0 && sizes.dims[0] != 4 && sizes.dims[0] != 2) {
    Fail("input_sizes must have 4 or 2 elements, not " + Str(sizes.dims[0]));
  }
  c.SetOutput(0, out);
}

void Conv3D(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 5, "input");
  const PartialShape filter = c.InputWithRank(1, 5, "filter");
  const std::vector<int64_t> strides = Ints(c, "strides", 5), dilations = Ints(c, "dilations", 5);
  const std::string padding = c.AttrString("padding");
  const bool ncdhw = c.AttrString("data_format") == "NCDHW";
  const int64_t ch = ncdhw ? 1 : 4, first = ncdhw ? 2 : 1;
  const int64_t in_depth = input.dims[ch], filter_depth = filter.dims[3];
  if (filter_depth == 0) Fail("filter in_channels is 0");
  if (in_depth >= 0 && filter_depth > 0 && in_depth % filter_depth != 0)
    Fail("input depth " + Str(in_depth) + " is not a multiple of the filter depth " + Str(filter_depth));
  PartialShape out = PartialShape::UnknownDims(5);
  out.dims[0] = input.dims[0];
  out.dims[ch] = filter.dims[4];
  for (int64_t k = 0; k < 3; ++k)
    out.dims[first + k] = WindowOut(input.dims[first + k], filter.dims[k], strides[first + k],
                                    dilations[first + k], padding, 0, 0);
  c.SetOutput(0, out);
}

// The length of the 1-D input `i` (-1 when unknown).
int64_t VectorLength(ShapeFnContext& c, int i, const char* what) {
  return c.InputWithRank(i, 1, what).dims[0];
}

// SpaceToBatchND (kToBatch) and BatchToSpaceND: input [batch] + M spatial + remaining.
// `m` is block_shape's length (-1: unknown) and `block` its value when known; the
// amounts (paddings / crops) are input `amounts_index`.
template <bool kToBatch>
void SpaceBatchWith(ShapeFnContext& c, const PartialShape& input, int64_t m,
                    std::optional<std::vector<int64_t>> block, int amounts_index) {
  const PartialShape amounts = c.InputWithRank(amounts_index, 2, kToBatch ? "paddings" : "crops");
  MergeDim(amounts.dims[1], 2, "the second dimension of paddings / crops");
  const int64_t mm = MergeDim(m, amounts.dims[0], "block_shape's length against paddings / crops rows");
  if (!input.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (mm >= 0 && input.rank() < 1 + mm)
    Fail("input of rank " + Str(input.rank()) + " has fewer than 1 + " + Str(mm) + " dimensions");
  PartialShape out = PartialShape::UnknownDims(input.rank());
  std::optional<std::vector<int64_t>> pads = c.InputInts(amounts_index);
  if (mm < 0 || !block) return c.SetOutput(0, out);
  for (int64_t k = 1 + mm; k < input.rank(); ++k) out.dims[k] = input.dims[k];
  int64_t product = 1;
  for (int64_t b : *block) {
    if (b < 1) Fail("block_shape must be positive");
    if (__builtin_mul_overflow(product, b, &product)) Fail("block_shape's product overflows int64");
  }
  if (input.dims[0] >= 0) {
    if (kToBatch) {
      if (__builtin_mul_overflow(input.dims[0], product, &out.dims[0])) Fail("output batch overflows int64");
    } else {
      if (input.dims[0] % product != 0)
        Fail("input batch " + Str(input.dims[0]) + " does not divide by the block product " + Str(product));
      out.dims[0] = input.dims[0] / product;
    }
  }
  for (int64_t k = 0; pads && k < mm; ++k) {
    const int64_t lo = (*pads)[2 * k], hi = (*pads)[2 * k + 1], size = input.dims[1 + k];
    if (lo < 0 || hi < 0) Fail(kToBatch ? "paddings must not be negative" : "crops must not be negative");
    if (size < 0) continue;
    int64_t v = 0;
    if (kToBatch) {
      if (__builtin_add_overflow(size, lo, &v) || __builtin_add_overflow(v, hi, &v))
        Fail("padded size overflows int64");
      if (v % (*block)[k] != 0)
        Fail("padded spatial dimension " + Str(k) + " of size " + Str(v) +
             " does not divide by block size " + Str((*block)[k]));
      out.dims[1 + k] = v / (*block)[k];
    } else {
      if (__builtin_mul_overflow(size, (*block)[k], &v)) Fail("output size overflows int64");
      if (lo > v - hi) Fail("crops " + Str(lo) + " and " + Str(hi) + " are larger than " + Str(v));
      out.dims[1 + k] = v - lo - hi;
    }
  }
  c.SetOutput(0, out);
}

template <bool kToBatch>
void SpaceBatch(ShapeFnContext& c) {
  const int64_t m = VectorLength(c, 1, "block_shape");
  SpaceBatchWith<kToBatch>(c, c.Input(0), m, c.InputInts(1), 2);
}

// SpaceToBatch / BatchToSpace (TF1-era): 4-D input, two spatial dims of attr block_size.
template <bool kToBatch>
void SpaceBatchV1(ShapeFnContext& c) {
  const int64_t bs = c.AttrInt("block_size");
  SpaceBatchWith<kToBatch>(c, c.InputWithRank(0, 4, "input"), 2, std::vector<int64_t>{bs, bs}, 1);
}

void FusedBatchNormV1(ShapeFnContext& c) {
  const bool nchw = c.AttrString("data_format") == "NCHW";
  PartialShape x = c.InputWithRank(0, 4, "x");
  const int64_t ch = nchw ? 1 : 3;
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
}

void Resize(ShapeFnContext& c) {
  const PartialShape images = c.InputWithRank(0, 4, "images");
  MergeDim(VectorLength(c, 1, "size"), 2, "the length of size");
  PartialShape out = PartialShape::Of({images.dims[0], kUnknownDim, kUnknownDim, images.dims[3]});
  if (std::optional<std::vector<int64_t>> size = c.InputInts(1)) {
    for (int k = 0; k < 2; ++k) {
      if ((*size)[k] <= 0) Fail("size must be positive, got " + PartialShape::Of(*size).ToString());
      out.dims[1 + k] = (*size)[k];
    }
  }
  c.SetOutput(0, out);
}

// DepthToSpace (kToSpace) and SpaceToDepth.
template <bool kToSpace>
void DepthSpace(ShapeFnContext& c) {
  const std::string format = c.AttrString("data_format");
  if (format == "NCHW_VECT_C") return c.SetOutput(0, PartialShape::Unknown());
  const PartialShape in = c.InputWithRank(0, 4, "input");
  const int64_t bs = c.AttrInt("block_size");
  if (bs < 2) Fail("block_size must be at least 2, got " + Str(bs));
  const bool nchw = format == "NCHW";
  const int64_t ch = nchw ? 1 : 3, h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  PartialShape out = in;
  int64_t square = 0;
  if (__builtin_mul_overflow(bs, bs, &square)) Fail("block_size squared overflows int64");
  for (int64_t d : {h, w}) {
    if (in.dims[d] < 0) continue;
    if (kToSpace) {
      if (__builtin_mul_overflow(in.dims[d], bs, &out.dims[d])) Fail("output size overflows int64");
    } else {
      if (in.dims[d] % bs != 0)
        Fail("spatial size " + Str(in.dims[d]) + " does not divide by block_size " + Str(bs));
      out.dims[d] = in.dims[d] / bs;
    }
  }
  if (in.dims[ch] >= 0) {
    if (kToSpace) {
      if (in.dims[ch] % square != 0)
        Fail("depth " + Str(in.dims[ch]) + " does not divide by block_size^2 = " + Str(square));
      out.dims[ch] = in.dims[ch] / square;
    } else if (__builtin_mul_overflow(in.dims[ch], square, &out.dims[ch])) {
      Fail("output depth overflows int64");
    }
  }
  c.SetOutput(0, out);
}

void MirrorPad(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const PartialShape pshape = c.InputWithRank(1, 2, "paddings");
  MergeDim(pshape.dims[1], 2, "paddings' second dimension");
  const int64_t rank = MergeDim(in.rank(), pshape.dims[0], "the rank of input and the rows of paddings");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  const bool reflect = c.AttrString("mode") == "REFLECT";
  PartialShape out = PartialShape::UnknownDims(rank);
  std::optional<std::vector<int64_t>> pads = c.InputInts(1);
  for (int64_t k = 0; pads && k < rank; ++k) {
    const int64_t before = (*pads)[2 * k], after = (*pads)[2 * k + 1];
    if (before < 0 || after < 0) Fail("paddings must not be negative");
    const int64_t size = in.rank_known ? in.dims[k] : kUnknownDim;
    if (size < 0) continue;
    const int64_t most = reflect ? size - 1 : size;
    if (before > most || after > most)
      Fail("paddings " + Str(before) + ", " + Str(after) + " of dimension " + Str(k) +
           " must be at most " + Str(most) + " in " + (reflect ? "REFLECT" : "SYMMETRIC") + " mode");
    out.dims[k] = size + before + after;  // at most 3 * size: no overflow
  }
  c.SetOutput(0, out);
}

}  // namespace

namespace shape_fns {
const OpShapeFn kDepthwiseConv2D = ShapeFn<DepthwiseConv2D>;
const OpShapeFn kConv2DBackpropInput = ShapeFn<Conv2DBackpropInput>;
const OpShapeFn kConv3D = ShapeFn<Conv3D>;
const OpShapeFn kSpaceToBatchND = ShapeFn<SpaceBatch<true>>;
const OpShapeFn kSpaceToBatch = ShapeFn<SpaceBatchV1<true>>;
const OpShapeFn kBatchToSpace = ShapeFn<SpaceBatchV1<false>>;
const OpShapeFn kBatchToSpaceND = ShapeFn<SpaceBatch<false>>;
const OpShapeFn kFusedBatchNormV1 = ShapeFn<FusedBatchNormV1>;
const OpShapeFn kResize = ShapeFn<Resize>;
const OpShapeFn kDepthToSpace = ShapeFn<DepthSpace<true>>;
const OpShapeFn kSpaceToDepth = ShapeFn<DepthSpace<false>>;
const OpShapeFn kMirrorPad = ShapeFn<MirrorPad>;
}  // namespace shape_fns

}  // namespace opgen
