// The quantization-aware-training and older image-model ops: FakeQuantWithMinMax{Args,Vars,
// VarsPerChannel} and their gradients, LRN and LRNGrad, MaxPoolV2 / MaxPoolGradV2 /
// MaxPoolGradGradV2, MaxPoolWithArgmax / MaxPoolGradWithArgmax, BiasAddV1, NthElement, Dilation2D with its backprops and
// BatchNormWithGlobalNormalization(Grad) (the 2015 Inception graphs). OpDefs as TensorFlow 2.21's; shape
// functions here.
#include <optional>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fns.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// FakeQuantWithMinMaxVars: min and max scalars; the output shaped as inputs.
void FakeQuantVarsShape(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "min");
  c.InputWithRank(2, 0, "max");
  c.SetOutput(0, c.Input(0));
}
// FakeQuantWithMinMaxVarsPerChannel: min and max one value per channel (the last dimension).
void FakeQuantPerChannelShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 1, "inputs");
  int64_t depth = in.rank_known ? in.dims.back() : kUnknownDim;
  depth = MergeDim(depth, c.InputWithRank(1, 1, "min").dims[0], "min against the last dimension of inputs");
  depth = MergeDim(depth, c.InputWithRank(2, 1, "max").dims[0], "max against the last dimension of inputs");
  if (in.rank_known) in.dims.back() = depth;
  c.SetOutput(0, in);
}
// The gradients: gradients and inputs of one shape; the range gradients shaped as min/max.
void FakeQuantArgsGradShape(ShapeFnContext& c) {
  c.SetOutput(0, MergeShapes(c.Input(0), c.Input(1), "gradients against inputs"));
}
void FakeQuantVarsGradShape(ShapeFnContext& c) {
  c.SetOutput(0, MergeShapes(c.Input(0), c.Input(1), "gradients against inputs"));
  c.InputWithRank(2, 0, "min");
  c.InputWithRank(3, 0, "max");
  c.SetOutput(1, PartialShape::Of({}));
  c.SetOutput(2, PartialShape::Of({}));
}
void FakeQuantPerChannelGradShape(ShapeFnContext& c) {
  PartialShape in = MergeShapes(c.Input(0), c.Input(1), "gradients against inputs");
  if (in.rank_known && (in.dims.empty() || in.dims.size() > 4))
    Fail("inputs must have rank 1 to 4, got " + in.ToString());
  int64_t depth = in.rank_known ? in.dims.back() : kUnknownDim;
  depth = MergeDim(depth, c.InputWithRank(2, 1, "min").dims[0], "min against the last dimension of inputs");
  depth = MergeDim(depth, c.InputWithRank(3, 1, "max").dims[0], "max against the last dimension of inputs");
  if (in.rank_known) in.dims.back() = depth;
  c.SetOutput(0, in);
  c.SetOutput(1, PartialShape::Of({depth}));
  c.SetOutput(2, PartialShape::Of({depth}));
}
// BatchNormWithGlobalNormalization: 4-D t; m, v, beta and gamma one value per channel.
void BatchNormGlobalShape(ShapeFnContext& c) {
  PartialShape t = c.InputWithRank(0, 4, "t");
  static const char* const kNames[] = {"m", "v", "beta", "gamma"};
  for (int i = 1; i < 5; ++i)
    t.dims[3] = MergeDim(t.dims[3], c.InputWithRank(i, 1, kNames[i - 1]).dims[0],
                         std::string(kNames[i - 1]) + " against the last dimension of t");
  c.SetOutput(0, t);
}
// Its gradient (t, m, v, gamma, backprop): dx shaped as t, the others one per channel.
void BatchNormGlobalGradShape(ShapeFnContext& c) {
  PartialShape t = c.InputWithRank(0, 4, "t");
  static const char* const kNames[] = {"m", "v", "gamma"};
  for (int i = 1; i < 4; ++i)
    t.dims[3] = MergeDim(t.dims[3], c.InputWithRank(i, 1, kNames[i - 1]).dims[0],
                         std::string(kNames[i - 1]) + " against the last dimension of t");
  t = MergeShapes(t, c.InputWithRank(4, 4, "backprop"), "backprop against t");
  c.SetOutput(0, t);
  for (int i = 1; i < 5; ++i) c.SetOutput(i, PartialShape::Of({t.dims[3]}));
}

