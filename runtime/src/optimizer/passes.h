// The rewrite passes over the optimizer's working graph, one file each. Each returns how
// many rewrites it made and leaves fed, fetched and target nodes as they are named.
#pragma once

#include "../frame_executor.h"
#include "opt_graph.h"

namespace opgen {

// identity_removal.cc: Identity / IdentityN / StopGradient / Snapshot readers read the
// identity's input; a NoOp that only orders is replaced by its control inputs.
int RemoveIdentities(OptGraph& g);
// The same for the one node `name`; false when it is not a removable identity.
bool BypassIdentity(OptGraph& g, const std::string& name);

// dedup.cc: element-wise activations (Relu, Relu6, Sigmoid, ...) of the same tensor on
// the same device become one; their readers read the first.
int MergeDuplicateActivations(OptGraph& g);

// constant_folding.cc: nodes whose inputs are all constant (deterministic ops, not fed)
// are computed once with the CPU kernels and become Const nodes, unless the result
// would be much larger than its inputs (Fill, Tile, BroadcastTo of a scalar).
int FoldConstants(OptGraph& g);

// arithmetic.cc: a constant per-channel Mul, Add/AddV2/BiasAdd/Sub or an inference
// FusedBatchNorm after a float32 convolution or MatMul with a constant filter becomes
// part of its filter and a BiasAdd.
int FoldArithmetic(OptGraph& g);

// pad_folding.cc: a constant Pad (zeros) of the spatial dimensions read only by a
// VALID or EXPLICIT NHWC Conv2D / DepthwiseConv2dNative becomes that convolution's
// EXPLICIT padding.
int FoldPadsIntoConvolutions(OptGraph& g);

// remapper.cc: float32 Conv2D / DepthwiseConv2dNative / MatMul + BiasAdd or constant Add
// + activation become one _OpgenFused* node,
// where the fused op has a kernel on the device the original node runs on.
int FuseConvolutions(OptGraph& g);

// scale_shift.cc: a float32 Mul by a per-channel constant ([C] or [1, ..., 1, C]) read only
// by an Add / AddV2 / Sub of another such constant, and the activation after it, become
// one _OpgenFusedScaleShift node (what the convolution passes left of inference
// BatchNorms).
int FuseScaleShifts(OptGraph& g);

// affine_chain.cc: a float32 chain of two or more Mul / Add / AddV2 / Sub / RealDiv by
// scalar or per-channel constants (Keras' Rescaling + Normalization), and the activation
// after it, become one _OpgenFusedScaleShift node; runs after FuseScaleShifts.
int FuseAffineChains(OptGraph& g);

// IsControlFlowOp (../frame_executor.h): the optimizer leaves graphs with v1 control
// flow frames alone.

}  // namespace opgen
