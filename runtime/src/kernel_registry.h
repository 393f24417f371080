// Kernel registry (by op, device, type constraints, priority) and the contexts that
// kernels see through the C API.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core_types.h"
#include "device.h"
#include "op_def.h"
#include "tensorflow/c/kernels.h"

namespace opgen {

class ResourceMgr;
class FunctionLibrary;

// A flag that copies as "not set": a KernelDef is copied while it is registered.
struct InstantiatedFlag {
  mutable std::atomic<bool> set{false};
  InstantiatedFlag() = default;
  InstantiatedFlag(const InstantiatedFlag&) {}
  InstantiatedFlag& operator=(const InstantiatedFlag&) { return *this; }
};

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
  // Whether an instance was ever made: which kernels a test run reached
  // (OPGEN_GetInstantiatedKernels).
  InstantiatedFlag instantiated;
};

class KernelRegistry {
 public:
  static KernelRegistry& Global();
  void Register(KernelDef def, TF_Status* status);
  // The best kernel for an op on `device` given its attrs. On a miss returns nullptr and
  // sets status to TF_NOT_FOUND with the kernels that are registered for the op.
  const KernelDef* Find(const OpDef& op, const std::string& device, const AttrMap& attrs,
                        TF_Status* status) const;
  // The registered kernels as KernelList bytes, in registration order: all of them, or
  // those of op `op` when it is not null (none for an op without kernels). Each kernel's
  // type constraints are one AttrConstraint per attr, allowing the one dtype it matches.
  std::string SerializeKernels(const std::string* op, bool only_instantiated = false) const;
};

// Where an op runs: the device `requested` names ("" or an unknown device: the CPU) if
// it has a kernel for the op there, else the CPU (soft placement, as TensorFlow's eager
// mode and sessions with allow_soft_placement). Sets `*device` and returns the kernel,
// or nullptr with `status` set when the CPU has none either.
const KernelDef* PlaceKernel(const std::string& requested, const OpDef& op, const AttrMap& attrs,
                             const Device** device, TF_Status* status);

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
                                                TF_Status* status,
                                                const Device* device = nullptr,
                                                ResourceMgr* resources = nullptr,
                                                const FunctionLibrary* functions = nullptr);
  ~KernelInstance();
  KernelInstance(const KernelInstance&) = delete;
  KernelInstance& operator=(const KernelInstance&) = delete;

  // Runs compute on `num_inputs` borrowed inputs. An input whose data is not where the
  // kernel reads it (the device's memory, or the host for host-memory args and CPU
  // kernels) is copied there first, for this call only. `outputs` has room for num_outputs()
  // tensors, all null on entry; on success each holds a new tensor the caller owns, of
  // the expected dtype. On failure they are null again and `status` says why. Allocates
  // nothing itself, so an executor can call it per run at the kernels' own cost.
  // `inputs_in_place`: the caller guarantees every input is where the kernel reads it
  // (a session plan, whose copy steps put them there), so no check is made.
  // `forwardable_inputs`: bit i when the caller reads input i no more after this call
  // (TF_OpKernelContext::forwardable_inputs).
  void Compute(TF_Tensor* const* inputs, int num_inputs, TF_Tensor** outputs, int64_t step_id,
               TF_Status* status, bool inputs_in_place = false,
               uint64_t forwardable_inputs = 0) const;

  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const KernelDef& kernel() const { return kernel_; }
  const Device* device() const { return device_; }
  // The session's or eager context's resources (variables) that the kernel's resource
  // inputs name; nullptr where there are none (constant folding).
  ResourceMgr* resources() const { return resources_; }
  // Whether flat input / output `i` lives in host memory.
  bool host_input(int i) const { return on_host_ || InMask(host_inputs_, i); }
  bool host_output(int i) const { return on_host_ || InMask(host_outputs_, i); }

 private:
  KernelInstance(const KernelDef& kernel, const OpDef& op, std::string node_name,
                 std::vector<TF_DataType> types)
      : kernel_(kernel), op_(op), node_name_(std::move(node_name)),
        output_types_(std::move(types)) {}
  const KernelDef& kernel_;
  const OpDef& op_;
  std::string node_name_;  // what TF_GetOpKernelName reports
  static bool InMask(const std::vector<bool>& mask, int i) {
    return i >= 0 && static_cast<size_t>(i) < mask.size() && mask[i];
  }
  std::vector<TF_DataType> output_types_;
  const Device* device_ = nullptr;  // never null once created
  ResourceMgr* resources_ = nullptr;  // outlives the instance (its owner holds both)
  bool on_host_ = true;             // device_->is_host(), kept at hand for every call
  std::vector<bool> host_inputs_, host_outputs_;  // host-memory args of a device kernel
  void* state_ = nullptr;
};

// The function library a kernel's create function may read (set for call kernels).
const FunctionLibrary* ConstructionFunctions(const TF_OpKernelConstruction* ctx);
// The node's OpDef (a function's signature for a function node) and complete attrs.
const OpDef* ConstructionOpDef(const TF_OpKernelConstruction* ctx);
const AttrMap* ConstructionAttrs(const TF_OpKernelConstruction* ctx);

// A fresh id for one step (an eager op or one session run), as TF_StepId reports it.
int64_t NextStepId();

// Runs one kernel on inputs; on success `outputs` holds one new tensor per output.
void RunKernel(const KernelDef& kernel, const OpDef& op, const std::string& node_name,
               const AttrMap& attrs, const std::vector<TF_Tensor*>& inputs,
               const std::vector<TF_DataType>& output_types, std::vector<TF_Tensor*>* outputs,
               TF_Status* status);

}  // namespace opgen
