// Unary math: Neg, Abs, Sign, Square, Reciprocal, Exp, Log, Log1p, Sqrt, Rsqrt, Erf,
// Erfc, Sin, Cos, Floor, Ceil, Round, and ComplexAbs.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseMathKernels(TF_Status* status) {
  RegisterUnary<NegOp>("Neg", Concat<Signed, Complexes>(), status);
  RegisterUnary<AbsOp>("Abs", Signed(), status);
  RegisterUnary<SignOp>("Sign", Concat<Signed, Complexes>(), status);
  RegisterUnary<SquareOp>("Square", RealsAndComplex(), status);
  RegisterUnary<ReciprocalOp>("Reciprocal", Concat<Floats, Complexes>(), status);
  RegisterUnary<ExpOp>("Exp", FloatsAndComplex(), status);
  RegisterUnary<LogOp>("Log", FloatsAndComplex(), status);
  RegisterUnary<Log1pOp>("Log1p", Floats(), status);
  RegisterUnary<SqrtOp>("Sqrt", FloatsAndComplex(), status);
  RegisterUnary<RsqrtOp>("Rsqrt", FloatsAndComplex(), status);
  RegisterUnary<ErfOp>("Erf", Floats(), status);
  RegisterUnary<ErfcOp>("Erfc", Floats(), status);
  RegisterUnary<SinOp>("Sin", Floats(), status);
  RegisterUnary<CosOp>("Cos", Floats(), status);
  RegisterUnary<FloorOp>("Floor", Floats(), status);
  RegisterUnary<CeilOp>("Ceil", Floats(), status);
  RegisterUnary<RoundOp>("Round", Concat<Floats, Types<int32_t, int64_t>>(), status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX64}, {"Tout", TF_FLOAT}}, {},
                           &ComplexAbsCompute<float>}, status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX128}, {"Tout", TF_DOUBLE}}, {},
                           &ComplexAbsCompute<double>}, status);
}

}  // namespace cuda
}  // namespace opgen
