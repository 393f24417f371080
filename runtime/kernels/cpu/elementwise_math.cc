// Unary math: Neg, Abs, Sign, Square, Reciprocal, Exp, Log, Log1p, Sqrt, Rsqrt, Erf,
// Erfc, Sin, Cos, Floor, Ceil, Round.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

void RegisterElementwiseMathKernels(TF_Status* status) {
  RegisterUnary<NegOp, Signed>("Neg", status);
  RegisterUnary<AbsOp, Signed>("Abs", status);
  RegisterUnary<SignOp, Signed>("Sign", status);
  RegisterUnary<SquareOp, Reals>("Square", status);
  RegisterUnary<ReciprocalOp, Floats>("Reciprocal", status);
  RegisterUnary<ExpOp, Floats>("Exp", status);
  RegisterUnary<LogOp, Floats>("Log", status);
  RegisterUnary<Log1pOp, Floats>("Log1p", status);
  RegisterUnary<SqrtOp, Floats>("Sqrt", status);
  RegisterUnary<RsqrtOp, Floats>("Rsqrt", status);
  RegisterUnary<ErfOp, Floats>("Erf", status);
  RegisterUnary<ErfcOp, Floats>("Erfc", status);
  RegisterUnary<SinOp, Floats>("Sin", status);
  RegisterUnary<CosOp, Floats>("Cos", status);
  RegisterUnary<FloorOp, Floats>("Floor", status);
  RegisterUnary<CeilOp, Floats>("Ceil", status);
  RegisterUnary<RoundOp, Concat<Floats, Types<int32_t, int64_t>>>("Round", status);
}

}  // namespace cpu
}  // namespace opgen
