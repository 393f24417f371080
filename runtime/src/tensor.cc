// TF_Tensor: dtype, dims and a shared, reference-counted buffer.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "core_types.h"
#include "host_block_cache.h"

namespace opgen {

constexpr size_t kAlignment = 64;

static void FreeAligned(void* data, size_t, void*) { std::free(data); }
// For buffers aligned by hand inside a larger malloc block: `block` is that block.
static void FreeBlock(void*, size_t, void* block) { std::free(block); }

// Small buffers are aligned by hand inside a malloc block: glibc serves aligned_alloc
// outside its per-thread cache, which made it the costliest step of a small eager op.
constexpr size_t kSmallBuffer = 4096;

// Large buffers go on transparent huge pages, as numpy's allocator does: a fresh
// 40 MB tensor then costs ~20 page faults instead of ~10,000.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugePageThreshold = size_t{4} << 20;

// Tiny buffers (scalars, short vectors: most tensors of a graph of small nodes) come
// from a per-thread cache of fixed blocks instead of malloc, aligned inside the block.
constexpr size_t kTinyBuffer = 64;
struct TinyBlock {
  unsigned char bytes[kTinyBuffer + kAlignment];
  OPGEN_CACHED_ALLOCATION(TinyBlock)
};
static void FreeTinyBlock(void*, size_t, void* block) { delete static_cast<TinyBlock*>(block); }

static size_t LargeBufferAlignment(size_t len) {
  return len >= kHugePageThreshold ? kHugePage : kAlignment;
}
// aligned_alloc needs a size that is a multiple of the alignment, and not zero.
static size_t LargeBufferSize(size_t len, size_t alignment) {
  const size_t padded = ((len + alignment - 1) / alignment) * alignment;
  return padded == 0 ? alignment : padded;
}
static void* NewLargeBlock(size_t padded, size_t alignment) {
  void* data = std::aligned_alloc(alignment, padded);
#ifdef MADV_HUGEPAGE
  // A hint; failure is fine.
  if (data != nullptr && alignment == kHugePage) madvise(data, padded, MADV_HUGEPAGE);
#endif
  return data;
}
// `block_size`: the block's own size (it may be larger than the buffer, host_block_cache.h).
static void ReturnCachedBlock(void* data, size_t len, void* block_size) {
  ReturnHostBlock(data, reinterpret_cast<size_t>(block_size), LargeBufferAlignment(len));
}

// The buffer of Allocate, its memory marked as the runtime's own.
static TensorBuffer* OwnedBuffer(void* data, size_t len, TensorBuffer::Deallocator deallocator,
                                 void* arg) {
  auto* buffer = new TensorBuffer(data, len, deallocator, arg);
  buffer->set_runtime_owned();
  return buffer;
}

TensorBuffer* TensorBuffer::Allocate(size_t len) {
  if (len <= kTinyBuffer) {
    TinyBlock* block = new TinyBlock;  // callers catch std::bad_alloc
    auto address = reinterpret_cast<uintptr_t>(block->bytes);
    void* data = reinterpret_cast<void*>((address + kAlignment - 1) & ~uintptr_t{kAlignment - 1});
    return OwnedBuffer(data, len, FreeTinyBlock, block);
  }
  if (len <= kSmallBuffer) {
    void* block = std::malloc(len + kAlignment);
    if (block == nullptr) return nullptr;
    auto address = reinterpret_cast<uintptr_t>(block);
    void* data = reinterpret_cast<void*>((address + kAlignment - 1) & ~uintptr_t{kAlignment - 1});
    return OwnedBuffer(data, len, FreeBlock, block);
  }
  // No object is larger than PTRDIFF_MAX; above it, rounding `len` up to the alignment
  // would also wrap to a small block (a byte size from dims near 2^64 fits in size_t).
  if (len > static_cast<size_t>(PTRDIFF_MAX)) return nullptr;
  const size_t alignment = LargeBufferAlignment(len);
  const size_t padded = LargeBufferSize(len, alignment);
  if (padded >= kCachedHostBlockMin) {
    // A block freed a moment ago has its pages mapped already (host_block_cache.h).
    size_t block_size = padded;
    void* data = TakeCachedHostBlock(padded, alignment, &block_size);
    if (data == nullptr) data = NewLargeBlock(padded, alignment);
    if (data == nullptr) return nullptr;
    return OwnedBuffer(data, len, ReturnCachedBlock, reinterpret_cast<void*>(block_size));
  }
  void* data = NewLargeBlock(padded, alignment);
  if (data == nullptr) return nullptr;
  return OwnedBuffer(data, len, FreeAligned, nullptr);
}

TensorBuffer::~TensorBuffer() {
  if (deallocator_ != nullptr) deallocator_(data_, len_, arg_);
}

int64_t NumElements(const int64_t* dims, size_t num_dims) {
  int64_t n = 1;
  bool overflow = false, has_zero = false;
  for (size_t i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) return -1;
    has_zero = has_zero || dims[i] == 0;
    if (!overflow) overflow = __builtin_mul_overflow(n, dims[i], &n);
  }
  // A zero dim makes the count 0 however large the others are.
  return has_zero ? 0 : overflow ? -1 : n;
}

