// Const: outputs the tensor held in its `value` attr (decoded once, at construction).
#include "../constant_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// The value attr read and checked by ../constant_spec.h (shared with the CUDA plugin);
// the graph's own copy of it, which outputs only ever read.
void* CreateConst(TF_OpKernelConstruction* ctx) {
  return kernels::ReadConstValue</*kShared=*/true>(ctx);
}

void DeleteConst(void* value) { TF_DeleteTensor(static_cast<TF_Tensor*>(value)); }

void ConstCompute(void* value, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, static_cast<TF_Tensor*>(value), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterConstKernels(TF_Status* status) {
  for (TF_DataType t : {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_BOOL, TF_UINT8, TF_INT8,
                        TF_INT16, TF_UINT16, TF_HALF, TF_BFLOAT16, TF_UINT32, TF_UINT64,
                        TF_COMPLEX64, TF_COMPLEX128, TF_STRING})
    RegisterKernel(kDevice, {"Const", {{"dtype", t}}, {}, ConstCompute, CreateConst, DeleteConst},
        status);
}

}  // namespace cpu
}  // namespace opgen
