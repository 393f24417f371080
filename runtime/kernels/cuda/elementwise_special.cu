// Element-wise math of ops/special_math_ops.cc: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh,
// Acosh, Atanh, Rint, Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, and with numpy
// broadcasting Atan2, Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, Xlog1py, MulNoNan,
// LeftShift, RightShift, NextAfter, Igamma, Igammac, IgammaGradA, RandomGammaGrad,
// Polygamma, Zeta, and Betainc (scalars or one shared shape). Twin of
// ../cpu/elementwise_special.cc: the same functors (../elementwise_math_spec.h,
// ../incomplete_gamma_beta_spec.h), elementwise_ops.cuh's launchers.
#include "../incomplete_gamma_beta_spec.h"
#include "cuda_kernels.h"
#include "elementwise_ops.cuh"

namespace opgen {
namespace cuda {

namespace {
namespace ew = kernels::elementwise;
// TensorFlow's CPU kernels of these ops take fewer types than their OpDefs allow.
using DoubleAndFloat = Types<double, float>;
using ModTypes = Types<int32_t, int64_t, double, float>;
using NoBfloat16 = Types<float, double, __half>;

template <typename T>
struct BetaincFn : Operands<T, T, T, T> {
  __device__ T operator()(T a, T b, T x) const { return ew::BetaincOp::Apply(a, b, x); }
};
// TensorFlow's shape check (on the host, from the shapes alone), then the ternary launch.
template <typename T>
void BetaincCompute(void* state, TF_OpKernelContext* ctx) {
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < 3; ++i) {
    TensorPtr t = Input(ctx, i);
    if (!t) return;
    dims.push_back(Dims(t.get()));
  }
  const std::string error = ew::BetaincShapeError(dims);
  if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
  TernaryCompute<BetaincFn, T>(state, ctx);
}
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
  RegisterUnary<ew::RintOp>("Rint", DoubleAndFloat(), status);
  RegisterUnary<ew::LgammaOp>("Lgamma", NoBfloat16(), status);
  RegisterUnary<ew::DigammaOp>("Digamma", NoBfloat16(), status);
  RegisterUnary<ew::ErfinvOp>("Erfinv", DoubleAndFloat(), status);
  RegisterUnary<ew::NdtriOp>("Ndtri", DoubleAndFloat(), status);
  RegisterUnary<ew::BesselI0eOp>("BesselI0e", NoBfloat16(), status);
  RegisterUnary<ew::BesselI1eOp>("BesselI1e", NoBfloat16(), status);
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
  RegisterBinary<ew::NextAfterOp>("NextAfter", DoubleAndFloat(), status);
  RegisterBinary<ew::IgammaOp>("Igamma", DoubleAndFloat(), status);
  RegisterBinary<ew::IgammacOp>("Igammac", DoubleAndFloat(), status);
  RegisterBinary<ew::IgammaGradAOp>("IgammaGradA", DoubleAndFloat(), status);
  RegisterBinary<ew::RandomGammaGradOp>("RandomGammaGrad", DoubleAndFloat(), status);
  RegisterBinary<ew::PolygammaOp>("Polygamma", DoubleAndFloat(), status);
  RegisterBinary<ew::ZetaOp>("Zeta", DoubleAndFloat(), status);
  RegisterKernel(kDevice, {"Betainc", {{"T", TF_FLOAT}}, {}, &BetaincCompute<float>}, status);
  RegisterKernel(kDevice, {"Betainc", {{"T", TF_DOUBLE}}, {}, &BetaincCompute<double>}, status);
}

}  // namespace cuda
}  // namespace opgen
