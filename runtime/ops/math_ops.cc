// Built-in arithmetic ops: element-wise math, matrix products and casts.
#include "op_table.h"

namespace opgen {

namespace {

constexpr const char* kBinaryDocs =
    "Both operands broadcast against each other as numpy arrays do.";
constexpr const char* kRealTypes =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}";
constexpr const char* kFloatComplexTypes =
    "T: {bfloat16, half, float, double, complex64, complex128}";
// The bitwise ops' integer types, in TensorFlow's order.
constexpr const char* kBitwiseTypes =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";

OpRegistration Comparison(const char* name, const char* summary, bool equality) {
  OpRegistration op = BinaryOp(name, equality ? "T: type" : kRealTypes, summary,
                               /*is_commutative=*/equality, "bool");
  if (equality) {
    op.shape_fn = shape_fns::kEqualityBroadcast;
    op.attrs.push_back("incompatible_shape_error: bool = true");
    op.arg_docs.emplace_back("incompatible_shape_error",
                             "Whether operands of incompatible shapes are an error.");
  }
  return op;
}

OpRegistration Reduction(const char* name, const char* type_attr, const char* summary) {
  return OpRegistration{
      name, {"keep_dims: bool = false", type_attr, "Tidx: {int32, int64} = DT_INT32"},
      {"input: T", "reduction_indices: Tidx"}, {"output: T"}, shape_fns::kReduction, summary,
      "Reduces `input` along the axes in `reduction_indices` (negative axes count from the "
      "end). Reduced dimensions are removed, or kept with size 1 when `keep_dims` is true.",
      {{"input", "The values to reduce."}, {"reduction_indices", "The axes to reduce."},
       {"output", "The reduced tensor."}, {"keep_dims", "Keep reduced dimensions with size 1."}}};
}

OpRegistration ArgReduction(const char* name, const char* tidx, const char* output_type,
                            const char* summary) {
  return OpRegistration{
      name,
      {"T: {realnumbertypes, quantizedtypes, bool}", tidx, output_type},
      {"input: T", "dimension: Tidx"}, {"output: output_type"}, shape_fns::kArgReduction, summary,
      "Ties go to the smallest index.",
      {{"input", "The values."}, {"dimension", "The axis to search (a scalar)."},
       {"output", "Indices along `dimension`."}}};
}

// Real, Imag, Angle: complex in, the real type of its parts out.
OpRegistration ComplexPart(const char* name, const char* summary) {
  return OpRegistration{
      name, {"T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"},
      {"input: T"}, {"output: Tout"}, shape_fns::kUnchanged, summary, "",
      {{"input", "Complex values."}, {"output", "One real value for each."},
       {"Tout", "float for complex64, double for complex128."}}};
}

// IsFinite, IsNan, IsInf: a float in, whether it is of that class out.
OpRegistration FloatClass(const char* name, const char* summary) {
  OpRegistration op = UnaryOp(name, "T: {bfloat16, half, float, double}", summary);
  op.outputs = {"y: bool"};
  op.arg_docs = {{"x", "Floating-point values."}, {"y", "True where the element is of the class."}};
  return op;
}

}  // namespace

void RegisterReductionOps(TF_Status* status) {
  RegisterOps({
      Reduction("Sum", "T: numbertypes", "Sums elements across dimensions."),
      Reduction("Mean", "T: numbertypes", "Averages elements across dimensions."),
      Reduction("Prod", "T: numbertypes", "Multiplies elements across dimensions."),
      Reduction("Max", "T: {realnumbertypes, quantizedtypes}", "Takes the maximum across dimensions."),
      Reduction("Min", "T: {realnumbertypes, quantizedtypes}", "Takes the minimum across dimensions."),
      Reduction("EuclideanNorm", "T: numbertypes",
                "Computes the euclidean norm (`sqrt(sum(|x|^2))`) across dimensions."),
      ArgReduction("ArgMax", "Tidx: {int16, int32, int64} = DT_INT32",
                   "output_type: {int16, uint16, int32, int64} = DT_INT64",
                   "Returns the index of the largest value along a dimension."),
      ArgReduction("ArgMin", "Tidx: {int32, int64} = DT_INT32",
                   "output_type: {int32, int64} = DT_INT64",
                   "Returns the index of the smallest value along a dimension."),
  }, status);
}

