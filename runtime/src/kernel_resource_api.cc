// The kernel-facing C functions of resources other than variables (c_api_ext.h): a
// kernel family (lookup tables) makes its resources through them in the session's or
// eager context's ResourceMgr and finds them again from a handle.
#include <cstring>
#include <memory>
#include <string>

#include "device.h"
#include "kernel_context.h"
#include "opgen/c_api_ext.h"
#include "resource_handle.h"
#include "resource_mgr.h"

struct OPGEN_KernelResource {
  std::shared_ptr<opgen::KernelResource> held;
};

namespace {

// FNV-1a of the type name: handles are matched by container and name, the hash only
// tells resource types apart, as resource_handle.cc's VariableTypeHash does.
uint64_t TypeHash(const char* type_name) {
  uint64_t h = 1469598103934665603ull;
  for (const char* p = type_name; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ull;
  return h;
}

std::string WrongType(const std::string& container, const std::string& name,
                      const std::string& have, const char* want) {
  return "Resource " + container + "/" + name + " is a " + have + ", not a " + want;
}

}  // namespace

extern "C" {

void OPGEN_KernelCreateResourceHandle(TF_OpKernelContext* ctx, int index, const char* container,
                                      const char* shared_name, const char* type_name,
                                      OPGEN_ResourceCreateFn create, void* arg,
                                      OPGEN_ResourceDeleteFn destroy, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"ctx", ctx}, {"container", container}, {"shared_name", shared_name},
                            {"type_name", type_name}, {"create", (const void*)create}}))
    return;
  if (index < 0 || index >= ctx->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "output index " + std::to_string(index) + " out of range");
    return;
  }
  opgen::ResourceMgr* mgr = ctx->instance->resources();
  if (mgr == nullptr) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                     "no resource manager here (resource ops run in a session or an eager "
                     "context)");
    return;
  }
  opgen::ResourceHandle h;
  h.device = ctx->instance->device()->name();
  if (std::strcmp(container, OPGEN_STEP_CONTAINER) == 0)
    h.container = opgen::ResourceMgr::StepContainer(ctx->step_id);
  else
    h.container = *container ? container : opgen::ResourceMgr::kDefaultContainer;
  h.name = shared_name;
  if (h.name == opgen::ResourceMgr::kAnonymousName) {
    h.container = opgen::ResourceMgr::kAnonymousContainer;
    h.name = opgen::ResourceMgr::UniqueAnonymousName();
  }
  h.hash_code = TypeHash(type_name);
  h.maybe_type_name = type_name;
  opgen::ClearStatus(status);
  std::shared_ptr<opgen::KernelResource> resource =
      mgr->LookupOrCreateResource(h.container, h.name, [&]() {
        void* data = create(arg, status);
        if (status->code != TF_OK) return std::shared_ptr<opgen::KernelResource>();
        return std::make_shared<opgen::KernelResource>(type_name, data, destroy);
      });
  if (resource == nullptr) return;
  if (resource->type_name() != type_name) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     WrongType(h.container, h.name, resource->type_name(), type_name));
    return;
  }
  delete ctx->outputs[index];
  ctx->outputs[index] = opgen::NewResourceTensor(h);
}

OPGEN_KernelResource* OPGEN_KernelLookupResource(TF_OpKernelContext* ctx, int resource_index,
                                                 const char* type_name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"type_name", type_name}}))
    return nullptr;
  opgen::ResourceMgr* mgr;
  opgen::ResourceHandle h;
  if (!opgen::ResolveResourceHandle(ctx, resource_index, &mgr, &h, status)) return nullptr;
  std::shared_ptr<opgen::KernelResource> resource = mgr->LookupResource(h.container, h.name);
  if (resource == nullptr) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     "Resource " + h.container + "/" + h.name + " does not exist.");
    return nullptr;
  }
  if (resource->type_name() != type_name) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     WrongType(h.container, h.name, resource->type_name(), type_name));
    return nullptr;
  }
  opgen::ClearStatus(status);
  return new OPGEN_KernelResource{std::move(resource)};
}

void* OPGEN_KernelResourceData(const OPGEN_KernelResource* resource) {
  return resource == nullptr ? nullptr : resource->held->data();
}

void OPGEN_ReleaseKernelResource(OPGEN_KernelResource* resource) { delete resource; }

}  // extern "C"
