// Gradients of the neural-network ops, with TensorFlow's formulas (its nn_grad.py):
// Softmax and LogSoftmax, the activations (through their fused *Grad kernels), BiasAdd,
// the softmax cross-entropy losses, FusedBatchNorm*, and the second derivatives through
// ReluGrad, Relu6Grad, TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad and
// BiasAddGrad. Convolutions and pooling:
// conv_grad.cc.
#include <cstring>
#include <string>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// s = softmax(x): dx = (ds - sum(ds * s, -1)) * s.
void SoftmaxGrad(GradBuilder& b) {
  const TF_Output s = b.output(0), ds = b.grad(0);
  const TF_Output dot = b.Op("Sum", {b.Op("Mul", {ds, s}), b.Int32(-1)}, {{"keep_dims", true}});
  b.Set(0, b.Op("Mul", {b.Op("Sub", {ds, dot}), s}));
}

// l = log_softmax(x): dx = dl - sum(dl, -1) * exp(l).
void LogSoftmaxGrad(GradBuilder& b) {
  const TF_Output l = b.output(0), dl = b.grad(0);
  const TF_Output total = b.Op("Sum", {dl, b.Int32(-1)}, {{"keep_dims", true}});
  b.Set(0, b.Op("Sub", {dl, b.Op("Mul", {total, b.Op("Exp", {l})})}));
}

// ---- activations: FGrad(dy, saved), saved being the forward op's input or output ----

template <const char* kGradOp, bool kFromOutput>
void ActivationGrad(GradBuilder& b) {
  b.Set(0, b.Op(kGradOp, {b.grad(0), kFromOutput ? b.output(0) : b.input(0)}));
}
constexpr char kReluGrad[] = "ReluGrad", kRelu6Grad[] = "Relu6Grad", kEluGrad[] = "EluGrad",
               kSeluGrad[] = "SeluGrad", kSoftplusGrad[] = "SoftplusGrad",
               kSoftsignGrad[] = "SoftsignGrad";

void LeakyReluGrad(GradBuilder& b) {
  b.Set(0, b.Op("LeakyReluGrad", {b.grad(0), b.input(0)}, {{"alpha", b.AttrFloat("alpha")}}));
}

// value + bias: the value gets dy, the bias dy summed over all but the channel dim.
void BiasAddGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.grad(0));
  if (b.needs(1))
    b.Set(1, b.Op("BiasAddGrad", {b.grad(0)}, b.CopyAttrs({"data_format"})));
}

// ---- second derivatives, through the backprop kernels themselves ----

// ReluGrad(dy, x) / Relu6Grad(dy, x): linear in dy with the same mask; x gets zeros.
template <const char* kGradOp>
void MaskedGradGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op(kGradOp, {b.grad(0), b.input(1)}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
}

// TanhGrad(y, dy) = dy (1 - y^2): d/dy = g dy (-2 y), d/d(dy) = TanhGrad(y, g).
void TanhGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("Mul", {b.Op("Mul", {g, dy}), b.Op("Mul", {y, b.ScalarLike(-2.0, y)})}));
  if (b.needs(1)) b.Set(1, b.Op("TanhGrad", {y, g}));
}

// SigmoidGrad(y, dy) = dy y (1 - y): d/dy = g dy (1 - 2 y), d/d(dy) = SigmoidGrad(y, g).
void SigmoidGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (b.needs(0)) {
    const TF_Output gdy = b.Op("Mul", {g, dy});
    b.Set(0, b.Op("Sub", {gdy, b.Op("Mul", {b.Op("Mul", {gdy, y}), b.ScalarLike(2.0, y)})}));
  }
  if (b.needs(1)) b.Set(1, b.Op("SigmoidGrad", {y, g}));
}

// SqrtGrad(y, dy) = dy / (2 y) = o: d/dy = -g o / y, d/d(dy) = g / (2 y).
void SqrtGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), g_over_y = b.Op("RealDiv", {b.grad(0), y});
  if (b.needs(0)) b.Set(0, b.Op("Neg", {b.Op("Mul", {g_over_y, b.output(0)})}));
  if (b.needs(1)) b.Set(1, b.Op("Mul", {g_over_y, b.ScalarLike(0.5, y)}));
}

// RsqrtGrad(y, dy) = -dy y^3 / 2: d/dy = -3/2 g dy y^2, d/d(dy) = RsqrtGrad(y, g).
void RsqrtGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("Mul", {b.Op("Mul", {g, dy}),
                          b.Op("Mul", {b.Op("Square", {y}), b.ScalarLike(-1.5, y)})}));
  if (b.needs(1)) b.Set(1, b.Op("RsqrtGrad", {y, g}));
}

// ReciprocalGrad(y, dy) = -dy y^2: d/dy = -2 g dy y, d/d(dy) = ReciprocalGrad(y, g).
void ReciprocalGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("Mul", {b.Op("Mul", {g, dy}), b.Op("Mul", {y, b.ScalarLike(-2.0, y)})}));
  if (b.needs(1)) b.Set(1, b.Op("ReciprocalGrad", {y, g}));
}