bool ByteSize(size_t element_size, int64_t num_elements, size_t* bytes) {
  return num_elements >= 0 &&
         !__builtin_mul_overflow(static_cast<uint64_t>(num_elements), element_size, bytes);
}

std::string ShapeToString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

const char* DataTypeName(TF_DataType dtype) {
  switch (dtype) {
    case TF_FLOAT: return "float";
    case TF_DOUBLE: return "double";
    case TF_INT32: return "int32";
    case TF_UINT8: return "uint8";
    case TF_INT16: return "int16";
    case TF_INT8: return "int8";
    case TF_STRING: return "string";
    case TF_COMPLEX64: return "complex64";
    case TF_INT64: return "int64";
    case TF_BOOL: return "bool";
    case TF_QINT8: return "qint8";
    case TF_QUINT8: return "quint8";
    case TF_QINT32: return "qint32";
    case TF_BFLOAT16: return "bfloat16";
    case TF_QINT16: return "qint16";
    case TF_QUINT16: return "quint16";
    case TF_UINT16: return "uint16";
    case TF_COMPLEX128: return "complex128";
    case TF_HALF: return "half";
    case TF_RESOURCE: return "resource";
    case TF_VARIANT: return "variant";
    case TF_UINT32: return "uint32";
    case TF_UINT64: return "uint64";
    case TF_FLOAT8_E5M2: return "float8_e5m2";
    case TF_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case TF_FLOAT8_E4M3FNUZ: return "float8_e4m3fnuz";
    case TF_FLOAT8_E4M3B11FNUZ: return "float8_e4m3b11fnuz";
    case TF_FLOAT8_E5M2FNUZ: return "float8_e5m2fnuz";
    case TF_INT4: return "int4";
    case TF_UINT4: return "uint4";
    case TF_INT2: return "int2";
    case TF_UINT2: return "uint2";
  }
  return "unknown";
}

// Whether `len` bytes are exactly what dims x dtype need (types without a fixed
// element size accept any length).
static bool LengthMatches(TF_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  size_t element = TF_DataTypeSize(dtype);
  if (element == 0) return true;
  int64_t n = 1;  // (no vector: this runs for every tensor an op makes)
  for (int i = 0; i < num_dims; ++i) {
    // An element count past int64 must not wrap into one that matches `len`.
    if (dims[i] < 0 || __builtin_mul_overflow(n, dims[i], &n)) return false;
  }
  size_t bytes = 0;
  return !__builtin_mul_overflow(static_cast<size_t>(n), element, &bytes) && bytes == len;
}

}  // namespace opgen

