// Built-in backprop ops of the convolution, pooling, batch-norm and resize families: the
// ops the gradients of Conv2D, DepthwiseConv2dNative, Conv3D, MaxPool(3D), AvgPool(3D),
// FusedBatchNorm* and the resizes are written with. OpDefs as TensorFlow 2.21's; shape functions here.
#include <optional>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fns.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// The output is the shape a 1-D int32 input (`sizes`, input `i`) names, once known.
void ShapeFromSizes(ShapeFnContext& c, int i, const char* what, int64_t rank) {
  const PartialShape sizes = c.InputWithRank(i, 1, what);
  if (sizes.dims[0] >= 0 && sizes.dims[0] != rank)
    Fail(std::string(what) + " must have " + std::to_string(rank) + " elements, not " +
         std::to_string(sizes.dims[0]));
  if (std::optional<std::vector<int64_t>> v = c.InputInts(i)) {
    if (static_cast<int64_t>(v->size()) != rank)
      Fail(std::string(what) + " must have " + std::to_string(rank) + " elements");
    for (int64_t d : *v)
      if (d < 0) Fail(std::string(what) + " must not be negative");
    c.SetOutput(0, PartialShape::Of(*v));
  } else {
    c.SetOutput(0, PartialShape::UnknownDims(rank));
  }
}

// Conv2DBackpropFilter / DepthwiseConv2dNativeBackpropFilter: filter_sizes (input 1).
void FilterSizes(ShapeFnContext& c) {
  c.InputWithRank(0, 4, "input");
  c.InputWithRank(2, 4, "out_backprop");
  ShapeFromSizes(c, 1, "filter_sizes", 4);
}
// DepthwiseConv2dNativeBackpropInput: input_sizes (input 0).
void InputSizes(ShapeFnContext& c) {
  c.InputWithRank(1, 4, "filter");
  c.InputWithRank(2, 4, "out_backprop");
  ShapeFromSizes(c, 0, "input_sizes", 4);
}
// Conv3DBackpropInputV2: input_sizes (input 0); Conv3DBackpropFilterV2: filter_sizes (1).
void Conv3DInputSizes(ShapeFnContext& c) {
  c.InputWithRank(1, 5, "filter");
  c.InputWithRank(2, 5, "out_backprop");
  ShapeFromSizes(c, 0, "input_sizes", 5);
}
void Conv3DFilterSizes(ShapeFnContext& c) {
  c.InputWithRank(0, 5, "input");
  c.InputWithRank(2, 5, "out_backprop");
  ShapeFromSizes(c, 1, "filter_sizes", 5);
}
// MaxPoolGrad: shaped as orig_input.
void MaxPoolGradShape(ShapeFnContext& c) {
  c.InputWithRank(1, 4, "orig_output");
  c.InputWithRank(2, 4, "grad");
  c.SetOutput(0, c.InputWithRank(0, 4, "orig_input"));
}
// MaxPoolGradGrad: shaped as orig_output (grad is shaped as orig_input).
void MaxPoolGradGradShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRank(0, 4, "orig_input");
  PartialShape g = c.InputWithRank(2, 4, "grad");
  for (int64_t d = 0; d < 4; ++d) MergeDim(in.dims[d], g.dims[d], "grad against orig_input");
  c.SetOutput(0, c.InputWithRank(1, 4, "orig_output"));
}
// AvgPoolGrad: orig_input_shape (input 0).
void AvgPoolGradShape(ShapeFnContext& c) {
  c.InputWithRank(1, 4, "grad");
  ShapeFromSizes(c, 0, "orig_input_shape", 4);
}
// MaxPool3DGrad: shaped as orig_input (rank 5).
void MaxPool3DGradShape(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 5, "orig_input")); }
// AvgPool3DGrad: orig_input_shape (input 0).
void AvgPool3DGradShape(ShapeFnContext& c) {
  c.InputWithRank(1, 5, "grad");
  ShapeFromSizes(c, 0, "orig_input_shape", 5);
}
// FusedBatchNormGrad*: x_backprop as x, the rest per channel; reserve_space_3/4 (5) empty.
void BatchNormGradShape(ShapeFnContext& c) {
  const std::string format = c.AttrString("data_format");
  const int64_t rank = format.size() == 5 ? 5 : 4;
  const int64_t ch = format[1] == 'C' ? 1 : rank - 1;
  PartialShape dy = c.InputWithRank(0, rank, "y_backprop");
  PartialShape x = c.InputWithRank(1, rank, "x");
  for (int64_t d = 0; d < rank; ++d) x.dims[d] = MergeDim(x.dims[d], dy.dims[d], "x against y_backprop");
  static const char* const kStats[] = {"scale", "reserve_space_1", "reserve_space_2"};
  int64_t channels = x.dims[ch];
  for (int i = 2; i <= 4; ++i)
    channels = MergeDim(channels, c.InputWithRank(i, 1, kStats[i - 2]).dims[0],
                        std::string(kStats[i - 2]) + " against channels of x");
  x.dims[ch] = channels;
  c.SetOutput(0, x);
  c.SetOutput(1, PartialShape::Of({channels}));
  c.SetOutput(2, PartialShape::Of({channels}));
  c.SetOutput(3, PartialShape::Of({0}));
  c.SetOutput(4, PartialShape::Of({0}));
}
// ResizeBilinearGrad: shaped as original_image.
void ResizeBilinearGradShape(ShapeFnContext& c) {
  c.InputWithRank(0, 4, "grads");
  c.SetOutput(0, c.InputWithRank(1, 4, "original_image"));
}
// ResizeNearestNeighborGrad: [batch, size..., channels] of grads.
void ResizeNearestGradShape(ShapeFnContext& c) {
  const PartialShape grads = c.InputWithRank(0, 4, "grads");
  MergeDim(c.InputWithRank(1, 1, "size").dims[0], 2, "the length of size");
  PartialShape out = PartialShape::Of({grads.dims[0], kUnknownDim, kUnknownDim, grads.dims[3]});
  if (std::optional<std::vector<int64_t>> size = c.InputInts(1)) {
    for (int k = 0; k < 2; ++k) {
      if ((*size)[k] < 0) Fail("size must not be negative");
      out.dims[1 + k] = (*size)[k];
    }
  }
  c.SetOutput(0, out);
}

