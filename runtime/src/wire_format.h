// The protobuf wire format for the few messages the runtime exchanges, written by hand
// because no C++ protobuf runtime installs from the package index. Field numbers are
// TensorFlow's; tests round-trip the bytes through the Python protobuf library.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "op_def.h"

namespace opgen {

std::string SerializeAttrValue(const AttrValue& value);
std::string SerializeOpDef(const OpDef& op);
std::string SerializeOpList(const std::vector<const OpDef*>& ops);

// Readers of the same messages. Each returns false for malformed bytes, with a short
// reason in `*error` when `error` is not null; unknown fields are skipped. What the
// model does not keep is dropped: ArgDef.handle_data and experimental_full_type, dim
// names, and the attrs of function values (only the function name stays). An empty
// ListValue reads as an empty list(string) except as an AttrDef default, where the
// attr's type gives the kind.
bool ParseAttrValue(const std::string& bytes, AttrValue* out, std::string* error);
bool ParseOpDef(const std::string& bytes, OpDef* out, std::string* error);
bool ParseOpList(const std::string& bytes, std::vector<OpDef>* out, std::string* error);

// TensorFlow's KernelDef message, as TF_RegisterKernelBuilderWithKernelDef receives it.
struct KernelDefProto {
  std::string op;
  std::string device_type;
  std::vector<std::pair<std::string, AttrValue>> constraints;  // attr name, allowed values
  std::vector<std::string> host_memory_args;
  std::string label;
  int32_t priority = 0;
};
bool ParseKernelDef(const std::string& bytes, KernelDefProto* out, std::string* error);

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
