// Gradients of the convolutions and pooling, with TensorFlow's formulas (its nn_grad.py):
// each through its backprop kernels, with the forward op's window attrs passed on; and
// the second derivatives through the backprop ops themselves.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// The attrs Conv2D and its backprop ops share (each op takes those it has).
std::vector<Attr> ConvAttrs(GradBuilder& b) {
  return b.CopyAttrs({"strides", "use_cudnn_on_gpu", "padding", "explicit_paddings",
                      "data_format", "dilations"});
}

// y = conv(x, f): dx = BackpropInput(shape(x), f, dy), df = BackpropFilter(x, shape(f), dy).
template <const char* kInputOp, const char* kFilterOp>
void ConvGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), f = b.input(1), dy = b.grad(0);
  const std::vector<Attr> attrs = ConvAttrs(b);
  if (b.needs(0)) b.Set(0, b.Op(kInputOp, {b.ShapeOf(x), f, dy}, attrs));
  if (b.needs(1)) b.Set(1, b.Op(kFilterOp, {x, b.ShapeOf(f), dy}, attrs));
}
constexpr char kConv2DInput[] = "Conv2DBackpropInput", kConv2DFilter[] = "Conv2DBackpropFilter",
               kDepthwiseInput[] = "DepthwiseConv2dNativeBackpropInput",
               kDepthwiseFilter[] = "DepthwiseConv2dNativeBackpropFilter",
               kConv3DInput[] = "Conv3DBackpropInputV2", kConv3DFilter[] = "Conv3DBackpropFilterV2";

// dx = BackpropInput(sizes, f, dy), linear in f and dy: input_sizes gets none,
// f gets BackpropFilter(ddx, shape(f), dy), dy gets conv(ddx, f).
template <const char* kFilterOp, const char* kForward>
void BackpropInputGrad(GradBuilder& b) {
  const TF_Output f = b.input(1), dy = b.input(2), ddx = b.grad(0);
  const std::vector<Attr> attrs = ConvAttrs(b);
  if (b.needs(1)) b.Set(1, b.Op(kFilterOp, {ddx, b.ShapeOf(f), dy}, attrs));
  if (b.needs(2)) b.Set(2, b.Op(kForward, {ddx, f}, attrs));
}

// df = BackpropFilter(x, sizes, dy), linear in x and dy: x gets BackpropInput(shape(x),
// ddf, dy), filter_sizes none, dy gets conv(x, ddf).
template <const char* kInputOp, const char* kForward>
void BackpropFilterGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), dy = b.input(2), ddf = b.grad(0);
  const std::vector<Attr> attrs = ConvAttrs(b);
  if (b.needs(0)) b.Set(0, b.Op(kInputOp, {b.ShapeOf(x), ddf, dy}, attrs));
  if (b.needs(2)) b.Set(2, b.Op(kForward, {x, ddf}, attrs));
}
constexpr char kConv2D[] = "Conv2D", kDepthwise[] = "DepthwiseConv2dNative",
               kConv3D[] = "Conv3D";

void MaxPoolGrad(GradBuilder& b) {
  b.Set(0, b.Op("MaxPoolGrad", {b.input(0), b.output(0), b.grad(0)},
                b.CopyAttrs({"ksize", "strides", "padding", "explicit_paddings", "data_format"})));
}

void AvgPoolGrad(GradBuilder& b) {
  b.Set(0, b.Op("AvgPoolGrad", {b.ShapeOf(b.input(0)), b.grad(0)},
                b.CopyAttrs({"ksize", "strides", "padding", "data_format"})));
}

// AvgPoolGrad(shape, dy) spreads each dy over its window: its adjoint is the average pool.
void AvgPoolGradGrad(GradBuilder& b) {
  if (b.needs(1))
    b.Set(1, b.Op("AvgPool", {b.grad(0)}, b.CopyAttrs({"ksize", "strides", "padding",
                                                       "data_format"})));
}

// MaxPoolGrad(x, y, dy) routes each dy to its window's maximum: linear in dy, whose
// gradient takes, for each window, g at that maximum (MaxPoolGradGrad); x and y get zeros,
// as in TensorFlow.
void MaxPoolGradGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("ZerosLike", {b.input(0)}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
  if (b.needs(2))
    b.Set(2, b.Op("MaxPoolGradGrad", {b.input(0), b.input(1), b.grad(0)},
                  b.CopyAttrs({"ksize", "strides", "padding", "data_format"})));
}

