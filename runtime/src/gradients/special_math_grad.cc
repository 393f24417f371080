// Gradients of ops/special_math_ops.cc's element-wise ops, with TensorFlow's formulas
// (its math_grad.py): the inverse and hyperbolic trigonometric functions, Lgamma (through
// Digamma), Digamma (through Polygamma), Erfinv, Ndtri, the scaled Bessel functions,
// Atan2, the zero-safe family (Xlogy, Xdivy, Xlog1py, MulNoNan), NextAfter, and the
// incomplete gamma and beta functions, Polygamma and Zeta (TensorFlow gives none for the
// order of Polygamma, Zeta's x or Betainc's a and b: nor does this). Mod and TruncateMod
// have none in TensorFlow either. And the stateless gamma samplers' gradient for alpha,
// through RandomGammaGrad.
#include <cmath>
#include <limits>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// dx = dz * factor.
void Scale(GradBuilder& b, TF_Output factor) { b.Set(0, b.Op("Mul", {b.grad(0), factor})); }

TF_Output OnePlusMinusSquare(GradBuilder& b, TF_Output x, const char* add_or_sub) {
  return b.Op(add_or_sub, {b.ScalarLike(1.0, x), b.Op("Square", {x})});
}

void TanGrad(GradBuilder& b) {
  Scale(b, b.Op("Square", {b.Op("Reciprocal", {b.Op("Cos", {b.input(0)})})}));
}
void AsinGrad(GradBuilder& b) { Scale(b, b.Op("Rsqrt", {OnePlusMinusSquare(b, b.input(0), "Sub")})); }
void AcosGrad(GradBuilder& b) {
  Scale(b, b.Op("Neg", {b.Op("Rsqrt", {OnePlusMinusSquare(b, b.input(0), "Sub")})}));
}
void AtanGrad(GradBuilder& b) {
  Scale(b, b.Op("Reciprocal", {OnePlusMinusSquare(b, b.input(0), "AddV2")}));
}
void AtanhGrad(GradBuilder& b) {
  Scale(b, b.Op("Reciprocal", {OnePlusMinusSquare(b, b.input(0), "Sub")}));
}
void SinhGrad(GradBuilder& b) { Scale(b, b.Op("Cosh", {b.input(0)})); }
void CoshGrad(GradBuilder& b) { Scale(b, b.Op("Sinh", {b.input(0)})); }
// Of the output: d asinh(x) = 1 / cosh(y), d acosh(x) = 1 / sinh(y).
void AsinhGrad(GradBuilder& b) { Scale(b, b.Op("Reciprocal", {b.Op("Cosh", {b.output(0)})})); }
void AcoshGrad(GradBuilder& b) { Scale(b, b.Op("Reciprocal", {b.Op("Sinh", {b.output(0)})})); }
void LgammaGrad(GradBuilder& b) { Scale(b, b.Op("Digamma", {b.input(0)})); }
// d erfinv(x) = sqrt(pi) / 2 * exp(y^2); d ndtri(x) = sqrt(2 pi) * exp(y^2 / 2).
void ErfinvGrad(GradBuilder& b) {
  const TF_Output y = b.output(0);
  Scale(b, b.Op("Mul", {b.ScalarLike(std::sqrt(M_PI) / 2, y), b.Op("Exp", {b.Op("Square", {y})})}));
}
void NdtriGrad(GradBuilder& b) {
  const TF_Output y = b.output(0);
  const TF_Output half_square = b.Op("Mul", {b.Op("Square", {y}), b.ScalarLike(0.5, y)});
  Scale(b, b.Op("Mul", {b.ScalarLike(std::sqrt(2 * M_PI), y), b.Op("Exp", {half_square})}));
}
// d i0e(x) = i1e(x) - sign(x) i0e(x).
void BesselI0eGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.output(0);
  Scale(b, b.Op("Sub", {b.Op("BesselI1e", {x}), b.Op("Mul", {b.Op("Sign", {x}), y})}));
}
// d i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x), and its limit 1/2 at 0.
void BesselI1eGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.output(0);
  const TF_Output rest = b.Op("Mul", {y, b.Op("AddV2", {b.Op("Sign", {x}), b.Op("Reciprocal", {x})})});
  const TF_Output slope = b.Op("Sub", {b.Op("BesselI0e", {x}), rest});
  const TF_Output at_zero = b.Op("Equal", {x, b.ScalarLike(0.0, x)});
  Scale(b, b.Op("SelectV2", {at_zero, b.ScalarLike(0.5, x), slope}));
}

