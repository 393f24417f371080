// The compute context a kernel sees through the C API (TF_OpKernelContext), shared by
// the modules that implement kernel-facing C functions (kernel_registry.cc, and
// variable_kernel_api.cc for resource variables).
#pragma once

#include <string>

#include "kernel_registry.h"

// Lives on the stack of one KernelInstance::Compute call; points into the caller's arrays.
struct TF_OpKernelContext {
  TF_Tensor* const* inputs;  // borrowed
  int num_inputs;
  TF_Tensor** outputs;       // owned by the caller of Compute; null until set
  int num_outputs;
  const TF_DataType* output_types;
  int64_t step_id;
  const std::string* node_name;
  const opgen::KernelInstance* instance;  // device, host-memory args, resources
  TF_Status failure;
  // Bit i: the caller reads input i no more after this call, so the kernel may take it
  // over as an output (forwarding) when nothing else holds its buffer.
  uint64_t forwardable_inputs = 0;
};

namespace opgen {
class ResourceMgr;
struct ResourceHandle;
// The resource manager and handle of `ctx`'s resource input `index`, or false with
// `status` set (variable_kernel_api.cc).
bool ResolveResourceHandle(TF_OpKernelContext* ctx, int index, ResourceMgr** mgr,
                           ResourceHandle* handle, TF_Status* status);
}  // namespace opgen
