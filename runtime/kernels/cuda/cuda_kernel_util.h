// Helpers shared by the CUDA kernels: the plugin's stream type, error reporting,
// 16-bit float arithmetic, launch geometry, shapes, and the device name for the shared
// registration helper. Kernels use
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

#include "../dtype_of.h"
#include "../kernel_api_util.h"
#include "../kernel_registration.h"
#include "../type_list.h"
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
using kernels::AllocateOutput;

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

// The table is ../dtype_of.h, shared with the CPU kernels; it names the CUDA 16-bit
// types __half and __nv_bfloat16 at the end of this file.
using kernels::DtypeOf;

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

using kernels::Types;  // ../type_list.h, shared with the CPU kernels

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
// Inputs hold device memory unless the kernel declared the arg host memory;
// AllocateOutput (kernel_api_util.h) allocates on the device likewise.

template <typename T>
TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return kernels::AllocateOutput(ctx, i, DtypeOf<T>::value, dims);
}

// Device scratch memory for the compute call; nullptr after reporting the failure.
inline TensorPtr AllocateTemp(TF_OpKernelContext* ctx, TF_DataType dtype,
                              const std::vector<int64_t>& dims) {
  TF_Status* s = ThreadStatus();
  TF_Tensor* t = TF_AllocateTemp(ctx, dtype, dims.data(), static_cast<int>(dims.size()),
                                 nullptr, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    return nullptr;
  }
  return TensorPtr(t);
}

// ---- registration ----------------------------------------------------------------------

// Registration, shared with the CPU kernels (../kernel_registration.h): a family
// registers with RegisterKernel(kDevice, {op, constraints, host memory, compute}, status).
constexpr char kDevice[] = "GPU";
using kernels::ComputeFn;
using kernels::CreateFn;
using kernels::DeleteFn;
using kernels::KernelSpec;
using kernels::RegisterForTypes;
using kernels::RegisterKernel;

}  // namespace cuda
}  // namespace opgen

OPGEN_FLOAT16_DTYPES(__half, __nv_bfloat16);
