// The protobuf wire format for the few messages the runtime exchanges, written by hand
// because no C++ protobuf runtime installs from the package index. Field numbers are
// TensorFlow's; tests round-trip the bytes through the Python protobuf library.
#pragma once

#include <string>
#include <vector>

#include "op_def.h"

namespace opgen {

std::string SerializeAttrValue(const AttrValue& value);
std::string SerializeOpDef(const OpDef& op);
std::string SerializeOpList(const std::vector<const OpDef*>& ops);

}  // namespace opgen

struct TF_Tensor;

namespace opgen {

// TensorProto bytes for a dense tensor (dtype, shape, tensor_content). Types without a
// fixed element size (string, resource, variant) are not supported: returns false.
bool SerializeTensorProto(const TF_Tensor* tensor, std::string* out);

// A new tensor from TensorProto bytes, accepting tensor_content or the typed value
// fields (a short list repeats its last value, as TensorFlow does). nullptr with
// `error` set for malformed bytes or unsupported dtypes; the caller owns the result.
TF_Tensor* ParseTensorProto(const std::string& bytes, std::string* error);

}  // namespace opgen
