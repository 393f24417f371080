// The GPU functor of ScaleAndShift: a CUDA kernel launched on the device's stream,
// d.stream(), exactly as a TensorFlow GPU functor launches (compiled as CUDA: nvcc -x cu).
#if GOOGLE_CUDA
#define EIGEN_USE_GPU

#include "scale_and_shift.h"

#include "tensorflow/core/framework/types.h"

using GPUDevice = Eigen::GpuDevice;

namespace {

template <typename T>
__global__ void ScaleAndShiftKernel(int size, T scale, T shift, const T* in, T* out) {
  // A grid-stride loop: any grid covers any size.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += blockDim.x * gridDim.x)
    out[i] = in[i] * scale + shift;
}

}  // namespace

template <typename T>
void ScaleAndShiftFunctor<GPUDevice, T>::operator()(const GPUDevice& d, int size, T scale,
                                                    T shift, const T* in, T* out) {
  if (size == 0) return;
  const int threads = 256;
  const int blocks = (size + threads - 1) / threads < 1024 ? (size + threads - 1) / threads : 1024;
  ScaleAndShiftKernel<T><<<blocks, threads, 0, d.stream()>>>(size, scale, shift, in, out);
}

template struct ScaleAndShiftFunctor<GPUDevice, float>;
template struct ScaleAndShiftFunctor<GPUDevice, double>;
template struct ScaleAndShiftFunctor<GPUDevice, tensorflow::int32>;

#endif  // GOOGLE_CUDA
