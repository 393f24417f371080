// Small helpers shared by the CPU kernels: typed outputs and the names of the shared
// registration helper (the helpers over the kernel API itself are
// ../kernel_api_util.h, shared with the CUDA plugin). Kernels use only the public
// C API (kernels.h), as a plugin would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "../kernel_api_util.h"
#include "../kernel_registration.h"
#include "dtypes.h"

namespace opgen {
namespace cpu {

using kernels::BorrowInput;
using kernels::Data;
using kernels::Dims;
using kernels::Fail;
using kernels::IndexValues;
using kernels::Input;
using kernels::NewStatus;
using kernels::NumElements;
using kernels::ShapeString;
using kernels::StatusPtr;
using kernels::TensorPtr;
using kernels::ThreadStatus;

// Allocates output `i` of `dims` with the dtype the OpDef expects; nullptr on failure.
template <typename T>
TensorPtr AllocateOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return kernels::AllocateOutput(ctx, i, DtypeOf<T>::value, dims);
}

// The same, borrowed from the context (valid until the kernel returns, not freed): for
// hot kernels, where making and freeing the caller's own TF_Tensor showed.
template <typename T>
TF_Tensor* AllocateBorrowedOutput(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
  return kernels::AllocateBorrowedOutput(ctx, i, DtypeOf<T>::value, dims);
}

using ComputeFn = kernels::ComputeFn;

// Registration, shared with the CUDA plugin (../kernel_registration.h): a family
// registers with RegisterKernel(kDevice, {op, constraints, host memory, compute}, status).
constexpr char kDevice[] = "CPU";
using kernels::KernelSpec;
using kernels::RegisterForTypes;
using kernels::RegisterKernel;

// The kernel families, one registration function per file; each file X.cc has its
// CUDA twin ../cuda/X.cu registering the same ops, but for placeholder.cc and
// tensor_list.cc (host-only ops; tests/python_runtime/test_kernel_twins.py checks).
void RegisterActivationGradKernels(TF_Status* status);   // activation_grad.cc: ReluGrad, Relu6Grad, EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad, LeakyReluGrad
void RegisterArrayGradKernels(TF_Status* status);        // array_grad.cc: UnsortedSegmentSum, ConcatOffset, InvertPermutation, StridedSliceGrad, MirrorPadGrad
void RegisterArrayKernels(TF_Status* status);             // array.cc: Identity, NoOp, Reshape, ExpandDims, Squeeze, Transpose, Shape, Size, Rank, Fill, ZerosLike, OnesLike
void RegisterBatchNormKernels(TF_Status* status);         // batch_norm.cc: FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3
void RegisterBoolReductionKernels(TF_Status* status);     // bool_reduction.cc: All, Any
void RegisterCastKernels(TF_Status* status);              // cast.cc: Cast
void RegisterComplexKernels(TF_Status* status);           // complex.cc: Complex, Real, Imag, Angle, Conj
void RegisterConcatSplitKernels(TF_Status* status);       // concat_split.cc: ConcatV2, Pack, Unpack
void RegisterConstKernels(TF_Status* status);             // constant.cc: Const
void RegisterControlFlowKernels(TF_Status* status);       // control_flow.cc: Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger
void RegisterConvFamilyKernels(TF_Status* status);        // conv_family.cc: DepthwiseConv2dNative, Conv2DBackpropInput, Conv3D
void RegisterConvPoolKernels(TF_Status* status);          // conv_pool.cc: Conv2D, MaxPool, AvgPool
void RegisterEinsumKernels(TF_Status* status);            // einsum.cc: Einsum
void RegisterElementwiseActivationKernels(TF_Status* status);// elementwise_activation.cc: Relu, Relu6, Tanh, Sigmoid, Softplus, Elu, Selu, Softsign
void RegisterElementwiseArithmeticKernels(TF_Status* status);// elementwise_arithmetic.cc: AddV2, Add, Sub, Mul, Maximum, Minimum, SquaredDifference, AddN, ClipByValue
void RegisterElementwiseCompareKernels(TF_Status* status);// elementwise_compare.cc: Less, ..., Equal, NotEqual, Logical*, SelectV2, Bitwise*, Invert
void RegisterElementwiseDivisionKernels(TF_Status* status);// elementwise_division.cc: RealDiv, Div, FloorDiv, FloorMod, Pow
void RegisterElementwiseMathKernels(TF_Status* status);   // elementwise_math.cc: Neg, Abs, Exp, Log, Sqrt, Sin, Floor, Round, ComplexAbs, ...
void RegisterElementwiseSpecialKernels(TF_Status* status);// elementwise_special.cc: Tan, Lgamma, Erfinv, Atan2, Mod, Xlogy, shifts, ...
void RegisterForwardKernels(TF_Status* status);           // forward.cc: StopGradient, IdentityN
void RegisterFusedKernels(TF_Status* status);             // fused.cc: the graph optimizer's _OpgenFused* ops
void RegisterImageKernels(TF_Status* status);             // image.cc: ResizeBilinear, ResizeNearestNeighbor
void RegisterResizeCubicAreaKernels(TF_Status* status);   // resize_cubic_area.cc: ResizeBicubic, ResizeArea
void RegisterMatrixBandBucketizeKernels(TF_Status* status);// matrix_band_bucketize.cc: MatrixBandPart, Bucketize
void RegisterPool3DKernels(TF_Status* status);            // pool3d.cc: MaxPool3D, AvgPool3D
void RegisterLeakyReluKernels(TF_Status* status);         // leaky_relu.cc: LeakyRelu
void RegisterMatMulKernels(TF_Status* status);            // matmul.cc: MatMul, BatchMatMulV2
void RegisterNnKernels(TF_Status* status);                // nn.cc: BiasAdd
void RegisterNnGradKernels(TF_Status* status);            // nn_grad.cc: BiasAddGrad, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
void RegisterPlaceholderKernels(TF_Status* status);       // placeholder.cc: Placeholder, PlaceholderWithDefault
void RegisterCheckpointKernels(TF_Status* status);        // checkpoint.cc: SaveV2, RestoreV2, MergeV2Checkpoints (host only)
void RegisterResourceVariableKernels(TF_Status* status); // resource_variable.cc: VarHandleOp, ReadVariableOp, Assign*VariableOp, VarIsInitializedOp, DestroyResourceOp, DisableCopyOnRead
void RegisterRandomKernels(TF_Status* status);            // random.cc: Stateless* random ops, RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt
void RegisterReductionKernels(TF_Status* status);         // reduction.cc: Sum, Mean, Prod, Max, Min, ArgMax, ArgMin, Softmax, LogSoftmax
void RegisterScanTopKKernels(TF_Status* status);          // scan_topk.cc: Cumsum, Cumprod, TopKV2, Where
void RegisterSelectV1Kernels(TF_Status* status);          // select_v1.cc: Select
void RegisterSlicingKernels(TF_Status* status);           // slicing.cc: Slice, StridedSlice, Tile, Pad, GatherV2, Range
void RegisterSpaceKernels(TF_Status* status);             // space_ops.cc: SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth, MirrorPad
void RegisterStringKernels(TF_Status* status);            // string_ops.cc: StringJoin, ShardedFilename, ShardedFilespec, StaticRegexFullMatch (host only)
void RegisterStringTextKernels(TF_Status* status);        // string_text.cc: StringLower, StringUpper, StringStrip, StaticRegexReplace, RegexReplace, StringSplitV2, StringNGrams, Substr (host only)
void RegisterLookupTableKernels(TF_Status* status);       // lookup_table.cc: HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2, LookupTableRemoveV2, LookupTableImportV2, InitializeTableV2, LookupTableInsertV2, LookupTableFindV2, LookupTableSizeV2, LookupTableExportV2 (host only)
void RegisterRaggedKernels(TF_Status* status);            // ragged.cc: RaggedTensorToTensor (host only)
// string_ops.cc: the TF_STRING computes the select families register.
void SelectStringCompute(void*, TF_OpKernelContext* ctx);
void SelectV2StringCompute(void*, TF_OpKernelContext* ctx);
void RegisterSplitOneHotKernels(TF_Status* status);       // split_onehot.cc: Split, SplitV, OneHot, BroadcastTo
void RegisterTensorListKernels(TF_Status* status);        // tensor_list.cc: TensorList*
void RegisterTrainingKernels(TF_Status* status);          // training.cc: the dense ResourceApply* updates (training_spec.h lists them)
void RegisterBatchNormGradKernels(TF_Status* status);  // batch_norm_grad.cc: FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3
void RegisterConvGradKernels(TF_Status* status);       // conv_grad.cc: Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter, Conv3DBackpropInputV2, Conv3DBackpropFilterV2
void RegisterImageGradKernels(TF_Status* status);      // image_grad.cc: ResizeBilinearGrad, ResizeNearestNeighborGrad
void RegisterPoolGradKernels(TF_Status* status);       // pool_grad.cc: MaxPoolGrad(Grad), AvgPoolGrad
void RegisterMathGradKernels(TF_Status* status);      // math_grad.cc: BroadcastGradientArgs, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad

}  // namespace cpu
}  // namespace opgen
