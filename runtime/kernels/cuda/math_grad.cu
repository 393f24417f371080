// The ops gradient graphs use: BroadcastGradientArgs (../grad_spec.h, on the host: its
// operands are shapes) and the fused element-wise gradients SigmoidGrad, TanhGrad,
// SqrtGrad, RsqrtGrad, ReciprocalGrad, as the CPU computes them (../cpu/math_grad.cc).
#include "../grad_spec.h"
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

struct SigmoidGradOp { template <typename T> __device__ static T Apply(T y, T dy) { return dy * y * (T(1) - y); } };
struct TanhGradOp { template <typename T> __device__ static T Apply(T y, T dy) { return dy * (T(1) - y * y); } };
struct SqrtGradOp { template <typename T> __device__ static T Apply(T y, T dy) { return (T(0.5) * dy) / y; } };
struct RsqrtGradOp { template <typename T> __device__ static T Apply(T y, T dy) { return T(-0.5) * (dy * y) * (y * y); } };
struct ReciprocalGradOp { template <typename T> __device__ static T Apply(T y, T dy) { return -dy * y * y; } };

template <typename Op, typename T>
struct GradFn : Operands<T, T, T> {
  __device__ T operator()(T y, T dy) const { return Narrow<T>(Op::Apply(Widen(y), Widen(dy))); }
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
  RegisterForTypes<GradKernel<Op>::template Kernel>(kDevice, op, Floats(), status);
}

}  // namespace

void RegisterMathGradKernels(TF_Status* status) {
  RegisterGrad<SigmoidGradOp>("SigmoidGrad", status);
  RegisterGrad<TanhGradOp>("TanhGrad", status);
  RegisterGrad<SqrtGradOp>("SqrtGrad", status);
  RegisterGrad<RsqrtGradOp>("RsqrtGrad", status);
  RegisterGrad<ReciprocalGradOp>("ReciprocalGrad", status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT32}}, {"s0", "s1", "r0", "r1"},
                           &kernels::BroadcastGradientArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastGradientArgs", {{"T", TF_INT64}}, {"s0", "s1", "r0", "r1"},
                           &kernels::BroadcastGradientArgsCompute<int64_t>}, status);
}

}  // namespace cuda
}  // namespace opgen
