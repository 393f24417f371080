// StopGradient, PreventGradient, GuaranteeConst and IdentityN on the GPU: the inputs forwarded as the outputs. Twin of
// ../cpu/forward.cc.
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

void ForwardAll(void*, TF_OpKernelContext* ctx) {
  for (int i = 0; i < TF_NumInputs(ctx); ++i) {
    TensorPtr input = Input(ctx, i);
    if (!input) return;
    TF_Status* s = ThreadStatus();
    TF_SetOutput(ctx, i, input.get(), s);
    if (TF_GetCode(s) != TF_OK) return TF_OpKernelContext_Failure(ctx, s);
  }
}

}  // namespace

void RegisterForwardKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes)
    for (const char* op : {"StopGradient", "PreventGradient", "GuaranteeConst"})
      RegisterKernel(kDevice, {op, {{"T", t}}, {}, ForwardAll}, status);
  // IdentityN's T is a list of types: one kernel takes every combination.
  RegisterKernel(kDevice, {"IdentityN", {}, {}, ForwardAll}, status);
}

}  // namespace cuda
}  // namespace opgen
