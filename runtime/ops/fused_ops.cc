// The runtime's internal fused ops, which the session's graph optimizer
// (runtime/src/optimizer/remapper.cc) puts in place of a convolution or MatMul, its bias
// and its activation. Their names start with "_Opgen": like TensorFlow's own internal
// ops ("_FusedConv2D"), they never appear in a graph a user builds or imports, and
// `opgen dump --from-runtime` leaves them out of the public registry.
#include "conv_image_shape_fns.h"
#include "shape_fns.h"
#include "op_table.h"

namespace opgen {
namespace {

// What the `activation` attr may name; runtime/kernels/fused_spec.h maps them onto the
// epilogue's activations in this order.
constexpr const char* kActivationAttr =
    "activation: {'None', 'Relu', 'Relu6', 'Elu', 'LeakyRelu', 'Sigmoid', 'Swish', 'Tanh', "
    "'GeluExact', 'GeluTanh'} = 'None'";
constexpr const char* kActivationDoc =
    "Applied after the bias: None, Relu, Relu6, Elu, LeakyRelu, Sigmoid, Swish "
    "(x * sigmoid(x)), Tanh, GeluExact (with erf) or GeluTanh (the tanh approximation).";

}  // namespace

void RegisterFusedOps(TF_Status* status) {
  RegisterOps({
      {"_OpgenFusedConv2D",
       {"T: {float}", "strides: list(int)", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "dilations: list(int) = [1, 1, 1, 1]", kActivationAttr, "leakyrelu_alpha: float = 0.2",
        "constant_filter: bool = false"},
       {"input: T", "filter: T", "bias: T"}, {"output: T"}, shape_fns::kConv2D,
       "Internal: Conv2D, then a per-channel bias, then an activation, in one kernel.",
       "Made by the session's graph optimizer from Conv2D + BiasAdd/Add + activation; the "
       "convolution attrs are Conv2D's.",
       {{"input", "The images, NHWC."}, {"filter", "The filters, HWIO."},
        {"bias", "One value per output channel."}, {"output", "act(conv2d(input, filter) + bias)."},
        {"strides", "As Conv2D's."}, {"padding", "As Conv2D's."},
        {"explicit_paddings", "As Conv2D's."}, {"data_format", "As Conv2D's (NHWC only)."},
        {"dilations", "As Conv2D's."}, {"activation", kActivationDoc},
        {"leakyrelu_alpha", "LeakyRelu's slope below zero."},
        {"constant_filter",
         "Set by the optimizer where the filter is a Const: the CPU kernel then prepares "
         "the filter (packing, Winograd's transform) once and keeps it between runs."}}},
      {"_OpgenFusedConv2DWithResidual",
       {"T: {float}", "strides: list(int)", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "dilations: list(int) = [1, 1, 1, 1]", kActivationAttr, "leakyrelu_alpha: float = 0.2",
        "constant_filter: bool = false"},
       {"input: T", "filter: T", "bias: T", "residual: T"}, {"output: T"}, shape_fns::kConv2D,
       "Internal: Conv2D, then a per-channel bias and a tensor of the output's shape, then an "
       "activation, in one kernel.",
       "Made by the session's graph optimizer from Conv2D + BiasAdd/Add + Add of another "
       "tensor of the same static shape + activation (the end of a ResNet block); the "
       "convolution attrs are Conv2D's.",
       {{"input", "The images, NHWC."}, {"filter", "The filters, HWIO."},
        {"bias", "One value per output channel."},
        {"residual", "Added to the biased convolution; shaped as the output."},
        {"output", "act(conv2d(input, filter) + bias + residual)."},
        {"strides", "As Conv2D's."}, {"padding", "As Conv2D's."},
        {"explicit_paddings", "As Conv2D's."}, {"data_format", "As Conv2D's (NHWC only)."},
        {"dilations", "As Conv2D's."}, {"activation", kActivationDoc},
        {"leakyrelu_alpha", "LeakyRelu's slope below zero."},
        {"constant_filter", "As _OpgenFusedConv2D's."}}},
      {"_OpgenFusedDepthwiseConv2dNative",
       {"T: {float}", "strides: list(int)", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "dilations: list(int) = [1, 1, 1, 1]", kActivationAttr, "leakyrelu_alpha: float = 0.2"},
       {"input: T", "filter: T", "bias: T"}, {"output: T"}, shape_fns::kDepthwiseConv2D,
       "Internal: DepthwiseConv2dNative, then a per-channel bias, then an activation, in one "
       "kernel.",
       "Made by the session's graph optimizer from DepthwiseConv2dNative + BiasAdd/Add + "
       "activation (MobileNet's and EfficientNet's blocks); the convolution attrs are "
       "DepthwiseConv2dNative's.",
       {{"input", "The images, NHWC."}, {"filter", "[height, width, in_channels, multiplier]."},
        {"bias", "One value per output channel (in_channels * multiplier)."},
        {"output", "act(depthwise_conv2d(input, filter) + bias)."},
        {"strides", "As DepthwiseConv2dNative's."}, {"padding", "As DepthwiseConv2dNative's."},
        {"explicit_paddings", "As DepthwiseConv2dNative's."},
        {"data_format", "As DepthwiseConv2dNative's (NHWC only)."},
        {"dilations", "As DepthwiseConv2dNative's."}, {"activation", kActivationDoc},
        {"leakyrelu_alpha", "LeakyRelu's slope below zero."}}},
      {"_OpgenFusedScaleShift",
       {"T: {float}", kActivationAttr, "leakyrelu_alpha: float = 0.2"},
       {"x: T", "scale: T", "offset: T"}, {"y: T"}, shape_fns::kBroadcast,
       "Internal: x * scale + offset per channel, then an activation, in one pass.",
       "Made by the session's graph optimizer from Mul + Add/AddV2/Sub by per-channel "
       "constants (an inference BatchNorm that no convolution can absorb, such as "
       "DenseNet's before each convolution) + activation.",
       {{"x", "The input; its last dimension is the channels (or 1)."},
        {"scale", "[C] or [1, ..., 1, C]."}, {"offset", "The same shape as scale."},
        {"y", "act(x * scale + offset), broadcast as Mul and Add broadcast."},
        {"activation", kActivationDoc}, {"leakyrelu_alpha", "LeakyRelu's slope below zero."}}},
      {"_OpgenFusedMatMul",
       {"T: {float}", "transpose_a: bool = false", "transpose_b: bool = false", kActivationAttr,
        "leakyrelu_alpha: float = 0.2"},
       {"a: T", "b: T", "bias: T"}, {"product: T"}, shape_fns::kMatMul,
       "Internal: MatMul, then a per-column bias, then an activation, in one kernel.",
       "Made by the session's graph optimizer from MatMul + BiasAdd/Add + activation.",
       {{"a", "Left matrix."}, {"b", "Right matrix."}, {"bias", "One value per output column."},
        {"product", "act(matmul(a, b) + bias)."}, {"transpose_a", "As MatMul's."},
        {"transpose_b", "As MatMul's."}, {"activation", kActivationDoc},
        {"leakyrelu_alpha", "LeakyRelu's slope below zero."}}},
  }, status);
}

}  // namespace opgen
