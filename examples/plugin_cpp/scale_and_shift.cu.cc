// The GPU functor of ScaleAndShift: a CUDA kernel launched on the device's stream,
// d.stream(), exactly as a TensorFlow GPU functor launches (compiled as CUDA: nvcc -x cu).
#if GOOGLE_CUDA
#define EIGEN_USE_GPU

#include "scale_and_shift.h"

#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/util/gpu_kernel_helper.h"

using GPUDevice = Eigen::GpuDevice;

namespace {

template <typename T>
__global__ void ScaleAndShiftKernel(int size, T scale, T shift, const T* in, T* out) {
  // A grid-stride loop: any grid covers any size.
  for (int i : tensorflow::GpuGridRangeX(size)) out[i] = in[i] * scale + shift;
}

}  // namespace

template <typename T>
void ScaleAndShiftFunctor<GPUDevice, T>::operator()(const GPUDevice& d, int size, T scale,
                                                    T shift, const T* in, T* out) {
  if (size == 0) return;
  const tensorflow::GpuLaunchConfig config = tensorflow::GetGpuLaunchConfig(size, d);
  ScaleAndShiftKernel<T>
      <<<config.block_count, config.thread_per_block, 0, d.stream()>>>(size, scale, shift, in, out);
}

template struct ScaleAndShiftFunctor<GPUDevice, float>;
template struct ScaleAndShiftFunctor<GPUDevice, double>;
template struct ScaleAndShiftFunctor<GPUDevice, tensorflow::int32>;

#endif  // GOOGLE_CUDA
