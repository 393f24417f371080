// Registration of the built-in gradient families, and the built-in ops through which
// no gradient flows (TensorFlow's ops.NotDifferentiable, or a gradient that is None).
#include "builtin_gradients.h"

#include "grad_builder.h"
#include "registry.h"

namespace opgen {
namespace gradients {
namespace {

// Calls the GradFn carried as user data with a builder over the context.
void CallGradFn(OPGEN_GradientContext* ctx, void* user_data, TF_Status* status) {
  GradBuilder b(ctx, status);
  reinterpret_cast<GradFn>(user_data)(b);
}

}  // namespace

void RegisterGrad(const char* op_type, GradFn fn) {
  RegisterBuiltinGradient(op_type, &CallGradFn, reinterpret_cast<void*>(fn));
}

void RegisterNoGrad(const char* op_type) { RegisterBuiltinNotDifferentiable(op_type); }

void RegisterNotDifferentiableOps() {
  for (const char* op :
       {// shapes and indices
        "Shape", "Size", "Rank", "ArgMax", "ArgMin", "BroadcastGradientArgs", "OneHot", "Where",
        "Range", "ConcatOffset", "InvertPermutation", "Bucketize", "ShapeN", "BroadcastArgs",
        "VariableShape", "Empty", "UnravelIndex",
        // bool or index outputs (TensorFlow registers no gradient for them)
        "InTopK", "InTopKV2", "UpperBound", "LowerBound", "DataFormatVecPermute",
        "DataFormatDimMap",
        // comparisons and logic
        "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
        "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
        "IsFinite", "IsNan", "IsInf", "ApproximateEqual", "PopulationCount",
        // values that do not depend on the input's values, or stop gradients on purpose
        "ZerosLike", "OnesLike", "StopGradient", "VarIsInitializedOp",
        // piecewise constant: TensorFlow's gradient is None
        "Floor", "Ceil", "Round", "FloorDiv", "Rint", "TruncateDiv",
        // integer only
        "LeftShift", "RightShift",
        // boolean reductions; values without inputs
        "All", "Any", "Const", "Placeholder", "PlaceholderV2",
        // random values: TensorFlow registers every random op as not differentiable
        "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
        "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
        "StatelessRandomUniformInt", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2",
        "StatelessRandomUniformFullIntV2", "StatelessRandomGetKeyCounter", "StatelessRandomGetAlg",
        "StatelessRandomGetKeyCounterAlg", "RandomShuffle", "Multinomial",
        "StatelessMultinomial", "StatelessRandomUniformFullInt", "StatelessShuffle",
        "StatelessRandomPoisson", "StatelessRandomBinomial",
        // tf.random.Generator's: their inputs are its state, never values to differentiate
        "StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
        "StatefulStandardNormalV2", "StatefulTruncatedNormal", "RngSkip", "RngReadAndSkip",
        // state, checkpoints and scheduling: they hand on no values to differentiate
        "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "VarHandleOp",
        "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate",
        "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
        "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
        "ResourceScatterNdMin", "ResourceScatterNdMax", "ResourceStridedSliceAssign",
        "ResourceApplyAdamWithAmsgrad", "ResourceApplyAdagradDA", "ResourceSparseApplyAdagradDA",
        "DestroyResourceOp", "ResourceApplyGradientDescent", "ResourceApplyMomentum",
        "ResourceApplyKerasMomentum", "ResourceApplyAdagrad", "ResourceApplyRMSProp",
        "ResourceApplyAdam",
        "ResourceApplyAdaMax", "ResourceApplyAdadelta", "ResourceApplyAdagradV2",
        "ResourceApplyAddSign", "ResourceApplyCenteredRMSProp", "ResourceApplyFtrl",
        "ResourceApplyFtrlV2", "ResourceApplyPowerSign", "ResourceApplyProximalAdagrad",
        "ResourceApplyProximalGradientDescent", "ResourceSparseApplyAdagrad",
        "ResourceSparseApplyAdagradV2", "ResourceSparseApplyFtrl", "ResourceSparseApplyFtrlV2",
        "ResourceSparseApplyKerasMomentum", "ResourceSparseApplyMomentum",
        "ResourceSparseApplyRMSProp", "ResourceSparseApplyAdadelta",
        "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyProximalAdagrad",
        "ResourceSparseApplyProximalGradientDescent",
        "SaveV2", "RestoreV2", "MergeV2Checkpoints", "NoOp",
        "ControlTrigger", "LoopCond", "DisableCopyOnRead",
        // strings: file names and patterns of the save/restore graphs
        "StringJoin", "ShardedFilename", "ShardedFilespec", "StaticRegexFullMatch",
        // strings made from values and hashed (Keras' Hashing); counts of integer values
        "AsString", "StringToHashBucketFast", "StringToHashBucketStrong", "Fingerprint",
        "Bincount", "DenseBincount", "RaggedBincount", "SparseBincount",
        // TF 2.x's sorted segment reductions with num_segments: TensorFlow registers none
        "SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2",
        // counts in bins, and ParallelConcat: TensorFlow registers no gradient
        "HistogramFixedWidth", "ParallelConcat",
        // parsed protos (TensorFlow declares the parsing ops not differentiable)
        "ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor", "SerializeTensor",
        // HSV to RGB: TensorFlow declares it not differentiable
        "HSVToRGB",
        // selected box indices (TensorFlow registers no gradient for them)
        "NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "NonMaxSuppressionWithOverlaps",
        "CombinedNonMaxSuppression",
        // sampled crops and drawn boxes (TensorFlow: not differentiable), and the legacy
        // image ops TensorFlow registers no gradient for
        "SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
        "StatelessSampleDistortedBoundingBox", "DrawBoundingBoxes", "ExtractGlimpse",
        // text preprocessing: TensorFlow declares its string ops not differentiable
        "StringLower", "StringUpper", "StringStrip", "StaticRegexReplace", "RegexReplace",
        "StringSplitV2", "StringNGrams", "Substr",
        // the everyday tf.strings ops: TensorFlow registers no gradient for them
        "StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin", "UnsortedSegmentJoin",
        "StringSplit", "StringToHashBucket", "EncodeBase64", "DecodeBase64", "UnicodeDecode",
        "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode", "UnicodeScript",
        // lookup tables: keys are looked up, not differentiated (TensorFlow's lookup ops
        // are not differentiable)
        "HashTableV2", "MutableHashTableV2", "LookupTableImportV2", "InitializeTableV2",
        "LookupTableInsertV2", "LookupTableFindV2", "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2", "LookupTableExportV2",
        // a list's length and element shape; a new list of unset elements
        "TensorListLength", "TensorListElementShape", "TensorListReserve",
        // a TensorArray's handle, size and deletion (TensorFlow: not differentiable)
        "TensorArrayV3", "TensorArraySizeV3", "TensorArrayCloseV3",
        // the gradient array itself, and the stacks of v1 loop gradients (TensorFlow
        // declares them not differentiable)
        "TensorArrayGradV3", "TensorArrayGradWithShape",
        "StackV2", "StackPushV2", "StackPopV2", "StackCloseV2",
        // decoded label sequences and their distances (TensorFlow: not differentiable)
        "CTCGreedyDecoder", "CTCBeamSearchDecoder", "EditDistance",
        // bytes reinterpreted as numbers (TensorFlow declares them not differentiable; the
        // other audio and decoding ops of audio_ops.cc have no gradient entry, as in TF)
        "DecodeRaw", "DecodePaddedRaw"})
    RegisterNoGrad(op);
}

}  // namespace gradients
}  // namespace opgen

