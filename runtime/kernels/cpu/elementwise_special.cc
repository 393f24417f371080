// Element-wise math of ops/special_math_ops.cc: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh,
// Acosh, Atanh, Rint, Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, and with numpy
// broadcasting Atan2, Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, Xlog1py, MulNoNan,
// LeftShift, RightShift, NextAfter.
// The functors are ../elementwise_math_spec.h (shared with the CUDA twin); the loops are
// elementwise_ops.h's.
#include "../elementwise_math_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

namespace {
namespace ew = kernels::elementwise;
using Int32And64 = Types<int32_t, int64_t>;
using ModTypes = Concat<Int32And64, Floats>;
using DoubleAndFloat = Types<double, float>;
}  // namespace

void RegisterElementwiseSpecialKernels(TF_Status* status) {
  RegisterUnary<ew::TanOp, Floats>("Tan", status);
  RegisterUnary<ew::AsinOp, Floats>("Asin", status);
  RegisterUnary<ew::AcosOp, Floats>("Acos", status);
  RegisterUnary<ew::AtanOp, Floats>("Atan", status);
  RegisterUnary<ew::SinhOp, Floats>("Sinh", status);
  RegisterUnary<ew::CoshOp, Floats>("Cosh", status);
  RegisterUnary<ew::AsinhOp, Floats>("Asinh", status);
  RegisterUnary<ew::AcoshOp, Floats>("Acosh", status);
  RegisterUnary<ew::AtanhOp, Floats>("Atanh", status);
  RegisterUnary<ew::RintOp, Floats>("Rint", status);
  RegisterUnary<ew::LgammaOp, Floats>("Lgamma", status);
  RegisterUnary<ew::DigammaOp, Floats>("Digamma", status);
  RegisterUnary<ew::ErfinvOp, Floats>("Erfinv", status);
  RegisterUnary<ew::NdtriOp, Floats>("Ndtri", status);
  RegisterUnary<ew::BesselI0eOp, Floats>("BesselI0e", status);
  RegisterUnary<ew::BesselI1eOp, Floats>("BesselI1e", status);
  RegisterBinary<ew::Atan2Op, Floats>("Atan2", status);
  RegisterBinary<ew::TruncateModOp, ModTypes>("Mod", status);
  RegisterBinary<ew::TruncateDivOp, Reals>("TruncateDiv", status);
  RegisterBinary<ew::TruncateModOp, ModTypes>("TruncateMod", status);
  RegisterBinary<ew::XlogyOp, Floats>("Xlogy", status);
  RegisterBinary<ew::XdivyOp, Floats>("Xdivy", status);
  RegisterBinary<ew::Xlog1pyOp, Floats>("Xlog1py", status);
  RegisterBinary<ew::MulNoNanOp, Floats>("MulNoNan", status);
  RegisterBinary<ew::LeftShiftOp, IntTypes>("LeftShift", status);
  RegisterBinary<ew::RightShiftOp, IntTypes>("RightShift", status);
  RegisterBinary<ew::NextAfterOp, DoubleAndFloat>("NextAfter", status);
}

}  // namespace cpu
}  // namespace opgen