// LRN: a 4-D input, the output shaped as it.
void LrnShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 4, "input")); }
void LrnGradShape(ShapeFnContext& c) {
  PartialShape s = c.InputWithRank(0, 4, "input_grads");
  s = MergeShapes(s, c.InputWithRank(1, 4, "input_image"), "input_image against input_grads");
  s = MergeShapes(s, c.InputWithRank(2, 4, "output_image"), "output_image against input_grads");
  c.SetOutput(0, s);
}

// The max-pool variants (NHWC): each spatial dim windowed by ksize and strides, from attrs
// (WithArgmax) or constant tensors (V2; unknown sizes when they are not constant).
int64_t Windowed(int64_t in, int64_t k, int64_t s, const std::string& padding) {
  if (k <= 0 || s <= 0) Fail("ksize and strides must be positive");
  if (in < 0) return kUnknownDim;
  if (padding == "VALID") {
    if (in < k) Fail("the window (" + std::to_string(k) + ") is larger than the input (" + std::to_string(in) + ")");
    return (in - k) / s + 1;
  }
  return (in + s - 1) / s;
}
PartialShape Pooled(const PartialShape& in, const std::optional<std::vector<int64_t>>& ksize,
                    const std::optional<std::vector<int64_t>>& strides, const std::string& padding) {
  PartialShape out = PartialShape::UnknownDims(4);
  out.dims[0] = in.dims[0];
  out.dims[3] = in.dims[3];
  if (!ksize || !strides) return out;
  if (ksize->size() != 4 || strides->size() != 4) Fail("ksize and strides must have 4 values");
  for (int d = 1; d <= 2; ++d) out.dims[d] = Windowed(in.dims[d], (*ksize)[d], (*strides)[d], padding);
  return out;
}
void MaxPoolV2Shape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRank(0, 4, "input");
  c.InputWithRank(1, 1, "ksize");
  c.InputWithRank(2, 1, "strides");
  c.SetOutput(0, Pooled(in, c.InputInts(1), c.InputInts(2), c.AttrString("padding")));
}
// MaxPoolGradV2: shaped as orig_input; MaxPoolGradGradV2: as orig_output.
void MaxPoolGradV2Shape(ShapeFnContext& c) {
  c.InputWithRank(1, 4, "orig_output");
  c.InputWithRank(2, 4, "grad");
  c.SetOutput(0, c.InputWithRank(0, 4, "orig_input"));
}
void MaxPoolGradGradV2Shape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRank(0, 4, "orig_input");
  MergeShapes(in, c.InputWithRank(2, 4, "grad"), "grad against orig_input");
  c.SetOutput(0, c.InputWithRank(1, 4, "orig_output"));
}
void MaxPoolWithArgmaxShape(ShapeFnContext& c) {
  const PartialShape out = Pooled(c.InputWithRank(0, 4, "input"), c.AttrInts("ksize"), c.AttrInts("strides"),
                                  c.AttrString("padding"));
  c.SetOutput(0, out);
  c.SetOutput(1, out);
}
// MaxPoolGradWithArgmax: shaped as input; grad and argmax as its pool.
void MaxPoolGradWithArgmaxShape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRank(0, 4, "input");
  const PartialShape pooled = Pooled(in, c.AttrInts("ksize"), c.AttrInts("strides"), c.AttrString("padding"));
  MergeShapes(MergeShapes(pooled, c.InputWithRank(1, 4, "grad"), "grad against the pool of input"),
              c.InputWithRank(2, 4, "argmax"), "argmax against grad");
  c.SetOutput(0, in);
}

// BiasAddV1: value of rank >= 2, bias one value per channel (the last dimension).
void BiasAddV1Shape(ShapeFnContext& c) {
  PartialShape value = c.InputWithRankAtLeast(0, 2, "value");
  const PartialShape bias = c.InputWithRank(1, 1, "bias");
  if (value.rank_known)
    value.dims.back() = MergeDim(value.dims.back(), bias.dims[0], "bias against the last dimension of value");
  c.SetOutput(0, value);
}

// NthElement: input of rank >= 1 without its last dimension (which must exceed a constant n).
void NthElementShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 1, "input");
  c.InputWithRank(1, 0, "n");
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (std::optional<std::vector<int64_t>> n = c.InputInts(1)) {
    if ((*n)[0] < 0) Fail("n must be non-negative but is " + std::to_string((*n)[0]));
    if (in.dims.back() >= 0 && in.dims.back() <= (*n)[0])
      Fail("Input must have last dimension > n = " + std::to_string((*n)[0]));
  }
  in.dims.pop_back();
  c.SetOutput(0, in);
}

