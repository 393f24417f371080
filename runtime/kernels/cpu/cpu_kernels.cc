// Registration of every built-in CPU kernel family (kernel_util.h, preprocessing_kernels.h, index_kernels.h and rnn_cells.h list them).
#include "cpu_kernels.h"

#include "index_kernels.h"
#include "rnn_cells.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"

// random_host.cc: RandomShuffle, Multinomial (declared here, not in kernel_util.h, which every
// kernel file includes).
namespace opgen::cpu { void RegisterRandomHostKernels(TF_Status* status); }
// random_generator.cc: tf.random.Generator's Stateful* samplers, RngSkip, RngReadAndSkip.
namespace opgen::cpu { void RegisterRandomGeneratorKernels(TF_Status* status); }
// random_gamma_poisson.cc: StatelessRandomGammaV2/V3, StatelessRandomPoisson.
namespace opgen::cpu { void RegisterRandomGammaPoissonKernels(TF_Status* status); }
// random_binomial.cc: StatelessRandomBinomial.
namespace opgen::cpu { void RegisterRandomBinomialKernels(TF_Status* status); }
// random_truncated_normal.cc: StatelessParameterizedTruncatedNormal.
namespace opgen::cpu { void RegisterRandomTruncatedNormalKernels(TF_Status* status); }
// image_transform.cc: ImageProjectiveTransformV2/V3.
namespace opgen::cpu { void RegisterImageTransformKernels(TF_Status* status); }
// image_legacy.cc: AdjustContrast, DrawBoundingBoxes(V2), RandomCrop, ExtractGlimpse(V2);
// sample_distorted_bounding_box.cc: SampleDistortedBoundingBox(V2), the stateless one.
namespace opgen::cpu { void RegisterImageLegacyKernels(TF_Status* status); }
namespace opgen::cpu { void RegisterSampleBoxKernels(TF_Status* status); }

