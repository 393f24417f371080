// Element-wise math of ops/special_math_ops.cc: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh,
// Acosh, Atanh, Rint, Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, and with numpy
// broadcasting Atan2, Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, Xlog1py, MulNoNan,
// LeftShift, RightShift, NextAfter. Twin of ../cpu/elementwise_special.cc: the same
// functors (../elementwise_math_spec.h), elementwise_ops.cuh's launchers.
#include "../elementwise_math_spec.h"
#include "cuda_kernels.h"
#include "elementwise_ops.cuh"

namespace opgen {
namespace cuda {

namespace {
namespace ew = kernels::elementwise;
using ModTypes = Concat<Types<int32_t, int64_t>, Floats>;
}  // namespace

void RegisterElementwiseSpecialKernels(TF_Status* status) {
  RegisterUnary<ew::TanOp>("Tan", Floats(), status);
  RegisterUnary<ew::AsinOp>("Asin", Floats(), status);
  RegisterUnary<ew::AcosOp>("Acos", Floats(), status);
  RegisterUnary<ew::AtanOp>("Atan", Floats(), status);
  RegisterUnary<ew::SinhOp>("Sinh", Floats(), status);
  RegisterUnary<ew::CoshOp>("Cosh", Floats(), status);
  RegisterUnary<ew::AsinhOp>("Asinh", Floats(), status);
  RegisterUnary<ew::AcoshOp>("Acosh", Floats(), status);
  RegisterUnary<ew::AtanhOp>("Atanh", Floats(), status);
  RegisterUnary<ew::RintOp>("Rint", Floats(), status);
  RegisterUnary<ew::LgammaOp>("Lgamma", Floats(), status);
  RegisterUnary<ew::DigammaOp>("Digamma", Floats(), status);
  RegisterUnary<ew::ErfinvOp>("Erfinv", Floats(), status);
  RegisterUnary<ew::NdtriOp>("Ndtri", Floats(), status);
  RegisterUnary<ew::BesselI0eOp>("BesselI0e", Floats(), status);
  RegisterUnary<ew::BesselI1eOp>("BesselI1e", Floats(), status);
  RegisterBinary<ew::Atan2Op>("Atan2", Floats(), status);
  RegisterBinary<ew::TruncateModOp>("Mod", ModTypes(), status);
  RegisterBinary<ew::TruncateDivOp>("TruncateDiv", Reals(), status);
  RegisterBinary<ew::TruncateModOp>("TruncateMod", ModTypes(), status);
  RegisterBinary<ew::XlogyOp>("Xlogy", Floats(), status);
  RegisterBinary<ew::XdivyOp>("Xdivy", Floats(), status);
  RegisterBinary<ew::Xlog1pyOp>("Xlog1py", Floats(), status);
  RegisterBinary<ew::MulNoNanOp>("MulNoNan", Floats(), status);
  RegisterBinary<ew::LeftShiftOp>("LeftShift", Ints(), status);
  RegisterBinary<ew::RightShiftOp>("RightShift", Ints(), status);
  RegisterBinary<ew::NextAfterOp>("NextAfter", Types<double, float>(), status);
}

}  // namespace cuda
}  // namespace opgen
