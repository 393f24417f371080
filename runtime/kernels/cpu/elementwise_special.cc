// Element-wise math of ops/special_math_ops.cc: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh,
// Acosh, Atanh, Rint, Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, and with numpy
// broadcasting Atan2, Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, Xlog1py, MulNoNan,
// LeftShift, RightShift, NextAfter, Igamma, Igammac, IgammaGradA, RandomGammaGrad,
// Polygamma, Zeta, and Betainc (scalars or one shared shape).
// The functors are ../elementwise_math_spec.h and ../incomplete_gamma_beta_spec.h (shared
// with the CUDA twin); the loops are elementwise_ops.h's.
#include "../incomplete_gamma_beta_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

namespace {
namespace ew = kernels::elementwise;
using Int32And64 = Types<int32_t, int64_t>;
using DoubleAndFloat = Types<double, float>;
// TensorFlow's CPU kernels of these ops take fewer types than their OpDefs allow.
using ModTypes = Concat<Int32And64, DoubleAndFloat>;
using NoBfloat16 = Types<float, double, Half>;

// Betainc: TensorFlow's shape check first, then the ternary loop (whose broadcasting of
// the scalars is all that is left to do).
template <typename T>
struct BetaincKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    std::vector<std::vector<int64_t>> dims;
    for (int i = 0; i < 3; ++i) {
      TensorPtr t = Input(ctx, i);
      if (!t) return;
      dims.push_back(Dims(t.get()));
    }
    const std::string error = kernels::elementwise::BetaincShapeError(dims);
    if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
    Ternary<ew::BetaincOp>::Kernel<T>::Compute(state, ctx);
  }
};
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
  RegisterUnary<ew::RintOp, DoubleAndFloat>("Rint", status);
  RegisterUnary<ew::LgammaOp, NoBfloat16>("Lgamma", status);
  RegisterUnary<ew::DigammaOp, NoBfloat16>("Digamma", status);
  RegisterUnary<ew::ErfinvOp, DoubleAndFloat>("Erfinv", status);
  RegisterUnary<ew::NdtriOp, DoubleAndFloat>("Ndtri", status);
  RegisterUnary<ew::BesselI0eOp, NoBfloat16>("BesselI0e", status);
  RegisterUnary<ew::BesselI1eOp, NoBfloat16>("BesselI1e", status);
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
  RegisterBinary<ew::IgammaOp, DoubleAndFloat>("Igamma", status);
  RegisterBinary<ew::IgammacOp, DoubleAndFloat>("Igammac", status);
  RegisterBinary<ew::IgammaGradAOp, DoubleAndFloat>("IgammaGradA", status);
  RegisterBinary<ew::RandomGammaGradOp, DoubleAndFloat>("RandomGammaGrad", status);
  RegisterBinary<ew::PolygammaOp, DoubleAndFloat>("Polygamma", status);
  RegisterBinary<ew::ZetaOp, DoubleAndFloat>("Zeta", status);
  RegisterForTypes<BetaincKernel>(kDevice, "Betainc", DoubleAndFloat(), status);
}

}  // namespace cpu
}  // namespace opgen
