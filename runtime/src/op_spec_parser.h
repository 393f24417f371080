// Parses TensorFlow's op-definition spec strings ("T: {float, int32} = DT_FLOAT",
// "values: N * T") into the OpDef model.
#pragma once

#include <string>
#include <vector>

#include "op_def.h"

namespace opgen {

// Each returns "" on success, else a message saying what is wrong with the spec.
std::string ParseAttrSpec(const std::string& spec, AttrDef* attr);
// An input or output arg. Whether "T" is a type attr or a list(type) attr is settled
// later, once all attrs are known (see ResolveArgTypes); until then it is in type_attr.
std::string ParseArgSpec(const std::string& spec, ArgDef* arg);

// Turns type_attr references to list(type) attrs into type_list_attr, and checks
// every reference of every arg; "" on success. Gives length and list(type) attrs their
// implied minimum of 1 and marks ops with resource args stateful, as TensorFlow does.
// The specs, when given (one per arg, in order), are quoted in error messages.
std::string ResolveArgTypes(OpDef* op, const std::vector<std::string>& input_specs = {},
                            const std::vector<std::string>& output_specs = {});

// Full semantic check of an OpDef: names, references, defaults vs allowed values and
// minimums, duplicates. "" on success.
std::string ValidateOpDef(const OpDef& op);

// "float" / "DT_FLOAT" -> TF_FLOAT; false when unknown.
bool ParseDataTypeName(const std::string& name, TF_DataType* out);

}  // namespace opgen
