// The kernel-facing C functions of resource variables (c_api_ext.h): they resolve a
// kernel's resource input to a variable of the session's or eager context's
// ResourceMgr and read, assign, update or delete it. Messages follow TensorFlow's and
// name the variable.
#include <memory>
#include <string>

#include "device.h"
#include "kernel_context.h"
#include "opgen/c_api_ext.h"
#include "resource_handle.h"
#include "resource_mgr.h"

namespace opgen {
namespace {

// The resource manager and handle of resource input `index`, or false with `status` set.
bool ResolveHandle(TF_OpKernelContext* ctx, int index, ResourceMgr** mgr, ResourceHandle* handle,
                   TF_Status* status) {
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

std::string DescribeVariable(const ResourceHandle& h) {
  return "variable '" + h.name + "' (container '" + h.container + "')";
}

std::string NotFoundMessage(const ResourceHandle& h) {
  return "Could not find variable " + h.name +
         ". This could mean that the variable has been deleted. In TF1, it can also mean the "
         "variable is uninitialized. Debug info: container=" + h.container;
}

}  // namespace
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
  if (!opgen::ResolveHandle(ctx, resource_index, &mgr, &h, status)) return nullptr;
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
  if (!opgen::ResolveHandle(ctx, resource_index, &mgr, &h, status)) return;
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
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveHandle(ctx, resource_index, &mgr, &h, status)) return;
  std::shared_ptr<opgen::Variable> var = mgr->LookupVariable(h.container, h.name);
  if (var == nullptr) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     "Resource " + h.container + "/" + h.name + " does not exist (" +
                         opgen::DescribeVariable(h) + ")");
    return;
  }
  std::lock_guard<std::mutex> lock(var->mu());
  const TF_Tensor* old = var->value();
  if (old == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                     "Update of uninitialized " + opgen::DescribeVariable(h));
    return;
  }
  if (old->dtype != dtype) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Trying to update variable with wrong dtype. Expected ") +
                         opgen::DataTypeName(old->dtype) + " got " + opgen::DataTypeName(dtype) +
                         " (" + opgen::DescribeVariable(h) + ")");
    return;
  }
  const opgen::Device* device = ctx->instance->device();
  std::unique_ptr<TF_Tensor> old_here(opgen::CopyTensorTo(old, device, status));
  if (old_here == nullptr) return;
  size_t bytes = 0;
  opgen::ByteSize(TF_DataTypeSize(dtype), opgen::NumElements(old->dims), &bytes);
  std::unique_ptr<TF_Tensor> fresh(opgen::AllocateDeviceTensor(
      device, dtype, old->dims.data(), static_cast<int>(old->dims.size()), bytes, status));
  if (fresh == nullptr) return;
  opgen::ClearStatus(status);
  update(old_here.get(), fresh.get(), arg, status);
  if (status->code != TF_OK) {
    status->message += " (" + opgen::DescribeVariable(h) + ")";
    return;
  }
  var->set_value(fresh.release());
}

int OPGEN_KernelVariableIsInitialized(TF_OpKernelContext* ctx, int resource_index,
                                      TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return 0;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveHandle(ctx, resource_index, &mgr, &h, status)) return 0;
  opgen::ClearStatus(status);
  std::shared_ptr<opgen::Variable> var = mgr->LookupVariable(h.container, h.name);
  if (var == nullptr) return 0;
  std::lock_guard<std::mutex> lock(var->mu());
  return var->value() != nullptr ? 1 : 0;
}

void OPGEN_KernelDestroyResource(TF_OpKernelContext* ctx, int resource_index,
                                 unsigned char ignore_lookup_error, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}})) return;
  ResourceMgr* mgr;
  ResourceHandle h;
  if (!opgen::ResolveHandle(ctx, resource_index, &mgr, &h, status)) return;
  if (!mgr->Delete(h.container, h.name) && !ignore_lookup_error) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     "Resource " + h.container + "/" + h.name + " does not exist");
    return;
  }
  opgen::ClearStatus(status);
}

}  // extern "C"
