// The shape functions of the convolution-family and image ops (conv_image_ops.cc),
// defined in conv_image_shape_fns.cc.
#pragma once

#include "shape_fns.h"

namespace opgen {

void RegisterConvImageOps(TF_Status* status);  // conv_image_ops.cc

namespace shape_fns {
extern const OpShapeFn kDepthwiseConv2D, kConv2DBackpropInput, kConv3D, kSpaceToBatchND,
    kBatchToSpaceND, kFusedBatchNormV1, kResize, kDepthToSpace, kSpaceToDepth, kMirrorPad,
    kSpaceToBatch, kBatchToSpace;  // the TF1-era forms
}  // namespace shape_fns
}  // namespace opgen
