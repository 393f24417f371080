// Helpers over the public kernel C API (tensorflow/c/kernels.h) that every kernel
// library of opgen uses, the built-in CPU kernels and the CUDA plugin alike: owning
// pointers, failure reporting, shapes, inputs and outputs. Header-only, so a plugin
// library gets them without linking anything of the runtime's internals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

namespace opgen {
namespace kernels {

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

// "[2,3]", as TensorFlow prints shapes in messages.
inline std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// A dtype as TensorFlow spells it in messages ("float", "int32"); its number otherwise.
inline std::string DTypeName(TF_DataType dtype) {
  switch (dtype) {
    case TF_FLOAT: return "float";
    case TF_DOUBLE: return "double";
    case TF_HALF: return "half";
    case TF_BFLOAT16: return "bfloat16";
    case TF_INT8: return "int8";
    case TF_INT16: return "int16";
    case TF_INT32: return "int32";
    case TF_INT64: return "int64";
    case TF_UINT8: return "uint8";
    case TF_UINT16: return "uint16";
    case TF_UINT32: return "uint32";
    case TF_UINT64: return "uint64";
    case TF_BOOL: return "bool";
    case TF_STRING: return "string";
    default: return "dtype " + std::to_string(static_cast<int>(dtype));
  }
}

// The element count of a tensor's dims (valid by construction).
inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The element count of dims that come from operands (a shape, multiples, paddings), or
// -1 when a dim is negative or the count, multiplied out in order, passes int64.
inline int64_t CheckedNumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  return n;
}

// CheckedNumElements, reporting "<what>: shape [..] has a negative dimension or more
// elements than int64 counts" and returning false where it gives -1.
inline bool CheckShapeSize(TF_OpKernelContext* ctx, const std::string& what,
                           const std::vector<int64_t>& dims) {
  if (CheckedNumElements(dims) >= 0) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, what + ": shape " + ShapeString(dims) +
                                     " has a negative dimension or more elements than int64 counts");
  return false;
}

// Splits `dims` around `axis` into the element counts before and after it.
inline void OuterInner(const std::vector<int64_t>& dims, int64_t axis, int64_t* outer,
                       int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t d = 0; d < axis; ++d) *outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) *inner *= dims[d];
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

// Input `i` borrowed from the context until the kernel returns (OPGEN_KernelInput: no
// TF_Tensor made and freed), or nullptr after reporting the failure. For hot kernels;
// Input() is what a plugin written against TensorFlow's C API alone would use.
inline const TF_Tensor* BorrowInput(TF_OpKernelContext* ctx, int i) {
  TF_Status* s = ThreadStatus();
  const TF_Tensor* t = OPGEN_KernelInput(ctx, i, s);
  if (t == nullptr) TF_OpKernelContext_Failure(ctx, s);
  return t;
}

// The bytes of a `dtype` tensor of shape `dims`; false after reporting the failure when
// a dim is negative or the count does not fit in int64 (a shape computed from caller
// operands, such as Fill's dims or Tile's multiples, can be anything).
inline bool OutputBytes(TF_OpKernelContext* ctx, TF_DataType dtype,
                        const std::vector<int64_t>& dims, size_t* bytes) {
  const int64_t n = CheckedNumElements(dims);
  const bool ok = n >= 0;
  int64_t total = 0;
  if (!ok || __builtin_mul_overflow(n, static_cast<int64_t>(TF_DataTypeSize(dtype)), &total)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "output shape " + ShapeString(dims) +
                                       (ok ? " needs more bytes than int64 counts"
                                           : " has a negative dimension or more elements than int64 counts"));
    return false;
  }
  *bytes = static_cast<size_t>(total);
  return true;
}

// Allocates output `i` of `dtype` and `dims` (on the kernel's device, or the host for
// a host-memory output); nullptr after reporting the failure.
inline TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, TF_DataType dtype,
                                const std::vector<int64_t>& dims) {
  size_t bytes = 0;
  if (!OutputBytes(ctx, dtype, dims, &bytes)) return nullptr;
  TF_Status* s = ThreadStatus();
  TF_Tensor* t = TF_AllocateOutput(ctx, i, dtype, dims.data(), static_cast<int>(dims.size()),
                                   bytes, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    return nullptr;
  }
  return TensorPtr(t);
}

// AllocateOutput's output borrowed from the context (OPGEN_KernelAllocateOutput): valid
// until the kernel returns, not to be freed.
inline TF_Tensor* AllocateBorrowedOutput(TF_OpKernelContext* ctx, int i, TF_DataType dtype,
                                         const std::vector<int64_t>& dims) {
  size_t bytes = 0;
  if (!OutputBytes(ctx, dtype, dims, &bytes)) return nullptr;
  TF_Status* s = ThreadStatus();
  TF_Tensor* t = OPGEN_KernelAllocateOutput(
      ctx, i, dtype, dims.data(), static_cast<int>(dims.size()), bytes, s);
  if (t == nullptr) TF_OpKernelContext_Failure(ctx, s);
  return t;
}

template <typename T> T* Data(const TensorPtr& t) { return static_cast<T*>(TF_TensorData(t.get())); }
template <typename T> const T* Data(const TF_Tensor* t) {
  return static_cast<const T*>(TF_TensorData(t));
}
template <typename T> T* Data(TF_Tensor* t) { return static_cast<T*>(TF_TensorData(t)); }

// Reads a host int32 or int64 tensor (a shape, axes, a permutation) as int64 values.
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

// Attr readers for a kernel's create function; they leave failures in `s`.
inline bool BoolAttr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  TF_Bool v = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, name, &v, s);
  return v != 0;
}

inline std::vector<int64_t> IntListAttr(TF_OpKernelConstruction* ctx, const char* name,
                                        TF_Status* s) {
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &size, &total, s);
  std::vector<int64_t> out(size > 0 ? size : 0);
  if (TF_GetCode(s) == TF_OK && size > 0)
    TF_OpKernelConstruction_GetAttrInt64List(ctx, name, out.data(), size, s);
  return out;
}

inline std::string StringAttr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &size, &total, s);
  std::string out(total > 0 ? total : 0, '\0');
  if (TF_GetCode(s) == TF_OK && total > 0)
    TF_OpKernelConstruction_GetAttrString(ctx, name, out.data(), out.size(), s);
  return out;
}

using ComputeFn = void (*)(void*, TF_OpKernelContext*);
using CreateFn = void* (*)(TF_OpKernelConstruction*);
using DeleteFn = void (*)(void*);

}  // namespace kernels
}  // namespace opgen
