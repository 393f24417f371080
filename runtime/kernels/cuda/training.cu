// GPU kernels of the optimizer ops (../training_spec.h): one grid-stride kernel per
// algorithm and dtype, reading the scalar operands from device memory (no copy to the
// host, no wait), and a device-to-device copy for copy-on-write updates. Handles stay in
// host memory, as TensorFlow places them.
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "../training_spec.h"

namespace opgen {
namespace cuda {

namespace {

// The stream of the kernel's device, or nullptr with `status` set.
cudaStream_t StepStream(TF_OpKernelContext* ctx, TF_Status* status) {
  StatusPtr s = NewStatus();
  SP_Stream sp = TF_GetStream(ctx, s.get());
  if (TF_GetCode(s.get()) != TF_OK || sp == nullptr) {
    TF_SetStatus(status, TF_INTERNAL, "no CUDA stream for the variable update");
    return nullptr;
  }
  if (NumDevices() > 1 && cudaSetDevice(sp->ordinal) != cudaSuccess) {
    TF_SetStatus(status, TF_INTERNAL, "cudaSetDevice failed");
    return nullptr;
  }
  return sp->stream;
}

// What a launch passes by value: the variables (updated in place), the gradient and the
// scalar operands, all in device memory.
template <typename T>
struct StepPointers {
  T* vars[4];
  const T* grad;
  const T* scalars[6];
};

template <typename Algo, typename T, bool kNesterov>
__global__ void StepKernel(StepPointers<T> ptr, int64_t n) {
  using C = typename ComputeType<T>::type;
  C s[Algo::kScalars], p[8];
  for (int k = 0; k < Algo::kScalars; ++k) s[k] = Widen(*ptr.scalars[k]);
  Algo::Prepare(s, p);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    C v[Algo::kVars];
    for (int k = 0; k < Algo::kVars; ++k) v[k] = Widen(ptr.vars[k][i]);
    Algo::Apply(v, Widen(ptr.grad[i]), p, kNesterov);
    for (int k = 0; k < Algo::kVars; ++k) ptr.vars[k][i] = Narrow<T>(v[k]);
  }
}

struct CudaTraining {
  static constexpr bool kHostScalars = false;  // device memory: no value checks, as in TF

  static void Copy(TF_OpKernelContext* ctx, void* dst, const void* src, size_t bytes,
                   TF_Status* status) {
    cudaStream_t stream = StepStream(ctx, status);
    if (stream == nullptr) return;
    const cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
    if (err != cudaSuccess) TF_SetStatus(status, TF_INTERNAL, cudaGetErrorString(err));
  }

  template <typename Algo, typename T>
  struct Loop {
    static void Run(TF_OpKernelContext* ctx, T* const* vars, const T* grad,
                    const T* const* scalars, int64_t n, bool nesterov, TF_Status* status) {
      if (n == 0) return;
      cudaStream_t stream = StepStream(ctx, status);
      if (stream == nullptr) return;
      StepPointers<T> ptr{};
      for (int k = 0; k < Algo::kVars; ++k) ptr.vars[k] = vars[k];
      for (int k = 0; k < Algo::kScalars; ++k) ptr.scalars[k] = scalars[k];
      ptr.grad = grad;
      if (nesterov) StepKernel<Algo, T, true><<<BlocksFor(n), kThreads, 0, stream>>>(ptr, n);
      else StepKernel<Algo, T, false><<<BlocksFor(n), kThreads, 0, stream>>>(ptr, n);
      const cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) TF_SetStatus(status, TF_INTERNAL, cudaGetErrorString(err));
    }
  };
};

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;

}  // namespace

void RegisterTrainingKernels(TF_Status* status) {
  namespace t = kernels::training;
  using Dev = CudaTraining;
  const kernels::CreateFn none = nullptr, nesterov = &t::CreateFlag<t::kUseNesterov>,
                          update_slots = &t::CreateFlag<t::kUpdateSlots>,
                          linear_by_lr = &t::CreateFlag<t::kMultiplyLinearByLr>;
  // TensorFlow's CPU kernels stop short of 16-bit floats for some algorithms.
  const FloatTypes types;
  const Types<float, double> wide_types;
  const Types<float, double, __half> no_bfloat16;
  t::RegisterTrainingKernels<Dev, t::Adadelta>(kDevice, "ResourceApplyAdadelta", none, types,
                                               status);
  t::RegisterTrainingKernels<Dev, t::Adagrad>(kDevice, "ResourceApplyAdagrad", update_slots,
                                              types, status);
  t::RegisterTrainingKernels<Dev, t::AdagradV2>(kDevice, "ResourceApplyAdagradV2", update_slots,
                                                types, status);
  t::RegisterTrainingKernels<Dev, t::AdaMax>(kDevice, "ResourceApplyAdaMax", none, no_bfloat16,
                                             status);
  t::RegisterTrainingKernels<Dev, t::Adam>(kDevice, "ResourceApplyAdam", nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::AdamWithAmsgrad>(kDevice, "ResourceApplyAdamWithAmsgrad", none,
                                                      types, status);
  t::RegisterTrainingKernels<Dev, t::AddSign>(kDevice, "ResourceApplyAddSign", none, types,
                                              status);
  t::RegisterTrainingKernels<Dev, t::CenteredRMSProp>(kDevice, "ResourceApplyCenteredRMSProp",
                                                      none, types, status);
  t::RegisterTrainingKernels<Dev, t::Ftrl>(kDevice, "ResourceApplyFtrl", linear_by_lr, types,
                                           status);
  t::RegisterTrainingKernels<Dev, t::FtrlV2>(kDevice, "ResourceApplyFtrlV2", linear_by_lr, types,
                                             status);
  t::RegisterTrainingKernels<Dev, t::GradientDescent>(kDevice, "ResourceApplyGradientDescent",
                                                      none, types, status);
  t::RegisterTrainingKernels<Dev, t::KerasMomentum>(kDevice, "ResourceApplyKerasMomentum",
                                                    nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::Momentum>(kDevice, "ResourceApplyMomentum", nesterov, types,
                                               status);
  t::RegisterTrainingKernels<Dev, t::PowerSign>(kDevice, "ResourceApplyPowerSign", none, types,
                                                status);
  t::RegisterTrainingKernels<Dev, t::ProximalAdagrad>(kDevice, "ResourceApplyProximalAdagrad",
                                                      none, wide_types, status);
  t::RegisterTrainingKernels<Dev, t::ProximalGradientDescent>(
      kDevice, "ResourceApplyProximalGradientDescent", none, wide_types, status);
  t::RegisterTrainingKernels<Dev, t::RMSProp>(kDevice, "ResourceApplyRMSProp", none, types, status);
}

}  // namespace cuda
}  // namespace opgen
