// The backprop kernel families (twins of ../cpu/grad_kernels.h), declared apart so that
// adding them does not rebuild every .cu file that includes cuda_kernels.h.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cuda {

void RegisterBatchNormGradKernels(TF_Status* status);  // batch_norm_grad.cu: FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3
void RegisterConvGradKernels(TF_Status* status);       // conv_grad.cu: Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter, Conv3DBackpropInputV2, Conv3DBackpropFilterV2
void RegisterImageGradKernels(TF_Status* status);      // image_grad.cu: ResizeBilinearGrad, ResizeNearestNeighborGrad
void RegisterPoolGradKernels(TF_Status* status);       // pool_grad.cu: MaxPoolGrad(Grad), AvgPoolGrad

}  // namespace cuda
}  // namespace opgen
