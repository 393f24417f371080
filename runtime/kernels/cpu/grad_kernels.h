// The backprop kernel families (one registration function per file, as kernel_util.h's
// list), declared apart so that adding them does not rebuild every kernel.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cpu {

void RegisterBatchNormGradKernels(TF_Status* status);  // batch_norm_grad.cc: FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3
void RegisterConvGradKernels(TF_Status* status);       // conv_grad.cc: Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter, Conv3DBackpropInputV2, Conv3DBackpropFilterV2
void RegisterImageGradKernels(TF_Status* status);      // image_grad.cc: ResizeBilinearGrad, ResizeNearestNeighborGrad
void RegisterPoolGradKernels(TF_Status* status);       // pool_grad.cc: MaxPoolGrad(Grad), AvgPoolGrad

}  // namespace cpu
}  // namespace opgen
