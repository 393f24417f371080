// Built-in arithmetic ops: element-wise math, matrix products and casts.
#include "op_table.h"

namespace opgen {

namespace {
constexpr const char* kBinaryDocs =
    "Both operands broadcast against each other as numpy arrays do.";
}

void RegisterMathOps(TF_Status* status) {
  RegisterOps({
      {"AddV2",
       {"T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"},
       "Returns `x + y` element-wise.", kBinaryDocs,
       {{"x", "First addend."}, {"y", "Second addend."}, {"z", "The sum."}},
       /*is_commutative=*/true, /*is_aggregate=*/true},
      {"Sub",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
        "complex64, complex128, uint32, uint64}"},
       {"x: T", "y: T"}, {"z: T"},
       "Returns `x - y` element-wise.", kBinaryDocs,
       {{"x", "Minuend."}, {"y", "Subtrahend."}, {"z", "The difference."}}},
      {"Mul",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"},
       "Returns `x * y` element-wise.", kBinaryDocs,
       {{"x", "First factor."}, {"y", "Second factor."}, {"z", "The product."}},
       /*is_commutative=*/true},
      {"RealDiv",
       {"T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
        "int64, complex64, complex128}"},
       {"x: T", "y: T"}, {"z: T"},
       "Returns `x / y` element-wise.",
       "Both operands broadcast against each other as numpy arrays do. Integer division "
       "truncates toward zero; an integer division by zero is an error.",
       {{"x", "Dividend."}, {"y", "Divisor."}, {"z", "The quotient."}}},
      {"Neg",
       {"T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"},
       {"x: T"}, {"y: T"},
       "Returns `-x` element-wise.", "",
       {{"x", "Input values."}, {"y", "The negated values."}}},
      {"MatMul",
       {"transpose_a: bool = false", "transpose_b: bool = false",
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128}",
        "grad_a: bool = false", "grad_b: bool = false"},
       {"a: T", "b: T"}, {"product: T"},
       "Multiplies matrix `a` by matrix `b`.",
       "Both inputs are rank-2; the inner dimensions (after the optional transposes) must "
       "agree. Floating-point products run through BLAS.",
       {{"a", "Left matrix."}, {"b", "Right matrix."}, {"product", "`a @ b`."},
        {"transpose_a", "Use the transpose of `a`."}, {"transpose_b", "Use the transpose of `b`."},
        {"grad_a", "Hint that this product computes a gradient of `a`; ignored."},
        {"grad_b", "Hint that this product computes a gradient of `b`; ignored."}}},
      {"Cast",
       {"SrcT: type", "DstT: type", "Truncate: bool = false"},
       {"x: SrcT"}, {"y: DstT"},
       "Converts `x` to dtype `DstT`.",
       "Floating-point values convert to integers by truncation toward zero, as numpy's "
       "`astype` does; to bool, non-zero values become true.",
       {{"x", "Values to convert."}, {"y", "The converted values."},
        {"DstT", "The dtype of the result."},
        {"Truncate", "Accepted for compatibility; conversions always truncate."}}},
  }, status);
}

}  // namespace opgen
