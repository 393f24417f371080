// Element-wise math beyond the core arithmetic: the inverse and hyperbolic trigonometric
// functions, special functions (log-gamma, digamma, the inverse error and normal
// functions, scaled Bessel functions), truncating division and remainders, the
// zero-safe products and logarithms (Xlogy, MulNoNan, ...), shifts and NextAfter.
// Kernels: kernels/elementwise_math_spec.h (shared by the CPU and CUDA kernels).
#include "op_table.h"

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
  }, status);
}

}  // namespace opgen