// Dilation2D: [batch, out rows, out cols, depth] from input [b, h, w, d] and filter
// [fh, fw, d], windowed with rates; the backprops are shaped as input and filter.
void Dilation2DShape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRank(0, 4, "input");
  const PartialShape f = c.InputWithRank(1, 3, "filter");
  PartialShape out = PartialShape::UnknownDims(4);
  out.dims[0] = in.dims[0];
  out.dims[3] = MergeDim(in.dims[3], f.dims[2], "the filter's depth against the input's");
  const std::vector<int64_t> strides = c.AttrInts("strides"), rates = c.AttrInts("rates");
  if (strides.size() != 4 || rates.size() != 4) Fail("strides and rates must have 4 values");
  const std::string padding = c.AttrString("padding");
  for (int d = 1; d <= 2; ++d) {
    if (strides[d] <= 0 || rates[d] <= 0) Fail("strides and rates must be positive");
    if (in.dims[d] < 0 || f.dims[d - 1] < 0) continue;
    const int64_t eff = (f.dims[d - 1] - 1) * rates[d] + 1;
    out.dims[d] = padding == "SAME" ? (in.dims[d] + strides[d] - 1) / strides[d]
                                    : (in.dims[d] - eff + strides[d]) / strides[d];
    if (out.dims[d] < 0) Fail("Computed output size would be negative");
  }
  c.SetOutput(0, out);
}
void Dilation2DBackpropInputShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 4, "input")); }
void Dilation2DBackpropFilterShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(1, 3, "filter")); }

const std::pair<std::string, std::string> kNumBitsDoc{"num_bits", "Bits of the quantized grid, 2 to 16."};
const std::pair<std::string, std::string> kNarrowDoc{
    "narrow_range", "Whether the grid leaves out its lowest level (from 1 rather than 0)."};
const char* const kQuantAttrs[] = {"num_bits: int = 8", "narrow_range: bool = false"};
const char* const kLrnAttrs[] = {"depth_radius: int = 5", "bias: float = 1", "alpha: float = 1",
                                 "beta: float = 0.5", "T: {half, bfloat16, float} = DT_FLOAT"};
const std::vector<std::pair<std::string, std::string>> kLrnDocs{
    {"depth_radius", "Half-width of the window across depth."},
    {"bias", "Offset, usually positive, that keeps the divisor away from zero."},
    {"alpha", "Scale of the sum of squares."},
    {"beta", "Exponent."}};

const std::vector<std::pair<std::string, std::string>> kDilationDocs{
    {"strides", "Window step per dimension, [1, stride_rows, stride_cols, 1]."},
    {"rates", "Spacing of the taps per dimension, [1, rate_rows, rate_cols, 1]."},
    {"padding", "'VALID' or 'SAME'."}};

