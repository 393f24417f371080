// The kernel-facing C functions of resource variables (c_api_ext.h): they resolve a
// kernel's resource input to a variable of the session's or eager context's
// ResourceMgr and read, assign, update or delete it. Messages follow TensorFlow's and
// name the variable.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "kernel_context.h"
#include "opgen/c_api_ext.h"
#include "opgen/c_api_variable_shape.h"
#include "opgen/variable_updates.h"
#include "resource_handle.h"
#include "resource_mgr.h"

namespace opgen {
namespace {

std::string DescribeVariable(const ResourceHandle& h) {
  return "variable '" + h.name + "' (container '" + h.container + "')";
}

std::string NotFoundMessage(const ResourceHandle& h) {
  return "Could not find variable " + h.name +
         ". This could mean that the variable has been deleted. In TF1, it can also mean the "
         "variable is uninitialized. Debug info: container=" + h.container;
}

}  // namespace

bool ResolveResourceHandle(TF_OpKernelContext* ctx, int index, ResourceMgr** mgr,
                           ResourceHandle* handle, TF_Status* status) {
  if (index < 0 || index >= ctx->num_inputs) {
    SetStatus(status, TF_OUT_OF_RANGE, "resource input index " + std::to_string(index) +
                                           " out of range");
    return false;
  }
  *mgr = ctx->instance->resources();
  if (*mgr == nullptr) {
    SetStatus(status, TF_FAILED_PRECONDITION,
              "no resource manager here (resource ops run in a session or an eager context)");
    return false;
  }
  std::string error;
  if (!ReadResourceTensor(ctx->inputs[index], handle, &error)) {
    SetStatus(status, TF_INVALID_ARGUMENT, "input " + std::to_string(index) + ": " + error);
    return false;
  }
  return true;
}

// What OPGEN_KernelUpdateVariable's one-variable callback becomes for UpdateVariables.
struct OneVariableUpdate {
  OPGEN_VariableUpdateFn update;
  void* arg;
  static void Run(const TF_Tensor* const* old_values, TF_Tensor* const* new_values, int,
                  void* self, TF_Status* status) {
    const auto* one = static_cast<const OneVariableUpdate*>(self);
    one->update(old_values[0], new_values[0], one->arg, status);
  }
};

// The value a kernel on `device` may write for `value`: `value` itself when its buffer
// lives there and nobody else holds it (in place), else a private copy there (when the
// value lives elsewhere, the copy is private already), else a fresh tensor (copy-on-write).
// `*input` is what the update reads: `value`, or the copy. Null with `status` set on error.
TF_Tensor* WritableValue(TF_Tensor* value, const Device* device, const TF_Tensor** input,
                         TF_Status* status) {
  ClearStatus(status);
  if (DeviceOf(value) == device) {
    *input = value;
    if (value->buffer->WritableInPlace()) return value;
    size_t bytes = 0;
    ByteSize(TF_DataTypeSize(value->dtype), NumElements(value->dims), &bytes);
    return AllocateDeviceTensor(device, value->dtype, value->dims.data(),
                                static_cast<int>(value->dims.size()), bytes, status);
  }
  TF_Tensor* copy = CopyTensorTo(value, device, status);  // a new buffer of its own
  if (copy == nullptr) return nullptr;
  *input = copy;
  return copy;
}

// Locks the variables of `ctx`'s resource inputs `indices[0 .. n)`, checks them and runs
// `update` with each value and the tensor it writes (WritableValue). `assign_add_messages`
// gives AssignAdd/AssignSubVariableOp's errors (NOT_FOUND for a missing variable) instead
// of the training ops' (FAILED_PRECONDITION "Attempting to use uninitialized variables").
void UpdateVariables(TF_OpKernelContext* ctx, const int* indices, const char* const* names,
                     int n, TF_DataType dtype, OPGEN_VariablesUpdateFn update, void* arg,
                     bool assign_add_messages, TF_Status* status) {
  auto input_name = [&](int i) {
    return names != nullptr && names[i] != nullptr ? std::string(names[i])
                                                   : "input " + std::to_string(indices[i]);
  };
  std::vector<ResourceHandle> handles(static_cast<size_t>(n));
  std::vector<std::shared_ptr<Variable>> vars(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    ResourceMgr* mgr;
    if (!ResolveResourceHandle(ctx, indices[i], &mgr, &handles[i], status)) return;
    vars[i] = mgr->LookupVariable(handles[i].container, handles[i].name);
    if (vars[i] != nullptr) continue;
    if (assign_add_messages) {
      SetStatus(status, TF_NOT_FOUND,
                "Resource " + handles[i].container + "/" + handles[i].name + " does not exist (" +
                    DescribeVariable(handles[i]) + ")");
    } else {
      SetStatus(status, TF_FAILED_PRECONDITION,
                "Attempting to use uninitialized variables: " + input_name(i) + " (" +
                    DescribeVariable(handles[i]) + " does not exist)");
    }
    return;
  }
  // One lock order for every kernel: by address. Two inputs naming one variable would
  // alias an input with an output the update writes; TensorFlow's result then depends on
  // its evaluation order, so it is refused.
  std::vector<Variable*> order;
  for (const auto& v : vars) order.push_back(v.get());
  std::sort(order.begin(), order.end());
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (vars[i] == vars[j]) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  input_name(i) + " and " + input_name(j) + " are the same " +
                      DescribeVariable(handles[i]) + "; they must be distinct variables");
        return;
      }
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(order.size());
  for (Variable* v : order) locks.emplace_back(v->mu());

  const Device* device = ctx->instance->device();
  std::vector<const TF_Tensor*> inputs(static_cast<size_t>(n));
  std::vector<TF_Tensor*> outputs(static_cast<size_t>(n));
  std::vector<std::unique_ptr<TF_Tensor>> fresh(static_cast<size_t>(n));  // not in place
  for (int i = 0; i < n; ++i) {
    TF_Tensor* value = vars[i]->mutable_value();
    if (value == nullptr) {
      SetStatus(status, TF_FAILED_PRECONDITION,
                assign_add_messages ? "Update of uninitialized " + DescribeVariable(handles[i])
                                    : "Attempting to use uninitialized variables: " +
                                          input_name(i) + " (" + DescribeVariable(handles[i]) +
                                          " has no value)");
      return;
    }
    if (value->dtype != dtype) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                std::string(assign_add_messages ? "" : input_name(i) + ": ") +
                    "Trying to update variable with wrong dtype. Expected " +
                    DataTypeName(value->dtype) + " got " + DataTypeName(dtype) + " (" +
                    DescribeVariable(handles[i]) + ")");
      return;
    }
    outputs[i] = WritableValue(value, device, &inputs[i], status);
    if (outputs[i] == nullptr) return;
    if (outputs[i] != value) fresh[i].reset(outputs[i]);
  }
  ClearStatus(status);
  update(inputs.data(), outputs.data(), n, arg, status);
  if (status->code != TF_OK) {
    // The training ops' messages are TensorFlow's, which name the inputs already.
    if (assign_add_messages) status->message += " (" + DescribeVariable(handles[0]) + ")";
    return;
  }
  for (int i = 0; i < n; ++i)
    if (fresh[i] != nullptr) vars[i]->set_value(fresh[i].release());
}

}  // namespace opgen