extern "C" {

size_t TF_DataTypeSize(TF_DataType dt) {
  switch (dt) {
    case TF_FLOAT: case TF_INT32: case TF_UINT32: case TF_QINT32: return 4;
    case TF_DOUBLE: case TF_INT64: case TF_UINT64: case TF_COMPLEX64: return 8;
    case TF_COMPLEX128: return 16;
    case TF_UINT8: case TF_INT8: case TF_BOOL: case TF_QINT8: case TF_QUINT8:
    case TF_FLOAT8_E5M2: case TF_FLOAT8_E4M3FN: case TF_FLOAT8_E4M3FNUZ:
    case TF_FLOAT8_E4M3B11FNUZ: case TF_FLOAT8_E5M2FNUZ:
    case TF_INT4: case TF_UINT4: case TF_INT2: case TF_UINT2: return 1;
    case TF_INT16: case TF_UINT16: case TF_QINT16: case TF_QUINT16: case TF_HALF:
    case TF_BFLOAT16: return 2;
    default: return 0;
  }
}

TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims, void* data,
                        size_t len, void (*deallocator)(void*, size_t, void*),
                        void* deallocator_arg) {
  if (!opgen::IsDataType(dtype) || num_dims < 0 ||
      !opgen::LengthMatches(dtype, dims, num_dims, len)) {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
    return nullptr;
  }
  try {
    auto* buffer = new opgen::TensorBuffer(data, len, deallocator, deallocator_arg);
    return new TF_Tensor(dtype, std::vector<int64_t>(dims, dims + num_dims), buffer);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  if (!opgen::IsDataType(dtype) || num_dims < 0 ||
      !opgen::LengthMatches(dtype, dims, num_dims, len))
    return nullptr;
  try {
    opgen::TensorBuffer* buffer = opgen::TensorBuffer::Allocate(len);
    if (buffer == nullptr) return nullptr;
    return new TF_Tensor(dtype, std::vector<int64_t>(dims, dims + num_dims), buffer);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void TF_DeleteTensor(TF_Tensor* tensor) { delete tensor; }
TF_DataType TF_TensorType(const TF_Tensor* tensor) { return tensor->dtype; }
int TF_NumDims(const TF_Tensor* tensor) { return static_cast<int>(tensor->dims.size()); }
int64_t TF_Dim(const TF_Tensor* tensor, int dim_index) {
  if (dim_index < 0 || static_cast<size_t>(dim_index) >= tensor->dims.size()) return -1;
  return tensor->dims[dim_index];
}
size_t TF_TensorByteSize(const TF_Tensor* tensor) { return tensor->buffer->size(); }
void* TF_TensorData(const TF_Tensor* tensor) { return tensor->buffer->data(); }
int64_t TF_TensorElementCount(const TF_Tensor* tensor) { return opgen::NumElements(tensor->dims); }
void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type, TF_Tensor* to,
                          const int64_t* new_dims, int num_new_dims, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"from", from}, {"to", to}, {"new_dims", opgen::ArrayArg(new_dims, num_new_dims)}}))
    return;
  if (num_new_dims < 0) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TF_TensorBitcastFrom: negative rank");
    return;
  }
  if (!opgen::IsDataType(type)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "TF_TensorBitcastFrom: dtype value " +
                         std::to_string(opgen::DataTypeBits(type)) + " is not a TF_DataType");
    return;
  }
  const size_t element = TF_DataTypeSize(type);
  const int64_t elements = opgen::NumElements(new_dims, static_cast<size_t>(num_new_dims));
  size_t bytes;
  if (element == 0 || !opgen::ByteSize(element, elements, &bytes) ||
      bytes != from->buffer->size()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "TF_TensorBitcastFrom: " + std::to_string(from->buffer->size()) +
                         " bytes cannot be seen as " + opgen::DataTypeName(type) + " of shape " +
                         opgen::ShapeToString(std::vector<int64_t>(new_dims, new_dims + num_new_dims)));
    return;
  }
  from->buffer->Ref();  // before the Unref: `to` may already share the same buffer
  to->buffer->Unref();
  to->buffer = from->buffer;
  to->dtype = type;
  to->dims.assign(new_dims, new_dims + num_new_dims);
  opgen::ClearStatus(status);
}

bool TF_TensorIsAligned(const TF_Tensor* tensor) {
  return reinterpret_cast<uintptr_t>(tensor->buffer->data()) % opgen::kAlignment == 0;
}

}  // extern "C"