// z = atan2(y, x): dy = dz x / (x^2 + y^2), dx = -dz y / (x^2 + y^2).
void Atan2Grad(GradBuilder& b) {
  const TF_Output y = b.input(0), x = b.input(1), dz = b.grad(0);
  const TF_Output scale = b.Op("RealDiv", {dz, b.Op("AddV2", {b.Op("Square", {x}), b.Op("Square", {y})})});
  b.SetBroadcastGrads(b.needs(0) ? b.Op("Mul", {scale, x}) : dz,
                      b.needs(1) ? b.Op("Mul", {scale, b.Op("Neg", {y})}) : dz);
}

// 1 where x != 0, else 0, in x's dtype: the zero-safe ops' dz/dx carries it so that no
// gradient flows where x is 0.
TF_Output NonZero(GradBuilder& b, TF_Output x) {
  return b.Op("Cast", {b.Op("NotEqual", {x, b.ScalarLike(0.0, x)})}, {{"DstT", GradBuilder::dtype(x)}});
}
// z = x * log(y) (0 where x is 0): dx = log(y) where x != 0, dy = x / y.
void XlogyGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  b.SetBroadcastGrads(b.needs(0) ? b.Op("Mul", {dz, b.Op("Xlogy", {NonZero(b, x), y})}) : dz,
                      b.needs(1) ? b.Op("Mul", {dz, b.Op("Xdivy", {x, y})}) : dz);
}
// z = x * log1p(y): dx = log1p(y) where x != 0, dy = x / (y + 1).
void Xlog1pyGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  const TF_Output y_plus_1 = b.needs(1) ? b.Op("AddV2", {y, b.ScalarLike(1.0, y)}) : y;
  b.SetBroadcastGrads(b.needs(0) ? b.Op("Mul", {dz, b.Op("Xlog1py", {NonZero(b, x), y})}) : dz,
                      b.needs(1) ? b.Op("Mul", {dz, b.Op("Xdivy", {x, y_plus_1})}) : dz);
}
// z = x / y: dx = 1 / y where x != 0, dy = -x / y^2.
void XdivyGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  b.SetBroadcastGrads(
      b.needs(0) ? b.Op("Mul", {dz, b.Op("Xdivy", {NonZero(b, x), y})}) : dz,
      b.needs(1) ? b.Op("Mul", {dz, b.Op("Xdivy", {b.Op("Neg", {x}), b.Op("Square", {y})})}) : dz);
}
void MulNoNanGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  b.SetBroadcastGrads(b.needs(0) ? b.Op("MulNoNan", {dz, y}) : dz,
                      b.needs(1) ? b.Op("MulNoNan", {x, dz}) : dz);
}
// TensorFlow's: the identity for x1, zero for x2.
void NextAfterGrad(GradBuilder& b) {
  const TF_Output dz = b.grad(0);
  b.SetBroadcastGrads(dz, b.needs(1) ? b.Op("ZerosLike", {dz}) : dz);
}

// d digamma(x) = polygamma(1, x).
void DigammaGrad(GradBuilder& b) {
  const TF_Output x = b.input(0);
  Scale(b, b.Op("Polygamma", {b.ScalarLike(1.0, x), x}));
}