const std::pair<std::string, std::string> kStridesDoc{
    "strides", "Step of the window per input dimension, as in the forward op."};
const std::pair<std::string, std::string> kPaddingDoc{
    "padding", "'VALID', 'SAME' or 'EXPLICIT', as in the forward op."};
const std::pair<std::string, std::string> kExplicitDoc{
    "explicit_paddings", "Before/after padding per dimension, with padding 'EXPLICIT'."};
const std::pair<std::string, std::string> kDilationsDoc{
    "dilations", "Spacing between filter taps per dimension."};
const std::pair<std::string, std::string> kFormatDoc{
    "data_format", "Layout of the images; the CPU kernels support NHWC."};

const std::pair<std::string, std::string> kFormat3DDoc{
    "data_format", "Layout of the volumes; the CPU kernels support NDHWC."};

const char* const kConvWindowAttrs[] = {"strides: list(int)", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
                                        "explicit_paddings: list(int) = []",
                                        "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                                        "dilations: list(int) = [1, 1, 1, 1]"};

std::vector<std::string> DepthwiseAttrs() {
  std::vector<std::string> a{"T: {half, bfloat16, float, double}"};
  for (const char* s : kConvWindowAttrs) a.push_back(s);
  return a;
}

OpRegistration BatchNormGradDocs(const char* name, std::vector<std::string> attrs,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs) {
  return {name, std::move(attrs), std::move(inputs), std::move(outputs),
          ShapeFn<BatchNormGradShape>,
          "The gradient of batch normalisation.",
          "With is_training, reserve_space_1 and reserve_space_2 are the batch mean and "
          "variance the forward op used, and the gradient flows through them too; without, "
          "they are the given population statistics.",
          {{"y_backprop", "The gradient with respect to y."}, {"x", "The forward op's input."},
           {"scale", "Per-channel scale."},
           {"reserve_space_1", "Mean (the forward op's reserve_space_1)."},
           {"reserve_space_2", "Variance (the forward op's reserve_space_2)."},
           {"x_backprop", "The gradient with respect to x."},
           {"scale_backprop", "The gradient with respect to scale."},
           {"offset_backprop", "The gradient with respect to offset."},
           {"reserve_space_4", "Unused; empty."},
           {"reserve_space_5", "Unused; empty."},
           {"epsilon", "Added to the variance for stability."},
           {"data_format", "Layout of x and y_backprop."},
           {"is_training", "Whether the forward op computed batch statistics."}}};
}

// The three versions differ in which reserve spaces they have: each documents its own.
OpRegistration BatchNormGrad(const char* name, std::vector<std::string> attrs,
                             std::vector<std::string> inputs, std::vector<std::string> outputs) {
  OpRegistration op = BatchNormGradDocs(name, std::move(attrs), std::move(inputs), std::move(outputs));
  auto named = [&](const std::string& arg) {
    for (const auto* list : {&op.inputs, &op.outputs, &op.attrs})
      for (const std::string& spec : *list)
        if (spec.compare(0, arg.size() + 1, arg + ":") == 0) return true;
    return false;
  };
  std::vector<std::pair<std::string, std::string>> docs;
  for (auto& d : op.arg_docs)
    if (named(d.first) && d.first != "reserve_space_3") docs.push_back(std::move(d));
  // reserve_space_3 is an input of V3 and an output of V1 and V2.
  const bool input3 = named("reserve_space_3") && op.inputs.size() == 6;
  docs.push_back({"reserve_space_3", input3 ? "The forward op's reserve_space_3; unused." : "Unused; empty."});
  op.arg_docs = std::move(docs);
  return op;
}

const char* const kBatchNormGradTail[] = {"epsilon: float = 0.0001", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                                          "is_training: bool = true"};
std::vector<std::string> BatchNormGradAttrs(std::vector<std::string> types, const char* format) {
  types.push_back(kBatchNormGradTail[0]);
  types.push_back(format);
  types.push_back(kBatchNormGradTail[2]);
  return types;
}

}  // namespace

