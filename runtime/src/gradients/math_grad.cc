// Gradients of the element-wise math ops, Cast, AddN, Select/SelectV2 and ClipByValue,
// with TensorFlow's formulas (its math_grad.py). Binary ops broadcast, so each operand's
// gradient is summed back to its shape (SetBroadcastGrads). For complex dtypes the
// gradient is TensorFlow's: the conjugate of the derivative times the incoming gradient.
#include <cmath>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

bool IsComplex(TF_DataType t) { return t == TF_COMPLEX64 || t == TF_COMPLEX128; }
TF_DataType PartType(TF_DataType complex) {
  return complex == TF_COMPLEX128 ? TF_DOUBLE : TF_FLOAT;
}
TF_DataType ComplexType(TF_DataType part) {
  return part == TF_DOUBLE ? TF_COMPLEX128 : TF_COMPLEX64;
}
// conj(t) for complex t; t itself otherwise (conjugation is the identity on reals).
TF_Output Conj(GradBuilder& b, TF_Output t) {
  return IsComplex(GradBuilder::dtype(t)) ? b.Op("Conj", {t}) : t;
}
// The complex tensor with real part `re` (float or double) and a zero imaginary part.
TF_Output AsComplex(GradBuilder& b, TF_Output re) {
  return b.Op("Complex", {re, b.Op("ZerosLike", {re})}, {{"Tout", ComplexType(GradBuilder::dtype(re))}});
}

// ---- binary ----

void AddGrad(GradBuilder& b) { b.SetBroadcastGrads(b.grad(0), b.grad(0)); }

void SubGrad(GradBuilder& b) {
  b.SetBroadcastGrads(b.grad(0), b.needs(1) ? b.Op("Neg", {b.grad(0)}) : b.grad(0));
}

void MulGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  b.SetBroadcastGrads(b.needs(0) ? b.Op("Mul", {dz, Conj(b, y)}) : dz,
                      b.needs(1) ? b.Op("Mul", {Conj(b, x), dz}) : dz);
}

// z = x / y: dx = dz / y, dy = dz * (-x / y / y), x and y conjugated where complex.
// `quotient` divides: RealDiv for Div and RealDiv (they agree on floats); DivNoNan for
// DivNoNan, so that no gradient flows where y is 0.
void QuotientGrad(GradBuilder& b, const char* quotient) {
  const TF_Output x = Conj(b, b.input(0)), y = Conj(b, b.input(1)), dz = b.grad(0);
  TF_Output gx = dz, gy = dz;
  if (b.needs(0)) gx = b.Op(quotient, {dz, y});
  if (b.needs(1))
    gy = b.Op("Mul", {dz, b.Op(quotient, {b.Op(quotient, {b.Op("Neg", {x}), y}), y})});
  b.SetBroadcastGrads(gx, gy);
}

void DivGrad(GradBuilder& b) { QuotientGrad(b, "RealDiv"); }
void DivNoNanGrad(GradBuilder& b) { QuotientGrad(b, "DivNoNan"); }

// x mod y = x - floor(x / y) * y.
void FloorModGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  b.SetBroadcastGrads(
      dz, b.needs(1) ? b.Op("Mul", {dz, b.Op("Neg", {b.Op("FloorDiv", {x, y})})}) : dz);
}

// The gradient goes to x where `x cmp y` holds (ties to x), else to y.
void MaximumMinimumGrad(GradBuilder& b, const char* cmp) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  const TF_Output mask = b.Op(cmp, {x, y});
  const TF_Output zeros = b.Op("ZerosLike", {dz});
  b.SetBroadcastGrads(b.Op("SelectV2", {mask, dz, zeros}), b.Op("SelectV2", {mask, zeros, dz}));
}
void MaximumGrad(GradBuilder& b) { MaximumMinimumGrad(b, "GreaterEqual"); }
void MinimumGrad(GradBuilder& b) { MaximumMinimumGrad(b, "LessEqual"); }

void SquaredDifferenceGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  const TF_Output gx =
      b.Op("Mul", {b.Op("Mul", {dz, b.ScalarLike(2.0, dz)}), b.Op("Sub", {x, y})});
  b.SetBroadcastGrads(gx, b.needs(1) ? b.Op("Neg", {gx}) : gx);
}

// z = x^y: dx = dz * y * x^(y-1); dy = dz * z * log(x) where x > 0 (x != 0 for complex
// x, whose logarithm is defined off the positive axis), else 0; x, y and z conjugated
// where complex.
void PowGrad(GradBuilder& b) {
  const TF_Output x = Conj(b, b.input(0)), y = Conj(b, b.input(1)), z = Conj(b, b.output(0));
  const TF_Output dz = b.grad(0);
  TF_Output gx = dz, gy = dz;
  if (b.needs(0)) {
    const TF_Output y_minus_1 = b.Op("Sub", {y, b.ScalarLike(1.0, y)});
    gx = b.Op("Mul", {b.Op("Mul", {dz, y}), b.Op("Pow", {x, y_minus_1})});
  }
  if (b.needs(1)) {
    const TF_Output positive =
        IsComplex(GradBuilder::dtype(x)) ? b.Op("NotEqual", {x, b.ScalarLike(0.0, x)})
                                         : b.Op("Greater", {x, b.ScalarLike(0.0, x)});
    const TF_Output safe_x = b.Op("SelectV2", {positive, x, b.Op("OnesLike", {x})});
    const TF_Output log_x =
        b.Op("SelectV2", {positive, b.Op("Log", {safe_x}), b.Op("ZerosLike", {x})});
    gy = b.Op("Mul", {b.Op("Mul", {dz, z}), log_x});
  }
  b.SetBroadcastGrads(gx, gy);
}

// ---- unary: dx = dz * f'(x), or a fused *Grad op of the output ----

