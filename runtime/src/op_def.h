// In-memory model of TensorFlow's OpDef, AttrValue and TensorShape, shared by the op
// registry (which builds it from spec strings), the wire format (which writes it as
// protobuf bytes) and the executors (which read attr defaults and type constraints).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensorflow/c/tf_datatype.h"

struct TF_Tensor;

namespace opgen {

// A shape as TensorShapeProto models it: unknown rank, or dims where -1 is unknown.
struct Shape {
  bool unknown_rank = true;
  std::vector<int64_t> dims;
};

// A tensor attr's value: its TensorProto bytes, the tensor they describe, or both (each
// made from the other once, when first asked for). Copies share it, so copying a graph's
// nodes (the optimizer's working copy, its result, TF_GraphToGraphDef) copies no
// weights, and a Const's value is parsed once for the optimizer and every kernel made
// from it (tensor_attr.cc). Immutable once made; safe to read from several threads.
class TensorAttr {
 public:
  TensorAttr() = default;
  TensorAttr(std::string bytes);  // NOLINT(runtime/explicit): read or set as bytes
  // The value of TensorProto `bytes` as read from a message: a large dense one (a
  // model's weights) parsed at once and kept as the tensor only, when writing the tensor
  // gives the same bytes back (so they are copied once, into the tensor); else the bytes.
  static TensorAttr Read(std::string_view bytes);
  // A value of `tensor`'s dtype and shape sharing its buffer (which nobody may write
  // afterwards). False for dtypes a TensorProto cannot hold by value (resource, variant).
  static bool FromTensor(const TF_Tensor& tensor, TensorAttr* out);

  // The serialized TensorProto (written from the tensor on first use).
  const std::string& bytes() const;
  operator std::string_view() const { return bytes(); }  // NOLINT: as the parsers take it
  // The value, shared and read-only, owned by the attr (every copy of it); nullptr with
  // `*error` set when the bytes do not describe a tensor.
  const TF_Tensor* tensor(std::string* error) const;
  // The dtype and dims: the tensor's when there is one (no bytes are written), else read
  // from the bytes with ParseTensorProtoShape's checks (`full`) or
  // ParseTensorProtoHeader's.
  bool Header(TF_DataType* dtype, std::vector<int64_t>* dims, std::string* error,
              bool full) const;
  // A new tensor with the value that the caller owns and may write.
  TF_Tensor* NewCopy(std::string* error) const;
  // How many times any TensorAttr parsed bytes or wrote them (for the tests: a graph's
  // copies and a Const's kernels reuse one parse).
  static int64_t Conversions();

 private:
  struct Rep;
  std::shared_ptr<Rep> rep_;
};

// One value of an attr. `kind` says which member is meaningful; list kinds use the
// vectors. Mirrors the oneof of AttrValue (list, s, i, f, b, type, shape, tensor, func).
struct AttrValue {
  enum Kind {
    kNone, kString, kInt, kFloat, kBool, kType, kShape, kTensor, kFunc, kPlaceholder,
    kListString, kListInt, kListFloat, kListBool, kListType, kListShape, kListTensor,
    kListFunc,
  };
  Kind kind = kNone;
  std::string s;             // kString; kFunc/kPlaceholder: the name
  int64_t i = 0;             // kInt
  float f = 0;               // kFloat
  bool b = false;            // kBool
  TF_DataType type = TF_FLOAT;  // kType
  Shape shape;               // kShape
  TensorAttr tensor_proto;   // kTensor: TensorProto bytes and/or the parsed tensor
  std::vector<std::string> list_s;   // kListString, kListFunc (names), kListTensor (bytes)
  std::vector<int64_t> list_i;
  std::vector<float> list_f;
  std::vector<bool> list_b;
  std::vector<TF_DataType> list_type;
  std::vector<Shape> list_shape;
  // kFunc: NameAttrList.attr, the called function's attr values (null when it has none).
  std::shared_ptr<const std::map<std::string, AttrValue>> func_attr;
  // kListFunc: each function's NameAttrList.attr, by index into list_s (null, or missing
  // at the end, when a function has none).
  std::vector<std::shared_ptr<const std::map<std::string, AttrValue>>> list_func_attr;

  bool IsList() const { return kind >= kListString; }
  // Number of elements of a list value (0 for scalars).
  size_t ListSize() const {
    switch (kind) {
      case kListString: case kListTensor: case kListFunc: return list_s.size();
      case kListInt: return list_i.size();
      case kListFloat: return list_f.size();
      case kListBool: return list_b.size();
      case kListType: return list_type.size();
      case kListShape: return list_shape.size();
      default: return 0;
    }
  }
};

struct ArgDef {
  std::string name;
  std::string description;
  TF_DataType type = static_cast<TF_DataType>(0);  // DT_INVALID unless a fixed type
  std::string type_attr;       // "T" in "x: T"
  std::string number_attr;     // "N" in "x: N * T"
  std::string type_list_attr;  // "T" in "x: T" where T is list(type)
  bool is_ref = false;
};

struct AttrDef {
  std::string name;
  std::string type;  // "type", "list(type)", "int", "float", "bool", "string", "shape", ...
  bool has_default = false;
  AttrValue default_value;
  std::string description;
  bool has_minimum = false;
  int64_t minimum = 0;
  bool has_allowed_values = false;
  AttrValue allowed_values;  // a list kind: kListType or kListString
};

struct OpDeprecation {
  int32_t version = 0;
  std::string explanation;
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> input_arg;
  std::vector<ArgDef> output_arg;
  std::vector<std::string> control_output;
  std::vector<AttrDef> attr;
  bool has_deprecation = false;
  OpDeprecation deprecation;
  std::string summary;
  std::string description;
  bool is_commutative = false;
  bool is_aggregate = false;
  bool is_stateful = false;
  bool allows_uninitialized_input = false;
  bool is_distributed_communication = false;

  const AttrDef* FindAttr(const std::string& attr_name) const {
    for (const auto& a : attr) if (a.name == attr_name) return &a;
    return nullptr;
  }
};

// Named attr values of one node or eager op, ordered for stable output.
using AttrMap = std::map<std::string, AttrValue>;

}  // namespace opgen
