// The float32 convolutions of Conv2D (im2col + cuBLAS, conv_pool.cu) and DepthwiseConv2dNative
// (conv_family.cu) on the GPU, for the kernels that add to them: the graph optimizer's
// _OpgenFused* kernels (fused.cu) run them, then their epilogue, so a fused convolution
// costs what the convolution, BiasAdd and activation cost apart, less two passes.
#pragma once

#include <cuda_runtime.h>

#include "../window_spec.h"

namespace opgen {
namespace cuda {

// The convolution planned in `p` (kernels::PlanConv2D) into `out` on `stream`; false
// after reporting a failure in `ctx`.
bool Conv2DFloatGpu(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Window2D& w,
                    const kernels::WindowPlan& p, float* out);

// The depthwise convolution planned in `p` (kernels::PlanDepthwise, channel multiplier
// `multiplier`) into `out` on `stream`; false after reporting a failure in `ctx`.
bool DepthwiseFloatGpu(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Window2D& w,
                       const kernels::WindowPlan& p, int64_t multiplier, float* out);

}  // namespace cuda
}  // namespace opgen
