// Unary math: Neg, Abs, Sign, Square, Reciprocal (and Inv), Exp, Expm1, Log, Log1p, Sqrt, Rsqrt, Erf,
// Erfc, Sin, Cos, Floor, Ceil, Round, ComplexAbs, and the float classes IsFinite,
// IsNan, IsInf.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

// ComplexAbs: |x| of complex64 as float, of complex128 as double (std::abs is hypot,
// so the squares of large or tiny parts neither overflow nor underflow).
template <typename Complex>
struct ComplexAbsKernel {
  using Real = typename Complex::value_type;
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const TF_Tensor* x = BorrowInput(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x);
    TF_Tensor* y = AllocateBorrowedOutput<Real>(ctx, 0, dims);
    if (!y) return;
    const Complex* xp = Data<Complex>(x);
    Real* yp = Data<Real>(y);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) yp[i] = std::abs(xp[i]);
    });
  }
};

// IsFinite, IsNan, IsInf: one bool per element, the float widened first (half and
// bfloat16 keep their infinities and NaNs when widened).
struct IsFiniteClass { static bool Test(double v) { return std::isfinite(v); } };
struct IsNanClass { static bool Test(double v) { return std::isnan(v); } };
struct IsInfClass { static bool Test(double v) { return std::isinf(v); } };

template <typename Class>
struct FloatClassKernel {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      const TF_Tensor* x = BorrowInput(ctx, 0);
      if (!x) return;
      const std::vector<int64_t> dims = Dims(x);
      TF_Tensor* y = AllocateBorrowedOutput<bool>(ctx, 0, dims);
      if (!y) return;
      const T* xp = Data<T>(x);
      bool* yp = Data<bool>(y);
      ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) yp[i] = Class::Test(static_cast<double>(Widen(xp[i])));
      });
    }
  };
};

}  // namespace

void RegisterElementwiseMathKernels(TF_Status* status) {
  RegisterUnary<NegOp, Concat<Signed, ComplexTypes>>("Neg", status);
  RegisterUnary<AbsOp, Signed>("Abs", status);
  RegisterUnary<SignOp, Concat<Signed, ComplexTypes>>("Sign", status);
  RegisterUnary<SquareOp, RealsAndComplex>("Square", status);
  RegisterUnary<ReciprocalOp, FloatsAndComplex>("Reciprocal", status);
  RegisterUnary<ReciprocalOp, FloatsAndComplex>("Inv", status);  // Reciprocal's older name
  RegisterUnary<ExpOp, FloatsAndComplex>("Exp", status);
  RegisterUnary<LogOp, FloatsAndComplex>("Log", status);
  RegisterUnary<Log1pOp, Floats>("Log1p", status);
  RegisterUnary<Expm1Op, Floats>("Expm1", status);
  RegisterUnary<SqrtOp, FloatsAndComplex>("Sqrt", status);
  RegisterUnary<RsqrtOp, FloatsAndComplex>("Rsqrt", status);
  RegisterUnary<ErfOp, Floats>("Erf", status);
  RegisterUnary<ErfcOp, Floats>("Erfc", status);
  RegisterUnary<SinOp, Floats>("Sin", status);
  RegisterUnary<CosOp, Floats>("Cos", status);
  RegisterUnary<FloorOp, Floats>("Floor", status);
  RegisterUnary<CeilOp, Floats>("Ceil", status);
  RegisterUnary<RoundOp, Concat<Floats, Types<int32_t, int64_t>>>("Round", status);
  RegisterForTypes<FloatClassKernel<IsFiniteClass>::Kernel>(kDevice, "IsFinite", Floats(), status);
  RegisterForTypes<FloatClassKernel<IsNanClass>::Kernel>(kDevice, "IsNan", Floats(), status);
  RegisterForTypes<FloatClassKernel<IsInfClass>::Kernel>(kDevice, "IsInf", Floats(), status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX64}, {"Tout", TF_FLOAT}}, {},
                           &ComplexAbsKernel<std::complex<float>>::Compute}, status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX128}, {"Tout", TF_DOUBLE}}, {},
                           &ComplexAbsKernel<std::complex<double>>::Compute}, status);
}

}  // namespace cpu
}  // namespace opgen
