// Comparisons and logic with numpy broadcasting: Less, LessEqual, Greater,
// GreaterEqual, Equal, NotEqual, LogicalAnd, LogicalOr, LogicalNot, SelectV2, and the
// bitwise BitwiseAnd, BitwiseOr, BitwiseXor and Invert.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

void RegisterElementwiseCompareKernels(TF_Status* status) {
  RegisterBinary<LessOp, Reals>("Less", status);
  RegisterBinary<LessEqualOp, Reals>("LessEqual", status);
  RegisterBinary<GreaterOp, Reals>("Greater", status);
  RegisterBinary<GreaterEqualOp, Reals>("GreaterEqual", status);
  RegisterEquality<EqualOp>("Equal", Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterEquality<NotEqualOp>("NotEqual", Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterBoolOp<Binary<LogicalAndOp>::Kernel>("LogicalAnd", status);
  RegisterBoolOp<Binary<LogicalOrOp>::Kernel>("LogicalOr", status);
  RegisterBoolOp<Unary<LogicalNotOp>::Kernel>("LogicalNot", status);
  RegisterForTypes<Ternary<SelectOp>::Kernel>(kDevice, "SelectV2",
                                              Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterKernel(kDevice, {"SelectV2", {{"T", TF_STRING}}, {}, SelectV2StringCompute}, status);
  RegisterBinary<BitwiseAndOp, IntTypes>("BitwiseAnd", status);
  RegisterBinary<BitwiseOrOp, IntTypes>("BitwiseOr", status);
  RegisterBinary<BitwiseXorOp, IntTypes>("BitwiseXor", status);
  RegisterUnary<InvertOp, IntTypes>("Invert", status);
}

}  // namespace cpu
}  // namespace opgen