// Element-wise ops that follow TensorFlow's shapes "x, y -> z" / "x -> y".
void RegisterElementwiseMathOps(TF_Status* status) {
  RegisterOps({
      BinaryOp("Add",
               "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
               "complex128, string}",
               "Returns `x + y` element-wise (AddV2 without the aggregate flag)."),
      BinaryOp("Div",
               "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
               "uint64, int64, complex64, complex128}",
               "Returns `x / y` element-wise."),
      BinaryOp("FloorDiv",
               "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, "
               "uint64, int64, complex64, complex128}",
               "Returns `floor(x / y)` element-wise, rounding toward negative infinity."),
      BinaryOp("FloorMod",
               "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, "
               "float, double}",
               "Returns the remainder of floor division; its sign follows `y`."),
      BinaryOp("Maximum",
               "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
               "int64, uint64}",
               "Returns the larger of `x` and `y` element-wise."),
      BinaryOp("Minimum",
               "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
               "int64, uint64}",
               "Returns the smaller of `x` and `y` element-wise."),
      BinaryOp("DivNoNan", "T: {half, float, bfloat16, double, complex64, complex128}",
               "Returns 0 where `y` is 0, else `x / y`, element-wise."),
      BinaryOp("Pow",
               "T: {bfloat16, float, half, double, int8, int16, int32, int64, complex64, "
               "complex128}",
               "Returns `x` to the power `y` element-wise."),
      BinaryOp("SquaredDifference",
               "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}",
               "Returns `(x - y) * (x - y)` element-wise.", /*is_commutative=*/true),
      Comparison("Less", "Returns the truth value of `x < y` element-wise.", false),
      Comparison("LessEqual", "Returns the truth value of `x <= y` element-wise.", false),
      Comparison("Greater", "Returns the truth value of `x > y` element-wise.", false),
      Comparison("GreaterEqual", "Returns the truth value of `x >= y` element-wise.", false),
      Comparison("Equal", "Returns the truth value of `x == y` element-wise.", true),
      Comparison("NotEqual", "Returns the truth value of `x != y` element-wise.", true),
      BinaryOp("LogicalAnd", nullptr, "Returns `x AND y` element-wise.", true, "bool"),
      BinaryOp("LogicalOr", nullptr, "Returns `x OR y` element-wise.", true, "bool"),
      UnaryOp("LogicalNot", nullptr, "Returns `NOT x` element-wise."),
      BinaryOp("BitwiseAnd", kBitwiseTypes, "Returns the bitwise AND of `x` and `y`.", true),
      BinaryOp("BitwiseOr", kBitwiseTypes, "Returns the bitwise OR of `x` and `y`.", true),
      BinaryOp("BitwiseXor", kBitwiseTypes, "Returns the bitwise XOR of `x` and `y`.", true),
      UnaryOp("Invert", kBitwiseTypes, "Flips every bit of `x` (`~x`)."),
      {"PopulationCount", {kBitwiseTypes}, {"x: T"}, {"y: uint8"}, shape_fns::kUnchanged,
       "Counts the bits set in each element of `x`.", "",
       {{"x", "Integer values."}, {"y", "The number of one bits of each, as uint8."}}},
      {"ApproximateEqual", {"T: numbertypes", "tolerance: float = 1e-05"}, {"x: T", "y: T"},
       {"z: bool"}, shape_fns::kSameShapes,
       "Returns the truth value of `abs(x - y) < tolerance` element-wise.",
       "`x` and `y` must have the same shape (no broadcasting).",
       {{"x", "First operand."}, {"y", "Second operand, shaped as `x`."},
        {"z", "Where the two are within `tolerance`."},
        {"tolerance", "The largest difference (exclusive) that counts as equal."}},
       /*is_commutative=*/true},
      {"Cross", {"T: realnumbertypes"}, {"a: T", "b: T"}, {"product: T"}, shape_fns::kCross,
       "Returns the cross product of 3-element vectors along the last dimension.", "",
       {{"a", "Vectors: the last dimension has size 3."}, {"b", "Vectors shaped as `a`."},
        {"product", "`a x b`, shaped as `a`."}}},
      {"ClipByValue", {"T: numbertypes"}, {"t: T", "clip_value_min: T", "clip_value_max: T"},
       {"output: T"}, shape_fns::kBroadcast, "Clamps `t` to `[clip_value_min, clip_value_max]`.",
       "The bounds broadcast against `t`.",
       {{"t", "The values."}, {"clip_value_min", "Lower bound."}, {"clip_value_max", "Upper bound."},
        {"output", "The clamped values."}}},
      {"AddN", {"N: int >= 1", "T: {numbertypes, variant}"}, {"inputs: N * T"}, {"sum: T"},
       shape_fns::kSameShapes,
       "Adds N tensors of the same shape and dtype.", "",
       {{"inputs", "The addends."}, {"sum", "Their sum."}}, /*is_commutative=*/true,
       /*is_aggregate=*/true},
      {"AccumulateNV2", {"N: int >= 1", "T: numbertypes", "shape: shape"}, {"inputs: N * T"},
       {"sum: T"}, shape_fns::kExplicitShape,
       "Adds N tensors of the same shape and dtype (AddN with a declared output shape).",
       "TensorFlow may accumulate them as they arrive; the result is AddN's.",
       {{"inputs", "The addends."}, {"sum", "Their sum."},
        {"shape", "The shape of each input and of the sum."}},
       /*is_commutative=*/true, /*is_aggregate=*/true},
      UnaryOp("Abs", "T: {bfloat16, half, float, double, int8, int16, int32, int64}",
              "Returns the absolute value of `x`."),
      // Tout is the real type of T's parts: float for complex64, double for complex128
      // (the only pairs with kernels, as in TensorFlow).
      {"ComplexAbs",
       {"T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"},
       {"x: T"}, {"y: Tout"}, shape_fns::kUnchanged,
       "Returns the absolute value (magnitude) of complex `x`.",
       "`sqrt(re^2 + im^2)` computed without overflow or underflow in the squares.",
       {{"x", "Complex values."}, {"y", "Their magnitudes."},
        {"Tout", "The result's dtype: float for complex64, double for complex128."}}},
      // The complex family: parts in and out. Tout/T pair float with complex64 and
      // double with complex128 (the only pairs with kernels, as in TensorFlow).
      {"Complex",
       {"T: {float, double} = DT_FLOAT", "Tout: {complex64, complex128} = DT_COMPLEX64"},
       {"real: T", "imag: T"}, {"out: Tout"}, shape_fns::kBroadcast,
       "Builds complex numbers from their real and imaginary parts.",
       "`out = real + 1j * imag`; the parts broadcast against each other as numpy arrays do.",
       {{"real", "Real parts."}, {"imag", "Imaginary parts."}, {"out", "The complex values."},
        {"Tout", "complex64 for float parts, complex128 for double ones."}}},
      ComplexPart("Real", "Returns the real part of complex `input`."),
      ComplexPart("Imag", "Returns the imaginary part of complex `input`."),
      ComplexPart("Angle", "Returns the argument of complex `input`: `atan2(imag, real)`."),
      {"Conj", {"T: {complex64, complex128, variant} = DT_COMPLEX64"},
       {"input: T"}, {"output: T"}, shape_fns::kUnchanged,
       "Returns the complex conjugate of `input`.", "`real - 1j * imag`, element-wise.",
       {{"input", "Complex values."}, {"output", "Their conjugates."}}},
      UnaryOp("Sign",
              "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
              "complex128}",
              "Returns -1, 0 or 1 by the sign of `x`."),
      UnaryOp("Square",
              "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
              "uint32, uint64, complex64, complex128}",
              "Returns `x * x`."),
      UnaryOp("Reciprocal",
              "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
              "complex128}",
              "Returns `1 / x`."),
      UnaryOp("Inv",
              "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
              "complex128}",
              "Returns `1 / x` (the older name of Reciprocal)."),
      UnaryOp("Exp", kFloatComplexTypes, "Returns `e` to the power `x`."),
      UnaryOp("Log", kFloatComplexTypes, "Returns the natural logarithm of `x`."),
      UnaryOp("Expm1", kFloatComplexTypes, "Returns `exp(x) - 1`, accurate for small `x`."),
      UnaryOp("Log1p", kFloatComplexTypes, "Returns `log(1 + x)`, accurate for small `x`."),
      UnaryOp("Sqrt", kFloatComplexTypes, "Returns the square root of `x`."),
      UnaryOp("Rsqrt", kFloatComplexTypes, "Returns `1 / sqrt(x)`."),
      UnaryOp("Tanh", kFloatComplexTypes, "Returns the hyperbolic tangent of `x`."),
      UnaryOp("Sigmoid", kFloatComplexTypes, "Returns `1 / (1 + exp(-x))`."),
      UnaryOp("Erf", "T: {bfloat16, half, float, double}", "Returns the Gauss error function of `x`."),
      FloatClass("IsFinite", "Returns which elements of `x` are finite (neither inf nor NaN)."),
      FloatClass("IsNan", "Returns which elements of `x` are NaN."),
      FloatClass("IsInf", "Returns which elements of `x` are +inf or -inf."),
  }, status);
}

