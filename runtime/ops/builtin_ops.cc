// Registration of every built-in op family.
#include "builtin_ops.h"

#include <string>

#include "conv_image_shape_fns.h"
#include "op_table.h"
#include "opgen/c_api_ext.h"
#include "tensorflow/c/ops.h"

namespace opgen {

void RegisterOps(std::initializer_list<OpRegistration> ops, TF_Status* status) {
  for (const OpRegistration& op : ops) {
    TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(op.name.c_str());
    for (const std::string& spec : op.attrs) TF_OpDefinitionBuilderAddAttr(b, spec.c_str());
    for (const std::string& spec : op.inputs) TF_OpDefinitionBuilderAddInput(b, spec.c_str());
    for (const std::string& spec : op.outputs) TF_OpDefinitionBuilderAddOutput(b, spec.c_str());
    if (op.is_commutative) TF_OpDefinitionBuilderSetIsCommutative(b, true);
    if (op.is_aggregate) TF_OpDefinitionBuilderSetIsAggregate(b, true);
    if (op.is_stateful) TF_OpDefinitionBuilderSetIsStateful(b, true);
    if (op.is_distributed_communication)
      OPGEN_OpDefinitionBuilderSetIsDistributedCommunication(b, true);
    if (op.deprecated_version > 0)
      TF_OpDefinitionBuilderDeprecated(b, op.deprecated_version, op.deprecation.c_str());
    TF_OpDefinitionBuilderSetShapeInferenceFunction(b, op.shape_fn);
    OPGEN_OpDefinitionBuilderSetSummary(b, op.summary.c_str());
    OPGEN_OpDefinitionBuilderSetDescription(b, op.description.c_str());
    for (const auto& [name, doc] : op.arg_docs)
      OPGEN_OpDefinitionBuilderSetArgDescription(b, name.c_str(), doc.c_str());
    TF_RegisterOpDefinition(b, status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

OpRegistration BinaryOp(const char* name, const char* type_attr, const char* summary,
                        bool is_commutative, const char* output_type) {
  OpRegistration op{name, {}, {"x: T", "y: T"}, {}, shape_fns::kBroadcast, summary,
                    "Both operands broadcast against each other as numpy arrays do.",
                    {{"x", "Left operand."}, {"y", "Right operand."}, {"z", "The result."}}};
  if (type_attr != nullptr) op.attrs.push_back(type_attr);
  else op.inputs = {"x: bool", "y: bool"};
  op.outputs.push_back(std::string(output_type) == "bool" ? "z: bool" : "z: T");
  op.is_commutative = is_commutative;
  return op;
}

OpRegistration UnaryOp(const char* name, const char* type_attr, const char* summary,
                       const char* input, const char* output) {
  const std::string type = type_attr != nullptr ? "T" : "bool";
  OpRegistration op{name, {}, {std::string(input) + ": " + type},
                    {std::string(output) + ": " + type}, shape_fns::kUnchanged, summary,
                    "Applied element by element.",
                    {{input, "Input values."}, {output, "The result, same shape as the input."}}};
  if (type_attr != nullptr) op.attrs.push_back(type_attr);
  return op;
}

}  // namespace opgen

namespace opgen {
// scatter_ops.cc: GatherNd, ScatterNd, TensorScatter*, the segment reductions (declared here,
// not in op_table.h, which every op file includes).
void RegisterScatterOps(TF_Status* status);
// variable_update_ops.cc: Resource/TensorStridedSlice{Assign,Update}, ResourceScatterNd*,
// ResourceGatherNd.
void RegisterVariableUpdateOps(TF_Status* status);
// tensor_array_ops.cc: TensorFlow 1's TensorArray (V3) ops.
void RegisterTensorArrayOps(TF_Status* status);
// stack_ops.cc: TensorFlow 1's stacks (V2), which v1 while-loop gradients use.
void RegisterStackOps(TF_Status* status);
// array_family_ops.cc: InTopK(V2), Upper/LowerBound, Diag(Part), Bitcast, Inplace*, DataFormat*.
void RegisterArrayFamilyOps(TF_Status* status);
// sparse_tensor_ops.cc: SparseReorder, SparseReshape, SparseFillEmptyRows(Grad),
// SparseTensorDenseMatMul, SparseSegment*WithNumSegments.
void RegisterSparseTensorOps(TF_Status* status);
// string_everyday_ops.cc: StringLength, StringToNumber, RegexFullMatch, ReduceJoin,
// UnsortedSegmentJoin, StringSplit, StringToHashBucket, Encode/DecodeBase64, Unicode*.
void RegisterStringEverydayOps(TF_Status* status);
// nn_extra_ops.cc: FakeQuantWithMinMax*(Gradient), LRN(Grad), MaxPoolV2 / WithArgmax and their backprops.
void RegisterNnExtraOps(TF_Status* status);
// ctc_ops.cc: CTCLoss(V2), CTCGreedyDecoder, CTCBeamSearchDecoder, EditDistance.
void RegisterCtcOps(TF_Status* status);
// rnn_ops.cc: LSTMBlockCell, BlockLSTM(V2), GRUBlockCell and their gradient ops.
void RegisterRnnOps(TF_Status* status);
// image_transform_ops.cc: ImageProjectiveTransformV2/V3 and the legacy image ops.
void RegisterImageTransformOps(TF_Status* status);
// audio_ops.cc: DecodeWav, EncodeWav, AudioSpectrogram, Mfcc, ReadFile, WriteFile,
// DecodeRaw, DecodePaddedRaw, DecodeCSV.
void RegisterAudioOps(TF_Status* status);
}  // namespace opgen

void opgen_register_builtin_ops(TF_Status* status) {
  for (auto family : {opgen::RegisterArrayOps, opgen::RegisterMathOps, opgen::RegisterNnOps,
                      opgen::RegisterPlaceholderOps, opgen::RegisterControlFlowOps,
                      opgen::RegisterFunctionalOps,
                      opgen::RegisterListOps, opgen::RegisterTensorArrayOps, opgen::RegisterStackOps, opgen::RegisterConvImageOps,
                      opgen::RegisterMiscOps, opgen::RegisterSpecialMathOps, opgen::RegisterEinsumOp, opgen::RegisterResourceVariableOps,
                      opgen::RegisterIoOps, opgen::RegisterStringOps, opgen::RegisterStringHashOps, opgen::RegisterParsingOps,
                      opgen::RegisterBincountOps, opgen::RegisterScaleTranslateOps,
                      opgen::RegisterDetectionOps, opgen::RegisterImagePatchesOps,
                      opgen::RegisterColorOps,
                      opgen::RegisterStringTextOps, opgen::RegisterStringEverydayOps, opgen::RegisterLookupOps,
                      opgen::RegisterTrainingOps, opgen::RegisterRandomOps,
                      opgen::RegisterDebugOps, opgen::RegisterSequenceOps,
                      opgen::RegisterSpectralOps, opgen::RegisterMatrixDiagOps,
                      opgen::RegisterLinalgOps, opgen::RegisterLinalgDecompositionOps,
                      opgen::RegisterFusedOps, opgen::RegisterMathGradOps,
                      opgen::RegisterNnGradOps, opgen::RegisterArrayGradOps, opgen::RegisterScatterOps,
                      opgen::RegisterVariableUpdateOps,
                      opgen::RegisterConvGradOps, opgen::RegisterArrayFamilyOps,
                      opgen::RegisterSparseTensorOps, opgen::RegisterNnExtraOps,
                      opgen::RegisterCtcOps, opgen::RegisterRnnOps,
                      opgen::RegisterImageTransformOps, opgen::RegisterAudioOps}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}
