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
void RegisterArrayKernels(TF_Status* status);
void RegisterFusedKernels(TF_Status* status);        // fused.cu: the graph optimizer's _OpgenFused* ops        // array.cu: Const, Identity, NoOp, Reshape, ... (see the file)

}  // namespace cuda
}  // namespace opgen
