// The activations' gradient kernels: ReluGrad, Relu6Grad, EluGrad, SeluGrad,
// SoftplusGrad, SoftsignGrad, LeakyReluGrad. Each output element is a function of one
// gradient and one saved value (the forward op's input or output), in the compute type
// (float for half and bfloat16), written as TensorFlow's formulas are so that NaN and
// infinities propagate the same way (ReluGrad multiplies by 0 or 1 rather than
// selecting). The operand checks: ../nn_array_grad_spec.h; the CUDA twin:
// ../cuda/activation_grad.cu.
#include <cmath>

#include "../nn_array_grad_spec.h"
#include "../misc_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

struct ReluGradOp {
  static constexpr const char* kName = "ReluGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> static C Apply(C g, C f, C) {
    return WrappingMul(g, f > C(0) ? C(1) : C(0));
  }
};
struct Relu6GradOp {
  static constexpr const char* kName = "Relu6Grad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> static C Apply(C g, C f, C) {
    return WrappingMul(g, f > C(0) && f < C(6) ? C(1) : C(0));
  }
};
struct EluGradOp {
  static constexpr const char* kName = "EluGrad";
  static constexpr const char* kSaved = "outputs";
  template <typename T, typename C> static C Apply(C g, C y, C) { return y < C(0) ? (y + C(1)) * g : g; }
};
struct SeluGradOp {
  static constexpr const char* kName = "SeluGrad";
  static constexpr const char* kSaved = "outputs";
  template <typename T, typename C> static C Apply(C g, C y, C) {
    const C scale = C(1.0507009873554804934193349852946);
    const C scale_alpha = C(1.7580993408473768599402175208123);
    return y < C(0) ? g * (y + scale_alpha) : g * scale;
  }
};
struct SoftplusGradOp {
  static constexpr const char* kName = "SoftplusGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> static C Apply(C g, C f, C) { return g / (std::exp(-f) + C(1)); }
};
struct SoftsignGradOp {
  static constexpr const char* kName = "SoftsignGrad";
  static constexpr const char* kSaved = "features";
  // In T, as TensorFlow computes it: for half, (|f| + 1)^2 overflows to inf (and
  // inf / inf is NaN) where float would not.
  template <typename T, typename C> static C Apply(C g, C f, C) {
    const C d = Widen(Narrow<T>(std::fabs(f) + C(1)));
    return g / Widen(Narrow<T>(d * d));
  }
};
struct LeakyReluGradOp {
  static constexpr const char* kName = "LeakyReluGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> static C Apply(C g, C f, C alpha) { return f > C(0) ? g : g * alpha; }
};

template <typename Op, typename T>
struct Kernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    TensorPtr g, saved;
    if (!kernels::PlanActivationGrad(ctx, Op::kName, Op::kSaved, &g, &saved)) return;
    const std::vector<int64_t> dims = Dims(g.get());
    TF_Tensor* out = AllocateBorrowedOutput<T>(ctx, 0, dims);
    if (!out) return;
    C alpha = C(0);
    if (state != nullptr) alpha = static_cast<C>(static_cast<kernels::LeakyReluAttrs*>(state)->alpha);
    const T* gp = Data<T>(g);
    const T* sp = Data<T>(saved);
    T* bp = Data<T>(out);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) bp[i] = Narrow<T>(Op::template Apply<T>(Widen(gp[i]), Widen(sp[i]), alpha));
    });
  }
};

template <typename Op, typename... Ts>
void Register(Types<Ts...>, TF_Status* status, kernels::CreateFn create = nullptr,
              kernels::DeleteFn destroy = nullptr) {
  (RegisterKernel(kDevice, {Op::kName, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Op, Ts>::Compute,
       create, destroy}, status),
   ...);
}

}  // namespace

void RegisterActivationGradKernels(TF_Status* status) {
  Register<ReluGradOp>(RealTypes(), status);
  Register<Relu6GradOp>(RealTypes(), status);
  Register<EluGradOp>(FloatTypes(), status);
  Register<SeluGradOp>(FloatTypes(), status);
  Register<SoftplusGradOp>(FloatTypes(), status);
  Register<SoftsignGradOp>(FloatTypes(), status);
  Register<LeakyReluGradOp>(FloatTypes(), status, kernels::CreateLeakyRelu, kernels::DeleteLeakyRelu);
}

}  // namespace cpu
}  // namespace opgen
