// The CUDA plugin's kernel families, one registration function per file. Each stops
// at the first failure, leaving it in `status`.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseKernels(TF_Status* status);  // elementwise.cu: unary, binary, compare, logical, select, clip
void RegisterCastKernels(TF_Status* status);         // cast.cu: Cast, Fill, ZerosLike, OnesLike
void RegisterMatMulKernels(TF_Status* status);       // matmul.cu: MatMul, BatchMatMulV2 (cuBLAS)
void RegisterNnKernels(TF_Status* status);           // nn.cu: BiasAdd, FusedBatchNormV3, Conv2D, MaxPool, AvgPool
void RegisterReductionKernels(TF_Status* status);    // reduction.cu: Sum, Mean, Max, Min, Prod, ArgMax, ArgMin, Softmax, LogSoftmax
void RegisterArrayKernels(TF_Status* status);        // array.cu: Const, Identity, NoOp, Reshape, ... (see the file)
void RegisterControlFlowKernels(TF_Status* status);  // control_flow.cc: Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger
void RegisterConvFamilyKernels(TF_Status* status);   // conv_family.cu: DepthwiseConv2dNative, Conv2DBackpropInput, Conv3D
void RegisterSpaceKernels(TF_Status* status);        // space_ops.cu: SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth, MirrorPad
void RegisterImageKernels(TF_Status* status);        // image.cu: ResizeBilinear, ResizeNearestNeighbor
void RegisterEinsumKernels(TF_Status* status);       // einsum.cu: Einsum
void RegisterMiscArrayKernels(TF_Status* status);    // misc_array.cu: StopGradient, IdentityN, Split, SplitV, OneHot, BroadcastTo, Select
void RegisterScanTopKKernels(TF_Status* status);     // scan_topk.cu: Cumsum, Cumprod, TopKV2, Where, All, Any
void RegisterFusedKernels(TF_Status* status);        // fused.cu: the graph optimizer's _OpgenFused* ops

}  // namespace cuda
}  // namespace opgen
