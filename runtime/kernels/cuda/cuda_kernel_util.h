// Helpers shared by the CUDA kernels: the plugin's stream type, error reporting,
// dtype traits, launch geometry, shapes, and registration for device "GPU". Kernels use
// only the public C API (tensorflow/c/kernels.h), as any plugin would.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opgen/cuda_stream.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

// What TF_GetStream returns to this plugin's kernels: the plugin defines the struct,
// the runtime only passes the pointer around. Its layout is the public
// OPGEN_CudaStream (opgen/cuda_stream.h), which other plugins' CUDA kernels read.
struct SP_Stream_st {
  cudaStream_t stream;
  int ordinal;
};
static_assert(sizeof(SP_Stream_st) == sizeof(OPGEN_CudaStream) &&
                  offsetof(SP_Stream_st, stream) == offsetof(OPGEN_CudaStream, cuda_stream) &&
                  offsetof(SP_Stream_st, ordinal) == offsetof(OPGEN_CudaStream, ordinal),
              "SP_Stream_st must keep OPGEN_CudaStream's layout");

namespace opgen {
namespace cuda {

struct StatusDeleter { void operator()(TF_Status* s) const { TF_DeleteStatus(s); } };
using StatusPtr = std::unique_ptr<TF_Status, StatusDeleter>;
struct TensorDeleter { void operator()(TF_Tensor* t) const { TF_DeleteTensor(t); } };
using TensorPtr = std::unique_ptr<TF_Tensor, TensorDeleter>;

inline StatusPtr NewStatus() { return StatusPtr(TF_NewStatus()); }

// Reports `message` as the kernel's failure.
inline void Fail(TF_OpKernelContext* ctx, TF_Code code, const std::string& message) {
  StatusPtr s = NewStatus();
  TF_SetStatus(s.get(), code, message.c_str());
  TF_OpKernelContext_Failure(ctx, s.get());
}

// True when `err` is cudaSuccess; otherwise reports "<what>: <CUDA's message>".
inline bool CheckCuda(TF_OpKernelContext* ctx, cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  Fail(ctx, TF_INTERNAL, std::string(what) + ": " + cudaGetErrorString(err));
  return false;
}
// After a <<<...>>> launch: reports a launch error (bad geometry, no kernel image).
inline bool CheckLaunch(TF_OpKernelContext* ctx, const char* what) {
  return CheckCuda(ctx, cudaGetLastError(), what);
}

// The number of devices the plugin added; set once at initialisation (plugin.cc).
int NumDevices();

// The stream of the kernel's device, or nullptr after reporting the failure. Makes
// the device current for this thread when the process has several.
inline cudaStream_t GetStream(TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  SP_Stream sp = TF_GetStream(ctx, s.get());
  if (TF_GetCode(s.get()) != TF_OK || sp == nullptr) {
    if (TF_GetCode(s.get()) == TF_OK) TF_SetStatus(s.get(), TF_INTERNAL, "no stream");
    TF_OpKernelContext_Failure(ctx, s.get());
    return nullptr;
  }
  if (NumDevices() > 1 && !CheckCuda(ctx, cudaSetDevice(sp->ordinal), "cudaSetDevice"))
    return nullptr;
  return sp->stream;
}

// ---- dtypes ----------------------------------------------------------------------------

template <typename T> struct DtypeOf;
#define OPGEN_CUDA_DTYPE(T, V) template <> struct DtypeOf<T> { static constexpr TF_DataType value = V; };
OPGEN_CUDA_DTYPE(float, TF_FLOAT)
OPGEN_CUDA_DTYPE(double, TF_DOUBLE)
OPGEN_CUDA_DTYPE(__half, TF_HALF)
OPGEN_CUDA_DTYPE(__nv_bfloat16, TF_BFLOAT16)
OPGEN_CUDA_DTYPE(int8_t, TF_INT8)
OPGEN_CUDA_DTYPE(int16_t, TF_INT16)
OPGEN_CUDA_DTYPE(int32_t, TF_INT32)
OPGEN_CUDA_DTYPE(int64_t, TF_INT64)
OPGEN_CUDA_DTYPE(uint8_t, TF_UINT8)
OPGEN_CUDA_DTYPE(uint16_t, TF_UINT16)
OPGEN_CUDA_DTYPE(uint32_t, TF_UINT32)
OPGEN_CUDA_DTYPE(uint64_t, TF_UINT64)
OPGEN_CUDA_DTYPE(bool, TF_BOOL)
#undef OPGEN_CUDA_DTYPE

// The type a kernel computes in: 16-bit floats widen to float, everything else stays.
template <typename T> struct ComputeType { using type = T; };
template <> struct ComputeType<__half> { using type = float; };
template <> struct ComputeType<__nv_bfloat16> { using type = float; };

template <typename T> __host__ __device__ inline typename ComputeType<T>::type Widen(T v) {
  return static_cast<typename ComputeType<T>::type>(v);
}
template <typename T, typename C> __host__ __device__ inline T Narrow(C v) {
  return static_cast<T>(v);
}
template <> __host__ __device__ inline __half Narrow<__half, float>(float v) {
  return __float2half_rn(v);
}
template <> __host__ __device__ inline __nv_bfloat16 Narrow<__nv_bfloat16, float>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename... Ts> struct Types {};

// ---- launch geometry -------------------------------------------------------------------

constexpr int kThreads = 256;
// Blocks for `n` elements handled by grid-stride loops: enough to fill the device,
// capped so the grid stays small for huge tensors.
inline unsigned BlocksFor(int64_t n, int threads = kThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  const int64_t cap = 132 * 32;  // ~32 blocks per multiprocessor of the largest chips
  return static_cast<unsigned>(blocks < cap ? blocks : cap);
}

// ---- shapes and tensors ----------------------------------------------------------------

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

// Input `i`, or nullptr after reporting the failure. Its data is device memory unless
// the kernel declared the arg host memory.
inline TensorPtr Input(TF_OpKernelContext* ctx, int i) {
  StatusPtr s = NewStatus();
  TF_Tensor* t = nullptr;
  TF_GetInput(ctx, i, &t, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s.get());
    return nullptr;
  }
  return TensorPtr(t);
}

// Allocates output `i` (device memory unless declared host memory) of `dims` and
// `dtype`; nullptr after reporting the failure.
inline TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, TF_DataType dtype,
                                const std::vector<int64_t>& dims) {
  StatusPtr s = NewStatus();
  TF_Tensor* t = TF_AllocateOutput(ctx, i, dtype, dims.data(), static_cast<int>(dims.size()),
                                   TF_DataTypeSize(dtype) * static_cast<size_t>(NumElements(dims)),
                                   s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s.get());
    return nullptr;
  }
  return TensorPtr(t);
}
template <typename T>
TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return AllocateOutput(ctx, i, DtypeOf<T>::value, dims);
}

