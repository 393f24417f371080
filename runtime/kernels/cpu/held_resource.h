// The resource a kernel's resource input names (a TensorArray, a stack, a lookup table),
// held while the kernel runs: a DestroyResourceOp running meanwhile does not free it.
#pragma once

#include "kernel_util.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {

template <typename T>
class HeldResource {
 public:
  // Null get() after reporting the failure: no such resource, or one of another type.
  HeldResource(TF_OpKernelContext* ctx, const char* type_name, int input = 0) {
    StatusPtr s = NewStatus();
    ref_ = OPGEN_KernelLookupResource(ctx, input, type_name, s.get());
    if (ref_ == nullptr) TF_OpKernelContext_Failure(ctx, s.get());
  }
  ~HeldResource() {
    if (ref_ != nullptr) OPGEN_ReleaseKernelResource(ref_);
  }
  HeldResource(const HeldResource&) = delete;
  HeldResource& operator=(const HeldResource&) = delete;
  T* get() const {
    return ref_ == nullptr ? nullptr : static_cast<T*>(OPGEN_KernelResourceData(ref_));
  }

 private:
  OPGEN_KernelResource* ref_ = nullptr;
};

}  // namespace cpu
}  // namespace opgen
