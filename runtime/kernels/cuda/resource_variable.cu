// GPU kernels of the resource-variable ops (../resource_variable_spec.h), as TensorFlow
// places them: handles (and VarIsInitializedOp's bool) in host memory, values in device
// memory. This file gives AssignAdd/AssignSubVariableOp their element-wise kernel.
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "../resource_variable_spec.h"

namespace opgen {
namespace cuda {
namespace {

template <typename T, int Sign>
__global__ void UpdateKernel(const T* old_value, const T* delta, T* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = Sign > 0 ? old_value[i] + delta[i] : old_value[i] - delta[i];
}

template <typename T, int Sign>
struct CudaUpdate {
  static void Apply(TF_OpKernelContext* ctx, const T* old_value, const T* delta, T* out,
                    int64_t n, TF_Status* status) {
    if (n == 0) return;
    StatusPtr s = NewStatus();
    SP_Stream sp = TF_GetStream(ctx, s.get());
    if (TF_GetCode(s.get()) != TF_OK || sp == nullptr) {
      TF_SetStatus(status, TF_INTERNAL, "no CUDA stream for the variable update");
      return;
    }
    if (NumDevices() > 1 && cudaSetDevice(sp->ordinal) != cudaSuccess) {
      TF_SetStatus(status, TF_INTERNAL, "cudaSetDevice failed");
      return;
    }
    UpdateKernel<T, Sign><<<BlocksFor(n), kThreads, 0, sp->stream>>>(old_value, delta, out, n);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) TF_SetStatus(status, TF_INTERNAL, cudaGetErrorString(err));
  }
};

}  // namespace

void RegisterResourceVariableKernels(TF_Status* status) {
  using namespace kernels::variables;  // NOLINT: the family's kernels, spelled once
  RegisterKernel(kDevice, {"VarHandleOp", {}, {"resource"}, VarHandleCompute, CreateVarHandle,
                           DeleteVarHandle}, status);
  RegisterKernel(kDevice, {"ReadVariableOp", {}, {"resource"}, ReadVariableCompute}, status);
  RegisterKernel(kDevice, {"VariableShape", {{"out_type", TF_INT32}}, {"input", "output"},
                           VariableShapeCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"VariableShape", {{"out_type", TF_INT64}}, {"input", "output"},
                           VariableShapeCompute<int64_t>}, status);
  RegisterKernel(kDevice, {"AssignVariableOp", {}, {"resource"}, AssignCompute, CreateAssign,
                           DeleteFlag}, status);
  RegisterUpdateKernels<CudaUpdate, 1>(kDevice, "AssignAddVariableOp", UpdateTypes(), status);
  RegisterUpdateKernels<CudaUpdate, -1>(kDevice, "AssignSubVariableOp", UpdateTypes(), status);
  RegisterKernel(kDevice, {"VarIsInitializedOp", {}, {"resource", "is_initialized"},
                           IsInitializedCompute}, status);
  RegisterKernel(kDevice, {"DestroyResourceOp", {}, {"resource"}, DestroyCompute, CreateDestroy,
                           DeleteFlag}, status);
  RegisterKernel(kDevice, {"DisableCopyOnRead", {}, {"resource"}, DisableCopyOnReadCompute},
                 status);
}

}  // namespace cuda
}  // namespace opgen
