// Small helpers shared by the CPU kernels: dtype traits, status handling, shapes,
// and registration of one compute function per dtype. Kernels use only the public
// C API (kernels.h), as a plugin would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "dtypes.h"

namespace opgen {
namespace cpu {

struct StatusDeleter { void operator()(TF_Status* s) const { TF_DeleteStatus(s); } };
using StatusPtr = std::unique_ptr<TF_Status, StatusDeleter>;
struct TensorDeleter { void operator()(TF_Tensor* t) const { TF_DeleteTensor(t); } };
using TensorPtr = std::unique_ptr<TF_Tensor, TensorDeleter>;

inline StatusPtr NewStatus() { return StatusPtr(TF_NewStatus()); }

// A status of this thread's own, for the helpers below: their calls almost always
// succeed, and a status made and freed per call was a tenth of a small graph node's
// time. Every call that takes it overwrites it, and kernels do not nest.
inline TF_Status* ThreadStatus() {
  struct Holder {
    TF_Status* status = TF_NewStatus();
    ~Holder() { TF_DeleteStatus(status); }
  };
  static thread_local Holder holder;
  return holder.status;
}

// Reports `message` as the kernel's failure.
inline void Fail(TF_OpKernelContext* ctx, TF_Code code, const std::string& message) {
  StatusPtr s = NewStatus();
  TF_SetStatus(s.get(), code, message.c_str());
  TF_OpKernelContext_Failure(ctx, s.get());
}

inline std::vector<int64_t> Dims(const TF_Tensor* t) {
  std::vector<int64_t> dims(TF_NumDims(t));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = TF_Dim(t, static_cast<int>(i));
  return dims;
}

inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Input `i`, or nullptr after reporting the failure.
inline TensorPtr Input(TF_OpKernelContext* ctx, int i) {
  TF_Status* s = ThreadStatus();
  TF_Tensor* t = nullptr;
  TF_GetInput(ctx, i, &t, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    return nullptr;
  }
  return TensorPtr(t);
}

// Allocates output `i` of `dims` with the dtype the OpDef expects; nullptr on failure.
template <typename T>
TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  TF_Status* s = ThreadStatus();
  TF_Tensor* t = TF_AllocateOutput(ctx, i, DtypeOf<T>::value, dims.data(),
                                   static_cast<int>(dims.size()),
                                   sizeof(T) * static_cast<size_t>(NumElements(dims)), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    return nullptr;
  }
  return TensorPtr(t);
}

template <typename T> T* Data(const TensorPtr& t) { return static_cast<T*>(TF_TensorData(t.get())); }

using ComputeFn = void (*)(void*, TF_OpKernelContext*);

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

// Reads an int32 or int64 tensor (a shape, axes, a permutation) as int64 values.
inline std::vector<int64_t> IndexValues(const TF_Tensor* t) {
  const int64_t n = TF_TensorElementCount(t);
  std::vector<int64_t> out(n);
  if (TF_TensorType(t) == TF_INT32) {
    const int32_t* p = static_cast<const int32_t*>(TF_TensorData(t));
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  } else {
    const int64_t* p = static_cast<const int64_t*>(TF_TensorData(t));
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  }
  return out;
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

// Copies a bool attr at kernel construction; reports a failure if it is missing.
inline bool GetBoolAttr(TF_OpKernelConstruction* ctx, const char* name) {
  StatusPtr s = NewStatus();
  TF_Bool v = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, name, &v, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return v != 0;
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

}  // namespace cpu
}  // namespace opgen
