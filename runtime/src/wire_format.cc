// Writer side of the protobuf wire format: varints, length-delimited fields, and the
// OpList / OpDef / AttrValue / TensorShapeProto messages in field-number order.
#include "wire_format.h"

#include <cstring>

namespace opgen {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class Writer {
 public:
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void Tag(int field, WireType type) { Varint((static_cast<uint64_t>(field) << 3) | type); }
  void VarintField(int field, uint64_t v) { Tag(field, kVarint); Varint(v); }
  // proto3 scalar fields are omitted when they hold the default value.
  void OptionalVarint(int field, uint64_t v) { if (v != 0) VarintField(field, v); }
  void OptionalBool(int field, bool v) { if (v) VarintField(field, 1); }
  void Bytes(int field, const std::string& bytes) {
    Tag(field, kLengthDelimited);
    Varint(bytes.size());
    out_ += bytes;
  }
  void OptionalString(int field, const std::string& s) { if (!s.empty()) Bytes(field, s); }
  void Fixed32Field(int field, float f) {
    Tag(field, kFixed32);
    Fixed32Raw(f);
  }
  void Fixed32Raw(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

std::string SerializeShape(const Shape& shape) {
  Writer w;
  if (!shape.unknown_rank) {
    for (int64_t d : shape.dims) {
      Writer dim;
      dim.OptionalVarint(1, static_cast<uint64_t>(d));
      w.Bytes(2, dim.str());
    }
  }
  w.OptionalBool(3, shape.unknown_rank);
  return w.str();
}

std::string SerializeNameAttrList(const std::string& name) {
  Writer w;
  w.OptionalString(1, name);
  return w.str();
}

std::string SerializeListValue(const AttrValue& v) {
  Writer w;
  auto packed = [&w](int field, const std::vector<uint64_t>& values) {
    if (values.empty()) return;
    Writer p;
    for (uint64_t x : values) p.Varint(x);
    w.Bytes(field, p.str());
  };
  switch (v.kind) {
    case AttrValue::kListString:
      for (const std::string& s : v.list_s) w.Bytes(2, s);
      break;
    case AttrValue::kListInt: {
      std::vector<uint64_t> xs(v.list_i.begin(), v.list_i.end());
      packed(3, xs);
      break;
    }
    case AttrValue::kListFloat:
      if (!v.list_f.empty()) {
        Writer p;
        for (float f : v.list_f) p.Fixed32Raw(f);
        w.Bytes(4, p.str());
      }
      break;
    case AttrValue::kListBool: {
      std::vector<uint64_t> xs(v.list_b.begin(), v.list_b.end());
      packed(5, xs);
      break;
    }
    case AttrValue::kListType: {
      std::vector<uint64_t> xs;
      for (TF_DataType t : v.list_type) xs.push_back(static_cast<uint64_t>(t));
      packed(6, xs);
      break;
    }
    case AttrValue::kListShape:
      for (const Shape& s : v.list_shape) w.Bytes(7, SerializeShape(s));
      break;
    case AttrValue::kListTensor:
      for (const std::string& t : v.list_s) w.Bytes(8, t);
      break;
    case AttrValue::kListFunc:
      for (const std::string& f : v.list_s) w.Bytes(9, SerializeNameAttrList(f));
      break;
    default:
      break;
  }
  return w.str();
}

std::string SerializeArgDef(const ArgDef& arg) {
  Writer w;
  w.OptionalString(1, arg.name);
  w.OptionalString(2, arg.description);
  w.OptionalVarint(3, static_cast<uint64_t>(arg.type));
  w.OptionalString(4, arg.type_attr);
  w.OptionalString(5, arg.number_attr);
  w.OptionalString(6, arg.type_list_attr);
  w.OptionalBool(16, arg.is_ref);
  return w.str();
}

std::string SerializeAttrDef(const AttrDef& attr) {
  Writer w;
  w.OptionalString(1, attr.name);
  w.OptionalString(2, attr.type);
  if (attr.has_default) w.Bytes(3, SerializeAttrValue(attr.default_value));
  w.OptionalString(4, attr.description);
  w.OptionalBool(5, attr.has_minimum);
  w.OptionalVarint(6, static_cast<uint64_t>(attr.minimum));
  if (attr.has_allowed_values) w.Bytes(7, SerializeAttrValue(attr.allowed_values));
  return w.str();
}

}  // namespace

std::string SerializeAttrValue(const AttrValue& v) {
  Writer w;
  // The value is a oneof: the set member is written even when it holds its default.
  switch (v.kind) {
    case AttrValue::kNone: break;
    case AttrValue::kString: w.Bytes(2, v.s); break;
    case AttrValue::kInt: w.VarintField(3, static_cast<uint64_t>(v.i)); break;
    case AttrValue::kFloat: w.Fixed32Field(4, v.f); break;
    case AttrValue::kBool: w.VarintField(5, v.b ? 1 : 0); break;
    case AttrValue::kType: w.VarintField(6, static_cast<uint64_t>(v.type)); break;
    case AttrValue::kShape: w.Bytes(7, SerializeShape(v.shape)); break;
    case AttrValue::kTensor: w.Bytes(8, v.tensor_proto); break;
    case AttrValue::kPlaceholder: w.Bytes(9, v.s); break;
    case AttrValue::kFunc: w.Bytes(10, SerializeNameAttrList(v.s)); break;
    default: w.Bytes(1, SerializeListValue(v)); break;
  }
  return w.str();
}

std::string SerializeOpDef(const OpDef& op) {
  Writer w;
  w.OptionalString(1, op.name);
  for (const ArgDef& a : op.input_arg) w.Bytes(2, SerializeArgDef(a));
  for (const ArgDef& a : op.output_arg) w.Bytes(3, SerializeArgDef(a));
  for (const AttrDef& a : op.attr) w.Bytes(4, SerializeAttrDef(a));
  w.OptionalString(5, op.summary);
  w.OptionalString(6, op.description);
  if (op.has_deprecation) {
    Writer d;
    d.OptionalVarint(1, static_cast<uint64_t>(static_cast<int64_t>(op.deprecation.version)));
    d.OptionalString(2, op.deprecation.explanation);
    w.Bytes(8, d.str());
  }
  w.OptionalBool(16, op.is_aggregate);
  w.OptionalBool(17, op.is_stateful);
  w.OptionalBool(18, op.is_commutative);
  w.OptionalBool(19, op.allows_uninitialized_input);
  for (const std::string& c : op.control_output) w.Bytes(20, c);
  w.OptionalBool(21, op.is_distributed_communication);
  return w.str();
}

std::string SerializeOpList(const std::vector<const OpDef*>& ops) {
  Writer w;
  for (const OpDef* op : ops) w.Bytes(1, SerializeOpDef(*op));
  return w.str();
}

}  // namespace opgen