void RegisterMathOps(TF_Status* status) {
  RegisterElementwiseMathOps(status);
  if (TF_GetCode(status) == TF_OK) RegisterReductionOps(status);
  if (TF_GetCode(status) != TF_OK) return;
  RegisterOps({
      {"AddV2",
       {"T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"}, shape_fns::kBroadcast,
       "Returns `x + y` element-wise.", kBinaryDocs,
       {{"x", "First addend."}, {"y", "Second addend."}, {"z", "The sum."}},
       /*is_commutative=*/true, /*is_aggregate=*/true},
      {"Sub",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
        "complex64, complex128, uint32, uint64}"},
       {"x: T", "y: T"}, {"z: T"}, shape_fns::kBroadcast,
       "Returns `x - y` element-wise.", kBinaryDocs,
       {{"x", "Minuend."}, {"y", "Subtrahend."}, {"z", "The difference."}}},
      {"Mul",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"}, shape_fns::kBroadcast,
       "Returns `x * y` element-wise.", kBinaryDocs,
       {{"x", "First factor."}, {"y", "Second factor."}, {"z", "The product."}},
       /*is_commutative=*/true},
      {"RealDiv",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"}, shape_fns::kBroadcast,
       "Returns `x / y` element-wise.",
       "Both operands broadcast against each other as numpy arrays do. Integer division "
       "truncates toward zero; an integer division by zero is an error.",
       {{"x", "Dividend."}, {"y", "Divisor."}, {"z", "The quotient."}}},
      {"Neg",
       {"T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"},
       {"x: T"}, {"y: T"}, shape_fns::kUnchanged,
       "Returns `-x` element-wise.", "",
       {{"x", "Input values."}, {"y", "The negated values."}}},
      {"MatMul",
       {"transpose_a: bool = false", "transpose_b: bool = false",
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128}",
        "grad_a: bool = false", "grad_b: bool = false"},
       {"a: T", "b: T"}, {"product: T"}, shape_fns::kMatMul,
       "Multiplies matrix `a` by matrix `b`.",
       "Both inputs are rank-2; the inner dimensions (after the optional transposes) must "
       "agree. Floating-point products run through BLAS.",
       {{"a", "Left matrix."}, {"b", "Right matrix."}, {"product", "`a @ b`."},
        {"transpose_a", "Use the transpose of `a`."}, {"transpose_b", "Use the transpose of `b`."},
        {"grad_a", "Hint that this product computes a gradient of `a`; ignored."},
        {"grad_b", "Hint that this product computes a gradient of `b`; ignored."}}},
      {"BatchMatMulV2",
       {"T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128}",
        "adj_x: bool = false", "adj_y: bool = false", "grad_x: bool = false", "grad_y: bool = false"},
       {"x: T", "y: T"}, {"output: T"}, shape_fns::kBatchMatMul,
       "Multiplies the matrices in the last two dimensions of `x` and `y`.",
       "Leading (batch) dimensions broadcast as in numpy's matmul.",
       {{"x", "Rank >= 2."}, {"y", "Rank >= 2."}, {"output", "The batch of products."},
        {"adj_x", "Use the adjoint (conjugate transpose) of each matrix of `x`."},
        {"adj_y", "Use the adjoint (conjugate transpose) of each matrix of `y`."},
        {"grad_x", "Hint that this product computes a gradient of `x`; ignored."},
        {"grad_y", "Hint that this product computes a gradient of `y`; ignored."}}},
      {"BatchMatMul",
       {"T: {bfloat16, half, float, double, int32, int64, complex64, complex128}",
        "adj_x: bool = false", "adj_y: bool = false", "grad_x: bool = false", "grad_y: bool = false"},
       {"x: T", "y: T"}, {"output: T"}, shape_fns::kBatchMatMul,
       "BatchMatMulV2 without broadcasting, as TF1-era graphs hold it.",
       "`x` and `y` have one rank and equal batch dimensions.",
       {{"x", "Rank >= 2."}, {"y", "Rank >= 2, the batch dimensions of `x`."},
        {"output", "The batch of products."},
        {"adj_x", "Use the adjoint (conjugate transpose) of each matrix of `x`."},
        {"adj_y", "Use the adjoint (conjugate transpose) of each matrix of `y`."},
        {"grad_x", "Hint that this product computes a gradient of `x`; ignored."},
        {"grad_y", "Hint that this product computes a gradient of `y`; ignored."}}},
      {"Cast",
       {"SrcT: type", "DstT: type", "Truncate: bool = false"},
       {"x: SrcT"}, {"y: DstT"}, shape_fns::kUnchanged,
       "Converts `x` to dtype `DstT`.",
       "Floating-point values convert to integers by truncation toward zero, as numpy's "
       "`astype` does; to bool, non-zero values become true.",
       {{"x", "Values to convert."}, {"y", "The converted values."},
        {"DstT", "The dtype of the result."},
        {"Truncate", "Accepted for compatibility; conversions always truncate."}}},
  }, status);
}

}  // namespace opgen
