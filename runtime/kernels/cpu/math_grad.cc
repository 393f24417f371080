// The ops gradient graphs use: BroadcastGradientArgs (../grad_spec.h) and the fused
// element-wise gradients SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad
// (z from the forward output y and its gradient dy), with TensorFlow's formulas.
#include "../grad_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

struct SigmoidGradOp { template <typename T> static T Apply(T y, T dy) { return dy * y * (T(1) - y); } };
struct TanhGradOp { template <typename T> static T Apply(T y, T dy) { return dy * (T(1) - y * y); } };
struct SqrtGradOp { template <typename T> static T Apply(T y, T dy) { return (T(0.5) * dy) / y; } };
struct RsqrtGradOp { template <typename T> static T Apply(T y, T dy) { return T(-0.5) * (dy * y) * (y * y); } };
struct ReciprocalGradOp { template <typename T> static T Apply(T y, T dy) { return -dy * y * y; } };

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
        for (int64_t i = begin; i < end; ++i) zp[i] = OnStorage<Op, T>::Apply(yp[i], dp[i]);
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
