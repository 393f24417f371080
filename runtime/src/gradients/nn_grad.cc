// Gradients of the neural-network ops, with TensorFlow's formulas (its nn_grad.py):
// Softmax and LogSoftmax, the activations (through their fused *Grad kernels), BiasAdd,
// the softmax cross-entropy losses, FusedBatchNorm*, and the second derivatives through
// the activations' *Grad kernels, BiasAddGrad and FusedBatchNormGrad*. Convolutions and pooling:
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

// EluGrad(dy, y) = dy (y + 1) where y < 0, else dy; SeluGrad(dy, y) = dy (y + scale alpha)
// where y < 0, else dy scale. Both are linear in dy, and d/dy is g dy where y < 0.
template <const char* kGradOp>
void ExpLinearGradGrad(GradBuilder& b) {
  const TF_Output dy = b.input(0), y = b.input(1), g = b.grad(0);
  if (b.needs(0)) b.Set(0, b.Op(kGradOp, {g, y}));
  if (b.needs(1)) {
    const TF_Output negative = b.Op("Less", {y, b.ScalarLike(0.0, y)});
    b.Set(1, b.Op("SelectV2", {negative, b.Op("Mul", {g, dy}), b.Op("ZerosLike", {y})}));
  }
}

// LeakyReluGrad(dy, x): linear in dy with a mask of x; x gets zeros.
void LeakyReluGradGrad(GradBuilder& b) {
  if (b.needs(0))
    b.Set(0, b.Op("LeakyReluGrad", {b.grad(0), b.input(1)}, {{"alpha", b.AttrFloat("alpha")}}));
  if (b.needs(1)) b.Set(1, b.Op("ZerosLike", {b.input(1)}));
}

// SoftplusGrad(dy, x) = dy sigmoid(x): d/dx = g dy sigmoid'(x) = g dy / (e^-x + 2 + e^x).
void SoftplusGradGrad(GradBuilder& b) {
  const TF_Output dy = b.input(0), x = b.input(1), g = b.grad(0);
  if (b.needs(0)) b.Set(0, b.Op("SoftplusGrad", {g, x}));
  if (b.needs(1)) {
    const TF_Output cosh2 = b.Op("AddV2", {b.Op("AddV2", {b.Op("Exp", {b.Op("Neg", {x})}),
                                                         b.ScalarLike(2.0, x)}),
                                          b.Op("Exp", {x})});
    b.Set(1, b.Op("RealDiv", {b.Op("Mul", {g, dy}), cosh2}));
  }
}

