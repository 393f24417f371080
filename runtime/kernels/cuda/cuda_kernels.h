// The CUDA plugin's kernel families, one registration function per file, each the twin
// of the CPU file of the same name (../cpu/X.cc) and registering the same ops
// (tests/python_runtime/test_kernel_twins.py checks). Each stops at the first failure,
// leaving it in `status`.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cuda {

void RegisterActivationGradKernels(TF_Status* status);   // activation_grad.cu: ReluGrad, Relu6Grad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad, LeakyReluGrad
void RegisterArrayGradKernels(TF_Status* status);        // array_grad.cu: UnsortedSegmentSum, ConcatOffset, InvertPermutation, StridedSliceGrad, MirrorPadGrad
void RegisterArrayKernels(TF_Status* status);             // array.cu: Identity, NoOp, Reshape, ExpandDims, Squeeze, Transpose, Shape, Size, Rank, Fill, ZerosLike, OnesLike
void RegisterBatchNormKernels(TF_Status* status);         // batch_norm.cu: FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3
void RegisterBoolReductionKernels(TF_Status* status);     // bool_reduction.cu: All, Any
void RegisterCastKernels(TF_Status* status);              // cast.cu: Cast
void RegisterComplexKernels(TF_Status* status);           // complex.cu: Complex, Real, Imag, Angle, Conj
void RegisterConcatSplitKernels(TF_Status* status);       // concat_split.cu: ConcatV2, Pack, Unpack
void RegisterConstKernels(TF_Status* status);             // constant.cu: Const
void RegisterControlFlowKernels(TF_Status* status);       // control_flow.cc: Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger
void RegisterConvFamilyKernels(TF_Status* status);        // conv_family.cu: DepthwiseConv2dNative, Conv2DBackpropInput, Conv3D
void RegisterConvPoolKernels(TF_Status* status);          // conv_pool.cu: Conv2D, MaxPool, AvgPool
void RegisterEinsumKernels(TF_Status* status);            // einsum.cu: Einsum
void RegisterElementwiseActivationKernels(TF_Status* status);// elementwise_activation.cu: Relu, Relu6, Tanh, Sigmoid, Softplus, Elu, Selu, Softsign
void RegisterElementwiseArithmeticKernels(TF_Status* status);// elementwise_arithmetic.cu: AddV2, Add, Sub, Mul, Maximum, Minimum, SquaredDifference, AddN, ClipByValue
void RegisterElementwiseCompareKernels(TF_Status* status);// elementwise_compare.cu: Less, ..., Equal, NotEqual, Logical*, SelectV2, Bitwise*, Invert
void RegisterElementwiseDivisionKernels(TF_Status* status);// elementwise_division.cu: RealDiv, Div, FloorDiv, FloorMod, Pow
void RegisterElementwiseMathKernels(TF_Status* status);   // elementwise_math.cu: Neg, Abs, Exp, Log, Sqrt, Sin, Floor, Round, ComplexAbs, ...
void RegisterElementwiseSpecialKernels(TF_Status* status);// elementwise_special.cu: Tan, Lgamma, Erfinv, Atan2, Mod, Xlogy, shifts, ...
void RegisterForwardKernels(TF_Status* status);           // forward.cu: StopGradient, IdentityN
void RegisterFusedKernels(TF_Status* status);             // fused.cu: the graph optimizer's _OpgenFused* ops
void RegisterImageKernels(TF_Status* status);             // image.cu: ResizeBilinear, ResizeNearestNeighbor
void RegisterResizeCubicAreaKernels(TF_Status* status);   // resize_cubic_area.cu: ResizeBicubic, ResizeArea
void RegisterMatrixBandBucketizeKernels(TF_Status* status);// matrix_band_bucketize.cu: MatrixBandPart, Bucketize
void RegisterPool3DKernels(TF_Status* status);            // pool3d.cu: MaxPool3D, AvgPool3D
void RegisterLeakyReluKernels(TF_Status* status);         // leaky_relu.cu: LeakyRelu
void RegisterMatMulKernels(TF_Status* status);            // matmul.cu: MatMul, BatchMatMulV2
void RegisterNnKernels(TF_Status* status);                // nn.cu: BiasAdd
void RegisterNnGradKernels(TF_Status* status);            // nn_grad.cu: BiasAddGrad, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
void RegisterRandomKernels(TF_Status* status);            // random.cu: Stateless* random ops, RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt
void RegisterReductionKernels(TF_Status* status);         // reduction.cu: Sum, Mean, Prod, Max, Min, ArgMax, ArgMin, Softmax, LogSoftmax
void RegisterResourceVariableKernels(TF_Status* status);  // resource_variable.cu: VarHandleOp, ReadVariableOp, Assign*VariableOp, VarIsInitializedOp, DestroyResourceOp
void RegisterScanTopKKernels(TF_Status* status);          // scan_topk.cu: Cumsum, Cumprod, TopKV2, Where
void RegisterSelectV1Kernels(TF_Status* status);          // select_v1.cu: Select
void RegisterSlicingKernels(TF_Status* status);           // slicing.cu: Slice, StridedSlice, Tile, Pad, GatherV2, Range
void RegisterSpaceKernels(TF_Status* status);             // space_ops.cu: SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth, MirrorPad
void RegisterSplitOneHotKernels(TF_Status* status);       // split_onehot.cu: Split, SplitV, OneHot, BroadcastTo
void RegisterTrainingKernels(TF_Status* status);          // training.cu: ResourceApplyGradientDescent, ResourceApplyMomentum, ResourceApplyKerasMomentum, ResourceApplyAdam, ResourceApplyAdagrad, ResourceApplyRMSProp
void RegisterBatchNormGradKernels(TF_Status* status);  // batch_norm_grad.cu: FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3
void RegisterConvGradKernels(TF_Status* status);       // conv_grad.cu: Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter, Conv3DBackpropInputV2, Conv3DBackpropFilterV2
void RegisterImageGradKernels(TF_Status* status);      // image_grad.cu: ResizeBilinearGrad, ResizeNearestNeighborGrad
void RegisterPoolGradKernels(TF_Status* status);       // pool_grad.cu: MaxPoolGrad(Grad), AvgPoolGrad
void RegisterMathGradKernels(TF_Status* status);      // math_grad.cu: BroadcastGradientArgs, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad

}  // namespace cuda
}  // namespace opgen
