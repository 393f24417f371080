// Element-wise math beyond the core arithmetic: the inverse and hyperbolic trigonometric
// functions, special functions (log-gamma, digamma, the inverse error and normal
// functions, scaled Bessel functions), truncating division and remainders, the
// zero-safe products and logarithms (Xlogy, MulNoNan, ...), shifts and NextAfter; the
// incomplete gamma and beta functions, polygamma and Hurwitz zeta.
// Kernels: kernels/elementwise_math_spec.h (shared by the CPU and CUDA kernels).
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

constexpr const char* kFloatTypes = "T: {bfloat16, half, float, double}";
constexpr const char* kFloatComplexTypes =
    "T: {bfloat16, half, float, double, complex64, complex128}";
// Xlogy, Xdivy, Xlog1py list half before bfloat16, as TensorFlow does.
constexpr const char* kXlogyTypes = "T: {half, bfloat16, float, double, complex64, complex128}";
constexpr const char* kShiftTypes =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";

// A binary op whose operands are not named x and y (Atan2's y and x, NextAfter's x1, x2).
OpRegistration NamedBinary(const char* name, const char* type_attr, const char* a,
                           const char* b, const char* out, const char* summary) {
  OpRegistration op{name, {type_attr}, {std::string(a) + ": T", std::string(b) + ": T"},
                    {std::string(out) + ": T"}, shape_fns::kBroadcast, summary,
                    "Both operands broadcast against each other as numpy arrays do.",
                    {{a, "First operand."}, {b, "Second operand."}, {out, "The result."}}};
  return op;
}

// Betainc: a, b and x are scalars or share one shape, which the output has; with two
// scalars the output is the third operand's shape, whatever is known of it.
void BetaincShape(ShapeFnContext& c) {
  PartialShape merged = PartialShape::Unknown(), non_scalar = PartialShape::Unknown();
  int scalars = 0;
  for (int i = 0; i < 3; ++i) {
    const PartialShape in = c.Input(i);
    if (!in.rank_known) {
      non_scalar = in;  // a scalar or not: only known to be whatever the others allow
    } else if (in.rank() == 0) {
      ++scalars;
    } else {
      merged = MergeShapes(merged, in, "a, b and x must be scalars or of one shape");
      non_scalar = merged;
    }
  }
  if (scalars == 3) c.SetOutput(0, PartialShape::Of({}));
  else if (scalars == 2) c.SetOutput(0, non_scalar);
  else c.SetOutput(0, merged);
}

// A special function of two operands, broadcast as numpy arrays, float and double only.
OpRegistration SpecialBinary(const char* name, const char* a, const char* b,
                             const char* summary, const char* out = "z") {
  return NamedBinary(name, "T: {float, double}", a, b, out, summary);
}

}  // namespace

