// One way to register a kernel, for every kernel library of opgen (the built-in CPU
// kernels and the CUDA plugin alike): a KernelSpec says which op, which type attrs it
// is fixed to, which args stay in host memory and which functions run it;
// RegisterKernel hands it to the public kernel builder for one device type. Each
// device's util header names its device type as `kDevice`, so that a CPU family file
// and its CUDA twin register with the same calls.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dtype_of.h"
#include "kernel_api_util.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "type_list.h"

namespace opgen {
namespace kernels {

struct KernelSpec {
  const char* op;
  // (type attr, dtype) pairs: the kernel runs for nodes whose attrs have these values
  std::vector<std::pair<const char*, TF_DataType>> type_constraints;
  std::vector<const char*> host_memory;  // arg names kept in host memory
  ComputeFn compute;
  CreateFn create = nullptr;
  DeleteFn destroy = nullptr;
};

// Registers `spec` for `device_type` ("CPU", "GPU"). Does nothing when `status` already
// failed, so that a family can register everything and check once: the first failure
// stays.
inline void RegisterKernel(const char* device_type, const KernelSpec& spec, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK) return;
  TF_KernelBuilder* b =
      TF_NewKernelBuilder(spec.op, device_type, spec.create, spec.compute, spec.destroy);
  for (const auto& [attr, dtype] : spec.type_constraints) {
    TF_KernelBuilder_TypeConstraint(b, attr, dtype, status);
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(b);
      return;
    }
  }
  for (const char* arg : spec.host_memory) TF_KernelBuilder_HostMemory(b, arg);
  const std::string name = std::string(spec.op) + "_" + device_type;
  TF_RegisterKernelBuilder(name.c_str(), b, status);
}

// Registers Kernel<T>::Compute for `op` with attr "T" = T, for each T of the list.
template <template <typename> class Kernel, typename... Ts>
void RegisterForTypes(const char* device_type, const char* op, Types<Ts...>, TF_Status* status,
                      const std::vector<const char*>& host_memory = {}) {
  (RegisterKernel(device_type, {op, {{"T", DtypeOf<Ts>::value}}, host_memory, &Kernel<Ts>::Compute},
                  status),
   ...);
}

}  // namespace kernels
}  // namespace opgen
