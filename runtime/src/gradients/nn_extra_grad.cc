// Gradients of the fake-quantization ops and LRN, with TensorFlow's formulas (its
// array_ops.py and nn_grad.py): each through its gradient op, with the forward op's attrs.
// TensorFlow declares the FakeQuant gradient ops not differentiable; so do we.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// CTCLoss(V2): the gradient the op computed (output 1) scaled by each entry's loss
// gradient; TensorFlow wraps that output in PreventGradient, so asking for a second
// derivative fails with its message. Labels and lengths get none.
void CtcLossGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output fused = b.Op("PreventGradient", {b.output(1)},
      {{"message", "Currently there is no way to take the second  derivative of ctc_loss "
                   "due to the fused implementation's interaction  with tf.gradients()"}});
  b.Set(0, b.Op("Mul", {b.Op("ExpandDims", {b.grad(0), b.Int32(-1)}), fused}));
}

void FakeQuantArgsGrad(GradBuilder& b) {
  if (b.needs(0))
    b.Set(0, b.Op("FakeQuantWithMinMaxArgsGradient", {b.grad(0), b.input(0)},
                  b.CopyAttrs({"min", "max", "num_bits", "narrow_range"})));
}

// FakeQuantWithMinMaxVars(PerChannel)(x, min, max): one gradient op gives all three.
template <const char* kGradOp>
void FakeQuantVarsGrad(GradBuilder& b) {
  TF_Operation* g = b.Node(kGradOp, {b.grad(0), b.input(0), b.input(1), b.input(2)},
                           b.CopyAttrs({"num_bits", "narrow_range"}));
  if (g == nullptr) return;
  for (int i = 0; i < 3; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{g, i});
}
constexpr char kVarsGradient[] = "FakeQuantWithMinMaxVarsGradient",
               kPerChannelGradient[] = "FakeQuantWithMinMaxVarsPerChannelGradient";

void LrnGrad(GradBuilder& b) {
  b.Set(0, b.Op("LRNGrad", {b.grad(0), b.input(0), b.output(0)},
                b.CopyAttrs({"depth_radius", "bias", "alpha", "beta"})));
}

// MaxPoolV2(x, ksize, strides): MaxPoolGradV2 with the same tensors; none to ksize, strides.
void MaxPoolV2Grad(GradBuilder& b) {
  if (b.needs(0))
    b.Set(0, b.Op("MaxPoolGradV2", {b.input(0), b.output(0), b.grad(0), b.input(1), b.input(2)},
                  b.CopyAttrs({"padding", "data_format"})));
}

// MaxPoolGradV2(x, y, dy, ksize, strides) is linear in dy: MaxPoolGradGradV2 there, zeros
// for x and y, as in TensorFlow.
void MaxPoolGradV2Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("ZerosLike", {b.input(0)}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
  if (b.needs(2))
    b.Set(2, b.Op("MaxPoolGradGradV2", {b.input(0), b.input(1), b.grad(0), b.input(3), b.input(4)},
                  b.CopyAttrs({"padding", "data_format"})));
}

// MaxPoolWithArgmax: its argmax output takes no gradient; the pool's goes through argmax.
void MaxPoolWithArgmaxGrad(GradBuilder& b) {
  if (b.needs(0))
    b.Set(0, b.Op("MaxPoolGradWithArgmax", {b.input(0), b.grad(0), b.output(1)},
                  b.CopyAttrs({"ksize", "strides", "padding", "include_batch_in_index"})));
}

// BiasAddV1(x, b): dx = dy; db = dy summed over every dimension but the last (BiasAddGrad
// in NHWC sums exactly those).
void BiasAddV1Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.grad(0));
  if (b.needs(1)) b.Set(1, b.Op("BiasAddGrad", {b.grad(0)}));
}

// NthElement(x, n) = y: dy shared evenly by the elements of each row equal to its y (none
// to n), as TensorFlow's formula: equal(y[..., None], x) / count * dy[..., None].
void NthElementGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output x = b.input(0), dy = b.grad(0), last = b.Int32(-1);
  const TF_Output hits = b.Op("Cast", {b.Op("Equal", {b.Op("ExpandDims", {b.output(0), last}), x})},
                              {{"DstT", GradBuilder::dtype(dy)}});
  const TF_Output count = b.Op("ExpandDims", {b.Op("Sum", {hits, last}), last});
  b.Set(0, b.Op("Mul", {b.Op("RealDiv", {hits, count}), b.Op("ExpandDims", {dy, last})}));
}

// Dilation2D(x, f): each backprop op with the forward op's window attrs.
void Dilation2DGrad(GradBuilder& b) {
  const std::vector<Attr> attrs = b.CopyAttrs({"strides", "rates", "padding"});
  if (b.needs(0)) b.Set(0, b.Op("Dilation2DBackpropInput", {b.input(0), b.input(1), b.grad(0)}, attrs));
  if (b.needs(1)) b.Set(1, b.Op("Dilation2DBackpropFilter", {b.input(0), b.input(1), b.grad(0)}, attrs));
}

}  // namespace

void RegisterNnExtraGradients() {
  RegisterGrad("Dilation2D", Dilation2DGrad);
  RegisterGrad("NthElement", NthElementGrad);
  RegisterGrad("CTCLoss", CtcLossGrad);
  RegisterGrad("CTCLossV2", CtcLossGrad);
  RegisterGrad("BiasAddV1", BiasAddV1Grad);
  RegisterGrad("MaxPoolV2", MaxPoolV2Grad);
  RegisterGrad("MaxPoolGradV2", MaxPoolGradV2Grad);
  RegisterGrad("MaxPoolWithArgmax", MaxPoolWithArgmaxGrad);
  RegisterGrad("FakeQuantWithMinMaxArgs", FakeQuantArgsGrad);
  RegisterGrad("FakeQuantWithMinMaxVars", FakeQuantVarsGrad<kVarsGradient>);
  RegisterGrad("FakeQuantWithMinMaxVarsPerChannel", FakeQuantVarsGrad<kPerChannelGradient>);
  RegisterGrad("LRN", LrnGrad);
  for (const char* op : {"FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
                         "FakeQuantWithMinMaxVarsPerChannelGradient"})
    RegisterNoGrad(op);
}

}  // namespace gradients
}  // namespace opgen