void NegGrad(GradBuilder& b) { b.Set(0, b.Op("Neg", {b.grad(0)})); }
void AbsGrad(GradBuilder& b) { b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Sign", {b.input(0)})})); }
void SignGrad(GradBuilder& b) { b.Set(0, b.Op("ZerosLike", {b.input(0)})); }
void SquareGrad(GradBuilder& b) {
  const TF_Output x = Conj(b, b.input(0));
  b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Mul", {x, b.ScalarLike(2.0, x)})}));
}
void ExpGrad(GradBuilder& b) { b.Set(0, b.Op("Mul", {b.grad(0), Conj(b, b.output(0))})); }
// d expm1(x) = exp(x) (not expm1's output + 1: that loses the small-x accuracy's point).
void Expm1Grad(GradBuilder& b) {
  b.Set(0, b.Op("Mul", {b.grad(0), Conj(b, b.Op("Exp", {b.input(0)}))}));
}
void LogGrad(GradBuilder& b) {
  b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Reciprocal", {Conj(b, b.input(0))})}));
}
void Log1pGrad(GradBuilder& b) {
  const TF_Output x = b.input(0);
  b.Set(0, b.Op("Mul", {b.grad(0),
                        b.Op("Reciprocal", {b.Op("AddV2", {b.ScalarLike(1.0, x), x})})}));
}
void SinGrad(GradBuilder& b) { b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Cos", {b.input(0)})})); }
void CosGrad(GradBuilder& b) {
  b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Neg", {b.Op("Sin", {b.input(0)})})}));
}
// d erf(x) = 2/sqrt(pi) exp(-x^2); erfc is its negation.
void ErfFamilyGrad(GradBuilder& b, double sign) {
  const TF_Output x = b.input(0);
  const TF_Output scale = b.ScalarLike(sign * 2.0 / std::sqrt(M_PI), x);
  const TF_Output bell = b.Op("Exp", {b.Op("Neg", {b.Op("Square", {x})})});
  b.Set(0, b.Op("Mul", {b.grad(0), b.Op("Mul", {scale, bell})}));
}
void ErfGrad(GradBuilder& b) { ErfFamilyGrad(b, 1.0); }
void ErfcGrad(GradBuilder& b) { ErfFamilyGrad(b, -1.0); }

// y = f(x) with a fused gradient op FGrad(y, dy). SqrtGrad and RsqrtGrad conjugate a
// complex y themselves; TanhGrad and SigmoidGrad are given conj(y), as TensorFlow's.
template <const char* kGradOp>
void FusedUnaryGrad(GradBuilder& b) { b.Set(0, b.Op(kGradOp, {b.output(0), b.grad(0)})); }
template <const char* kGradOp>
void FusedUnaryGradOfConj(GradBuilder& b) {
  b.Set(0, b.Op(kGradOp, {Conj(b, b.output(0)), b.grad(0)}));
}
constexpr char kSqrtGrad[] = "SqrtGrad", kRsqrtGrad[] = "RsqrtGrad", kTanhGrad[] = "TanhGrad",
               kSigmoidGrad[] = "SigmoidGrad";

// 1/x: ReciprocalGrad(y, dz) = -dz y^2 for reals; -dz conj(y)^2 for complex y, built
// from the arithmetic (ReciprocalGrad has real kernels only).
void ReciprocalGrad(GradBuilder& b) {
  const TF_Output y = b.output(0), dz = b.grad(0);
  if (!IsComplex(GradBuilder::dtype(y))) {
    b.Set(0, b.Op("ReciprocalGrad", {y, dz}));
    return;
  }
  b.Set(0, b.Op("Neg", {b.Op("Mul", {dz, b.Op("Square", {b.Op("Conj", {y})})})}));
}

// ---- second derivatives of the fused gradient ops FGrad(y, dy), linear in dy ----

// ReciprocalGrad(y, dy) = -dy y^2: d/dy = -2 g dy y; d/d(dy) = ReciprocalGrad(y, g).
// For complex y TensorFlow's formula: -2 conj(g) dy conj(y), and ReciprocalGrad(conj(y), g).
void ReciprocalGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (IsComplex(GradBuilder::dtype(y))) {
    const TF_Output cy = b.Op("Conj", {y});
    if (b.needs(0))
      b.Set(0, b.Op("Mul", {b.Op("Mul", {b.Op("Mul", {b.Op("Conj", {g}), b.ScalarLike(-2.0, y)}), dy}),
                            cy}));
    if (b.needs(1)) b.Set(1, b.Op("ReciprocalGrad", {cy, g}));
    return;
  }
  if (b.needs(0))
    b.Set(0, b.Op("Mul", {b.Op("Mul", {g, dy}), b.Op("Mul", {y, b.ScalarLike(-2.0, y)})}));
  if (b.needs(1)) b.Set(1, b.Op("ReciprocalGrad", {y, g}));
}

// RsqrtGrad(y, dy) = -dy y^3 / 2: d/dy = -1.5 g dy y^2; d/d(dy) = RsqrtGrad(y, g).
void RsqrtGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), dy = b.input(1), g = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("Mul", {b.Op("Mul", {g, dy}),
                          b.Op("Mul", {b.Op("Square", {y}), b.ScalarLike(-1.5, y)})}));
  if (b.needs(1)) b.Set(1, b.Op("RsqrtGrad", {y, g}));
}

// SqrtGrad(y, dy) = dy / (2 y) = z: d/dy = -(g / y) z; d/d(dy) = g / (2 y).
void SqrtGradGrad(GradBuilder& b) {
  const TF_Output y = b.input(0), z = b.output(0);
  const TF_Output g_over_y = b.Op("RealDiv", {b.grad(0), y});
  if (b.needs(0)) b.Set(0, b.Op("Neg", {b.Op("Mul", {g_over_y, z})}));
  if (b.needs(1)) b.Set(1, b.Op("Mul", {g_over_y, b.ScalarLike(0.5, y)}));
}

// ---- other ----

bool FloatingOrComplex(TF_DataType t) {
  return t == TF_HALF || t == TF_BFLOAT16 || t == TF_FLOAT || t == TF_DOUBLE ||
         t == TF_COMPLEX64 || t == TF_COMPLEX128;
}