// BiasAddGrad sums over all but the channel dim: its gradient spreads g back over them.
void BiasAddGradGrad(GradBuilder& b) {
  const TF_Output x = b.input(0);
  TF_Output g = b.grad(0);
  if (b.AttrString("data_format") == "NCHW") {
    const int rank = b.Rank(x);
    if (rank < 0) {
      TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                   "the gradient of BiasAddGrad (NCHW) needs the input's rank");
      return;
    }
    std::vector<int32_t> shape(rank, 1);
    shape[1] = -1;
    g = b.Op("Reshape", {g, b.Int32s(shape)});
  }
  b.Set(0, b.Op("BroadcastTo", {g, b.ShapeOf(x)}));
}

// ---- losses: (loss [batch], backprop [batch, classes]) ----

bool IsZeros(TF_Output t) {
  return t.oper != nullptr && std::strcmp(TF_OperationOpType(t.oper), "ZerosLike") == 0;
}

// dloss[:, None] * backprop, plus, when the backprop output has a gradient g of its own,
// (g - sum(g * softmax, -1)) * softmax (the backprop is softmax - labels).
TF_Output LogitsGrad(GradBuilder& b) {
  const TF_Output dloss = b.Op("ExpandDims", {b.grad(0), b.Int32(-1)});
  TF_Output g = b.Op("Mul", {dloss, b.output(1)});
  const TF_Output dbackprop = b.grad(1);
  if (!IsZeros(dbackprop)) {
    const TF_Output softmax = b.Op("Softmax", {b.input(0)});
    const TF_Output dot =
        b.Op("Sum", {b.Op("Mul", {dbackprop, softmax}), b.Int32(-1)}, {{"keep_dims", true}});
    g = b.Op("AddV2", {g, b.Op("Mul", {b.Op("Sub", {dbackprop, dot}), softmax})});
  }
  return g;
}

// Labels (dense): dloss[:, None] * -log_softmax(logits); both inputs may broadcast.
void SoftmaxCrossEntropyGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.SumToShapeOf(LogitsGrad(b), b.input(0)));
  if (b.needs(1)) {
    const TF_Output dloss = b.Op("ExpandDims", {b.grad(0), b.Int32(-1)});
    const TF_Output neg_log_softmax = b.Op("Neg", {b.Op("LogSoftmax", {b.input(0)})});
    b.Set(1, b.SumToShapeOf(b.Op("Mul", {dloss, neg_log_softmax}), b.input(1)));
  }
}

// Integer labels get none.
void SparseSoftmaxCrossEntropyGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, LogitsGrad(b));
}

// ---- batch normalisation: (y, batch_mean, batch_var, reserve_space_1, _2[, _3]) ----

// Training: FusedBatchNormGrad* of the batch statistics the forward op kept in its
// reserve spaces. Inference: of the population mean and variance (inputs 3 and 4).
// Only x, scale and offset get gradients, as in TensorFlow.
void FusedBatchNormGradFn(GradBuilder& b) {
  const char* type = TF_OperationOpType(b.op());
  const bool v3 = std::strcmp(type, "FusedBatchNormV3") == 0;
  const char* grad_op = v3 ? "FusedBatchNormGradV3"
                           : std::strcmp(type, "FusedBatchNormV2") == 0 ? "FusedBatchNormGradV2"
                                                                        : "FusedBatchNormGrad";
  const bool training = b.AttrBool("is_training");
  std::vector<In> inputs{b.grad(0), b.input(0), b.input(1),
                         training ? b.output(3) : b.input(3), training ? b.output(4) : b.input(4)};
  if (v3) inputs.emplace_back(b.output(5));
  TF_Operation* g = b.Node(grad_op, inputs, b.CopyAttrs({"epsilon", "data_format", "is_training"}));
  if (!b.ok()) return;
  for (int i = 0; i < 3; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{g, i});
}

}  // namespace

void RegisterNnGradients() {
  RegisterGrad("Softmax", SoftmaxGrad);
  RegisterGrad("LogSoftmax", LogSoftmaxGrad);
  RegisterGrad("Relu", ActivationGrad<kReluGrad, true>);
  RegisterGrad("Relu6", ActivationGrad<kRelu6Grad, true>);
  RegisterGrad("Elu", ActivationGrad<kEluGrad, true>);
  RegisterGrad("Selu", ActivationGrad<kSeluGrad, true>);
  RegisterGrad("Softplus", ActivationGrad<kSoftplusGrad, false>);
  RegisterGrad("Softsign", ActivationGrad<kSoftsignGrad, false>);
  RegisterGrad("LeakyRelu", LeakyReluGrad);
  RegisterGrad("BiasAdd", BiasAddGrad);
  RegisterGrad("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyGrad);
  RegisterGrad("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyGrad);
  RegisterGrad("ReluGrad", MaskedGradGrad<kReluGrad>);
  RegisterGrad("Relu6Grad", MaskedGradGrad<kRelu6Grad>);
  RegisterGrad("TanhGrad", TanhGradGrad);
  RegisterGrad("SigmoidGrad", SigmoidGradGrad);
  RegisterGrad("SqrtGrad", SqrtGradGrad);
  RegisterGrad("RsqrtGrad", RsqrtGradGrad);
  RegisterGrad("ReciprocalGrad", ReciprocalGradGrad);
  RegisterGrad("BiasAddGrad", BiasAddGradGrad);
  for (const char* bn : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
    RegisterGrad(bn, FusedBatchNormGradFn);
}

}  // namespace gradients
}  // namespace opgen