// z = P(a, x): dz/da is IgammaGradA; dz/dx is the gamma density
// x^(a-1) e^-x / Gamma(a), formed in logs (Gamma(a) overflows long before the ratio).
// Q = 1 - P has both negated.
void IncompleteGammaGrads(GradBuilder& b, bool upper) {
  const TF_Output a = b.input(0), x = b.input(1);
  TF_Output dz = b.grad(0);
  if (upper) dz = b.Op("Neg", {dz});
  TF_Output da = dz, dx = dz;
  if (b.needs(0)) da = b.Op("Mul", {dz, b.Op("IgammaGradA", {a, x})});
  if (b.needs(1)) {
    const TF_Output a_minus_1 = b.Op("Sub", {a, b.ScalarLike(1.0, a)});
    const TF_Output log_density =
        b.Op("Sub", {b.Op("Sub", {b.Op("Mul", {a_minus_1, b.Op("Log", {x})}), x}),
                     b.Op("Lgamma", {a})});
    dx = b.Op("Mul", {dz, b.Op("Exp", {log_density})});
  }
  b.SetBroadcastGrads(da, dx);
}
void IgammaGrad(GradBuilder& b) { IncompleteGammaGrads(b, false); }
void IgammacGrad(GradBuilder& b) { IncompleteGammaGrads(b, true); }

// z = polygamma(n, x): dx = polygamma(n + 1, x); none for the order n.
void PolygammaGrad(GradBuilder& b) {
  if (!b.needs(1)) return;
  const TF_Output n = b.input(0), x = b.input(1);
  const TF_Output slope = b.Op("Polygamma", {b.Op("AddV2", {n, b.ScalarLike(1.0, n)}), x});
  b.Set(1, b.SumToShapeOf(b.Op("Mul", {b.grad(0), slope}), x));
}

// z = zeta(x, q): dq = -x zeta(x + 1, q); none for x.
void ZetaGrad(GradBuilder& b) {
  if (!b.needs(1)) return;
  const TF_Output x = b.input(0), q = b.input(1);
  const TF_Output next = b.Op("Zeta", {b.Op("AddV2", {x, b.ScalarLike(1.0, x)}), q});
  const TF_Output slope = b.Op("Mul", {b.Op("Neg", {x}), next});
  b.Set(1, b.SumToShapeOf(b.Op("Mul", {b.grad(0), slope}), q));
}

// z = I_x(a, b): dx = x^(a-1) (1-x)^(b-1) / B(a, b), in logs (Xlogy/Xlog1py keep
// a = 1 or b = 1 finite at x = 0 or 1); none for a and b.
void BetaincGrad(GradBuilder& b) {
  if (!b.needs(2)) return;
  const TF_Output pa = b.input(0), pb = b.input(1), x = b.input(2);
  const TF_Output one = b.ScalarLike(1.0, x);
  const TF_Output log_beta =
      b.Op("Sub", {b.Op("AddV2", {b.Op("Lgamma", {pa}), b.Op("Lgamma", {pb})}),
                   b.Op("Lgamma", {b.Op("AddV2", {pa, pb})})});
  const TF_Output log_density = b.Op(
      "Sub", {b.Op("AddV2", {b.Op("Xlog1py", {b.Op("Sub", {pb, one}), b.Op("Neg", {x})}),
                             b.Op("Xlogy", {b.Op("Sub", {pa, one}), x})}),
              log_beta});
  b.Set(2, b.SumToShapeOf(b.Op("Mul", {b.grad(0), b.Op("Exp", {log_density})}), x));
}

