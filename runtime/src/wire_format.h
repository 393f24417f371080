// The protobuf wire format for the few messages the runtime exchanges, written by hand
// because no C++ protobuf runtime installs from the package index. Field numbers are
// TensorFlow's; tests round-trip the bytes through the Python protobuf library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
//
// The readers take the encodings the protobuf library takes: packed and unpacked
// repeated scalars, and fields it keeps as unknown (unknown numbers, a known number with
// another wire type, groups) are skipped. Malformed bytes (truncated, a bad varint, field
// number 0, a stray or mismatched end-group tag) are refused.

// Why a reader refused bytes: they are not the message (kUnparseable), or they are but
// a value breaks a rule, such as a dim below -1 (kInvalid).
enum class ParseOutcome { kOk, kUnparseable, kInvalid };

ParseOutcome ReadAttrValue(std::string_view bytes, AttrValue* out, std::string* error);
inline bool ParseAttrValue(std::string_view bytes, AttrValue* out, std::string* error) {
  return ReadAttrValue(bytes, out, error) == ParseOutcome::kOk;
}
bool ParseOpDef(std::string_view bytes, OpDef* out, std::string* error);
bool ParseOpList(std::string_view bytes, std::vector<OpDef>* out, std::string* error);

// TensorFlow's KernelDef message, as TF_RegisterKernelBuilderWithKernelDef receives it.
struct KernelDefProto {
  std::string op;
  std::string device_type;
  std::vector<std::pair<std::string, AttrValue>> constraints;  // attr name, allowed values
  std::vector<std::string> host_memory_args;
  std::string label;
  int32_t priority = 0;
};
bool ParseKernelDef(std::string_view bytes, KernelDefProto* out, std::string* error);
// A KernelList message (what TF_GetAllRegisteredKernels returns).
std::string SerializeKernelList(const std::vector<KernelDefProto>& kernels);

}  // namespace opgen

struct TF_Tensor;

namespace opgen {

// TensorProto bytes for a dense tensor (dtype, shape, tensor_content). Types without a
// fixed element size (string, resource, variant) are not supported: returns false.
bool SerializeTensorProto(const TF_Tensor* tensor, std::string* out);

// A new tensor from TensorProto bytes, accepting tensor_content or the typed value
// fields (a short list repeats its last value, as TensorFlow does). nullptr with
// `error` set for malformed bytes or unsupported dtypes; the caller owns the result.
TF_Tensor* ParseTensorProto(std::string_view bytes, std::string* error);

// Whether `bytes` are exactly what SerializeTensorProto writes for `tensor` (dtype, shape,
// tensor_content, nothing else), so that the bytes can be dropped and written again.
bool IsCanonicalTensorProto(std::string_view bytes, const TF_Tensor* tensor);

// The dtype and dims of TensorProto bytes, checked as a tensor's (a TF_DataType, a
// known rank, dims >= 0, an element count in int64), whatever the dtype and however the
// values are given: what graph building checks of every tensor attr.
bool ParseTensorProtoHeader(std::string_view bytes, TF_DataType* dtype,
                            std::vector<int64_t>* dims, std::string* error);

// The dtype and dims of TensorProto bytes, checked as ParseTensorProto checks them, but
// without making the tensor (a few bytes of typed values can describe gigabytes).
bool ParseTensorProtoShape(std::string_view bytes, TF_DataType* dtype,
                           std::vector<int64_t>* dims, std::string* error);

}  // namespace opgen

namespace opgen {

// TensorFlow's NodeDef and GraphDef messages, as TF_GraphToGraphDef writes them and
// TF_GraphImportGraphDef reads them. Inputs are "node", "node:2" or "^node" (control).
struct NodeDefProto {
  std::string name;
  std::string op;
  std::vector<std::string> input;
  std::string device;
  AttrMap attr;
};

struct GraphDefProto {
  std::vector<NodeDefProto> node;
  // VersionDef (field 4): kept so a written graph says which producer made it.
  int32_t producer = 0;
  int32_t min_consumer = 0;
  std::vector<int32_t> bad_consumers;
  // FunctionDefLibrary (field 2) as bytes: function_library.h reads and writes it.
  std::string library;
};

std::string SerializeNodeDef(const NodeDefProto& node);
std::string SerializeGraphDef(const GraphDefProto& graph);
bool ParseNodeDef(std::string_view bytes, NodeDefProto* out, std::string* error);
bool ParseGraphDef(std::string_view bytes, GraphDefProto* out, std::string* error);

}  // namespace opgen
