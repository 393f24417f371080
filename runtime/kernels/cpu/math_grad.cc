// The ops gradient graphs use: BroadcastGradientArgs (../math_grad_spec.h) and the fused
// element-wise gradients SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad
// (z from the forward output y and its gradient dy), with TensorFlow's formulas, for
// the float and complex types.
#include "../math_grad_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

// As TensorFlow computes them: each step rounded to T (half and bfloat16 compute in
// float, so `r` rounds an intermediate back), and Sqrt/Rsqrt/ReciprocalGrad give 0 where
// dy is 0 (even for an infinite or zero y). For complex y, Sqrt/Rsqrt/ReciprocalGrad
// take its conjugate (kConjugate), as TensorFlow's kernels do; TanhGrad and SigmoidGrad
// take y as given (TensorFlow's gradient functions conjugate it before the call).
struct ConjugatesY { static constexpr bool kConjugate = true; };
struct TakesY { static constexpr bool kConjugate = false; };
// Products and quotients as the element-wise kernels form them: for complex values the
// textbook product and the scaled quotient (TensorFlow's vectorised forms, no C99
// recovery of infinities), plain * and / otherwise.
template <typename C> C Times(C x, C y) { return WrappingMul(x, y); }
template <typename C> C Over(C x, C y) {
  if constexpr (kIsComplex<C>) return ComplexQuotient(x, y);
  else return x / y;
}
struct SigmoidGradOp : TakesY {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return Times(dy, r(Times(y, r(C(1) - y))));
  }
};
struct TanhGradOp : TakesY {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return Times(dy, r(C(1) - r(Times(y, y))));
  }
};
struct SqrtGradOp : ConjugatesY {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : Over(r(Times(C(0.5), dy)), y);
  }
};
struct RsqrtGradOp : ConjugatesY {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : Times(r(Times(C(-0.5), r(Times(dy, y)))), r(Times(y, y)));
  }
};
struct ReciprocalGradOp : ConjugatesY {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : Times(-dy, r(Times(y, y)));
  }
};

// A compute-type value rounded to T and widened back.
template <typename T>
struct RoundTo {
  ComputeType<T> operator()(ComputeType<T> v) const { return Widen(Narrow<T>(v)); }
};

template <typename Op>
struct GradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      const TF_Tensor* y = BorrowInput(ctx, 0);
      const TF_Tensor* dy = BorrowInput(ctx, 1);
      if (!y || !dy) return;
      const std::vector<int64_t> dims = Dims(y);
      if (!kernels::CheckGradOperands(ctx, dims, Dims(dy))) return;
      TF_Tensor* z = AllocateBorrowedOutput<T>(ctx, 0, dims);
      if (!z) return;
      const T* yp = Data<T>(y);
      const T* dp = Data<T>(dy);
      T* zp = Data<T>(z);
      ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          ComputeType<T> y = Widen(yp[i]);
          if constexpr (kIsComplex<T> && Op::kConjugate) y = std::conj(y);
          zp[i] = Narrow<T>(Op::Apply(y, Widen(dp[i]), RoundTo<T>()));
        }
      });
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
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT32}}, {},
                           &kernels::BroadcastGradientArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT64}}, {},
                           &kernels::BroadcastGradientArgsCompute<int64_t>}, status);
}

}  // namespace cpu
}  // namespace opgen