// Back to the source dtype when both are floating-point or complex; else none.
void CastGrad(GradBuilder& b) {
  const TF_DataType src = b.AttrType("SrcT"), dst = b.AttrType("DstT");
  if (!FloatingOrComplex(src) || !FloatingOrComplex(dst)) return;
  b.Set(0, src == dst ? b.grad(0) : b.Op("Cast", {b.grad(0)}, {{"DstT", src}}));
}

// Cross(u, v): (cross(v, g), cross(g, u)).
void CrossGrad(GradBuilder& b) {
  const TF_Output u = b.input(0), v = b.input(1), g = b.grad(0);
  if (b.needs(0)) b.Set(0, b.Op("Cross", {v, g}));
  if (b.needs(1)) b.Set(1, b.Op("Cross", {g, u}));
}

// AddN and AccumulateNV2: the gradient passes to every input.
void AddNGrad(GradBuilder& b) {
  for (int i = 0; i < b.num_inputs(); ++i)
    if (b.needs(i)) b.Set(i, b.grad(0));
}

// Select(c, t, e) (v1: c as t's shape or a vector along t's first dim).
void SelectGrad(GradBuilder& b) {
  const TF_Output c = b.input(0), dz = b.grad(0);
  const TF_Output zeros = b.Op("ZerosLike", {dz});
  if (b.needs(1)) b.Set(1, b.Op("Select", {c, dz, zeros}));
  if (b.needs(2)) b.Set(2, b.Op("Select", {c, zeros, dz}));
}

void SelectV2Grad(GradBuilder& b) {
  const TF_Output c = b.input(0), dz = b.grad(0);
  const TF_Output zeros = b.Op("ZerosLike", {dz});
  if (b.needs(1)) b.Set(1, b.SumToShapeOf(b.Op("SelectV2", {c, dz, zeros}), b.input(1)));
  if (b.needs(2)) b.Set(2, b.SumToShapeOf(b.Op("SelectV2", {c, zeros, dz}), b.input(2)));
}

// clip(t, lo, hi): the gradient goes to t inside the bounds, else to the bound taken.
void ClipByValueGrad(GradBuilder& b) {
  const TF_Output t = b.input(0), lo = b.input(1), hi = b.input(2), dz = b.grad(0);
  const TF_Output zeros = b.Op("ZerosLike", {dz});
  const TF_Output below = b.Op("Less", {t, lo}), above = b.Op("Greater", {t, hi});
  if (b.needs(0))
    b.Set(0, b.SumToShapeOf(b.Op("SelectV2", {b.Op("LogicalOr", {below, above}), zeros, dz}), t));
  if (b.needs(1)) b.Set(1, b.SumToShapeOf(b.Op("SelectV2", {below, dz, zeros}), lo));
  if (b.needs(2)) b.Set(2, b.SumToShapeOf(b.Op("SelectV2", {above, dz, zeros}), hi));
}

// ---- the complex family ----

// y = |x|: dx = complex(g / y, 0) * x, and 0 where y is 0 (TensorFlow's div_no_nan of
// complex(g, 0) * x by complex(y, 0), divided in the real type).
void ComplexAbsGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.output(0), g = b.grad(0);
  const TF_Output zeros = b.Op("ZerosLike", {y});
  const TF_Output at_zero = b.Op("Equal", {y, zeros});
  const TF_Output safe_y = b.Op("SelectV2", {at_zero, b.Op("OnesLike", {y}), y});
  const TF_Output scale = b.Op("SelectV2", {at_zero, zeros, b.Op("RealDiv", {g, safe_y})});
  b.Set(0, b.Op("Mul", {AsComplex(b, scale), x}));
}

// out = re + i im: d re = Real(g), d im = Imag(g), each summed to its operand's shape.
void ComplexGrad(GradBuilder& b) {
  const TF_Output g = b.grad(0);
  const TF_DataType part = PartType(GradBuilder::dtype(g));
  b.SetBroadcastGrads(b.needs(0) ? b.Op("Real", {g}, {{"Tout", part}}) : g,
                      b.needs(1) ? b.Op("Imag", {g}, {{"Tout", part}}) : g);
}

