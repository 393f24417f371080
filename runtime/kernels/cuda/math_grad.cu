// The ops gradient graphs use: BroadcastGradientArgs (../math_grad_spec.h, on the host: its
// operands are shapes) and the fused element-wise gradients SigmoidGrad, TanhGrad,
// SqrtGrad, RsqrtGrad, ReciprocalGrad for float and complex types, as the CPU computes
// them (../cpu/math_grad.cc).
#include "../math_grad_spec.h"
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

// As the CPU computes them (../cpu/math_grad.cc): each step rounded to T,
// Sqrt/Rsqrt/ReciprocalGrad 0 where dy is 0 and given the conjugate of a complex y, as
// TensorFlow's.
struct ConjugatesY { static constexpr bool kConjugate = true; };
struct TakesY { static constexpr bool kConjugate = false; };
struct SigmoidGradOp : TakesY {
  template <typename C, typename R> __device__ static C Apply(C y, C dy, R r) { return dy * r(y * r(C(1) - y)); }
};
struct TanhGradOp : TakesY {
  template <typename C, typename R> __device__ static C Apply(C y, C dy, R r) { return dy * r(C(1) - r(y * y)); }
};
struct SqrtGradOp : ConjugatesY {
  template <typename C, typename R> __device__ static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : r(C(0.5) * dy) / y;
  }
};
struct RsqrtGradOp : ConjugatesY {
  template <typename C, typename R> __device__ static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : r(C(-0.5) * r(dy * y)) * r(y * y);
  }
};
struct ReciprocalGradOp : ConjugatesY {
  template <typename C, typename R> __device__ static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : -dy * r(y * y);
  }
};

template <typename T>
struct RoundTo {
  __device__ Wide<T> operator()(Wide<T> v) const { return Widen(Narrow<T>(v)); }
};

template <typename T> __device__ __forceinline__ T ConjugateOf(T y) { return y; }
template <typename R> __device__ __forceinline__ ComplexParts<R> ConjugateOf(ComplexParts<R> y) {
  return Conj(y);
}

template <typename Op, typename T>
struct GradFn : Operands<T, T, T> {
  __device__ T operator()(T y, T dy) const {
    const Wide<T> wy = Widen(y);
    return Narrow<T>(Op::Apply(Op::kConjugate ? ConjugateOf(wy) : wy, Widen(dy), RoundTo<T>()));
  }
};

template <typename Op>
struct GradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      TensorPtr y = Input(ctx, 0), dy = Input(ctx, 1);
      if (!y || !dy) return;
      const std::vector<int64_t> dims = Dims(y.get());
      if (!kernels::CheckGradOperands(ctx, dims, Dims(dy.get()))) return;
      cudaStream_t stream = GetStream(ctx);
      if (stream == nullptr) return;
      TensorPtr z = AllocateOutput(ctx, 0, DtypeOf<T>::value, dims);
      const int64_t n = NumElements(dims);
      if (!z || n == 0) return;
      LaunchFlat(ctx, stream, GradFn<Op, T>(), n, static_cast<T*>(TF_TensorData(z.get())),
                 Operand<T>{static_cast<const T*>(TF_TensorData(y.get())), false},
                 Operand<T>{static_cast<const T*>(TF_TensorData(dy.get())), false},
                 Operand<NoInput>{nullptr, true});
    }
  };
};

template <typename Op>
void RegisterGrad(const char* op, TF_Status* status) {
  RegisterForTypes<GradKernel<Op>::template Kernel>(kDevice, op, FloatsAndComplex(), status);
}

}  // namespace

void RegisterMathGradKernels(TF_Status* status) {
  RegisterGrad<SigmoidGradOp>("SigmoidGrad", status);
  RegisterGrad<TanhGradOp>("TanhGrad", status);
  RegisterGrad<SqrtGradOp>("SqrtGrad", status);
  RegisterGrad<RsqrtGradOp>("RsqrtGrad", status);
  RegisterGrad<ReciprocalGradOp>("ReciprocalGrad", status);
  RegisterGrad<ReciprocalGradOp>("InvGrad", status);  // Inv's, the same formula
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT32}}, {"s0", "s1", "r0", "r1"},
                           &kernels::BroadcastGradientArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT64}}, {"s0", "s1", "r0", "r1"},
                           &kernels::BroadcastGradientArgsCompute<int64_t>}, status);
}

}  // namespace cuda
}  // namespace opgen
