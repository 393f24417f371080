// Small helpers shared by the CPU kernels: dtype traits and registration of one
// compute function per dtype (the helpers over the kernel API itself are
// ../kernel_api_util.h, shared with the CUDA plugin). Kernels use only the public
// C API (kernels.h), as a plugin would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "../kernel_api_util.h"
#include "dtypes.h"

namespace opgen {
namespace cpu {

using kernels::BorrowInput;
using kernels::Data;
using kernels::Dims;
using kernels::Fail;
using kernels::IndexValues;
using kernels::Input;
using kernels::NewStatus;
using kernels::NumElements;
using kernels::ShapeString;
using kernels::StatusPtr;
using kernels::TensorPtr;
using kernels::ThreadStatus;

// Allocates output `i` of `dims` with the dtype the OpDef expects; nullptr on failure.
template <typename T>
TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return kernels::AllocateOutput(ctx, i, DtypeOf<T>::value, dims);
}

// The same, borrowed from the context (valid until the kernel returns, not freed): for
// hot kernels, where making and freeing the caller's own TF_Tensor showed.
template <typename T>
TF_Tensor* AllocateBorrowedOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return kernels::AllocateBorrowedOutput(ctx, i, DtypeOf<T>::value, dims);
}

using ComputeFn = kernels::ComputeFn;

// Registers `compute` for `op` on the CPU with the type attr `type_attr` = `dtype`.
inline void RegisterKernel(const char* op, const char* type_attr, TF_DataType dtype,
                           ComputeFn compute, TF_Status* status,
                           void* (*create)(TF_OpKernelConstruction*) = nullptr,
                           void (*destroy)(void*) = nullptr) {
  if (TF_GetCode(status) != TF_OK) return;  // keep the first failure
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, "CPU", create, compute, destroy);
  if (type_attr != nullptr) {
    TF_KernelBuilder_TypeConstraint(b, type_attr, dtype, status);
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(b);
      return;
    }
  }
  std::string name = std::string(op) + "_CPU";
  TF_RegisterKernelBuilder(name.c_str(), b, status);
}

// Registers `compute` with two type constraints, e.g. T and Tidx.
inline void RegisterKernel2(const char* op, const char* attr1, TF_DataType type1,
                            const char* attr2, TF_DataType type2, ComputeFn compute,
                            TF_Status* status,
                            void* (*create)(TF_OpKernelConstruction*) = nullptr,
                            void (*destroy)(void*) = nullptr) {
  if (TF_GetCode(status) != TF_OK) return;
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, "CPU", create, compute, destroy);
  TF_KernelBuilder_TypeConstraint(b, attr1, type1, status);
  if (TF_GetCode(status) == TF_OK) TF_KernelBuilder_TypeConstraint(b, attr2, type2, status);
  if (TF_GetCode(status) != TF_OK) {
    TF_DeleteKernelBuilder(b);
    return;
  }
  std::string name = std::string(op) + "_CPU";
  TF_RegisterKernelBuilder(name.c_str(), b, status);
}

// Registers Kernel<T>::Compute for `op` with attr "T" = T, for each T of the list.
template <template <typename> class Kernel, typename... Ts>
void RegisterForTypes(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(op, "T", DtypeOf<Ts>::value, &Kernel<Ts>::Compute, status), ...);
}

// The family registrations, one per file.
void RegisterElementwiseKernels(TF_Status* status);
void RegisterMatMulKernels(TF_Status* status);
void RegisterCastKernels(TF_Status* status);
void RegisterArrayKernels(TF_Status* status);
void RegisterReductionKernels(TF_Status* status);
void RegisterNnKernels(TF_Status* status);
void RegisterConcatSplitKernels(TF_Status* status);
void RegisterSlicingKernels(TF_Status* status);
void RegisterConvPoolKernels(TF_Status* status);
void RegisterConstKernels(TF_Status* status);
void RegisterControlFlowKernels(TF_Status* status);  // control_flow.cc
void RegisterTensorListKernels(TF_Status* status);   // tensor_list.cc
void RegisterConvFamilyKernels(TF_Status* status);  // conv_family.cc
void RegisterSpaceKernels(TF_Status* status);       // space_ops.cc
void RegisterImageKernels(TF_Status* status);       // image.cc
void RegisterBatchNormKernels(TF_Status* status);   // batch_norm.cc
void RegisterEinsumKernels(TF_Status* status);  // einsum.cc
void RegisterMiscKernels(TF_Status* status);    // misc_kernels.cc

}  // namespace cpu
}  // namespace opgen
