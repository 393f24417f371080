// The shape functions of the built-in ops, in the C form a plugin registers with
// TF_OpDefinitionBuilderSetShapeInferenceFunction. One file per family:
// array_shape_fns.cc (with kUnchanged, kScalar, kNoOutputs), math_shape_fns.cc (with
// kBroadcast, kSameShapes, kRankAtLeast1), nn_shape_fns.cc.
#pragma once

#include "tensorflow/c/ops.h"

namespace opgen {

using OpShapeFn = void (*)(TF_ShapeInferenceContext* ctx, TF_Status* status);

namespace shape_fns {

// Shared by many ops.
extern const OpShapeFn kUnchanged;      // output 0 shaped as input 0
extern const OpShapeFn kScalar;         // output 0 is a scalar
extern const OpShapeFn kNoOutputs;      // nothing to infer
extern const OpShapeFn kBroadcast;      // numpy broadcasting of every input
extern const OpShapeFn kSameShapes;     // every input has one shape; output 0 has it too
extern const OpShapeFn kRankAtLeast1;   // like kUnchanged, input 0 of rank >= 1

// Array ops.
extern const OpShapeFn kConst, kPlaceholder, kPlaceholderWithDefault, kConcat, kPack, kUnpack,
    kSlice, kStridedSlice, kPad, kTile, kGather, kRange, kReshape, kTranspose, kExpandDims,
    kSqueeze, kShape, kFill, kShapeN, kPadV2, kBroadcastArgs, kVariableShape, kEmpty, kUnravelIndex,
    kConcatV1, kGatherV1;  // the TF1-era Concat and Gather

// Math ops.
extern const OpShapeFn kCross, kExplicitShape, kEqualityBroadcast, kMatrixBandPart, kReduction, kArgReduction, kMatMul, kBatchMatMul;

// Neural-network ops.
extern const OpShapeFn kBiasAdd, kConv2D, kPool, kPool3D, kMaxPool3DGradGrad, kFusedBatchNorm;

}  // namespace shape_fns
}  // namespace opgen
