// Registration of every built-in op family.
#include "builtin_ops.h"

#include "op_table.h"
#include "opgen/c_api_ext.h"
#include "tensorflow/c/ops.h"

namespace opgen {

void RegisterOps(std::initializer_list<OpRegistration> ops, TF_Status* status) {
  for (const OpRegistration& op : ops) {
    TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(op.name);
    for (const char* spec : op.attrs) TF_OpDefinitionBuilderAddAttr(b, spec);
    for (const char* spec : op.inputs) TF_OpDefinitionBuilderAddInput(b, spec);
    for (const char* spec : op.outputs) TF_OpDefinitionBuilderAddOutput(b, spec);
    if (op.is_commutative) TF_OpDefinitionBuilderSetIsCommutative(b, true);
    if (op.is_aggregate) TF_OpDefinitionBuilderSetIsAggregate(b, true);
    OPGEN_OpDefinitionBuilderSetSummary(b, op.summary);
    OPGEN_OpDefinitionBuilderSetDescription(b, op.description);
    for (const auto& [name, doc] : op.arg_docs) OPGEN_OpDefinitionBuilderSetArgDescription(b, name, doc);
    TF_RegisterOpDefinition(b, status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

}  // namespace opgen

void opgen_register_builtin_ops(TF_Status* status) {
  for (auto family : {opgen::RegisterArrayOps, opgen::RegisterMathOps, opgen::RegisterNnOps}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}