using opgen::ResourceHandle;
using opgen::ResourceMgr;

extern "C" {

void OPGEN_KernelSetVariableHandleOutput(TF_OpKernelContext* ctx, int index,
                                         const char* container, const char* shared_name,
                                         TF_DataType dtype, const int64_t* dims, int num_dims,
                                         TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"container", container},
                                              {"shared_name", shared_name},
                                              {"dims", opgen::ArrayArg(dims, num_dims)}}))
    return;
  if (index < 0 || index >= ctx->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE, "output index " + std::to_string(index) +
                                                  " out of range");
    return;
  }
  ResourceHandle h;
  h.device = ctx->instance->device()->name();
  h.container = *container ? container : ResourceMgr::kDefaultContainer;
  h.name = shared_name;
  if (h.name == ResourceMgr::kAnonymousName) {
    h.container = ResourceMgr::kAnonymousContainer;
    h.name = ResourceMgr::UniqueAnonymousName();
  }
  h.hash_code = opgen::VariableTypeHash();
  h.maybe_type_name = opgen::kVariableTypeName;
  opgen::Shape shape;
  shape.unknown_rank = num_dims < 0;
  if (num_dims > 0) shape.dims.assign(dims, dims + num_dims);
  h.dtypes_and_shapes.emplace_back(dtype, std::move(shape));
  delete ctx->outputs[index];
  ctx->outputs[index] = opgen::NewResourceTensor(h);
  opgen::ClearStatus(status);
}