void RegisterConvGradOps(TF_Status* status) {
  std::vector<std::string> conv_attrs{"T: {half, bfloat16, float, double}", "strides: list(int)",
                                      "use_cudnn_on_gpu: bool = true"};
  for (const char* s : kConvWindowAttrs)
    if (std::string(s).rfind("strides", 0) != 0) conv_attrs.push_back(s);
  RegisterOps({
      {"Conv2DBackpropFilter", conv_attrs,
       {"input: T", "filter_sizes: int32", "out_backprop: T"}, {"output: T"},
       ShapeFn<FilterSizes>,
       "The gradient of Conv2D with respect to its filter.",
       "Computed as matrix products of the image-to-columns copy of `input` with "
       "`out_backprop`, a group of images at a time.",
       {{"input", "The convolution's input, [batch, height, width, in_channels]."},
        {"filter_sizes", "The filter's shape, [height, width, in_channels, out_channels]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the filter, of filter_sizes."},
        kStridesDoc, {"use_cudnn_on_gpu", "Accepted for compatibility; ignored."}, kPaddingDoc,
        kExplicitDoc, kFormatDoc, kDilationsDoc}},
      {"DepthwiseConv2dNativeBackpropInput", DepthwiseAttrs(),
       {"input_sizes: int32", "filter: T", "out_backprop: T"}, {"output: T"},
       ShapeFn<InputSizes>,
       "The gradient of DepthwiseConv2dNative with respect to its input.", "",
       {{"input_sizes", "The input's shape, [batch, height, width, channels]."},
        {"filter", "The filter, [height, width, in_channels, channel_multiplier]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the input, of input_sizes."},
        kStridesDoc, kPaddingDoc, kExplicitDoc, kFormatDoc, kDilationsDoc}},
      {"DepthwiseConv2dNativeBackpropFilter", DepthwiseAttrs(),
       {"input: T", "filter_sizes: int32", "out_backprop: T"}, {"output: T"},
       ShapeFn<FilterSizes>,
       "The gradient of DepthwiseConv2dNative with respect to its filter.", "",
       {{"input", "The convolution's input, [batch, height, width, channels]."},
        {"filter_sizes", "The filter's shape, [height, width, in_channels, channel_multiplier]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the filter, of filter_sizes."},
        kStridesDoc, kPaddingDoc, kExplicitDoc, kFormatDoc, kDilationsDoc}},
      {"Conv3DBackpropInputV2",
       {"T: {half, bfloat16, float, double}", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
        "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'", "dilations: list(int) = [1, 1, 1, 1, 1]",
        "Tshape: {int32, int64} = DT_INT32"},
       {"input_sizes: Tshape", "filter: T", "out_backprop: T"}, {"output: T"}, ShapeFn<Conv3DInputSizes>,
       "The gradient of Conv3D with respect to its input.", "",
       {{"input_sizes", "The input's shape, [batch, depth, height, width, channels]."},
        {"filter", "The filter, [depth, height, width, in_channels, out_channels]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the input, of input_sizes."},
        kStridesDoc, {"padding", "'VALID' or 'SAME'."},
        {"data_format", "Layout; the CPU kernel supports NDHWC."}, kDilationsDoc}},
      {"Conv3DBackpropFilterV2",
       {"T: {half, bfloat16, float, double}", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
        "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'", "dilations: list(int) = [1, 1, 1, 1, 1]"},
       {"input: T", "filter_sizes: int32", "out_backprop: T"}, {"output: T"}, ShapeFn<Conv3DFilterSizes>,
       "The gradient of Conv3D with respect to its filter.", "",
       {{"input", "The convolution's input, [batch, depth, height, width, in_channels]."},
        {"filter_sizes", "The filter's shape, [depth, height, width, in_channels, out_channels]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the filter, of filter_sizes."},
        kStridesDoc, {"padding", "'VALID' or 'SAME'."},
        {"data_format", "Layout; the CPU kernel supports NDHWC."}, kDilationsDoc}},
      {"MaxPoolGrad",
       {"ksize: list(int) >= 4", "strides: list(int) >= 4", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
        "uint64} = DT_FLOAT"},
       {"orig_input: T", "orig_output: T", "grad: T"}, {"output: T"}, ShapeFn<MaxPoolGradShape>,
       "The gradient of MaxPool.",
       "Each window's gradient goes to the first largest value of orig_input in the window, "
       "in row-major order (a NaN is never larger; orig_output is not read).",
       {{"orig_input", "MaxPool's input."}, {"orig_output", "MaxPool's output."},
        {"grad", "The gradient with respect to MaxPool's output."},
        {"output", "The gradient with respect to MaxPool's input."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        kPaddingDoc, kExplicitDoc, kFormatDoc}},
      {"MaxPoolGradGrad",
       {"ksize: list(int) >= 4", "strides: list(int) >= 4", "padding: {'SAME', 'VALID'}",
        "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
        "uint64}"},
       {"orig_input: T", "orig_output: T", "grad: T"}, {"output: T"}, ShapeFn<MaxPoolGradGradShape>,
       "The gradient of MaxPoolGrad with respect to its grad input.",
       "Each output is grad at the first element of its window (row-major) whose orig_input "
       "equals orig_output there, or zero where none does (a NaN maximum): where orig_output "
       "is orig_input's max pool, grad at the window's maximum.",
       {{"orig_input", "MaxPool's input."}, {"orig_output", "MaxPool's output."},
        {"grad", "A gradient shaped as orig_input: of MaxPoolGrad's output."},
        {"output", "The gradient with respect to MaxPoolGrad's grad, shaped as orig_output."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."}, kFormatDoc}},
      {"AvgPoolGrad",
       {"ksize: list(int) >= 4", "strides: list(int) >= 4", "padding: {'SAME', 'VALID'}",
        "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "T: {half, bfloat16, float, double}"},
       {"orig_input_shape: int32", "grad: T"}, {"output: T"}, ShapeFn<AvgPoolGradShape>,
       "The gradient of AvgPool.",
       "Each window's gradient is shared evenly by the input values it averaged (padding "
       "is not counted).",
       {{"orig_input_shape", "AvgPool's input shape."},
        {"grad", "The gradient with respect to AvgPool's output."},
        {"output", "The gradient with respect to AvgPool's input."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."}, kFormatDoc}},
      {"MaxPool3DGrad",
       {"ksize: list(int) >= 5", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
        "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'", "T: {half, bfloat16, float} = DT_FLOAT",
        "TInput: {half, bfloat16, float} = DT_FLOAT"},
       {"orig_input: TInput", "orig_output: TInput", "grad: T"}, {"output: T"}, ShapeFn<MaxPool3DGradShape>,
       "The gradient of MaxPool3D.",
       "Each window's gradient goes to every value of orig_input in the window within 1e-5 "
       "of orig_output there (ties all take it), as TensorFlow's CPU kernel spreads it.",
       {{"orig_input", "MaxPool3D's input."}, {"orig_output", "MaxPool3D's output."},
        {"grad", "The gradient with respect to MaxPool3D's output."},
        {"output", "The gradient with respect to MaxPool3D's input."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."}, kFormat3DDoc}},
      {"AvgPool3DGrad",
       {"ksize: list(int) >= 5", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
        "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'", "T: {half, bfloat16, float, double}"},
       {"orig_input_shape: int32", "grad: T"}, {"output: T"}, ShapeFn<AvgPool3DGradShape>,
       "The gradient of AvgPool3D.",
       "Each window's gradient is shared evenly by the input values it averaged (padding "
       "is not counted).",
       {{"orig_input_shape", "AvgPool3D's input shape."},
        {"grad", "The gradient with respect to AvgPool3D's output."},
        {"output", "The gradient with respect to AvgPool3D's input."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."}, kFormat3DDoc}},
      {"MaxPool3DGradGrad",
       {"ksize: list(int) >= 5", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
        "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'",
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
        "uint64}"},
       {"orig_input: T", "orig_output: T", "grad: T"}, {"output: T"}, shape_fns::kMaxPool3DGradGrad,
       "The gradient of MaxPool3DGrad with respect to its grad input.",
       "Each output is grad at the first element of its window (row-major) whose orig_input "
       "equals orig_output there, or zero where none does.",
       {{"orig_input", "MaxPool3D's input."}, {"orig_output", "MaxPool3D's output."},
        {"grad", "A gradient shaped as orig_input: of MaxPool3DGrad's output."},
        {"output", "The gradient with respect to MaxPool3DGrad's grad, shaped as orig_output."},
        {"ksize", "Window size per dimension."}, {"strides", "Window step per dimension."},
        {"padding", "'VALID' or 'SAME'."}, kFormat3DDoc}},
      BatchNormGrad("FusedBatchNormGrad",
                    BatchNormGradAttrs({"T: {float}"}, "data_format: {'NHWC', 'NCHW'} = 'NHWC'"),
                    {"y_backprop: T", "x: T", "scale: T", "reserve_space_1: T", "reserve_space_2: T"},
                    {"x_backprop: T", "scale_backprop: T", "offset_backprop: T",
                     "reserve_space_3: T", "reserve_space_4: T"}),
      BatchNormGrad("FusedBatchNormGradV2",
                    BatchNormGradAttrs({"T: {half, bfloat16, float}", "U: {float}"},
                                       "data_format: {'NHWC', 'NCHW'} = 'NHWC'"),
                    {"y_backprop: T", "x: T", "scale: float", "reserve_space_1: U", "reserve_space_2: U"},
                    {"x_backprop: T", "scale_backprop: U", "offset_backprop: U",
                     "reserve_space_3: U", "reserve_space_4: U"}),
      BatchNormGrad("FusedBatchNormGradV3",
                    BatchNormGradAttrs({"T: {half, bfloat16, float}", "U: {float}"},
                                       "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"),
                    {"y_backprop: T", "x: T", "scale: float", "reserve_space_1: U", "reserve_space_2: U",
                     "reserve_space_3: U"},
                    {"x_backprop: T", "scale_backprop: U", "offset_backprop: U",
                     "reserve_space_4: U", "reserve_space_5: U"}),
      {"ResizeBilinearGrad",
       {"T: {float, bfloat16, half, double}", "align_corners: bool = false",
        "half_pixel_centers: bool = false"},
       {"grads: float", "original_image: T"}, {"output: T"}, ShapeFn<ResizeBilinearGradShape>,
       "The gradient of ResizeBilinear.",
       "Each output gradient is spread over the four input pixels it was interpolated from, "
       "with the same weights.",
       {{"grads", "The gradient with respect to the resized images, [batch, h, w, channels]."},
        {"original_image", "The images that were resized (only the shape is read)."},
        {"output", "The gradient with respect to the original images."},
        {"align_corners", "As in ResizeBilinear."}, {"half_pixel_centers", "As in ResizeBilinear."}}},
      {"ResizeNearestNeighborGrad",
       {"T: {uint8, int8, int32, half, float, double, bfloat16}", "align_corners: bool = false",
        "half_pixel_centers: bool = false"},
       {"grads: T", "size: int32"}, {"output: T"}, ShapeFn<ResizeNearestGradShape>,
       "The gradient of ResizeNearestNeighbor.",
       "Each output gradient is added to the input pixel it was copied from.",
       {{"grads", "The gradient with respect to the resized images, [batch, h, w, channels]."},
        {"size", "The original [height, width]."},
        {"output", "The gradient with respect to the original images."},
        {"align_corners", "As in ResizeNearestNeighbor."},
        {"half_pixel_centers", "As in ResizeNearestNeighbor."}}},
      {"ResizeBicubicGrad",
       {"T: {float, double}", "align_corners: bool = false", "half_pixel_centers: bool = false"},
       {"grads: float", "original_image: T"}, {"output: T"}, ShapeFn<ResizeBilinearGradShape>,
       "The gradient of ResizeBicubic.",
       "Each output gradient is spread over the 4x4 input pixels it was interpolated from, "
       "with the same weights.",
       {{"grads", "The gradient with respect to the resized images, [batch, h, w, channels]."},
        {"original_image", "The images that were resized (only the shape is read)."},
        {"output", "The gradient with respect to the original images."},
        {"align_corners", "As in ResizeBicubic."}, {"half_pixel_centers", "As in ResizeBicubic."}}},
  }, status);
}

}  // namespace opgen