// A real gradient g of Real(z) is complex(g, 0); of Imag(z), complex(0, g).
void RealGrad(GradBuilder& b) { b.Set(0, AsComplex(b, b.grad(0))); }
void ImagGrad(GradBuilder& b) {
  const TF_Output g = b.grad(0);
  b.Set(0, b.Op("Complex", {b.Op("ZerosLike", {g}), g}, {{"Tout", b.dtype(b.input(0))}}));
}
void ConjGrad(GradBuilder& b) { b.Set(0, b.Op("Conj", {b.grad(0)})); }

// y = atan2(im, re): dz = -complex(g, 0) / complex(im, re).
void AngleGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), g = b.grad(0);
  const TF_DataType complex = b.dtype(x), part = PartType(complex);
  const TF_Output flipped = b.Op("Complex", {b.Op("Imag", {x}, {{"Tout", part}}),
                                             b.Op("Real", {x}, {{"Tout", part}})},
                                 {{"Tout", complex}});
  b.Set(0, b.Op("Neg", {b.Op("Mul", {AsComplex(b, g), b.Op("Reciprocal", {flipped})})}));
}

}  // namespace

void RegisterMathGradients() {
  RegisterGrad("Add", AddGrad);
  RegisterGrad("AddV2", AddGrad);
  RegisterGrad("Sub", SubGrad);
  RegisterGrad("Mul", MulGrad);
  RegisterGrad("Div", DivGrad);
  RegisterGrad("RealDiv", DivGrad);
  RegisterGrad("FloorMod", FloorModGrad);
  RegisterGrad("Maximum", MaximumGrad);
  RegisterGrad("Minimum", MinimumGrad);
  RegisterGrad("SquaredDifference", SquaredDifferenceGrad);
  RegisterGrad("Pow", PowGrad);
  RegisterGrad("DivNoNan", DivNoNanGrad);
  RegisterGrad("Neg", NegGrad);
  RegisterGrad("Abs", AbsGrad);
  RegisterGrad("Sign", SignGrad);
  RegisterGrad("Square", SquareGrad);
  RegisterGrad("Sqrt", FusedUnaryGrad<kSqrtGrad>);
  RegisterGrad("Rsqrt", FusedUnaryGrad<kRsqrtGrad>);
  RegisterGrad("Tanh", FusedUnaryGradOfConj<kTanhGrad>);
  RegisterGrad("Sigmoid", FusedUnaryGradOfConj<kSigmoidGrad>);
  RegisterGrad("Reciprocal", ReciprocalGrad);
  RegisterGrad("ReciprocalGrad", ReciprocalGradGrad);
  // Inv is Reciprocal's older name; TensorFlow builds its gradients with ReciprocalGrad too.
  RegisterGrad("Inv", ReciprocalGrad);
  RegisterGrad("InvGrad", ReciprocalGradGrad);
  RegisterGrad("RsqrtGrad", RsqrtGradGrad);
  RegisterGrad("SqrtGrad", SqrtGradGrad);
  RegisterGrad("Exp", ExpGrad);
  RegisterGrad("Expm1", Expm1Grad);
  RegisterGrad("Log", LogGrad);
  RegisterGrad("Log1p", Log1pGrad);
  RegisterGrad("Sin", SinGrad);
  RegisterGrad("Cos", CosGrad);
  RegisterGrad("Erf", ErfGrad);
  RegisterGrad("Erfc", ErfcGrad);
  RegisterGrad("Cast", CastGrad);
  RegisterGrad("AddN", AddNGrad);
  RegisterGrad("AccumulateNV2", AddNGrad);
  RegisterGrad("Cross", CrossGrad);
  RegisterGrad("Select", SelectGrad);
  RegisterGrad("SelectV2", SelectV2Grad);
  RegisterGrad("ClipByValue", ClipByValueGrad);
  RegisterGrad("ComplexAbs", ComplexAbsGrad);
  RegisterGrad("Complex", ComplexGrad);
  RegisterGrad("Real", RealGrad);
  RegisterGrad("Imag", ImagGrad);
  RegisterGrad("Conj", ConjGrad);
  RegisterGrad("Angle", AngleGrad);
}

}  // namespace gradients
}  // namespace opgen
