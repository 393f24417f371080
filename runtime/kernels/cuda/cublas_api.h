// cuBLAS, opened at run time: the plugin builds without cuBLAS headers or libraries
// and loads where cuBLAS is missing (it then says so when a GEMM is asked for).
// Declares the few cuBLAS types it uses with cuBLAS's own values (cublas_api.h);
// cudaDataType comes from the CUDA runtime headers (library_types.h).
#pragma once

#include <cuda_runtime.h>
#include <library_types.h>

#include <string>

#include "tensorflow/c/kernels.h"

namespace opgen {
namespace cuda {

struct cublasContext;
using cublasHandle_t = cublasContext*;

enum cublasStatus_t : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16,
};

enum cublasOperation_t : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };

enum cublasMath_t : int {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
};

enum cublasComputeType_t : int {
  CUBLAS_COMPUTE_16F = 64,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
};

enum cublasGemmAlgo_t : int { CUBLAS_GEMM_DEFAULT = -1 };

// The entry points the plugin uses, with cuBLAS's signatures (cuBLAS 12 and 13).
struct CublasApi {
  cublasStatus_t (*Create)(cublasHandle_t*);
  cublasStatus_t (*Destroy)(cublasHandle_t);
  cublasStatus_t (*SetStream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*SetMathMode)(cublasHandle_t, cublasMath_t);
  cublasStatus_t (*GemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n,
                           int k, const void* alpha, const void* a, cudaDataType a_type, int lda,
                           const void* b, cudaDataType b_type, int ldb, const void* beta, void* c,
                           cudaDataType c_type, int ldc, cublasComputeType_t, cublasGemmAlgo_t);
  cublasStatus_t (*GemmStridedBatchedEx)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k, const void* alpha,
      const void* a, cudaDataType a_type, int lda, long long stride_a, const void* b,
      cudaDataType b_type, int ldb, long long stride_b, const void* beta, void* c,
      cudaDataType c_type, int ldc, long long stride_c, int batch_count, cublasComputeType_t,
      cublasGemmAlgo_t);
  cublasStatus_t (*GemmBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m,
                                  int n, int k, const void* alpha, const void* const a[],
                                  cudaDataType a_type, int lda, const void* const b[],
                                  cudaDataType b_type, int ldb, const void* beta, void* const c[],
                                  cudaDataType c_type, int ldc, int batch_count,
                                  cublasComputeType_t, cublasGemmAlgo_t);
  const char* (*GetStatusString)(cublasStatus_t);  // may be null (older cuBLAS)
};

// The cuBLAS entry points, or nullptr after reporting TF_FAILED_PRECONDITION (cuBLAS
// not found, or too old) on `ctx`. Opens the library once: $OPGEN_CUBLAS_LIBRARY when
// set, else libcublas.so.13, then libcublas.so.12 (found where the Python package
// preloaded the nvidia-cublas wheel's copy, or on the loader's path).
const CublasApi* Cublas(TF_OpKernelContext* ctx);

// A cuBLAS handle for the kernel's device, bound to `stream`, for the duration of one
// kernel call: cuBLAS handles must not be used by two threads at once, so each lease
// takes a handle from a per-device pool (creating one when all are in use) and gives
// it back when destroyed. Handles live until the process ends.
class CublasLease {
 public:
  // Check ok() after constructing: on failure the error is already reported on `ctx`.
  CublasLease(TF_OpKernelContext* ctx, cudaStream_t stream);
  ~CublasLease();
  CublasLease(const CublasLease&) = delete;
  CublasLease& operator=(const CublasLease&) = delete;

  bool ok() const { return handle_ != nullptr; }
  cublasHandle_t handle() const { return handle_; }
  const CublasApi& api() const { return *api_; }

 private:
  const CublasApi* api_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
};

// True when `status` is success; otherwise reports "<what>: <cuBLAS's message>".
bool CheckCublas(TF_OpKernelContext* ctx, const CublasApi& api, cublasStatus_t status,
                 const char* what);

}  // namespace cuda
}  // namespace opgen
