// Shape functions of the gradient-kernel ops of nn_grad_ops.cc and array_grad_ops.cc
// (defined in grad_kernel_shape_fns.cc).
#pragma once

#include "shape_fns.h"

namespace opgen {
namespace shape_fns {

extern const OpShapeFn kBiasAddGrad, kSoftmaxCrossEntropy, kSparseSoftmaxCrossEntropy,
    kUnsortedSegmentReduction, kConcatOffset, kInvertPermutation, kStridedSliceGrad,
    kMirrorPadGrad;

}  // namespace shape_fns
}  // namespace opgen
