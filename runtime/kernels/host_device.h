// OPGEN_HD marks a function the spec headers share between CPU kernels and CUDA device
// code: __host__ __device__ under nvcc, nothing for the host compiler.
#ifndef OPGEN_RUNTIME_KERNELS_HOST_DEVICE_H_
#define OPGEN_RUNTIME_KERNELS_HOST_DEVICE_H_

#if defined(__CUDACC__)
#define OPGEN_HD __host__ __device__
#else
#define OPGEN_HD
#endif

#endif  // OPGEN_RUNTIME_KERNELS_HOST_DEVICE_H_
