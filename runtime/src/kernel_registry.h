// Kernel registry (by op, device, type constraints, priority) and the contexts that
// kernels see through the C API.
#pragma once

#include <memory>
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
  std::string label;  // matched against a node's "_kernel" attr; "" matches nodes without it
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

// The device type of a device name: "/CPU:0", "/device:CPU:0", "CPU" and
// "/job:localhost/replica:0/task:0/device:CPU:0" give "CPU"; "" gives "CPU".
bool ParseDeviceType(const std::string& name, std::string* type);

// Readable "T=DT_FLOAT, transpose_a=false" for error messages.
std::string AttrMapToString(const AttrMap& attrs);
std::string AttrValueToString(const AttrValue& v);

// A kernel instantiated for one node (or one eager op): created once, computed many
// times, possibly from several threads at once. Owns the kernel's state.
class KernelInstance {
 public:
  // nullptr with `status` set when the kernel's create function fails. `op`, `attrs` and
  // `kernel` must outlive the instance (they are registry or graph data).
  static std::unique_ptr<KernelInstance> Create(const KernelDef& kernel, const OpDef& op,
                                                const std::string& node_name,
                                                const AttrMap& attrs,
                                                std::vector<TF_DataType> output_types,
                                                TF_Status* status);
  ~KernelInstance();
  KernelInstance(const KernelInstance&) = delete;
  KernelInstance& operator=(const KernelInstance&) = delete;

  // Runs compute on `num_inputs` borrowed inputs. `outputs` has room for num_outputs()
  // tensors, all null on entry; on success each holds a new tensor the caller owns, of
  // the expected dtype. On failure they are null again and `status` says why. Allocates
  // nothing itself, so an executor can call it per run at the kernels' own cost.
  void Compute(TF_Tensor* const* inputs, int num_inputs, TF_Tensor** outputs, int64_t step_id,
               TF_Status* status) const;

  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const KernelDef& kernel() const { return kernel_; }

 private:
  KernelInstance(const KernelDef& kernel, const OpDef& op, std::string node_name,
                 std::vector<TF_DataType> types)
      : kernel_(kernel), op_(op), node_name_(std::move(node_name)),
        output_types_(std::move(types)) {}
  const KernelDef& kernel_;
  const OpDef& op_;
  std::string node_name_;  // what TF_GetOpKernelName reports
  std::vector<TF_DataType> output_types_;
  void* state_ = nullptr;
};

// A fresh id for one step (an eager op or one session run), as TF_StepId reports it.
int64_t NextStepId();

// Runs one kernel on inputs; on success `outputs` holds one new tensor per output.
void RunKernel(const KernelDef& kernel, const OpDef& op, const std::string& node_name,
               const AttrMap& attrs, const std::vector<TF_Tensor*>& inputs,
               const std::vector<TF_DataType>& output_types, std::vector<TF_Tensor*>* outputs,
               TF_Status* status);

}  // namespace opgen