void RegisterSpecialMathOps(TF_Status* status) {
  RegisterOps({
      UnaryOp("Tan", kFloatComplexTypes, "Returns the tangent of `x`."),
      UnaryOp("Asin", kFloatComplexTypes, "Returns the inverse sine of `x`, in [-pi/2, pi/2]."),
      UnaryOp("Acos", kFloatComplexTypes, "Returns the inverse cosine of `x`, in [0, pi]."),
      UnaryOp("Atan", kFloatComplexTypes, "Returns the inverse tangent of `x`."),
      UnaryOp("Sinh", kFloatComplexTypes, "Returns the hyperbolic sine of `x`."),
      UnaryOp("Cosh", kFloatComplexTypes, "Returns the hyperbolic cosine of `x`."),
      UnaryOp("Asinh", kFloatComplexTypes, "Returns the inverse hyperbolic sine of `x`."),
      UnaryOp("Acosh", kFloatComplexTypes, "Returns the inverse hyperbolic cosine of `x`."),
      UnaryOp("Atanh", kFloatComplexTypes, "Returns the inverse hyperbolic tangent of `x`."),
      UnaryOp("Lgamma", kFloatTypes,
              "Returns `log(|Gamma(x)|)`; +inf at the poles (zero and negative integers)."),
      UnaryOp("Digamma", kFloatTypes,
              "Returns the derivative of `Lgamma`; NaN at the poles (zero and negative "
              "integers)."),
      UnaryOp("Rint", kFloatTypes, "Rounds `x` to the nearest integer, halves to even."),
      UnaryOp("Erfinv", kFloatTypes,
              "Returns the inverse of the Gauss error function: +-inf at +-1, NaN beyond."),
      UnaryOp("Ndtri", kFloatTypes,
              "Returns the inverse of the standard normal distribution function: -inf at 0, "
              "+inf at 1, NaN outside [0, 1]."),
      UnaryOp("BesselI0e", kFloatTypes,
              "Returns `exp(-|x|) * I0(x)`, the exponentially scaled modified Bessel function "
              "of order 0."),
      UnaryOp("BesselI1e", kFloatTypes,
              "Returns `exp(-|x|) * I1(x)`, the exponentially scaled modified Bessel function "
              "of order 1."),
      NamedBinary("Atan2", "T: {bfloat16, half, float, double}", "y", "x", "z",
                  "Returns the angle of the point (`x`, `y`): `atan(y / x)` in the quadrant "
                  "of the point, in [-pi, pi]."),
      BinaryOp("Mod", "T: {int32, int64, half, half, bfloat16, float, double}",
               "Returns the remainder of truncating division; its sign follows `x`."),
      BinaryOp("TruncateDiv",
               "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
               "uint64, int64, complex64, complex128}",
               "Returns `x / y` rounded toward zero; an integer division by zero is an "
               "error."),
      BinaryOp("TruncateMod", "T: {int32, int64, bfloat16, half, float, double}",
               "Returns the remainder of truncating division; its sign follows `x`."),
      BinaryOp("Xlogy", kXlogyTypes, "Returns 0 where `x` is 0, else `x * log(y)`."),
      BinaryOp("Xdivy", kXlogyTypes, "Returns 0 where `x` is 0, else `x / y`."),
      BinaryOp("Xlog1py", kXlogyTypes, "Returns 0 where `x` is 0, else `x * log1p(y)`."),
      BinaryOp("MulNoNan", kFloatComplexTypes,
               "Returns 0 where `y` is 0 (even where `x` is inf or NaN), else `x * y`."),
      BinaryOp("LeftShift", kShiftTypes,
               "Shifts `x` left by `y` bits; `y` is clamped to [0, bits - 1]."),
      BinaryOp("RightShift", kShiftTypes,
               "Shifts `x` right by `y` bits (arithmetically for signed types); `y` is "
               "clamped to [0, bits - 1]."),
      NamedBinary("NextAfter", "T: {double, float} = DT_FLOAT", "x1", "x2", "output",
                  "Returns the next representable value after `x1` in the direction of "
                  "`x2`."),
      NamedBinary("Igamma", kFloatTypes, "a", "x", "z",
                  "Returns the regularized lower incomplete gamma function `P(a, x)`: 0 at "
                  "`x = 0`, NaN for `a <= 0` or `x < 0`."),
      NamedBinary("Igammac", kFloatTypes, "a", "x", "z",
                  "Returns the regularized upper incomplete gamma function "
                  "`Q(a, x) = 1 - P(a, x)`; NaN for `a <= 0` or `x < 0`."),
      SpecialBinary("IgammaGradA", "a", "x",
                    "Returns the derivative of `Igamma(a, x)` with respect to `a`."),
      SpecialBinary("RandomGammaGrad", "alpha", "sample",
                    "Returns the derivative of a Gamma(`alpha`) sample with respect to "
                    "`alpha` (implicit reparameterization).",
                    "output"),
      SpecialBinary("Polygamma", "a", "x",
                    "Returns the `a`-th derivative of `Digamma` at `x`; NaN unless `a` is a "
                    "non-negative integer."),
      SpecialBinary("Zeta", "x", "q",
                    "Returns the Hurwitz zeta function `sum_k (q + k)^-x`; +inf at `x = 1`, "
                    "NaN below."),
      {"Betainc", {"T: {float, double}"}, {"a: T", "b: T", "x: T"}, {"z: T"},
       ShapeFn<BetaincShape>,
       "Returns the regularized incomplete beta function `I_x(a, b)`.",
       "`a`, `b` and `x` are each a scalar or of the one shape the others share "
       "(no other broadcasting). NaN unless `a, b > 0` and `0 <= x <= 1`.",
       {{"a", "First shape parameter."}, {"b", "Second shape parameter."},
        {"x", "Where to evaluate, in [0, 1]."}, {"z", "The result."}}},
  }, status);
}

}  // namespace opgen
