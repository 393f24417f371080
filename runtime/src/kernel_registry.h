// Kernel registry (by op, device, type constraints, priority) and the contexts that
// kernels see through the C API.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core_types.h"
#include "op_def.h"
#include "tensorflow/c/kernels.h"

namespace opgen {

struct KernelDef {
  std::string name;
  std::string op;
  std::string device;  // "CPU", "GPU"
  std::vector<std::pair<std::string, TF_DataType>> type_constraints;
  std::vector<std::string> host_memory_args;
  int32_t priority = 0;
  void* (*create_func)(TF_OpKernelConstruction*) = nullptr;
  void (*compute_func)(void*, TF_OpKernelContext*) = nullptr;
  void (*delete_func)(void*) = nullptr;
};

class KernelRegistry {
 public:
  static KernelRegistry& Global();
  void Register(KernelDef def, TF_Status* status);
  // The best kernel for an op on `device` given its attrs. On a miss returns nullptr and
  // sets status to TF_NOT_FOUND with the kernels that are registered for the op.
  const KernelDef* Find(const OpDef& op, const std::string& device, const AttrMap& attrs,
                        TF_Status* status) const;
};

// Readable "T=DT_FLOAT, transpose_a=false" for error messages.
std::string AttrMapToString(const AttrMap& attrs);
std::string AttrValueToString(const AttrValue& v);

// Runs one kernel on inputs; on success `outputs` holds one new tensor per output.
void RunKernel(const KernelDef& kernel, const OpDef& op, const std::string& node_name,
               const AttrMap& attrs, const std::vector<TF_Tensor*>& inputs,
               const std::vector<TF_DataType>& output_types, std::vector<TF_Tensor*>* outputs,
               TF_Status* status);

}  // namespace opgen
