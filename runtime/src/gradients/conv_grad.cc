// Gradients of the convolutions and pooling, with TensorFlow's formulas (its nn_grad.py):
// each through its backprop kernels, with the forward op's window attrs passed on.
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

// dx = Conv2DBackpropInput(sizes, f, dy), linear in f and dy: input_sizes gets none,
// f gets Conv2DBackpropFilter(ddx, shape(f), dy), dy gets Conv2D(ddx, f).
void Conv2DBackpropInputGrad(GradBuilder& b) {
  const TF_Output f = b.input(1), dy = b.input(2), ddx = b.grad(0);
  const std::vector<Attr> attrs = ConvAttrs(b);
  if (b.needs(1)) b.Set(1, b.Op("Conv2DBackpropFilter", {ddx, b.ShapeOf(f), dy}, attrs));
  if (b.needs(2)) b.Set(2, b.Op("Conv2D", {ddx, f}, attrs));
}

// df = Conv2DBackpropFilter(x, sizes, dy), linear in x and dy: filter_sizes gets none,
// x gets Conv2DBackpropInput(shape(x), ddf, dy), dy gets Conv2D(x, ddf).
void Conv2DBackpropFilterGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), dy = b.input(2), ddf = b.grad(0);
  const std::vector<Attr> attrs = ConvAttrs(b);
  if (b.needs(0)) b.Set(0, b.Op("Conv2DBackpropInput", {b.ShapeOf(x), ddf, dy}, attrs));
  if (b.needs(2)) b.Set(2, b.Op("Conv2D", {x, ddf}, attrs));
}

void MaxPoolGrad(GradBuilder& b) {
  b.Set(0, b.Op("MaxPoolGrad", {b.input(0), b.output(0), b.grad(0)},
                b.CopyAttrs({"ksize", "strides", "padding", "explicit_paddings", "data_format"})));
}

void AvgPoolGrad(GradBuilder& b) {
  b.Set(0, b.Op("AvgPoolGrad", {b.ShapeOf(b.input(0)), b.grad(0)},
                b.CopyAttrs({"ksize", "strides", "padding", "data_format"})));
}

}  // namespace

void RegisterConvGradients() {
  RegisterGrad("Conv2D", ConvGrad<kConv2DInput, kConv2DFilter>);
  RegisterGrad("DepthwiseConv2dNative", ConvGrad<kDepthwiseInput, kDepthwiseFilter>);
  RegisterGrad("Conv3D", ConvGrad<kConv3DInput, kConv3DFilter>);
  RegisterGrad("Conv2DBackpropInput", Conv2DBackpropInputGrad);
  RegisterGrad("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);
  RegisterGrad("MaxPool", MaxPoolGrad);
  RegisterGrad("AvgPool", AvgPoolGrad);
}

}  // namespace gradients
}  // namespace opgen