// The stateless gamma samplers (alpha is input 2 of V2, input 4 of V3), as TensorFlow's
// random_grad.py: d sample / d alpha is RandomGammaGrad(alpha, sample), with alpha
// reshaped to broadcast against the samples (leading 1s for the sample dims), and the
// product with the incoming gradient summed over those sample dims.
void StatelessGammaGrad(GradBuilder& b, int alpha_index) {
  if (!b.needs(alpha_index)) return;
  const TF_Output alpha = b.input(alpha_index);
  const TF_Output sample_dims = b.Op("Sub", {b.Op("Size", {b.input(0)}), b.Op("Rank", {alpha})});
  const TF_Output ones = b.Op("Fill", {b.Op("Reshape", {sample_dims, b.Int32s({1})}), b.Int32(1)});
  const TF_Output shape =
      b.Op("ConcatV2", {std::vector<TF_Output>{ones, b.Op("Shape", {alpha})}, b.Int32(0)});
  const TF_Output partial = b.Op("RandomGammaGrad", {b.Op("Reshape", {alpha, shape}), b.output(0)});
  const TF_Output axes = b.Op("Range", {b.Int32(0), sample_dims, b.Int32(1)});
  b.Set(alpha_index, b.Op("Sum", {b.Op("Mul", {b.grad(0), partial}), axes}));
}
void StatelessGammaV2Grad(GradBuilder& b) { StatelessGammaGrad(b, 2); }
void StatelessGammaV3Grad(GradBuilder& b) { StatelessGammaGrad(b, 4); }
// A constant of `like`'s dtype holding `v` exactly (float or double).
TF_Output Exact(GradBuilder& b, double v, TF_Output like) {
  if (GradBuilder::dtype(like) == TF_DOUBLE) return b.ConstTensor(TF_DOUBLE, {}, &v, sizeof v);
  const float f = static_cast<float>(v);
  return b.ConstTensor(TF_FLOAT, {}, &f, sizeof f);
}
// The standard normal CDF as TensorFlow's random_grad.py writes it (erf near 0, erfc out).
TF_Output Ndtr(GradBuilder& b, TF_Output x) {
  const TF_Output half_sqrt_2 = Exact(b, 0.5 * std::sqrt(2.0), x);
  const TF_Output w = b.Op("Mul", {x, half_sqrt_2});
  const TF_Output z = b.Op("Abs", {w});
  const TF_Output erfc_z = b.Op("Erfc", {z});
  const TF_Output outer = b.Op("SelectV2", {b.Op("Greater", {w, Exact(b, 0.0, x)}),
                                            b.Op("Sub", {Exact(b, 2.0, x), erfc_z}), erfc_z});
  const TF_Output y = b.Op("SelectV2", {b.Op("Less", {z, half_sqrt_2}),
                                        b.Op("AddV2", {Exact(b, 1.0, x), b.Op("Erf", {w})}), outer});
  return b.Op("Mul", {Exact(b, 0.5, x), y});
}
// TensorFlow's implicit-reparameterization gradient (Figurnov et al. 2018), term for
// term: d/dmean 1, d/dstddev the standardized sample, d/dminval and d/dmaxval through the
// truncated CDF of the sample (clipped to [tiny, 1 - eps]); each summed over the sample
// dims and then to its parameter's shape.
void ParameterizedTruncatedNormalGrad(GradBuilder& b) {
  const TF_Output mean = b.input(2), stddev = b.input(3), minval = b.input(4), maxval = b.input(5);
  const TF_Output sample = b.output(0);
  const bool is_double = GradBuilder::dtype(mean) == TF_DOUBLE;
  auto standardized = [&](TF_Output v) { return b.Op("RealDiv", {b.Op("Sub", {v, mean}), stddev}); };
  const TF_Output min_std = standardized(minval), max_std = standardized(maxval), sample_std = standardized(sample);
  const TF_Output ndtr_min = Ndtr(b, min_std);
  TF_Output cdf = b.Op("RealDiv", {b.Op("Sub", {Ndtr(b, sample_std), ndtr_min}),
                                   b.Op("Sub", {Ndtr(b, max_std), ndtr_min})});
  const double tiny = is_double ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
  const double one_minus_eps = is_double ? 1 - std::numeric_limits<double>::epsilon()
                                         : 1 - static_cast<double>(std::numeric_limits<float>::epsilon());
  cdf = b.Op("Maximum", {b.Op("Minimum", {cdf, Exact(b, one_minus_eps, mean)}), Exact(b, tiny, mean)});
  const TF_Output two = Exact(b, 2.0, mean), half = Exact(b, 0.5, mean);
  auto half_gap = [&](TF_Output bound_std) {
    return b.Op("Mul", {half, b.Op("Sub", {b.Op("Pow", {sample_std, two}), b.Op("Pow", {bound_std, two})})});
  };
  const TF_Output dmax = b.Op("Exp", {b.Op("AddV2", {half_gap(max_std), b.Op("Log", {cdf})})});
  const TF_Output dmin = b.Op("Exp", {b.Op("AddV2", {half_gap(min_std), b.Op("Log1p", {b.Op("Neg", {cdf})})})});
  const TF_Output partials[4] = {b.Op("OnesLike", {sample_std}), sample_std, dmin, dmax};
  const TF_Output shapes[4] = {b.Op("Shape", {mean}), b.Op("Shape", {stddev}), b.Op("Shape", {minval}),
                               b.Op("Shape", {maxval})};
  TF_Output batch = b.Op("BroadcastArgs", {shapes[0], shapes[1]});
  batch = b.Op("BroadcastArgs", {shapes[2], batch});
  batch = b.Op("BroadcastArgs", {shapes[3], batch});
  const TF_Output extra = b.Op("Range", {b.Int32(0), b.Op("Sub", {b.Op("Size", {b.input(0)}), b.Op("Size", {batch})}),
                                         b.Int32(1)});
  for (int i = 0; i < 4; ++i) {
    if (!b.needs(2 + i)) continue;
    const TF_Output summed = b.Op("Sum", {b.Op("Mul", {b.grad(0), partials[i]}), extra});
    TF_Operation* args = b.Node("BroadcastGradientArgs", {batch, shapes[i]});
    if (!b.ok()) return;
    const TF_Output kept = b.Op("Sum", {summed, TF_Output{args, 1}}, {{"keep_dims", true}});
    b.Set(2 + i, b.Op("Reshape", {kept, shapes[i]}));
  }
}

