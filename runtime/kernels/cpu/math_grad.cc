// The ops gradient graphs use: BroadcastGradientArgs (../math_grad_spec.h) and the fused
// element-wise gradients SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad
// (z from the forward output y and its gradient dy), with TensorFlow's formulas.
#include "../math_grad_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

// As TensorFlow computes them: each step rounded to T (half and bfloat16 compute in
// float, so `r` rounds an intermediate back), and Sqrt/Rsqrt/ReciprocalGrad give 0 where
// dy is 0 (even for an infinite or zero y).
struct SigmoidGradOp {
  template <typename C, typename R> static C Apply(C y, C dy, R r) { return dy * r(y * r(C(1) - y)); }
};
struct TanhGradOp {
  template <typename C, typename R> static C Apply(C y, C dy, R r) { return dy * r(C(1) - r(y * y)); }
};
struct SqrtGradOp {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : r(C(0.5) * dy) / y;
  }
};
struct RsqrtGradOp {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : r(C(-0.5) * r(dy * y)) * r(y * y);
  }
};
struct ReciprocalGradOp {
  template <typename C, typename R> static C Apply(C y, C dy, R r) {
    return dy == C(0) ? C(0) : -dy * r(y * y);
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
        for (int64_t i = begin; i < end; ++i)
          zp[i] = Narrow<T>(Op::Apply(Widen(yp[i]), Widen(dp[i]), RoundTo<T>()));
      });
    }
  };
};

template <typename Op>
void RegisterGrad(const char* op, TF_Status* status) {
  RegisterForTypes<GradKernel<Op>::template Kernel>(kDevice, op, Floats(), status);
}

}  // namespace

void RegisterMathGradKernels(TF_Status* status) {
  RegisterGrad<SigmoidGradOp>("SigmoidGrad", status);
  RegisterGrad<TanhGradOp>("TanhGrad", status);
  RegisterGrad<SqrtGradOp>("SqrtGrad", status);
  RegisterGrad<RsqrtGradOp>("RsqrtGrad", status);
  RegisterGrad<ReciprocalGradOp>("ReciprocalGrad", status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT32}}, {},
                           &kernels::BroadcastGradientArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT64}}, {},
                           &kernels::BroadcastGradientArgsCompute<int64_t>}, status);
}

}  // namespace cpu
}  // namespace opgen
