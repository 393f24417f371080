// StopGradient, PreventGradient, GuaranteeConst and IdentityN: each output is its input's buffer, forwarded as Identity
// does (no copy).
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

void ForwardAll(void*, TF_OpKernelContext* ctx) {
  const int n = TF_NumInputs(ctx);
  for (int i = 0; i < n; ++i) {
    TensorPtr input = Input(ctx, i);
    if (!input) return;
    TF_Status* s = ThreadStatus();
    TF_SetOutput(ctx, i, input.get(), s);
    if (TF_GetCode(s) != TF_OK) return TF_OpKernelContext_Failure(ctx, s);
  }
}

}  // namespace

void RegisterForwardKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) RegisterKernel(kDevice, {"StopGradient", {{"T", t}}, {},
                                               ForwardAll}, status);
  RegisterKernel(kDevice, {"StopGradient", {{"T", TF_STRING}}, {}, ForwardAll}, status);
  for (const char* op : {"PreventGradient", "GuaranteeConst"}) {
    for (TF_DataType t : kAllFixedSizeTypes) RegisterKernel(kDevice, {op, {{"T", t}}, {}, ForwardAll}, status);
    RegisterKernel(kDevice, {op, {{"T", TF_STRING}}, {}, ForwardAll}, status);
  }
  // IdentityN's T is a list of types: one kernel takes every combination.
  RegisterKernel(kDevice, {"IdentityN", {}, {}, ForwardAll}, status);
}

}  // namespace cpu
}  // namespace opgen
