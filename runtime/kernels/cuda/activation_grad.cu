// The activations' gradient kernels on the GPU: ReluGrad, Relu6Grad, EluGrad, SeluGrad,
// SoftplusGrad, SoftsignGrad, LeakyReluGrad, with the CPU kernels' formulas and operand
// checks (../nn_array_grad_spec.h). Twin of ../cpu/activation_grad.cc.
#include "../nn_array_grad_spec.h"
#include "../misc_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "grad_math.cuh"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

struct ReluGradOp {
  static constexpr const char* kName = "ReluGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> __device__ static C Apply(C g, C f, C) {
    return grad::Mul(g, f > C(0) ? C(1) : C(0));
  }
};
struct Relu6GradOp {
  static constexpr const char* kName = "Relu6Grad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> __device__ static C Apply(C g, C f, C) {
    return grad::Mul(g, f > C(0) && f < C(6) ? C(1) : C(0));
  }
};
struct EluGradOp {
  static constexpr const char* kName = "EluGrad";
  static constexpr const char* kSaved = "outputs";
  template <typename T, typename C> __device__ static C Apply(C g, C y, C) { return y < C(0) ? (y + C(1)) * g : g; }
};
struct SeluGradOp {
  static constexpr const char* kName = "SeluGrad";
  static constexpr const char* kSaved = "outputs";
  template <typename T, typename C> __device__ static C Apply(C g, C y, C) {
    const C scale = C(1.0507009873554804934193349852946);
    const C scale_alpha = C(1.7580993408473768599402175208123);
    return y < C(0) ? g * (y + scale_alpha) : g * scale;
  }
};
struct SoftplusGradOp {
  static constexpr const char* kName = "SoftplusGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> __device__ static C Apply(C g, C f, C) { return g / (grad::Exp(-f) + C(1)); }
};
struct SoftsignGradOp {
  static constexpr const char* kName = "SoftsignGrad";
  static constexpr const char* kSaved = "features";
  // In T, as the CPU kernel (and TensorFlow) computes it.
  template <typename T, typename C> __device__ static C Apply(C g, C f, C) {
    const C d = Widen(Narrow<T>(grad::Abs(f) + C(1)));
    return g / Widen(Narrow<T>(d * d));
  }
};
struct LeakyReluGradOp {
  static constexpr const char* kName = "LeakyReluGrad";
  static constexpr const char* kSaved = "features";
  template <typename T, typename C> __device__ static C Apply(C g, C f, C alpha) { return f > C(0) ? g : g * alpha; }
};

template <typename Op, typename T, typename C>
__global__ void ActivationGradKernel(const T* g, const T* s, T* out, int64_t n, C alpha) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>())
    out[i] = Narrow<T>(Op::template Apply<T, C>(Widen(g[i]), Widen(s[i]), alpha));
}

template <typename Op, typename T>
struct Kernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = typename ComputeType<T>::type;
    TensorPtr g, saved;
    if (!kernels::PlanActivationGrad(ctx, Op::kName, Op::kSaved, &g, &saved)) return;
    const std::vector<int64_t> dims = Dims(g.get());
    TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
    const int64_t n = NumElements(dims);
    if (!out || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    C alpha = C(0);
    if (state != nullptr) alpha = static_cast<C>(static_cast<kernels::LeakyReluAttrs*>(state)->alpha);
    ActivationGradKernel<Op, T, C><<<BlocksFor(n), kThreads, 0, stream>>>(
        Data<T>(g), Data<T>(saved), Data<T>(out), n, alpha);
    CheckLaunch(ctx, Op::kName);
  }
};

template <typename Op, typename... Ts>
void Register(Types<Ts...>, TF_Status* status, CreateFn create = nullptr, DeleteFn destroy = nullptr) {
  (RegisterKernel(kDevice, {Op::kName, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Op, Ts>::Compute,
       create, destroy}, status),
   ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

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

}  // namespace cuda
}  // namespace opgen