std::vector<std::pair<std::string, std::string>> With(std::vector<std::pair<std::string, std::string>> a,
                                                      const std::vector<std::pair<std::string, std::string>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void RegisterNnExtraOps(TF_Status* status) {
  const std::vector<std::string> bn_attrs{"T: numbertypes", "variance_epsilon: float",
                                          "scale_after_normalization: bool"};
  const std::pair<std::string, std::string> kEpsilonDoc{"variance_epsilon", "Added to v before its root."};
  const std::pair<std::string, std::string> kScaleAfterDoc{
      "scale_after_normalization", "Whether the result is multiplied by gamma."};
  const std::string kRealT =
      "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}";
  const std::vector<std::string> quant{kQuantAttrs[0], kQuantAttrs[1]};
  const std::vector<std::string> args{"min: float = -6", "max: float = 6", kQuantAttrs[0], kQuantAttrs[1]};
  const std::vector<std::string> lrn(std::begin(kLrnAttrs), std::end(kLrnAttrs));
  const std::vector<std::string> dilation{kRealT, "strides: list(int) >= 4", "rates: list(int) >= 4",
                                          "padding: {'SAME', 'VALID'}"};
  const char* const nudging =
      "[min, max] is first nudged so that zero is one of its levels: the step is (max - min) / "
      "(quant_max - quant_min), with quant_max = 2^num_bits - 1 and quant_min 0 (1 with "
      "narrow_range), and the range moves by less than a step.";
  RegisterOps({
      {"FakeQuantWithMinMaxArgs", args, {"inputs: float"}, {"outputs: float"}, shape_fns::kUnchanged,
       "Rounds floats onto a quantized grid over [min, max] and back.",
       std::string(nudging) + " Each input is clamped into the nudged range and rounded to its "
       "nearest level (halves up).",
       {{"inputs", "Values to quantize."}, {"outputs", "The quantized values, as floats."},
        {"min", "Bottom of the range; below max."}, {"max", "Top of the range."}, kNumBitsDoc, kNarrowDoc}},
      {"FakeQuantWithMinMaxArgsGradient", args, {"gradients: float", "inputs: float"}, {"backprops: float"},
       ShapeFn<FakeQuantArgsGradShape>, "The gradient of FakeQuantWithMinMaxArgs.",
       "gradients where inputs lie inside the nudged range, zero elsewhere.",
       {{"gradients", "The gradient with respect to the op's outputs."},
        {"inputs", "The op's inputs."}, {"backprops", "The gradient with respect to inputs."},
        {"min", "As in the forward op."}, {"max", "As in the forward op."}, kNumBitsDoc, kNarrowDoc}},
      {"FakeQuantWithMinMaxVars", quant, {"inputs: float", "min: float", "max: float"}, {"outputs: float"},
       ShapeFn<FakeQuantVarsShape>, "Rounds floats onto a quantized grid over [min, max] (tensors) and back.",
       std::string(nudging) + " With min and max both zero every output is zero.",
       {{"inputs", "Values to quantize."}, {"min", "Bottom of the range, a scalar."},
        {"max", "Top of the range, a scalar."}, {"outputs", "The quantized values, as floats."},
        kNumBitsDoc, kNarrowDoc}},
      {"FakeQuantWithMinMaxVarsGradient", quant,
       {"gradients: float", "inputs: float", "min: float", "max: float"},
       {"backprops_wrt_input: float", "backprop_wrt_min: float", "backprop_wrt_max: float"},
       ShapeFn<FakeQuantVarsGradShape>, "The gradient of FakeQuantWithMinMaxVars.",
       "Inside the nudged range the gradient goes to the input; below it, to min; above it, to max.",
       {{"gradients", "The gradient with respect to the op's outputs."}, {"inputs", "The op's inputs."},
        {"min", "As in the forward op."}, {"max", "As in the forward op."},
        {"backprops_wrt_input", "The gradient with respect to inputs."},
        {"backprop_wrt_min", "The gradient with respect to min."},
        {"backprop_wrt_max", "The gradient with respect to max."}, kNumBitsDoc, kNarrowDoc}},
      {"FakeQuantWithMinMaxVarsPerChannel", quant, {"inputs: float", "min: float", "max: float"},
       {"outputs: float"}, ShapeFn<FakeQuantPerChannelShape>,
       "FakeQuantWithMinMaxVars with one range per channel (the last dimension).",
       std::string(nudging) + " A channel whose min and max are both zero gives zeros.",
       {{"inputs", "Values to quantize, [..., d]."}, {"min", "Bottoms of the ranges, [d]."},
        {"max", "Tops of the ranges, [d]."}, {"outputs", "The quantized values, as floats."},
        kNumBitsDoc, kNarrowDoc}},
      {"FakeQuantWithMinMaxVarsPerChannelGradient", quant,
       {"gradients: float", "inputs: float", "min: float", "max: float"},
       {"backprops_wrt_input: float", "backprop_wrt_min: float", "backprop_wrt_max: float"},
       ShapeFn<FakeQuantPerChannelGradShape>, "The gradient of FakeQuantWithMinMaxVarsPerChannel.",
       "Per channel, as FakeQuantWithMinMaxVarsGradient.",
       {{"gradients", "The gradient with respect to the op's outputs."}, {"inputs", "The op's inputs."},
        {"min", "As in the forward op, [d]."}, {"max", "As in the forward op, [d]."},
        {"backprops_wrt_input", "The gradient with respect to inputs."},
        {"backprop_wrt_min", "The gradient with respect to min, [d]."},
        {"backprop_wrt_max", "The gradient with respect to max, [d]."}, kNumBitsDoc, kNarrowDoc}},
      {"MaxPoolV2",
       {"T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT",
        "padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"},
       {"input: T", "ksize: int32", "strides: int32"}, {"output: T"}, ShapeFn<MaxPoolV2Shape>,
       "MaxPool with the window and strides as tensors.", "",
       {{"input", "The images, NHWC."}, {"ksize", "Window size per dimension (4 values)."},
        {"strides", "Window step per dimension (4 values)."}, {"output", "The pooled images."},
        {"padding", "'VALID' or 'SAME'."}, {"data_format", "Layout of the images; the kernels support NHWC."}}},
      {"MaxPoolGradV2", {"padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'", kRealT + " = DT_FLOAT"},
       {"orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"}, {"output: T"},
       ShapeFn<MaxPoolGradV2Shape>, "MaxPoolGrad with the window and strides as tensors.",
       "Each window's gradient goes to the first largest value of orig_input in the window.",
       {{"orig_input", "MaxPoolV2's input."}, {"orig_output", "MaxPoolV2's output."},
        {"grad", "The gradient with respect to MaxPoolV2's output."},
        {"ksize", "Window size per dimension (4 values)."}, {"strides", "Window step per dimension (4 values)."},
        {"output", "The gradient with respect to MaxPoolV2's input."},
        {"padding", "'VALID' or 'SAME'."}, {"data_format", "Layout of the images; the kernels support NHWC."}}},
      {"MaxPoolGradGradV2", {"padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'", kRealT},
       {"orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"}, {"output: T"},
       ShapeFn<MaxPoolGradGradV2Shape>, "MaxPoolGradGrad with the window and strides as tensors.",
       "Each output is grad at the first element of its window equal to orig_output there.",
       {{"orig_input", "MaxPoolV2's input."}, {"orig_output", "MaxPoolV2's output."},
        {"grad", "A gradient shaped as orig_input."},
        {"ksize", "Window size per dimension (4 values)."}, {"strides", "Window step per dimension (4 values)."},
        {"output", "The gradient with respect to MaxPoolGradV2's grad, shaped as orig_output."},
        {"padding", "'VALID' or 'SAME'."}, {"data_format", "Layout of the images; the kernels support NHWC."}}},
      {"MaxPoolWithArgmax",
       {"ksize: list(int) >= 4", "strides: list(int) >= 4", "Targmax: {int32, int64} = DT_INT64",
        "padding: {'SAME', 'VALID'}", "include_batch_in_index: bool = false", kRealT},
       {"input: T"}, {"output: T", "argmax: Targmax"}, ShapeFn<MaxPoolWithArgmaxShape>,
       "Max pooling that also returns where each maximum is.",
       "argmax holds the flat index of each window's first largest value: ((b * height + y) * "
       "width + x) * channels + c with include_batch_in_index, without the b term otherwise.",
       {{"input", "The images, NHWC."}, {"output", "The pooled images."},
        {"argmax", "The flat index of each maximum."}, {"ksize", "Window size per dimension."},
        {"strides", "Window step per dimension."}, {"padding", "'VALID' or 'SAME'."},
        {"include_batch_in_index", "Whether argmax counts the images before its own."}}},
      {"MaxPoolGradWithArgmax",
       {"ksize: list(int) >= 4", "strides: list(int) >= 4", "padding: {'SAME', 'VALID'}",
        "include_batch_in_index: bool = false", "Targmax: {int32, int64}", kRealT},
       {"input: T", "grad: T", "argmax: Targmax"}, {"output: T"}, ShapeFn<MaxPoolGradWithArgmaxShape>,
       "The gradient of MaxPoolWithArgmax.",
       "Each grad is added at the input element its argmax names (in its own image without "
       "include_batch_in_index); input gives only the shape.",
       {{"input", "MaxPoolWithArgmax's input."}, {"grad", "The gradient with respect to its output."},
        {"argmax", "MaxPoolWithArgmax's argmax."}, {"output", "The gradient with respect to input."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."},
        {"include_batch_in_index", "Whether argmax counts the images before its own."}}},
      {"BiasAddV1", {"T: numbertypes"}, {"value: T", "bias: T"}, {"output: T"}, ShapeFn<BiasAddV1Shape>,
       "Adds a 1-D `bias` along the last dimension of `value` (BiasAdd's first version).", "",
       {{"value", "Rank >= 2."}, {"bias", "One value per channel (the last dimension)."},
        {"output", "`value + bias`, same shape as `value`."}}},
      {"NthElement",
       {"reverse: bool = false",
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"},
       {"input: T", "n: int32"}, {"values: T"}, ShapeFn<NthElementShape>,
       "The n-th smallest value of each row of the last dimension.",
       "With reverse, the n-th largest; n counts from 0.",
       {{"input", "Rank >= 1."}, {"n", "A scalar below the last dimension's size."},
        {"values", "input without its last dimension."}, {"reverse", "Whether to count from the largest."}}},
      {"Dilation2D", dilation, {"input: T", "filter: T"}, {"output: T"}, ShapeFn<Dilation2DShape>,
       "Grayscale morphological dilation of NHWC images by a structuring function.",
       "Each output is the largest input + filter over the window's taps that fall inside the "
       "input (rates apart), per channel.",
       With({{"input", "4-D images, [batch, height, width, depth]."},
             {"filter", "The structuring function, [filter_height, filter_width, depth]."},
             {"output", "The dilated images."}}, kDilationDocs)},
      {"Dilation2DBackpropInput", dilation, {"input: T", "filter: T", "out_backprop: T"}, {"in_backprop: T"},
       ShapeFn<Dilation2DBackpropInputShape>, "The gradient of Dilation2D with respect to its input.",
       "Each output's gradient goes to the input element its maximum read.",
       With({{"input", "Dilation2D's input."}, {"filter", "Dilation2D's filter."},
             {"out_backprop", "The gradient with respect to Dilation2D's output."},
             {"in_backprop", "The gradient with respect to input."}}, kDilationDocs)},
      {"Dilation2DBackpropFilter", dilation, {"input: T", "filter: T", "out_backprop: T"}, {"filter_backprop: T"},
       ShapeFn<Dilation2DBackpropFilterShape>, "The gradient of Dilation2D with respect to its filter.",
       "Each output's gradient goes to the filter tap of its maximum.",
       With({{"input", "Dilation2D's input."}, {"filter", "Dilation2D's filter."},
             {"out_backprop", "The gradient with respect to Dilation2D's output."},
             {"filter_backprop", "The gradient with respect to filter."}}, kDilationDocs)},
      {"LRN", lrn, {"input: T"}, {"output: T"}, ShapeFn<LrnShape>,
       "Local response normalisation across the depth of NHWC images.",
       "output = input / (bias + alpha * sqr_sum) ^ beta, where sqr_sum adds the squares of the "
       "inputs within depth_radius of each one along the last dimension.",
       With({{"input", "4-D images."}, {"output", "The normalised images."}}, kLrnDocs)},
      {"LRNGrad", lrn, {"input_grads: T", "input_image: T", "output_image: T"}, {"output: T"},
       ShapeFn<LrnGradShape>, "The gradient of LRN.", "",
       With({{"input_grads", "The gradient with respect to LRN's output."},
             {"input_image", "LRN's input."}, {"output_image", "LRN's output."},
             {"output", "The gradient with respect to LRN's input."}}, kLrnDocs)},
      {"BatchNormWithGlobalNormalization", bn_attrs,
       {"t: T", "m: T", "v: T", "beta: T", "gamma: T"}, {"result: T"}, ShapeFn<BatchNormGlobalShape>,
       "Batch normalisation of NHWC images with given statistics (TensorFlow 1's op).",
       "result = (t - m) * rsqrt(v + variance_epsilon) * gamma + beta, per channel (the last "
       "dimension); gamma only with scale_after_normalization.",
       {{"t", "4-D images."}, {"m", "The channels' means."}, {"v", "The channels' variances."},
        {"beta", "The channels' offsets."}, {"gamma", "The channels' scales."},
        {"result", "The normalised images."}, kEpsilonDoc, kScaleAfterDoc},
       false, false, false, false, 9, "Use tf.nn.batch_normalization()"},
      {"BatchNormWithGlobalNormalizationGrad", bn_attrs,
       {"t: T", "m: T", "v: T", "gamma: T", "backprop: T"},
       {"dx: T", "dm: T", "dv: T", "db: T", "dg: T"}, ShapeFn<BatchNormGlobalGradShape>,
       "The gradient of BatchNormWithGlobalNormalization.",
       "The gradients with respect to t, m, v, beta and gamma (dg is zero without "
       "scale_after_normalization).",
       {{"t", "The forward op's images."}, {"m", "Its means."}, {"v", "Its variances."},
        {"gamma", "Its scales."}, {"backprop", "The gradient with respect to its result."},
        {"dx", "The gradient with respect to t."}, {"dm", "The gradient with respect to m."},
        {"dv", "The gradient with respect to v."}, {"db", "The gradient with respect to beta."},
        {"dg", "The gradient with respect to gamma."}, kEpsilonDoc, kScaleAfterDoc},
       false, false, false, false, 9, "Use tf.nn.batch_normalization()"},
  }, status);
}

}  // namespace opgen
