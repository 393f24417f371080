// The GPU kernel of ScaleClip (float), built where nvcc is found: an OpKernel for
// DEVICE_GPU that launches on the stream of context->eigen_device<Eigen::GpuDevice>(), as
// TensorFlow's GPU kernels do (opgen's Eigen::GpuDevice is a device shim over TF_GetStream;
// context->gpu_stream() gives the same cudaStream_t as a void*). scale_and_shift.cu.cc is
// the guide's functor layout of the same idea.
#define EIGEN_USE_GPU
#include <cuda_runtime.h>

#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

namespace {

__global__ void ScaleClipKernel(int64_t n, const float* x, float scale, float limit, float* y) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = fminf(fmaxf(x[i] * scale, -limit), limit);
}

class ScaleClipGpuOp : public OpKernel {
 public:
  explicit ScaleClipGpuOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("scale", &scale_));
    OP_REQUIRES_OK(context, context->GetAttr("limit", &limit_));
    OP_REQUIRES(context, limit_ > 0.0f,
                errors::InvalidArgument("ScaleClip needs limit > 0, got ", limit_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    const int64_t n = x.NumElements();
    if (n == 0) return;
    const cudaStream_t stream = context->eigen_device<Eigen::GpuDevice>().stream();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    ScaleClipKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
        n, x.flat<float>().data(), scale_, limit_, y->flat<float>().data());
    const cudaError_t launched = cudaGetLastError();
    OP_REQUIRES(context, launched == cudaSuccess,
                errors::Internal("ScaleClip launch failed: ", cudaGetErrorString(launched)));
  }

 private:
  float scale_;
  float limit_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ScaleClip").Device(DEVICE_GPU).TypeConstraint<float>("T"),
                        ScaleClipGpuOp);
