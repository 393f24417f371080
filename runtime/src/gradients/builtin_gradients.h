// The built-in gradient families, one file each (written on grad_builder.h), all
// registered from builtin_gradients.cc on the first gradient lookup.
#pragma once

#include "opgen/gradients.h"

namespace opgen {
namespace gradients {

void RegisterMathGradients();    // math_grad.cc: element-wise math, casts, AddN, Select, ClipByValue
void RegisterSpecialMathGradients();  // special_math_grad.cc: Tan, Lgamma, Erfinv, Atan2, Xlogy, ...
void RegisterReductionGradients();  // reduction_grad.cc: Sum, Mean, Prod, Max, Min, MatMul, BatchMatMulV2
void RegisterArrayGradients();   // array_grad.cc: Identity*, shapes, concat/split, slices, pads, gathers, images
void RegisterNnGradients();      // nn_grad.cc: Softmax, LogSoftmax, activations, BiasAdd, losses, FusedBatchNorm*
void RegisterConvGradients();    // conv_grad.cc: Conv2D, DepthwiseConv2dNative, Conv3D, Conv2DBackpropInput, MaxPool, AvgPool
void RegisterControlFlowGradients();  // control_flow_grad.cc: Switch, Merge (v1 conds)
void RegisterFunctionGradients();  // function_grad.cc: calls, If, StatelessIf, Case, StatelessCase
void RegisterDebugSequenceGradients();  // debug_sequence_grad.cc: CheckNumerics, EnsureShape, Roll, SparseToDense, ...
void RegisterListGradients();    // list_grad.cc: the TensorList ops, as TensorFlow's list_ops
void RegisterTensorArrayGradients();  // tensor_array_grad.cc: the TensorArray ops, through gradient arrays
void RegisterRaggedGradients();  // ragged_grad.cc: RaggedTensorToTensor
void RegisterSpectralGradients();  // spectral_grad.cc: the FFT family
void RegisterMatrixDiagGradients();  // matrix_diag_grad.cc: MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, L2Loss
void RegisterLinalgGradients();  // linalg_grad.cc: MatrixInverse, determinants, Cholesky, solves
void RegisterLinalgDecompositionGradients();  // linalg_decomposition_grad.cc: Svd, Qr, eigh, lstsq
void RegisterImageGradients();   // image_grad.cc: CropAndResize (and its gradients), ExtractImagePatches
void RegisterNotDifferentiableOps();  // builtin_gradients.cc: ops TensorFlow declares so

// function_grad.cc: the gradient of a node whose op type is a function's name.
void FunctionNodeGradient(OPGEN_GradientContext* ctx, void* user_data, TF_Status* status);

}  // namespace gradients
}  // namespace opgen
