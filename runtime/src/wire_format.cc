// Writer side of the protobuf wire format: varints, length-delimited fields, and the
// OpList / OpDef / AttrValue / TensorShapeProto messages in field-number order.
#include "wire_format.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

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

// ---- TensorProto: writer and reader --------------------------------------------------

#include "core_types.h"

namespace opgen {
namespace {

// A cursor over protobuf bytes; every read checks bounds.
class Reader {
 public:
  Reader(const char* data, size_t size) : p_(data), end_(data + size) {}
  bool done() const { return p_ >= end_; }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      uint8_t byte = static_cast<uint8_t>(*p_++);
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  }
  bool Bytes(std::string* out) {
    uint64_t n;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    out->assign(p_, n);
    p_ += n;
    return true;
  }
  bool Fixed(void* out, size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  // Skips one field of `wire_type`.
  bool Skip(int wire_type) {
    uint64_t v;
    std::string s;
    char buf[8];
    switch (wire_type) {
      case kVarint: return Varint(&v);
      case kFixed64: return Fixed(buf, 8);
      case kLengthDelimited: return Bytes(&s);
      case kFixed32: return Fixed(buf, 4);
      default: return false;
    }
  }

 private:
  const char* p_;
  const char* end_;
};

// Appends the values of one repeated scalar field, packed or not.
template <typename T>
bool ReadRepeated(Reader* r, int wire_type, std::vector<T>* out) {
  auto read_one = [](Reader* rd, int wt, T* v) {
    if (wt == kVarint) {
      uint64_t x;
      if (!rd->Varint(&x)) return false;
      *v = static_cast<T>(static_cast<int64_t>(x));
      return true;
    }
    return rd->Fixed(v, sizeof(T));
  };
  if (wire_type == kLengthDelimited) {
    std::string packed;
    if (!r->Bytes(&packed)) return false;
    Reader inner(packed.data(), packed.size());
    const int element_wire = std::is_floating_point_v<T> ? (sizeof(T) == 4 ? kFixed32 : kFixed64) : kVarint;
    while (!inner.done()) {
      T v;
      if (!read_one(&inner, element_wire, &v)) return false;
      out->push_back(v);
    }
    return true;
  }
  T v;
  if (!read_one(r, wire_type, &v)) return false;
  out->push_back(v);
  return true;
}

bool ParseShapeProto(const std::string& bytes, std::vector<int64_t>* dims) {
  Reader r(bytes.data(), bytes.size());
  while (!r.done()) {
    uint64_t tag;
    if (!r.Varint(&tag)) return false;
    if ((tag >> 3) == 2 && (tag & 7) == kLengthDelimited) {
      std::string dim;
      if (!r.Bytes(&dim)) return false;
      Reader d(dim.data(), dim.size());
      int64_t size = 0;
      while (!d.done()) {
        uint64_t dtag, v;
        if (!d.Varint(&dtag)) return false;
        if ((dtag >> 3) == 1 && (dtag & 7) == kVarint) {
          if (!d.Varint(&v)) return false;
          size = static_cast<int64_t>(v);
        } else if (!d.Skip(static_cast<int>(dtag & 7))) {
          return false;
        }
      }
      dims->push_back(size);
    } else if (!r.Skip(static_cast<int>(tag & 7))) {
      return false;
    }
  }
  return true;
}

// Fills `count` elements of `dst` from `values`, repeating the last one (zeros if none).
template <typename Dst, typename Src>
void FillFrom(const std::vector<Src>& values, Dst* dst, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (values.empty()) dst[i] = Dst();
    else dst[i] = static_cast<Dst>(values[std::min<size_t>(i, values.size() - 1)]);
  }
}

}  // namespace

bool SerializeTensorProto(const TF_Tensor* tensor, std::string* out) {
  if (TF_DataTypeSize(tensor->dtype) == 0) return false;
  Writer w;
  w.OptionalVarint(1, static_cast<uint64_t>(tensor->dtype));
  Shape shape;
  shape.unknown_rank = false;
  shape.dims = tensor->dims;
  w.Bytes(2, SerializeShape(shape));
  std::string content(static_cast<const char*>(tensor->buffer->data()), tensor->buffer->size());
  w.OptionalString(4, content);
  *out = w.str();
  return true;
}

TF_Tensor* ParseTensorProto(const std::string& bytes, std::string* error) {
  Reader r(bytes.data(), bytes.size());
  uint64_t dtype = 0;
  std::vector<int64_t> dims;
  std::string content;
  bool has_content = false;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<int64_t> ints;  // int_val, int64_val, bool_val, half_val bits
  while (!r.done()) {
    uint64_t tag;
    if (!r.Varint(&tag)) { *error = "truncated TensorProto"; return nullptr; }
    const int field = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    bool ok = true;
    std::string shape;
    switch (field) {
      case 1: ok = wire == kVarint && r.Varint(&dtype); break;
      case 2: ok = wire == kLengthDelimited && r.Bytes(&shape) && ParseShapeProto(shape, &dims); break;
      case 4: ok = wire == kLengthDelimited && r.Bytes(&content); has_content = true; break;
      case 5: ok = ReadRepeated(&r, wire, &floats); break;
      case 6: ok = ReadRepeated(&r, wire, &doubles); break;
      case 7: case 10: case 11: case 13: ok = ReadRepeated(&r, wire, &ints); break;
      default: ok = r.Skip(wire); break;
    }
    if (!ok) { *error = "malformed TensorProto (field " + std::to_string(field) + ")"; return nullptr; }
  }
  const TF_DataType type = static_cast<TF_DataType>(dtype);
  const size_t element = TF_DataTypeSize(type);
  const int64_t n = NumElements(dims);
  if (element == 0 || n < 0) {
    *error = std::string("TensorProto of dtype ") + DataTypeName(type) + " is not supported";
    return nullptr;
  }
  const size_t len = element * static_cast<size_t>(n);
  if (has_content && content.size() != len) {
    *error = "TensorProto content has " + std::to_string(content.size()) + " bytes, shape " +
             ShapeToString(dims) + " needs " + std::to_string(len);
    return nullptr;
  }
  TF_Tensor* t = TF_AllocateTensor(type, dims.data(), static_cast<int>(dims.size()), len);
  if (t == nullptr) { *error = "cannot allocate the tensor"; return nullptr; }
  void* data = t->buffer->data();
  if (has_content) {
    std::memcpy(data, content.data(), len);
    return t;
  }
  switch (type) {
    case TF_FLOAT: FillFrom(floats, static_cast<float*>(data), n); break;
    case TF_DOUBLE: FillFrom(doubles, static_cast<double*>(data), n); break;
    case TF_INT32: FillFrom(ints, static_cast<int32_t*>(data), n); break;
    case TF_INT64: FillFrom(ints, static_cast<int64_t*>(data), n); break;
    case TF_BOOL: FillFrom(ints, static_cast<bool*>(data), n); break;
    case TF_UINT8: FillFrom(ints, static_cast<uint8_t*>(data), n); break;
    case TF_INT8: FillFrom(ints, static_cast<int8_t*>(data), n); break;
    case TF_INT16: FillFrom(ints, static_cast<int16_t*>(data), n); break;
    case TF_UINT16: case TF_HALF: case TF_BFLOAT16: FillFrom(ints, static_cast<uint16_t*>(data), n); break;
    default:
      TF_DeleteTensor(t);
      *error = std::string("typed values of dtype ") + DataTypeName(type) + " are not supported";
      return nullptr;
  }
  return t;
}

}  // namespace opgen
