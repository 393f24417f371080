// The launch helpers of TensorFlow's GPU kernels, for CUDA files built with nvcc against
// opgen's headers: GpuGridRangeX/Y/Z (grid-stride loops: `for (int i : GpuGridRangeX(n))`),
// GpuLaunchConfig / GetGpuLaunchConfig (a grid for n elements on the device's GPU) and
// GpuLaunchKernel (a launch on a stream whose failure comes back as a Status). The Cuda*
// spellings of older TensorFlow releases are aliases.
#ifndef TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_
#define TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_

#ifdef __CUDACC__

#include <cuda_runtime.h>

#include <algorithm>

#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensorflow {

namespace opgen_gpu {
// [begin, end) in steps of delta; the iterator compares against the end as a sentinel,
// so a step past the end stops the loop.
template <typename T>
class GridRange {
 public:
  class Iterator {
   public:
    __device__ Iterator(T index, T delta, T end) : index_(index), delta_(delta), end_(end) {}
    __device__ T operator*() const { return index_; }
    __device__ Iterator& operator++() {
      index_ += delta_;
      return *this;
    }
    __device__ bool operator!=(const Iterator&) const { return index_ < end_; }

   private:
    T index_, delta_, end_;
  };
  __device__ GridRange(T begin, T delta, T end) : begin_(begin), delta_(delta), end_(end) {}
  __device__ Iterator begin() const { return Iterator(begin_, delta_, end_); }
  __device__ Iterator end() const { return Iterator(end_, delta_, end_); }

 private:
  T begin_, delta_, end_;
};
}  // namespace opgen_gpu

template <typename T>
__device__ opgen_gpu::GridRange<T> GpuGridRangeX(T count) {
  return opgen_gpu::GridRange<T>(T(blockIdx.x) * T(blockDim.x) + T(threadIdx.x),
                                 T(gridDim.x) * T(blockDim.x), count);
}
template <typename T>
__device__ opgen_gpu::GridRange<T> GpuGridRangeY(T count) {
  return opgen_gpu::GridRange<T>(T(blockIdx.y) * T(blockDim.y) + T(threadIdx.y),
                                 T(gridDim.y) * T(blockDim.y), count);
}
template <typename T>
__device__ opgen_gpu::GridRange<T> GpuGridRangeZ(T count) {
  return opgen_gpu::GridRange<T>(T(blockIdx.z) * T(blockDim.z) + T(threadIdx.z),
                                 T(gridDim.z) * T(blockDim.z), count);
}

struct GpuLaunchConfig {
  int virtual_thread_count = -1;  // the elements to cover
  int thread_per_block = -1;
  int block_count = -1;
};

// Enough blocks of 1024 threads to cover the elements, but no more than the GPU of `d`
// keeps resident at once: a grid-stride loop covers the rest.
inline GpuLaunchConfig GetGpuLaunchConfig(int work_element_count, const Eigen::GpuDevice& d) {
  GpuLaunchConfig config;
  if (work_element_count <= 0) return config;
  int processors = 0, threads_per_processor = 0;
  const int device = d.device() >= 0 ? d.device() : 0;
  if (cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&threads_per_processor, cudaDevAttrMaxThreadsPerMultiProcessor,
                             device) != cudaSuccess) {
    processors = 1;
    threads_per_processor = 1024;
  }
  const int threads = std::min(1024, work_element_count);
  const int resident = std::max(1, processors * threads_per_processor / threads);
  config.virtual_thread_count = work_element_count;
  config.thread_per_block = threads;
  config.block_count = std::min(resident, (work_element_count + threads - 1) / threads);
  return config;
}

// Launches `kernel` on `stream`; a failed launch is an INTERNAL status.
template <typename... Params, typename... Args>
Status GpuLaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                       Eigen::gpuStream_t stream, Args... args) {
  if (grid.x * grid.y * grid.z == 0 || block.x * block.y * block.z == 0) return OkStatus();
  kernel<<<grid, block, shared_bytes, stream>>>(args...);
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    return errors::Internal("GPU kernel launch failed: ", cudaGetErrorString(error));
  return OkStatus();
}

// The names older TensorFlow releases used.
using CudaLaunchConfig = GpuLaunchConfig;
template <typename T>
__device__ opgen_gpu::GridRange<T> CudaGridRangeX(T count) { return GpuGridRangeX(count); }
inline CudaLaunchConfig GetCudaLaunchConfig(int work_element_count, const Eigen::GpuDevice& d) {
  return GetGpuLaunchConfig(work_element_count, d);
}

}  // namespace tensorflow

#endif  // __CUDACC__

#endif  // TENSORFLOW_CORE_UTIL_GPU_KERNEL_HELPER_H_