namespace opgen::gradients {
// scatter_grad.cc: GatherNd, ScatterNd, TensorScatter*, the segment reductions (declared here,
// not in builtin_gradients.h, which every gradient file includes).
void RegisterScatterGradients();
// sparse_grad.cc: SparseReorder, SparseFillEmptyRows, SparseTensorDenseMatMul.
void RegisterSparseGradients();
// nn_extra_grad.cc: FakeQuantWithMinMax*, LRN, MaxPoolV2, MaxPoolWithArgmax, CTCLoss(V2).
void RegisterNnExtraGradients();
// rnn_grad.cc: BlockLSTM(V2), BatchNormWithGlobalNormalization.
void RegisterRnnGradients();
}  // namespace opgen::gradients

void opgen_register_builtin_gradients() {
  using namespace opgen::gradients;  // NOLINT
  for (auto family : {RegisterMathGradients, RegisterSpecialMathGradients,
                      RegisterReductionGradients, RegisterArrayGradients,
                      RegisterNnGradients, RegisterConvGradients, RegisterScatterGradients,
                      RegisterListGradients, RegisterTensorArrayGradients, RegisterRaggedGradients, RegisterImageGradients,
                      RegisterControlFlowGradients, RegisterFunctionGradients,
                      RegisterDebugSequenceGradients, RegisterSpectralGradients,
                      RegisterMatrixDiagGradients, RegisterLinalgGradients,
                      RegisterLinalgDecompositionGradients,
                      RegisterSparseGradients, RegisterNnExtraGradients, RegisterRnnGradients,
                      RegisterNotDifferentiableOps})
    family();
}