// MaxPoolGradGrad(x, y, g) reads g at each window's maximum: its adjoint is MaxPoolGrad.
void MaxPoolGradGradGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("ZerosLike", {b.input(0)}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
  if (b.needs(2))
    b.Set(2, b.Op("MaxPoolGrad", {b.input(0), b.input(1), b.grad(0)},
                  b.CopyAttrs({"ksize", "strides", "padding", "data_format"})));
}

// The 3-D pools, as the 2-D ones: their backprop ops carry the forward op's window attrs.
std::vector<Attr> Pool3DAttrs(GradBuilder& b) {
  return b.CopyAttrs({"ksize", "strides", "padding", "data_format"});
}
void MaxPool3DGrad(GradBuilder& b) {
  b.Set(0, b.Op("MaxPool3DGrad", {b.input(0), b.output(0), b.grad(0)}, Pool3DAttrs(b)));
}
void AvgPool3DGrad(GradBuilder& b) {
  b.Set(0, b.Op("AvgPool3DGrad", {b.ShapeOf(b.input(0)), b.grad(0)}, Pool3DAttrs(b)));
}
// AvgPool3DGrad(shape, dy) is linear in dy, with the average pool as its adjoint.
void AvgPool3DGradGrad(GradBuilder& b) {
  if (b.needs(1)) b.Set(1, b.Op("AvgPool3D", {b.grad(0)}, Pool3DAttrs(b)));
}
// MaxPool3DGrad(x, y, dy) and MaxPool3DGradGrad(x, y, g) are linear in their last input
// and each other's adjoints there; x and y get zeros, as in TensorFlow.
template <const char* kAdjoint>
void MaxPool3DBackpropGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("ZerosLike", {b.input(0)}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
  if (b.needs(2)) b.Set(2, b.Op(kAdjoint, {b.input(0), b.input(1), b.grad(0)}, Pool3DAttrs(b)));
}
constexpr char kMaxPool3DGrad[] = "MaxPool3DGrad", kMaxPool3DGradGrad[] = "MaxPool3DGradGrad";

// TensorFlow defines no gradient for ResizeArea: building one reports that.
void ResizeAreaGrad(GradBuilder& b) {
  if (b.ok())
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED, "ResizeArea has no gradient (TensorFlow defines none either)");
}

}  // namespace

void RegisterConvGradients() {
  RegisterGrad("MaxPool3D", MaxPool3DGrad);
  RegisterGrad("AvgPool3D", AvgPool3DGrad);
  RegisterGrad("AvgPool3DGrad", AvgPool3DGradGrad);
  RegisterGrad("MaxPool3DGrad", MaxPool3DBackpropGrad<kMaxPool3DGradGrad>);
  RegisterGrad("MaxPool3DGradGrad", MaxPool3DBackpropGrad<kMaxPool3DGrad>);
  RegisterGrad("ResizeArea", ResizeAreaGrad);
  RegisterGrad("Conv2D", ConvGrad<kConv2DInput, kConv2DFilter>);
  RegisterGrad("DepthwiseConv2dNative", ConvGrad<kDepthwiseInput, kDepthwiseFilter>);
  RegisterGrad("Conv3D", ConvGrad<kConv3DInput, kConv3DFilter>);
  RegisterGrad("Conv2DBackpropInput", BackpropInputGrad<kConv2DFilter, kConv2D>);
  RegisterGrad("Conv2DBackpropFilter", BackpropFilterGrad<kConv2DInput, kConv2D>);
  RegisterGrad("DepthwiseConv2dNativeBackpropInput", BackpropInputGrad<kDepthwiseFilter, kDepthwise>);
  RegisterGrad("DepthwiseConv2dNativeBackpropFilter", BackpropFilterGrad<kDepthwiseInput, kDepthwise>);
  RegisterGrad("Conv3DBackpropInputV2", BackpropInputGrad<kConv3DFilter, kConv3D>);
  RegisterGrad("Conv3DBackpropFilterV2", BackpropFilterGrad<kConv3DInput, kConv3D>);
  RegisterGrad("AvgPoolGrad", AvgPoolGradGrad);
  RegisterGrad("MaxPoolGrad", MaxPoolGradGrad);
  RegisterGrad("MaxPoolGradGrad", MaxPoolGradGradGrad);
  RegisterGrad("MaxPool", MaxPoolGrad);
  RegisterGrad("AvgPool", AvgPoolGrad);
}

}  // namespace gradients
}  // namespace opgen
