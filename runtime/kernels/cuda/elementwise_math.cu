// Unary math: Neg, Abs, Sign, Square, Reciprocal (and Inv), Exp, Log, Log1p, Sqrt, Rsqrt, Erf,
// Erfc, Sin, Cos, Floor, Ceil, Round, ComplexAbs, and the float classes IsFinite,
// IsNan, IsInf. Twin of ../cpu/elementwise_math.cc.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

namespace {

// IsFinite, IsNan, IsInf: one bool per element of the widened float.
struct IsFiniteClass { template <typename C> __device__ static bool Test(C v) { return isfinite(v); } };
struct IsNanClass { template <typename C> __device__ static bool Test(C v) { return isnan(v); } };
struct IsInfClass { template <typename C> __device__ static bool Test(C v) { return isinf(v); } };

template <typename Class, typename T>
struct FloatClassFn : Operands<bool, T> {
  __device__ bool operator()(T x) const { return Class::Test(Widen(x)); }
};

template <typename Class>
struct FloatClass {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      Call call;
      if (!Begin(ctx, 1, nullptr, false, &call) || !Plan(ctx, TF_BOOL, &call)) return;
      LaunchFlat(ctx, call.stream, FloatClassFn<Class, T>(), NumElements(call.out_dims),
                 static_cast<bool*>(TF_TensorData(call.out.get())),
                 Operand<T>{static_cast<const T*>(call.Data(0)), false},
                 Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
    }
  };
};

}  // namespace

void RegisterElementwiseMathKernels(TF_Status* status) {
  RegisterUnary<NegOp>("Neg", Concat<Signed, Complexes>(), status);
  RegisterUnary<AbsOp>("Abs", Signed(), status);
  RegisterUnary<SignOp>("Sign", Concat<Signed, Complexes>(), status);
  RegisterUnary<SquareOp>("Square", RealsAndComplex(), status);
  RegisterUnary<ReciprocalOp>("Reciprocal", Concat<Floats, Complexes>(), status);
  RegisterUnary<ReciprocalOp>("Inv", Concat<Floats, Complexes>(), status);  // Reciprocal's older name
  RegisterUnary<ExpOp>("Exp", FloatsAndComplex(), status);
  RegisterUnary<LogOp>("Log", FloatsAndComplex(), status);
  RegisterUnary<Log1pOp>("Log1p", Floats(), status);
  RegisterUnary<Expm1Op>("Expm1", Floats(), status);
  RegisterUnary<SqrtOp>("Sqrt", FloatsAndComplex(), status);
  RegisterUnary<RsqrtOp>("Rsqrt", FloatsAndComplex(), status);
  RegisterUnary<ErfOp>("Erf", Floats(), status);
  RegisterUnary<ErfcOp>("Erfc", Floats(), status);
  RegisterUnary<SinOp>("Sin", Floats(), status);
  RegisterUnary<CosOp>("Cos", Floats(), status);
  RegisterUnary<FloorOp>("Floor", Floats(), status);
  RegisterUnary<CeilOp>("Ceil", Floats(), status);
  RegisterUnary<RoundOp>("Round", Concat<Floats, Types<int32_t, int64_t>>(), status);
  RegisterForTypes<FloatClass<IsFiniteClass>::Kernel>(kDevice, "IsFinite", Floats(), status);
  RegisterForTypes<FloatClass<IsNanClass>::Kernel>(kDevice, "IsNan", Floats(), status);
  RegisterForTypes<FloatClass<IsInfClass>::Kernel>(kDevice, "IsInf", Floats(), status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX64}, {"Tout", TF_FLOAT}}, {},
                           &ComplexAbsCompute<float>}, status);
  RegisterKernel(kDevice, {"ComplexAbs", {{"T", TF_COMPLEX128}, {"Tout", TF_DOUBLE}}, {},
                           &ComplexAbsCompute<double>}, status);
}

}  // namespace cuda
}  // namespace opgen
