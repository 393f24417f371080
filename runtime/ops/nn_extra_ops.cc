// The quantization-aware-training and older image-model ops: FakeQuantWithMinMax{Args,Vars,
// VarsPerChannel} and their gradients, LRN and LRNGrad. OpDefs as TensorFlow 2.21's; shape
// functions here.
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
// LRN: a 4-D input, the output shaped as it.
void LrnShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 4, "input")); }
void LrnGradShape(ShapeFnContext& c) {
  PartialShape s = c.InputWithRank(0, 4, "input_grads");
  s = MergeShapes(s, c.InputWithRank(1, 4, "input_image"), "input_image against input_grads");
  s = MergeShapes(s, c.InputWithRank(2, 4, "output_image"), "output_image against input_grads");
  c.SetOutput(0, s);
}

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

std::vector<std::pair<std::string, std::string>> With(std::vector<std::pair<std::string, std::string>> a,
                                                      const std::vector<std::pair<std::string, std::string>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void RegisterNnExtraOps(TF_Status* status) {
  const std::vector<std::string> quant{kQuantAttrs[0], kQuantAttrs[1]};
  const std::vector<std::string> args{"min: float = -6", "max: float = 6", kQuantAttrs[0], kQuantAttrs[1]};
  const std::vector<std::string> lrn(std::begin(kLrnAttrs), std::end(kLrnAttrs));
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
  }, status);
}

}  // namespace opgen