// SoftsignGrad(dy, x) = dy / (1 + |x|)^2 (TensorFlow registers no second derivative; this
// one is derived): d/dx = -2 g dy sign(x) / (1 + |x|)^3.
void SoftsignGradGrad(GradBuilder& b) {
  const TF_Output dy = b.input(0), x = b.input(1), g = b.grad(0);
  if (b.needs(0)) b.Set(0, b.Op("SoftsignGrad", {g, x}));
  if (b.needs(1)) {
    const TF_Output denom = b.Op("AddV2", {b.ScalarLike(1.0, x), b.Op("Abs", {x})});
    const TF_Output cube = b.Op("Mul", {b.Op("Square", {denom}), denom});
    const TF_Output num = b.Op("Mul", {b.Op("Mul", {g, dy}),
                                       b.Op("Mul", {b.Op("Sign", {x}), b.ScalarLike(-2.0, x)})});
    b.Set(1, b.Op("RealDiv", {num, cube}));
  }
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

// ---- second derivatives of FusedBatchNormGrad* (y_backprop dy, x, scale s, r1, r2[, r3]) ----
//
// TensorFlow differentiates a composition of primitive ops with a tape; this is the same
// derivative written out. Per channel, with means over the other axes:
//   training:  xc = x - mean(x), r = rsqrt(mean(xc^2) + eps), xh = xc r,
//              gx = s r (dy - mean(dy) - xh mean(dy xh)), gs = sum(dy xh), go = sum(dy)
//   inference: r = rsqrt(pop_var + eps), xh = (x - pop_mean) r,
//              gx = s r dy, gs = sum(dy xh), go = sum(dy)
// and A, B, C the gradients of gx, gs, go. The statistics' inputs get none, as in
// TensorFlow (training recomputes them from x).
void FusedBatchNormGradGrad(GradBuilder& b) {
  const std::string format = b.AttrString("data_format");
  const bool training = b.AttrBool("is_training");
  const float eps = b.AttrFloat("epsilon");
  if (!b.ok()) return;
  const int rank = static_cast<int>(format.size());
  const int channel = format[1] == 'C' ? 1 : rank - 1;
  std::vector<int32_t> axes, stat_shape(rank, 1);
  for (int d = 0; d < rank; ++d)
    if (d != channel) axes.push_back(d);
  stat_shape[channel] = -1;
  const TF_DataType t = b.dtype(b.input(1));
  auto as_float = [&b](TF_Output v) {
    return b.dtype(v) == TF_FLOAT ? v : b.Op("Cast", {v}, {{"DstT", TF_FLOAT}});
  };
  auto as_t = [&b, t](TF_Output v) { return t == TF_FLOAT ? v : b.Op("Cast", {v}, {{"DstT", t}}); };
  auto per_channel = [&](TF_Output v) { return b.Op("Reshape", {as_float(v), b.Int32s(stat_shape)}); };
  auto mean = [&](TF_Output v) { return b.Op("Mean", {v, b.Int32s(axes)}, {{"keep_dims", true}}); };
  auto sum_to_vector = [&](TF_Output v) {
    return b.Op("Reshape", {b.Op("Sum", {v, b.Int32s(axes)}), b.Int32s({-1})});
  };
  auto mul = [&b](TF_Output p, TF_Output q) { return b.Op("Mul", {p, q}); };
  auto sub = [&b](TF_Output p, TF_Output q) { return b.Op("Sub", {p, q}); };
  auto add = [&b](TF_Output p, TF_Output q) { return b.Op("AddV2", {p, q}); };

  const TF_Output dy = as_float(b.input(0)), x = as_float(b.input(1)), s = per_channel(b.input(2));
  const TF_Output ga = as_float(b.grad(0)), gb = per_channel(b.grad(1)), gc = per_channel(b.grad(2));
  const TF_Output epsilon = b.Scalar(eps, TF_FLOAT);
  TF_Output xc, r;
  if (training) {
    xc = sub(x, mean(x));
    r = b.Op("Rsqrt", {add(mean(b.Op("Square", {xc})), epsilon)});
  } else {
    xc = sub(x, per_channel(b.input(3)));
    r = b.Op("Rsqrt", {add(per_channel(b.input(4)), epsilon)});
  }
  const TF_Output xh = mul(xc, r);
  if (!training) {
    if (b.needs(0)) b.Set(0, as_t(add(add(mul(ga, mul(s, r)), mul(gb, xh)), gc)));
    if (b.needs(1)) b.Set(1, as_t(mul(gb, mul(dy, r))));
    if (b.needs(2)) b.Set(2, sum_to_vector(mul(ga, mul(dy, r))));
    return;
  }
  const TF_Output dy_centered = sub(dy, mean(dy));
  const TF_Output q = mean(mul(dy, xh));      // mean(dy xh)
  const TF_Output pm = mean(mul(ga, xh));     // mean(A xh)
  if (b.needs(0)) {  // s r (A - mean(A) - xh mean(A xh)) + B xh + C
    const TF_Output a_part = mul(mul(s, r), sub(sub(ga, mean(ga)), mul(xh, pm)));
    b.Set(0, as_t(add(add(a_part, mul(gb, xh)), gc)));
  }
  if (b.needs(1)) {
    // through r and xh in gx: s r^2 (xh (pm q - mean(A (dy - mean dy)))
    //   - (h - mean(h) - xh mean(h xh))), h = A q + pm dy; through gs: B r (dy - mean(dy) - xh q)
    const TF_Output r2 = b.Op("Square", {r});
    const TF_Output h = add(mul(ga, q), mul(pm, dy));
    const TF_Output h_part = sub(sub(h, mean(h)), mul(xh, mean(mul(h, xh))));
    const TF_Output r_part = mul(xh, sub(mul(pm, q), mean(mul(ga, dy_centered))));
    const TF_Output from_gx = mul(mul(s, r2), sub(r_part, h_part));
    const TF_Output from_gs = mul(mul(gb, r), sub(dy_centered, mul(xh, q)));
    b.Set(1, as_t(add(from_gx, from_gs)));
  }
  if (b.needs(2)) b.Set(2, sum_to_vector(mul(ga, mul(r, sub(dy_centered, mul(xh, q))))));
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
  RegisterGrad("BiasAddGrad", BiasAddGradGrad);
  RegisterGrad("EluGrad", ExpLinearGradGrad<kEluGrad>);
  RegisterGrad("SeluGrad", ExpLinearGradGrad<kSeluGrad>);
  RegisterGrad("LeakyReluGrad", LeakyReluGradGrad);
  RegisterGrad("SoftplusGrad", SoftplusGradGrad);
  RegisterGrad("SoftsignGrad", SoftsignGradGrad);
  for (const char* bn : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})
    RegisterGrad(bn, FusedBatchNormGradFn);
  for (const char* bn : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"})
    RegisterGrad(bn, FusedBatchNormGradGrad);
}

}  // namespace gradients
}  // namespace opgen
