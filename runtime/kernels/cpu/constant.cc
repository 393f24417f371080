// Const: outputs the tensor held in its `value` attr (decoded once, at construction).
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

void* CreateConst(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_Tensor* value = nullptr;
  TF_DataType dtype = TF_FLOAT;
  TF_OpKernelConstruction_GetAttrTensor(ctx, "value", &value, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK && TF_TensorType(value) != dtype) {
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "Const: the value's dtype differs from attr dtype");
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_DeleteTensor(value);
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return value;
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
                        TF_COMPLEX64, TF_COMPLEX128})
    RegisterKernel("Const", "dtype", t, ConstCompute, status, CreateConst, DeleteConst);
}

}  // namespace cpu
}  // namespace opgen
