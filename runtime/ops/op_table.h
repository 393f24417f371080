// A table form of op definitions: one entry per op, registered through the public
// op-definition builder exactly as a plugin would register it.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "shape_fns.h"
#include "tensorflow/c/tf_status.h"

namespace opgen {

struct OpRegistration {
  std::string name;
  std::vector<std::string> attrs;    // spec strings, in OpDef order
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  OpShapeFn shape_fn;                // computes the outputs' shapes (shape_fns.h)
  std::string summary;
  std::string description;
  // name -> description, for inputs, outputs and attrs
  std::vector<std::pair<std::string, std::string>> arg_docs;
  bool is_commutative = false;
  bool is_aggregate = false;
  bool is_stateful = false;
  bool is_distributed_communication = false;
  // TensorFlow's deprecation of an op kept for old graphs (0: not deprecated).
  int deprecated_version = 0;
  std::string deprecation = "";
};

// Registers each op in turn; stops at the first failure, leaving it in `status`.
void RegisterOps(std::initializer_list<OpRegistration> ops, TF_Status* status);

// The op families, one per file.
void RegisterArrayOps(TF_Status* status);
void RegisterMathOps(TF_Status* status);
void RegisterElementwiseMathOps(TF_Status* status);
void RegisterReductionOps(TF_Status* status);
void RegisterNnOps(TF_Status* status);
void RegisterPlaceholderOps(TF_Status* status);
void RegisterControlFlowOps(TF_Status* status);  // control_flow_ops.cc
void RegisterFunctionalOps(TF_Status* status);   // functional_ops.cc
void RegisterListOps(TF_Status* status);         // list_ops.cc
void RegisterMiscOps(TF_Status* status);     // misc_ops.cc
void RegisterSpecialMathOps(TF_Status* status);  // special_math_ops.cc: Tan, Lgamma, Xlogy, shifts, ...
void RegisterEinsumOp(TF_Status* status);    // einsum_op.cc
void RegisterResourceVariableOps(TF_Status* status);  // resource_variable_ops.cc
void RegisterIoOps(TF_Status* status);                // io_ops.cc: checkpoints
void RegisterStringOps(TF_Status* status);            // string_ops.cc
void RegisterStringHashOps(TF_Status* status);        // string_hash_ops.cc: AsString, hash buckets
void RegisterParsingOps(TF_Status* status);           // parsing_ops.cc: ParseExampleV2, ParseExample, ParseSingleExample, ParseTensor, SerializeTensor
void RegisterBincountOps(TF_Status* status);          // bincount_ops.cc
void RegisterScaleTranslateOps(TF_Status* status);    // scale_translate_ops.cc
void RegisterDetectionOps(TF_Status* status);         // detection_ops.cc: non-max suppression
void RegisterImagePatchesOps(TF_Status* status);      // image_patches_ops.cc: ExtractImagePatches
void RegisterColorOps(TF_Status* status);             // color_ops.cc: RGBToHSV, HSVToRGB, Adjust*
void RegisterStringTextOps(TF_Status* status);        // string_text_ops.cc
void RegisterLookupOps(TF_Status* status);            // lookup_ops.cc
void RegisterTrainingOps(TF_Status* status);          // training_ops.cc
void RegisterRandomOps(TF_Status* status);            // random_ops.cc
void RegisterDebugOps(TF_Status* status);             // debug_ops.cc: Assert, CheckNumerics, PrintV2, ...
void RegisterSequenceOps(TF_Status* status);          // sequence_ops.cc: Roll, Unique, ListDiff, ...
void RegisterMatrixDiagOps(TF_Status* status);        // matrix_diag_ops.cc: MatrixDiagV3, ..., L2Loss
void RegisterLinalgOps(TF_Status* status);            // linalg_ops.cc: MatrixInverse, Cholesky, solves, ...
void RegisterLinalgDecompositionOps(TF_Status* status);  // linalg_decomposition_ops.cc: Svd, Qr, Lu, ...
void RegisterSpectralOps(TF_Status* status);          // spectral_ops.cc: FFT, RFFT, IRFFT, ...
void RegisterFusedOps(TF_Status* status);  // internal _Opgen* ops of the graph optimizer
void RegisterNnGradOps(TF_Status* status);     // nn_grad_ops.cc
void RegisterArrayGradOps(TF_Status* status);  // array_grad_ops.cc
void RegisterMathGradOps(TF_Status* status);   // math_grad_ops.cc
void RegisterConvGradOps(TF_Status* status);   // conv_grad_ops.cc: conv/pool/batch-norm/resize backprops

// The common shapes of element-wise ops: "x, y -> z" (broadcasting) and "x -> y" with one
// type attr `T` spelled as in TensorFlow (allowed types in TensorFlow's order, so the
// OpDefs compare equal), and standard argument docs.
OpRegistration BinaryOp(const char* name, const char* type_attr, const char* summary,
                        bool is_commutative = false, const char* output_type = "T");
OpRegistration UnaryOp(const char* name, const char* type_attr, const char* summary,
                       const char* input = "x", const char* output = "y");

}  // namespace opgen