// Building a gradient through these says why there is none, rather than giving none.
void TruncatingRemainderGrad(GradBuilder& b) {
  if (b.ok())
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "Mod and TruncateMod have no gradient (TensorFlow defines none either)");
}
void SecondDerivativeGrad(GradBuilder& b) {
  if (b.ok())
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "IgammaGradA and RandomGammaGrad have no gradient (TensorFlow defines none "
                 "either)");
}

}  // namespace

void RegisterSpecialMathGradients() {
  RegisterGrad("Digamma", DigammaGrad);
  RegisterGrad("Mod", TruncatingRemainderGrad);
  RegisterGrad("TruncateMod", TruncatingRemainderGrad);
  RegisterGrad("IgammaGradA", SecondDerivativeGrad);
  RegisterGrad("RandomGammaGrad", SecondDerivativeGrad);
  RegisterGrad("StatelessRandomGammaV2", StatelessGammaV2Grad);
  RegisterGrad("StatelessRandomGammaV3", StatelessGammaV3Grad);
  RegisterGrad("StatelessParameterizedTruncatedNormal", ParameterizedTruncatedNormalGrad);
  RegisterGrad("Tan", TanGrad);
  RegisterGrad("Asin", AsinGrad);
  RegisterGrad("Acos", AcosGrad);
  RegisterGrad("Atan", AtanGrad);
  RegisterGrad("Sinh", SinhGrad);
  RegisterGrad("Cosh", CoshGrad);
  RegisterGrad("Asinh", AsinhGrad);
  RegisterGrad("Acosh", AcoshGrad);
  RegisterGrad("Atanh", AtanhGrad);
  RegisterGrad("Lgamma", LgammaGrad);
  RegisterGrad("Erfinv", ErfinvGrad);
  RegisterGrad("Ndtri", NdtriGrad);
  RegisterGrad("BesselI0e", BesselI0eGrad);
  RegisterGrad("BesselI1e", BesselI1eGrad);
  RegisterGrad("Atan2", Atan2Grad);
  RegisterGrad("Xlogy", XlogyGrad);
  RegisterGrad("Xlog1py", Xlog1pyGrad);
  RegisterGrad("Xdivy", XdivyGrad);
  RegisterGrad("MulNoNan", MulNoNanGrad);
  RegisterGrad("NextAfter", NextAfterGrad);
  RegisterGrad("Igamma", IgammaGrad);
  RegisterGrad("Igammac", IgammacGrad);
  RegisterGrad("Polygamma", PolygammaGrad);
  RegisterGrad("Zeta", ZetaGrad);
  RegisterGrad("Betainc", BetaincGrad);
}

}  // namespace gradients
}  // namespace opgen