TF_Tensor* OPGEN_KernelReadVariable(TF_OpKernelContext* ctx, int resource_index,
                                    TF_DataType dtype, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return nullptr;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return nullptr;
  std::shared_ptr<opgen::Variable> var = mgr->LookupVariable(h.container, h.name);
  if (var == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION, opgen::NotFoundMessage(h));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(var->mu());
  const TF_Tensor* value = var->value();
  if (value == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                     "Read of uninitialized " + opgen::DescribeVariable(h));
    return nullptr;
  }
  if (value->dtype != dtype) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Trying to read variable with wrong dtype. Expected ") +
                         opgen::DataTypeName(dtype) + " got " +
                         opgen::DataTypeName(value->dtype) + " (" + opgen::DescribeVariable(h) +
                         ")");
    return nullptr;
  }
  return opgen::CopyTensorTo(value, ctx->instance->device(), status);
}

void OPGEN_KernelAssignVariable(TF_OpKernelContext* ctx, int resource_index,
                                const TF_Tensor* value, unsigned char validate_shape,
                                TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"value", value}})) return;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return;
  std::shared_ptr<opgen::Variable> var = mgr->LookupOrCreateVariable(h.container, h.name);
  std::lock_guard<std::mutex> lock(var->mu());
  const TF_Tensor* old = var->value();
  if (old != nullptr && old->dtype != value->dtype) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Trying to assign variable with wrong dtype. Expected ") +
                         opgen::DataTypeName(old->dtype) + " got " +
                         opgen::DataTypeName(value->dtype) + " (" + opgen::DescribeVariable(h) +
                         ")");
    return;
  }
  if (old != nullptr && validate_shape && old->dims != value->dims) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Trying to assign to variable with tensor with wrong shape. Expected " +
                         opgen::ShapeToString(old->dims) + " got " +
                         opgen::ShapeToString(value->dims) + " (" + opgen::DescribeVariable(h) +
                         ")");
    return;
  }
  var->set_value(value->Share());
  opgen::ClearStatus(status);
}

void OPGEN_KernelUpdateVariable(TF_OpKernelContext* ctx, int resource_index, TF_DataType dtype,
                                OPGEN_VariableUpdateFn update, void* arg, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"update", (const void*)update}}))
    return;
  opgen::OneVariableUpdate one{update, arg};
  opgen::UpdateVariables(ctx, &resource_index, nullptr, 1, dtype, &opgen::OneVariableUpdate::Run,
                         &one, /*assign_add_messages=*/true, status);
}

void OPGEN_KernelUpdateVariables(TF_OpKernelContext* ctx, const int* resource_indices,
                                 const char* const* input_names, int num_variables,
                                 TF_DataType dtype, OPGEN_VariablesUpdateFn update, void* arg,
                                 TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"ctx", ctx}, {"update", (const void*)update},
                            {"resource_indices", opgen::ArrayArg(resource_indices, num_variables)}}))
    return;
  if (num_variables < 1) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "num_variables is " + std::to_string(num_variables) + ", not positive");
    return;
  }
  opgen::UpdateVariables(ctx, resource_indices, input_names, num_variables, dtype, update, arg,
                         /*assign_add_messages=*/false, status);
}

int OPGEN_KernelVariableIsInitialized(TF_OpKernelContext* ctx, int resource_index,
                                      TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return 0;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return 0;
  opgen::ClearStatus(status);
  std::shared_ptr<opgen::Variable> var = mgr->LookupVariable(h.container, h.name);
  if (var == nullptr) return 0;
  std::lock_guard<std::mutex> lock(var->mu());
  return var->value() != nullptr ? 1 : 0;
}

int OPGEN_KernelVariableShape(TF_OpKernelContext* ctx, int resource_index, int64_t* dims,
                              int max_dims, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return -1;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return -1;
  std::shared_ptr<opgen::Variable> var = mgr->LookupVariable(h.container, h.name);
  if (var == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION, opgen::NotFoundMessage(h));
    return -1;
  }
  std::lock_guard<std::mutex> lock(var->mu());
  const TF_Tensor* value = var->value();
  if (value == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                     "Read of uninitialized " + opgen::DescribeVariable(h));
    return -1;
  }
  const int rank = TF_NumDims(value);
  for (int d = 0; d < rank && d < max_dims; ++d) dims[d] = TF_Dim(value, d);
  opgen::ClearStatus(status);
  return rank;
}

void OPGEN_KernelDestroyResource(TF_OpKernelContext* ctx, int resource_index,
                                 unsigned char ignore_lookup_error, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return;
  if (!mgr->Delete(h.container, h.name) && !ignore_lookup_error) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     "Resource " + h.container + "/" + h.name + " does not exist");
    return;
  }
  opgen::ClearStatus(status);
}

}  // extern "C"
