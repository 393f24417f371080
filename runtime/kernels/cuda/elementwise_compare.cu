// Comparisons and logic with numpy broadcasting: Less, LessEqual, Greater,
// GreaterEqual, Equal, NotEqual, LogicalAnd, LogicalOr, LogicalNot, SelectV2, and the
// bitwise BitwiseAnd, BitwiseOr, BitwiseXor and Invert.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseCompareKernels(TF_Status* status) {
  RegisterBinary<LessOp>("Less", Reals(), status);
  RegisterBinary<LessEqualOp>("LessEqual", Reals(), status);
  RegisterBinary<GreaterOp>("Greater", Reals(), status);
  RegisterBinary<GreaterEqualOp>("GreaterEqual", Reals(), status);
  RegisterEquality<EqualOp>("Equal", Concat<RealsAndBool, Complexes>(), status);
  RegisterEquality<NotEqualOp>("NotEqual", Concat<RealsAndBool, Complexes>(), status);
  RegisterBoolOp("LogicalAnd", &Binary<LogicalAndOp>::Kernel<bool>::Compute, status);
  RegisterBoolOp("LogicalOr", &Binary<LogicalOrOp>::Kernel<bool>::Compute, status);
  RegisterBoolOp("LogicalNot", &Unary<LogicalNotOp>::Kernel<bool>::Compute, status);
  RegisterSelect("SelectV2", Concat<RealsAndBool, Complexes>(), status);
  RegisterBinary<BitwiseAndOp>("BitwiseAnd", Ints(), status);
  RegisterBinary<BitwiseOrOp>("BitwiseOr", Ints(), status);
  RegisterBinary<BitwiseXorOp>("BitwiseXor", Ints(), status);
  RegisterUnary<InvertOp>("Invert", Ints(), status);
}

}  // namespace cuda
}  // namespace opgen