namespace opgen {
namespace cpu {
// pool3d_grad.cc: MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad. Declared here, not
// with the other families in kernel_util.h, so that adding it rebuilt one file.
void RegisterPool3DGradKernels(TF_Status*);
void RegisterDebugKernels(TF_Status*);       // debug.cc: CheckNumerics(V2), EnsureShape, Snapshot
void RegisterDebugHostKernels(TF_Status*);   // debug_host.cc: Assert, PrintV2, StringFormat (host only)
void RegisterSequenceKernels(TF_Status*);    // sequence.cc: Roll, ReverseSequence, LinSpace
void RegisterUniqueKernels(TF_Status*);      // unique.cc: Unique*, ListDiff (host only)
void RegisterSparseToDenseKernels(TF_Status*);  // sparse_to_dense.cc: SparseToDense
// sparse_tensor.cc: SparseReorder, SparseReshape, SparseFillEmptyRows(Grad),
// SparseTensorDenseMatMul (host only).
void RegisterSparseTensorKernels(TF_Status*);
// sparse_combine.cc: SparseAdd(Grad), SparseSlice(Grad), SparseReduceSum, SparseConcat (host only).
void RegisterSparseCombineKernels(TF_Status*);
// spectral.cc: the FFT family (host only: no GPU kernels yet). Declared here for the same reason.
void RegisterSpectralKernels(TF_Status*);
// matrix_diag.cc: MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, L2Loss.
void RegisterMatrixDiagKernels(TF_Status*);
// string_convert.cc: StringLength, StringToNumber, StringToHashBucket, Encode/DecodeBase64;
// string_join_split.cc: RegexFullMatch, ReduceJoin, UnsortedSegmentJoin, StringSplit (host only).
void RegisterStringConvertKernels(TF_Status*);
void RegisterStringJoinSplitKernels(TF_Status*);
// string_unicode.cc: UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeTranscode (host only).
void RegisterStringUnicodeKernels(TF_Status*);
// linalg.cc: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve,
// MatrixTriangularSolve (host only: no GPU kernels yet).
void RegisterLinalgKernels(TF_Status*);
// linalg_decompositions.cc: Svd, Qr, SelfAdjointEigV2, Lu, MatrixSolveLs (host only).
void RegisterLinalgDecompositionsKernels(TF_Status*);
// scatter.cc: GatherNd, ScatterNd, TensorScatter*; segment.cc: UnsortedSegment{Max,Min,Prod},
// Segment*, SparseSegment* (declared here for the same reason).
void RegisterScatterKernels(TF_Status*);
void RegisterSegmentKernels(TF_Status*);
// resource_scatter.cc: ResourceGather, ResourceScatter{Add,Sub,Update}.
void RegisterResourceScatterKernels(TF_Status*);
// resource_scatter_nd.cc: ResourceScatterNd*, ResourceGatherNd.
void RegisterResourceScatterNdKernels(TF_Status*);
// strided_slice_update.cc: TensorStridedSliceUpdate, ResourceStridedSliceAssign.
void RegisterStridedSliceUpdateKernels(TF_Status*);
// adagrad_da.cc: ResourceApplyAdagradDA, ResourceSparseApplyAdagradDA.
void RegisterAdagradDAKernels(TF_Status*);
// tensor_array.cc: TensorArrayV3 and its Write/Read/Gather/Scatter/Concat/Split/Size/Close
// ops (host only: arrays are host objects).
void RegisterTensorArrayKernels(TF_Status*);
// stack.cc: StackV2, StackPushV2, StackPopV2, StackCloseV2 (host only, as the arrays).
void RegisterStackKernels(TF_Status*);
// array_family.cc: InTopK(V2), Upper/LowerBound, Diag(Part), Bitcast, Inplace*, DataFormat*.
void RegisterArrayFamilyKernels(TF_Status*);
// training_sparse.cc: ResourceSparseApply{Adadelta,Adagrad,AdagradV2,CenteredRMSProp,Ftrl,
// FtrlV2,KerasMomentum,Momentum,ProximalAdagrad,ProximalGradientDescent,RMSProp} (host only:
// no GPU kernels yet).
void RegisterSparseTrainingKernels(TF_Status*);
// math_family.cc: PopulationCount, ApproximateEqual, Cross.
void RegisterMathFamilyKernels(TF_Status*);
// fake_quant.cc: FakeQuantWithMinMax{Args,Vars,VarsPerChannel}(Gradient); lrn.cc: LRN, LRNGrad;
// pool_argmax.cc: MaxPoolWithArgmax, MaxPoolGradWithArgmax (MaxPoolV2 and its backprops: conv_pool.cc, pool_grad.cc).
void RegisterFakeQuantKernels(TF_Status*);
void RegisterLrnKernels(TF_Status*);
void RegisterPoolArgmaxKernels(TF_Status*);
// nth_element.cc: NthElement (CPU only, as in TensorFlow).
void RegisterNthElementKernels(TF_Status*);
// dilation.cc: Dilation2D, Dilation2DBackpropInput, Dilation2DBackpropFilter.
void RegisterDilationKernels(TF_Status*);
// ctc_loss.cc: CTCLoss; ctc_decoder.cc: CTCGreedyDecoder, CTCBeamSearchDecoder;
// edit_distance.cc: EditDistance (CPU only, as in TensorFlow).
void RegisterCtcLossKernels(TF_Status*);
void RegisterCtcDecoderKernels(TF_Status*);
void RegisterEditDistanceKernels(TF_Status*);
// audio.cc: DecodeWav, EncodeWav, AudioSpectrogram, Mfcc; raw_decode.cc: ReadFile, WriteFile,
// DecodeRaw, DecodePaddedRaw; decode_csv.cc: DecodeCSV (host only, as in TensorFlow).
void RegisterAudioKernels(TF_Status*);
void RegisterRawDecodeKernels(TF_Status*);
void RegisterDecodeCsvKernels(TF_Status*);
}  // namespace cpu
}  // namespace opgen

