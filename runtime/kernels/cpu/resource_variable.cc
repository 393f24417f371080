// CPU kernels of the resource-variable ops (../resource_variable_spec.h); this file
// gives them the element-wise arithmetic of AssignAdd/AssignSubVariableOp.
#include "kernel_util.h"
#include "../resource_variable_spec.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T, int Sign>
struct CpuUpdate {
  static void Apply(TF_OpKernelContext*, const T* old_value, const T* delta, T* out, int64_t n,
                    TF_Status*) {
    for (int64_t i = 0; i < n; ++i) out[i] = Sign > 0 ? old_value[i] + delta[i] : old_value[i] - delta[i];
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
  RegisterUpdateKernels<CpuUpdate, 1>(kDevice, "AssignAddVariableOp", UpdateTypes(), status);
  RegisterUpdateKernels<CpuUpdate, -1>(kDevice, "AssignSubVariableOp", UpdateTypes(), status);
  RegisterKernel(kDevice, {"VarIsInitializedOp", {}, {"resource", "is_initialized"},
                           IsInitializedCompute}, status);
  RegisterKernel(kDevice, {"DestroyResourceOp", {}, {"resource"}, DestroyCompute, CreateDestroy,
                           DeleteFlag}, status);
  RegisterKernel(kDevice, {"DisableCopyOnRead", {}, {"resource"}, DisableCopyOnReadCompute},
                 status);
}

}  // namespace cpu
}  // namespace opgen
