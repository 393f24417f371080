// Definitions of the C ABI's opaque structs that several core modules share, and
// small helpers for reporting errors through TF_Status.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "object_cache.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

struct TF_Status {
  TF_Code code = TF_OK;
  std::string message;
  OPGEN_CACHED_ALLOCATION(TF_Status)
};

namespace opgen {

class Device;

inline void SetStatus(TF_Status* status, TF_Code code, const std::string& message) {
  if (status == nullptr) return;
  status->code = code;
  status->message = code == TF_OK ? std::string() : message;
}
inline void ClearStatus(TF_Status* status) {
  if (status == nullptr) return;
  status->code = TF_OK;
  status->message.clear();  // no allocation: ClearStatus runs several times per kernel call
}

// The C functions that report through a status check their required pointer arguments
// with this: a NULL one is TF_INVALID_ARGUMENT naming the function and the argument.
// (The status itself must be valid; functions without one do not check.)
struct NamedArg {
  const char* name;
  const void* value;
};
// An array argument of `count` elements for CheckNotNull: one of none may be NULL.
inline const void* ArrayArg(const void* values, int64_t count) {
  static const char kEmpty = 0;
  return count > 0 ? values : &kEmpty;
}
inline bool CheckNotNull(TF_Status* status, const char* function,
                         std::initializer_list<NamedArg> args) {
  for (const NamedArg& arg : args) {
    if (arg.value != nullptr) continue;
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string(function) + ": argument '" + arg.name + "' is NULL");
    return false;
  }
  return true;
}

// Reference-counted storage of a tensor's elements. Tensors, kernel inputs and eager
// handles share one buffer instead of copying.
class TensorBuffer {
 public:
  using Deallocator = void (*)(void* data, size_t len, void* arg);
  TensorBuffer(void* data, size_t len, Deallocator deallocator, void* arg)
      : data_(data), len_(len), deallocator_(deallocator), arg_(arg) {}
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  // Fresh, 64-byte aligned storage owned by the buffer.
  static TensorBuffer* Allocate(size_t len);

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    // The sole owner can skip the atomic read-modify-write: nobody else can take a
    // reference to a buffer they do not hold (the last release of every small graph
    // node's output goes this way).
    if (refs_.load(std::memory_order_acquire) == 1 ||
        refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
  void* data() const { return data_; }
  size_t size() const { return len_; }
  // The device whose memory holds the data; nullptr for host memory.
  const Device* device() const { return device_; }
  void set_device(const Device* device) { device_ = device; }
  // Marks the data as memory the runtime allocated for this buffer (not a caller's, as
  // TF_NewTensor's and DLPack imports are), which only the buffer's holders can see.
  void set_runtime_owned() { runtime_owned_ = true; }
  // Whether the holder of a reference may write the data in place: nobody else holds
  // the buffer (a value read earlier keeps its own reference, so it stays a snapshot)
  // and no caller outside the runtime sees the memory.
  bool WritableInPlace() const {
    return runtime_owned_ && refs_.load(std::memory_order_acquire) == 1;
  }
  // Whether one reference (the caller's) is all there is.
  bool SoleHolder() const { return refs_.load(std::memory_order_acquire) == 1; }
  OPGEN_CACHED_ALLOCATION(TensorBuffer)

 private:
  ~TensorBuffer();
  void* data_;
  size_t len_;
  Deallocator deallocator_;
  void* arg_;
  const Device* device_ = nullptr;
  bool runtime_owned_ = false;
  std::atomic<int> refs_{1};
};

// Number of elements of a shape; -1 if a dim is negative or the count does not fit in
// int64 (dims come from callers and from parsed bytes, so their product may overflow).
int64_t NumElements(const int64_t* dims, size_t num_dims);
inline int64_t NumElements(const std::vector<int64_t>& dims) {
  return NumElements(dims.data(), dims.size());
}
// The bytes that `num_elements` (>= 0) elements of `element_size` bytes take, in
// `*bytes`; false when that does not fit in size_t.
bool ByteSize(size_t element_size, int64_t num_elements, size_t* bytes);
// Whether `dtype` is one of the TF_DataType values (DT_INVALID included). A C caller
// can pass any int; C++ code must not keep one outside the enum's range.
// (The bits are copied out: loading an out-of-range value as the enum type is itself
// undefined behaviour in C++.)
inline bool IsDataType(const TF_DataType& dtype) {
  static_assert(sizeof(TF_DataType) == sizeof(int), "TF_DataType is an int in C");
  int code;
  std::memcpy(&code, &dtype, sizeof code);
  return code >= 0 && code <= static_cast<int>(TF_UINT2);
}
// The int a TF_DataType holds, for messages about one that IsDataType refuses.
inline int DataTypeBits(const TF_DataType& dtype) {
  int code;
  std::memcpy(&code, &dtype, sizeof code);
  return code;
}
// "[2,3]"
std::string ShapeToString(const std::vector<int64_t>& dims);
// "float", "int32", ... as TensorFlow spells dtypes in messages and specs.
const char* DataTypeName(TF_DataType dtype);

}  // namespace opgen

struct TF_Tensor {
  TF_DataType dtype;
  std::vector<int64_t> dims;
  opgen::TensorBuffer* buffer;  // one reference owned by this tensor

  TF_Tensor(TF_DataType t, std::vector<int64_t> d, opgen::TensorBuffer* b)
      : dtype(t), dims(std::move(d)), buffer(b) {}
  ~TF_Tensor() { buffer->Unref(); }
  OPGEN_CACHED_ALLOCATION(TF_Tensor)
  // A new tensor sharing this one's buffer.
  TF_Tensor* Share() const {
    buffer->Ref();
    return new TF_Tensor(dtype, dims, buffer);
  }
};