void opgen_register_cpu_kernels(TF_Status* status) {
  using namespace opgen::cpu;
  for (auto family : {
      RegisterActivationGradKernels,
      RegisterArrayGradKernels,
      RegisterArrayKernels,
      RegisterBatchNormKernels,
      RegisterBoolReductionKernels,
      RegisterCastKernels,
      RegisterCheckpointKernels,
      RegisterComplexKernels,
      RegisterConcatSplitKernels,
      RegisterConstKernels,
      RegisterControlFlowKernels,
      RegisterConvFamilyKernels,
      RegisterConvPoolKernels,
      RegisterEinsumKernels,
      RegisterElementwiseActivationKernels,
      RegisterElementwiseArithmeticKernels,
      RegisterElementwiseCompareKernels,
      RegisterElementwiseDivisionKernels,
      RegisterElementwiseMathKernels,
      RegisterElementwiseSpecialKernels,
      RegisterForwardKernels,
      RegisterFusedKernels,
      RegisterImageKernels,
      RegisterResizeCubicAreaKernels,
      RegisterMatrixBandBucketizeKernels,
      RegisterPool3DKernels,
      RegisterPool3DGradKernels,
      RegisterLeakyReluKernels,
      RegisterFakeQuantKernels,
      RegisterLrnKernels,
      RegisterPoolArgmaxKernels,
      RegisterNthElementKernels,
      RegisterDilationKernels,
      RegisterMatMulKernels,
      RegisterMathGradKernels,
      RegisterMathFamilyKernels,
      RegisterNnKernels,
      RegisterNnGradKernels,
      RegisterPlaceholderKernels,
      RegisterRandomKernels,
      RegisterRandomHostKernels,
      RegisterRandomGeneratorKernels,
      RegisterRandomGammaPoissonKernels,
      RegisterRandomBinomialKernels,
      RegisterRandomTruncatedNormalKernels,
      RegisterReductionKernels,
      RegisterResourceScatterKernels,
      RegisterResourceScatterNdKernels,
      RegisterStridedSliceUpdateKernels,
      RegisterAdagradDAKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
      RegisterUnravelIndexKernels,
      RegisterLstmBlockKernels,
      RegisterGruBlockKernels,
      RegisterBatchNormGlobalKernels,
      RegisterSelectV1Kernels,
      RegisterScatterKernels,
      RegisterSegmentKernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterStringKernels,
      RegisterAsStringKernels,
      RegisterStringHashKernels,
      RegisterParseExampleKernels,
      RegisterBincountKernels,
      RegisterScaleTranslateKernels,
      RegisterNonMaxSuppressionKernels,
      RegisterCropAndResizeKernels,
      RegisterExtractPatchesKernels,
      RegisterColorKernels,
      RegisterImageTransformKernels,
      RegisterImageLegacyKernels,
      RegisterSampleBoxKernels,
      RegisterStringTextKernels,
      RegisterStringConvertKernels,
      RegisterStringJoinSplitKernels,
      RegisterStringUnicodeKernels,
      RegisterLookupTableKernels,
      RegisterRaggedKernels,
      RegisterTensorListKernels,
      RegisterTensorArrayKernels,
      RegisterStackKernels,
      RegisterTrainingKernels,
      RegisterSparseTrainingKernels,
      RegisterBatchNormGradKernels,
      RegisterConvGradKernels,
      RegisterImageGradKernels,
      RegisterPoolGradKernels,
      RegisterDebugKernels,
      RegisterDebugHostKernels,
      RegisterSequenceKernels,
      RegisterUniqueKernels,
      RegisterSparseToDenseKernels,
      RegisterSparseTensorKernels,
      RegisterSparseCombineKernels,
      RegisterSpectralKernels,
      RegisterMatrixDiagKernels,
      RegisterLinalgKernels,
      RegisterLinalgDecompositionsKernels,
      RegisterArrayFamilyKernels,
      RegisterCtcLossKernels,
      RegisterCtcDecoderKernels,
      RegisterEditDistanceKernels,
      RegisterAudioKernels,
      RegisterRawDecodeKernels,
      RegisterDecodeCsvKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}