// Device scratch memory for the compute call; nullptr after reporting the failure.
inline TensorPtr AllocateTemp(TF_OpKernelContext* ctx, TF_DataType dtype,
                              const std::vector<int64_t>& dims) {
  StatusPtr s = NewStatus();
  TF_Tensor* t = TF_AllocateTemp(ctx, dtype, dims.data(), static_cast<int>(dims.size()),
                                 nullptr, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s.get());
    return nullptr;
  }
  return TensorPtr(t);
}

template <typename T> T* Data(const TensorPtr& t) { return static_cast<T*>(TF_TensorData(t.get())); }

// Reads a host-memory int32 or int64 tensor (a shape, axes, a permutation) as int64.
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

// ---- registration ----------------------------------------------------------------------

using ComputeFn = void (*)(void*, TF_OpKernelContext*);
using CreateFn = void* (*)(TF_OpKernelConstruction*);
using DeleteFn = void (*)(void*);

struct KernelSpec {
  const char* op;
  std::vector<std::pair<const char*, TF_DataType>> type_constraints;
  std::vector<const char*> host_memory;  // arg names kept in host memory
  ComputeFn compute;
  CreateFn create = nullptr;
  DeleteFn destroy = nullptr;
};

// Registers one kernel for device "GPU". Does nothing when `status` already failed.
inline void Register(const KernelSpec& spec, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK) return;
  TF_KernelBuilder* b = TF_NewKernelBuilder(spec.op, "GPU", spec.create, spec.compute, spec.destroy);
  for (const auto& [attr, dtype] : spec.type_constraints) {
    TF_KernelBuilder_TypeConstraint(b, attr, dtype, status);
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(b);
      return;
    }
  }
  for (const char* arg : spec.host_memory) TF_KernelBuilder_HostMemory(b, arg);
  const std::string name = std::string(spec.op) + "_GPU";
  TF_RegisterKernelBuilder(name.c_str(), b, status);
}

// Registers Kernel<T>::Compute for `op` with attr "T" = T for each T of the list.
template <template <typename> class Kernel, typename... Ts>
void RegisterForTypes(const char* op, Types<Ts...>, TF_Status* status,
                      std::vector<const char*> host_memory = {}) {
  (Register(KernelSpec{op, {{"T", DtypeOf<Ts>::value}}, host_memory, &Kernel<Ts>::Compute},
            status),
   ...);
}

}  // namespace cuda
}  // namespace opgen
