/* The stream of opgen's CUDA devices, for plugins with CUDA kernels.
 *
 * On a GPU device, TF_GetStream (tensorflow/c/kernels.h) returns an SP_Stream that
 * points to an OPGEN_CudaStream: the cudaStream_t the device orders its work on. A
 * kernel queues its launches and copies there, and never synchronises the device:
 * the runtime waits only when the host needs data. Device memory comes from
 * TF_AllocateOutput / TF_AllocateTemp (a caching allocator; never cudaMalloc). */
#ifndef OPGEN_CUDA_STREAM_H_
#define OPGEN_CUDA_STREAM_H_

#include "tensorflow/c/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OPGEN_CudaStream {
  void* cuda_stream; /* a cudaStream_t */
  int ordinal;       /* the device: 0 for GPU:0 */
} OPGEN_CudaStream;

/* The cudaStream_t behind a GPU kernel's TF_GetStream, or NULL for NULL. */
static inline void* OPGEN_CudaStreamOf(SP_Stream stream) {
  return stream ? ((const OPGEN_CudaStream*)(const void*)stream)->cuda_stream : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_CUDA_STREAM_H_ */
