// The protobuf wire format of the messages the runtime exchanges. Writer: varints,
// length-delimited fields, and OpList / OpDef / AttrValue / TensorShapeProto /
// TensorProto in field-number order, as the protobuf library writes them. Reader: the
// same messages plus KernelDef, bounds-checked, skipping unknown fields.
#include "wire_format.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "shape_check.h"

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

std::string SerializeKernelList(const std::vector<KernelDefProto>& kernels) {
  Writer list;
  for (const KernelDefProto& k : kernels) {
    Writer w;
    w.OptionalString(1, k.op);
    w.OptionalString(2, k.device_type);
    for (const auto& [attr, allowed] : k.constraints) {
      Writer c;
      c.OptionalString(1, attr);
      c.Bytes(2, SerializeAttrValue(allowed));
      w.Bytes(3, c.str());
    }
    for (const std::string& arg : k.host_memory_args) w.Bytes(4, arg);
    w.OptionalString(5, k.label);
    w.OptionalVarint(6, static_cast<uint64_t>(static_cast<int64_t>(k.priority)));
    list.Bytes(1, w.str());
  }
  return list.str();
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

// A DataType enum value as TF_DataType. Values past the last TF_DataType (unknown
// types, and reference types, 100 + the type) do not fit the C++ enum, so storing one
// would be undefined behaviour: readers refuse them.
bool ToDataType(uint64_t value, TF_DataType* out) {
  if (value > static_cast<uint64_t>(TF_UINT2)) return false;
  *out = static_cast<TF_DataType>(value);
  return true;
}

// Appends the values of one repeated scalar field, packed or not. The wire type must be
// the element's own (varint for integers, fixed32 / fixed64 for float / double) or
// length-delimited (packed).
template <typename T>
bool ReadRepeated(Reader* r, int wire_type, std::vector<T>* out) {
  constexpr int element_wire =
      std::is_floating_point_v<T> ? (sizeof(T) == 4 ? kFixed32 : kFixed64) : kVarint;
  auto read_one = [](Reader* rd, T* v) {
    if constexpr (element_wire == kVarint) {
      uint64_t x;
      if (!rd->Varint(&x)) return false;
      *v = static_cast<T>(static_cast<int64_t>(x));
      return true;
    } else {
      return rd->Fixed(v, sizeof(T));
    }
  };
  if (wire_type == kLengthDelimited) {
    std::string packed;
    if (!r->Bytes(&packed)) return false;
    Reader inner(packed.data(), packed.size());
    while (!inner.done()) {
      T v;
      if (!read_one(&inner, &v)) return false;
      out->push_back(v);
    }
    return true;
  }
  if (wire_type != element_wire) return false;
  T v;
  if (!read_one(r, &v)) return false;
  out->push_back(v);
  return true;
}

// A TensorProto's TensorShapeProto, as read (CheckTensorShape judges it).
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

// ---- OpList / OpDef / AttrValue / TensorShapeProto: reader ----------------------------

// Calls `on_field(field, wire_type, reader)` for each field of a message; the callback
// consumes the value (or returns false for a malformed one). Unknown fields are skipped
// by callbacks returning `r->Skip(wire)`.
template <typename OnField>
bool ForEachField(const std::string& bytes, OnField on_field) {
  Reader r(bytes.data(), bytes.size());
  while (!r.done()) {
    uint64_t tag;
    if (!r.Varint(&tag)) return false;
    const int field = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    if (field == 0 || !on_field(field, wire, &r)) return false;
  }
  return true;
}

bool ReadString(Reader* r, int wire, std::string* out) {
  return wire == kLengthDelimited && r->Bytes(out);
}
bool ReadVarint(Reader* r, int wire, uint64_t* out) { return wire == kVarint && r->Varint(out); }
bool ReadBool(Reader* r, int wire, bool* out) {
  uint64_t v;
  if (!ReadVarint(r, wire, &v)) return false;
  *out = v != 0;
  return true;
}
bool ReadInt64(Reader* r, int wire, int64_t* out) {
  uint64_t v;
  if (!ReadVarint(r, wire, &v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

// A TensorShapeProto of an attr value: well-formed bytes and a valid partial shape
// (dims >= -1, ...); `*reason` says what is wrong with a shape that parses but is not.
bool ParseShape(const std::string& bytes, Shape* shape, std::string* reason) {
  shape->unknown_rank = false;
  shape->dims.clear();
  bool ok = ForEachField(bytes, [shape](int field, int wire, Reader* r) {
    if (field == 3) return ReadBool(r, wire, &shape->unknown_rank);
    if (field != 2) return r->Skip(wire);
    std::string dim;
    if (!ReadString(r, wire, &dim)) return false;
    int64_t size = 0;
    bool ok = ForEachField(dim, [&size](int f, int w, Reader* d) {
      return f == 1 ? ReadInt64(d, w, &size) : d->Skip(w);  // the dim's name is not kept
    });
    shape->dims.push_back(size);
    return ok;
  });
  return ok && CheckPartialShape(*shape, reason);
}

// NameAttrList: only the function name is kept (opgen has no function attrs yet).
bool ParseFuncName(const std::string& bytes, std::string* name) {
  return ForEachField(bytes, [name](int field, int wire, Reader* r) {
    return field == 1 ? ReadString(r, wire, name) : r->Skip(wire);
  });
}

bool ParseListValue(const std::string& bytes, AttrValue* v, std::string* reason) {
  v->kind = AttrValue::kListString;  // an empty list; refined by the first element
  bool seen = false;
  auto claim = [&](AttrValue::Kind kind) {
    if (seen && v->kind != kind) return false;  // one element kind per list
    seen = true;
    v->kind = kind;
    return true;
  };
  return ForEachField(bytes, [&](int field, int wire, Reader* r) {
    switch (field) {
      case 2: case 8: {  // strings; serialized TensorProtos
        std::string bytes_value;
        if (!claim(field == 2 ? AttrValue::kListString : AttrValue::kListTensor) ||
            !ReadString(r, wire, &bytes_value))
          return false;
        v->list_s.push_back(std::move(bytes_value));
        return true;
      }
      case 3: return claim(AttrValue::kListInt) && ReadRepeated(r, wire, &v->list_i);
      case 4: return claim(AttrValue::kListFloat) && ReadRepeated(r, wire, &v->list_f);
      case 5: {
        std::vector<uint64_t> bs;
        if (!claim(AttrValue::kListBool) || !ReadRepeated(r, wire, &bs)) return false;
        for (uint64_t b : bs) v->list_b.push_back(b != 0);
        return true;
      }
      case 6: {
        std::vector<int64_t> ts;
        if (!claim(AttrValue::kListType) || !ReadRepeated(r, wire, &ts)) return false;
        for (int64_t t : ts) {
          TF_DataType type;
          if (!ToDataType(static_cast<uint64_t>(t), &type)) return false;
          v->list_type.push_back(type);
        }
        return true;
      }
      case 7: {
        std::string bytes7;
        Shape shape;
        if (!claim(AttrValue::kListShape) || !ReadString(r, wire, &bytes7) ||
            !ParseShape(bytes7, &shape, reason))
          return false;
        v->list_shape.push_back(shape);
        return true;
      }
      case 9: {
        std::string bytes9, name;
        if (!claim(AttrValue::kListFunc) || !ReadString(r, wire, &bytes9) ||
            !ParseFuncName(bytes9, &name))
          return false;
        v->list_s.push_back(name);
        return true;
      }
      default: return r->Skip(wire);
    }
  });
}

// The list kind an attr type names ("list(int)" -> kListInt), for empty lists.
AttrValue::Kind ListKindOf(const std::string& type) {
  static const std::pair<const char*, AttrValue::Kind> kKinds[] = {
      {"list(string)", AttrValue::kListString}, {"list(int)", AttrValue::kListInt},
      {"list(float)", AttrValue::kListFloat},   {"list(bool)", AttrValue::kListBool},
      {"list(type)", AttrValue::kListType},     {"list(shape)", AttrValue::kListShape},
      {"list(tensor)", AttrValue::kListTensor}, {"list(func)", AttrValue::kListFunc}};
  for (const auto& k : kKinds)
    if (type == k.first) return k.second;
  return AttrValue::kNone;
}

bool ParseArgDef(const std::string& bytes, ArgDef* arg) {
  return ForEachField(bytes, [arg](int field, int wire, Reader* r) {
    uint64_t v;
    switch (field) {
      case 1: return ReadString(r, wire, &arg->name);
      case 2: return ReadString(r, wire, &arg->description);
      case 3:
        return ReadVarint(r, wire, &v) && ToDataType(v, &arg->type);
      case 4: return ReadString(r, wire, &arg->type_attr);
      case 5: return ReadString(r, wire, &arg->number_attr);
      case 6: return ReadString(r, wire, &arg->type_list_attr);
      case 16: return ReadBool(r, wire, &arg->is_ref);
      default: return r->Skip(wire);  // handle_data, experimental_full_type: not modelled
    }
  });
}

bool ParseAttrDef(const std::string& bytes, AttrDef* attr) {
  bool ok = ForEachField(bytes, [attr](int field, int wire, Reader* r) {
    std::string value;
    switch (field) {
      case 1: return ReadString(r, wire, &attr->name);
      case 2: return ReadString(r, wire, &attr->type);
      case 3:
        attr->has_default = true;
        return ReadString(r, wire, &value) && ParseAttrValue(value, &attr->default_value, nullptr);
      case 4: return ReadString(r, wire, &attr->description);
      case 5: return ReadBool(r, wire, &attr->has_minimum);
      case 6: return ReadInt64(r, wire, &attr->minimum);
      case 7:
        attr->has_allowed_values = true;
        return ReadString(r, wire, &value) && ParseAttrValue(value, &attr->allowed_values, nullptr);
      default: return r->Skip(wire);
    }
  });
  // An empty default list carries no element kind on the wire; the attr type gives it.
  if (ok && attr->has_default && attr->default_value.IsList() &&
      attr->default_value.ListSize() == 0 && ListKindOf(attr->type) != AttrValue::kNone)
    attr->default_value.kind = ListKindOf(attr->type);
  return ok;
}

// Fills `count` elements of `dst` from `values`, repeating the last one (zeros if none).
// The repeat is one std::fill: a splat constant of a few bytes may describe gigabytes.
template <typename Dst, typename Src>
void FillFrom(const std::vector<Src>& values, Dst* dst, int64_t count) {
  const int64_t given = std::min<int64_t>(count, static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < given; ++i) dst[i] = static_cast<Dst>(values[i]);
  std::fill(dst + given, dst + count, given > 0 ? static_cast<Dst>(values[given - 1]) : Dst());
}

}  // namespace

bool ParseAttrValue(const std::string& bytes, AttrValue* out, std::string* error) {
  *out = AttrValue();
  std::string reason;  // what is wrong with a value that parses but is not valid
  bool ok = ForEachField(bytes, [out, &reason](int field, int wire, Reader* r) {
    std::string b;
    uint64_t v;
    switch (field) {
      case 1: return ReadString(r, wire, &b) && ParseListValue(b, out, &reason);
      case 2: out->kind = AttrValue::kString; return ReadString(r, wire, &out->s);
      case 3: out->kind = AttrValue::kInt; return ReadInt64(r, wire, &out->i);
      case 4: out->kind = AttrValue::kFloat; return wire == kFixed32 && r->Fixed(&out->f, 4);
      case 5: out->kind = AttrValue::kBool; return ReadBool(r, wire, &out->b);
      case 6:
        out->kind = AttrValue::kType;
        return ReadVarint(r, wire, &v) && ToDataType(v, &out->type);
      case 7:
        out->kind = AttrValue::kShape;
        return ReadString(r, wire, &b) && ParseShape(b, &out->shape, &reason);
      case 8: out->kind = AttrValue::kTensor; return ReadString(r, wire, &out->tensor_proto);
      case 9: out->kind = AttrValue::kPlaceholder; return ReadString(r, wire, &out->s);
      case 10: out->kind = AttrValue::kFunc; return ReadString(r, wire, &b) && ParseFuncName(b, &out->s);
      default: return r->Skip(wire);
    }
  });
  if (!ok && error != nullptr) *error = reason.empty() ? "malformed AttrValue" : reason;
  return ok;
}

bool ParseOpDef(const std::string& bytes, OpDef* out, std::string* error) {
  *out = OpDef();
  std::string failed;  // which part did not parse, for the message
  bool ok = ForEachField(bytes, [out, &failed](int field, int wire, Reader* r) {
    std::string b;
    bool good = true;
    switch (field) {
      case 1: good = ReadString(r, wire, &out->name); break;
      case 2: case 3: {
        ArgDef arg;
        good = ReadString(r, wire, &b) && ParseArgDef(b, &arg);
        (field == 2 ? out->input_arg : out->output_arg).push_back(std::move(arg));
        if (!good) failed = std::string(field == 2 ? "input_arg" : "output_arg");
        return good;
      }
      case 4: {
        AttrDef attr;
        good = ReadString(r, wire, &b) && ParseAttrDef(b, &attr);
        out->attr.push_back(std::move(attr));
        if (!good) failed = "attr";
        return good;
      }
      case 5: good = ReadString(r, wire, &out->summary); break;
      case 6: good = ReadString(r, wire, &out->description); break;
      case 8:
        out->has_deprecation = true;
        good = ReadString(r, wire, &b) &&
               ForEachField(b, [out](int f, int w, Reader* d) {
                 int64_t version;
                 if (f == 2) return ReadString(d, w, &out->deprecation.explanation);
                 if (f != 1) return d->Skip(w);
                 if (!ReadInt64(d, w, &version)) return false;
                 out->deprecation.version = static_cast<int32_t>(version);
                 return true;
               });
        break;
      case 16: good = ReadBool(r, wire, &out->is_aggregate); break;
      case 17: good = ReadBool(r, wire, &out->is_stateful); break;
      case 18: good = ReadBool(r, wire, &out->is_commutative); break;
      case 19: good = ReadBool(r, wire, &out->allows_uninitialized_input); break;
      case 20: good = ReadString(r, wire, &b); out->control_output.push_back(b); break;
      case 21: good = ReadBool(r, wire, &out->is_distributed_communication); break;
      default: return r->Skip(wire);
    }
    if (!good) failed = "field " + std::to_string(field);
    return good;
  });
  if (!ok && error != nullptr)
    *error = "malformed OpDef '" + out->name + "'" + (failed.empty() ? "" : " (" + failed + ")");
  return ok;
}

bool ParseOpList(const std::string& bytes, std::vector<OpDef>* out, std::string* error) {
  out->clear();
  std::string op_error;
  bool ok = ForEachField(bytes, [out, &op_error](int field, int wire, Reader* r) {
    if (field != 1) return r->Skip(wire);
    std::string b;
    out->emplace_back();
    return ReadString(r, wire, &b) && ParseOpDef(b, &out->back(), &op_error);
  });
  if (!ok && error != nullptr)
    *error = op_error.empty() ? "malformed OpList (op " + std::to_string(out->size()) + ")" : op_error;
  return ok;
}

bool ParseKernelDef(const std::string& bytes, KernelDefProto* out, std::string* error) {
  *out = KernelDefProto();
  bool ok = ForEachField(bytes, [out](int field, int wire, Reader* r) {
    std::string b;
    int64_t priority;
    switch (field) {
      case 1: return ReadString(r, wire, &out->op);
      case 2: return ReadString(r, wire, &out->device_type);
      case 3: {
        std::pair<std::string, AttrValue> constraint;
        if (!ReadString(r, wire, &b)) return false;
        bool good = ForEachField(b, [&constraint](int f, int w, Reader* c) {
          std::string value;
          if (f == 1) return ReadString(c, w, &constraint.first);
          if (f != 2) return c->Skip(w);
          return ReadString(c, w, &value) && ParseAttrValue(value, &constraint.second, nullptr);
        });
        out->constraints.push_back(std::move(constraint));
        return good;
      }
      case 4:
        if (!ReadString(r, wire, &b)) return false;
        out->host_memory_args.push_back(b);
        return true;
      case 5: return ReadString(r, wire, &out->label);
      case 6:
        if (!ReadInt64(r, wire, &priority)) return false;
        out->priority = static_cast<int32_t>(priority);
        return true;
      default: return r->Skip(wire);
    }
  });
  if (!ok && error != nullptr) *error = "malformed KernelDef";
  return ok;
}

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

namespace {

// What a TensorProto holds, as read (not yet checked against its dtype and shape).
struct TensorProtoFields {
  uint64_t dtype = 0;
  std::vector<int64_t> dims;
  std::string content;
  bool has_content = false;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<int64_t> ints;  // int_val, int64_val, bool_val, half_val bits
};

// Whether typed values (rather than tensor_content) can fill a tensor of `type`.
bool HasTypedValues(TF_DataType type) {
  switch (type) {
    case TF_FLOAT: case TF_DOUBLE: case TF_INT32: case TF_INT64: case TF_BOOL: case TF_UINT8:
    case TF_INT8: case TF_INT16: case TF_UINT16: case TF_HALF: case TF_BFLOAT16: case TF_UINT32:
    case TF_UINT64:
      return true;
    default:
      return false;
  }
}

// Reads the dtype and shape, and the values unless `header_only`, and checks the
// header: a TF_DataType dtype and a valid tensor shape.
bool ReadTensorProtoFields(const std::string& bytes, bool header_only, TensorProtoFields* f,
                           TF_DataType* type, std::string* error) {
  Reader r(bytes.data(), bytes.size());
  while (!r.done()) {
    uint64_t tag;
    if (!r.Varint(&tag)) { *error = "truncated TensorProto"; return false; }
    const int field = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    bool ok = true;
    std::string shape;
    if (header_only && field != 1 && field != 2) {
      ok = r.Skip(wire);
    } else {
      switch (field) {
        case 1: ok = wire == kVarint && r.Varint(&f->dtype); break;
        case 2:
          ok = wire == kLengthDelimited && r.Bytes(&shape) &&
               ParseShapeProto(shape, &f->dims);
          break;
        case 4: ok = wire == kLengthDelimited && r.Bytes(&f->content); f->has_content = true; break;
        case 5: ok = ReadRepeated(&r, wire, &f->floats); break;
        case 6: ok = ReadRepeated(&r, wire, &f->doubles); break;
        // int_val, int64_val, bool_val, half_val, uint32_val, uint64_val (the unsigned
        // ones keep their bits through int64_t)
        case 7: case 10: case 11: case 13: case 16: case 17: ok = ReadRepeated(&r, wire, &f->ints); break;
        default: ok = r.Skip(wire); break;
      }
    }
    if (!ok) { *error = "malformed TensorProto (field " + std::to_string(field) + ")"; return false; }
  }
  if (!ToDataType(f->dtype, type)) {
    *error = "TensorProto has an unknown dtype " + std::to_string(f->dtype);
    return false;
  }
  return CheckTensorShape("TensorProto shape", f->dims, error);
}

// Reads the fields and checks them: a known fixed-size dtype, a valid shape whose byte
// size (`*len`) fits in size_t, content of that size or typed values the dtype can take.
// Makes nothing: a TensorProto of a few bytes can describe a splat of gigabytes.
bool ReadTensorProto(const std::string& bytes, TensorProtoFields* f, TF_DataType* type,
                     size_t* len, std::string* error) {
  if (!ReadTensorProtoFields(bytes, /*header_only=*/false, f, type, error)) return false;
  const size_t element = TF_DataTypeSize(*type);
  if (element == 0) {
    *error = std::string("TensorProto of dtype ") + DataTypeName(*type) + " is not supported";
    return false;
  }
  if (!ByteSize(element, NumElements(f->dims), len)) {
    *error = "TensorProto shape " + ShapeToString(f->dims) + " has too many elements of " +
             DataTypeName(*type) + " (the byte size overflows)";
    return false;
  }
  if (f->has_content && f->content.size() != *len) {
    *error = "TensorProto content has " + std::to_string(f->content.size()) + " bytes, shape " +
             ShapeToString(f->dims) + " needs " + std::to_string(*len);
    return false;
  }
  if (!f->has_content && !HasTypedValues(*type)) {
    *error = std::string("typed values of dtype ") + DataTypeName(*type) + " are not supported";
    return false;
  }
  return true;
}

}  // namespace

bool ParseTensorProtoHeader(const std::string& bytes, TF_DataType* dtype,
                            std::vector<int64_t>* dims, std::string* error) {
  TensorProtoFields f;
  if (!ReadTensorProtoFields(bytes, /*header_only=*/true, &f, dtype, error)) return false;
  *dims = std::move(f.dims);
  return true;
}

bool ParseTensorProtoShape(const std::string& bytes, TF_DataType* dtype,
                           std::vector<int64_t>* dims, std::string* error) {
  TensorProtoFields f;
  size_t len;
  if (!ReadTensorProto(bytes, &f, dtype, &len, error)) return false;
  *dims = std::move(f.dims);
  return true;
}

TF_Tensor* ParseTensorProto(const std::string& bytes, std::string* error) {
  TensorProtoFields f;
  TF_DataType type;
  size_t len;
  if (!ReadTensorProto(bytes, &f, &type, &len, error)) return nullptr;
  TF_Tensor* t = TF_AllocateTensor(type, f.dims.data(), static_cast<int>(f.dims.size()), len);
  if (t == nullptr) { *error = "cannot allocate the tensor"; return nullptr; }
  void* data = t->buffer->data();
  if (f.has_content) {
    std::memcpy(data, f.content.data(), len);
    return t;
  }
  const int64_t n = NumElements(f.dims);
  switch (type) {
    case TF_FLOAT: FillFrom(f.floats, static_cast<float*>(data), n); break;
    case TF_DOUBLE: FillFrom(f.doubles, static_cast<double*>(data), n); break;
    case TF_INT32: FillFrom(f.ints, static_cast<int32_t*>(data), n); break;
    case TF_INT64: FillFrom(f.ints, static_cast<int64_t*>(data), n); break;
    case TF_BOOL: FillFrom(f.ints, static_cast<bool*>(data), n); break;
    case TF_UINT8: FillFrom(f.ints, static_cast<uint8_t*>(data), n); break;
    case TF_INT8: FillFrom(f.ints, static_cast<int8_t*>(data), n); break;
    case TF_INT16: FillFrom(f.ints, static_cast<int16_t*>(data), n); break;
    case TF_UINT16: case TF_HALF: case TF_BFLOAT16: FillFrom(f.ints, static_cast<uint16_t*>(data), n); break;
    case TF_UINT32: FillFrom(f.ints, static_cast<uint32_t*>(data), n); break;
    default: FillFrom(f.ints, static_cast<uint64_t*>(data), n); break;  // TF_UINT64
  }
  return t;
}

}  // namespace opgen

// ---- NodeDef / GraphDef: writer and reader -------------------------------------------

namespace opgen {

std::string SerializeNodeDef(const NodeDefProto& node) {
  Writer w;
  w.OptionalString(1, node.name);
  w.OptionalString(2, node.op);
  for (const std::string& input : node.input) w.Bytes(3, input);
  w.OptionalString(4, node.device);
  // map<string, AttrValue>: one entry message (key = 1, value = 2) per attr, in key order
  // so that the bytes are stable.
  for (const auto& [name, value] : node.attr) {
    Writer entry;
    entry.Bytes(1, name);
    entry.Bytes(2, SerializeAttrValue(value));
    w.Bytes(5, entry.str());
  }
  return w.str();
}

std::string SerializeGraphDef(const GraphDefProto& graph) {
  Writer w;
  for (const NodeDefProto& node : graph.node) w.Bytes(1, SerializeNodeDef(node));
  if (!graph.library.empty()) w.Bytes(2, graph.library);
  Writer versions;
  versions.OptionalVarint(1, static_cast<uint64_t>(static_cast<int64_t>(graph.producer)));
  versions.OptionalVarint(2, static_cast<uint64_t>(static_cast<int64_t>(graph.min_consumer)));
  if (!graph.bad_consumers.empty()) {
    Writer packed;
    for (int32_t c : graph.bad_consumers) packed.Varint(static_cast<uint64_t>(static_cast<int64_t>(c)));
    versions.Bytes(3, packed.str());
  }
  // VersionDef is a message field: written (possibly empty) so readers see it is set.
  w.Bytes(4, versions.str());
  return w.str();
}

bool ParseNodeDef(const std::string& bytes, NodeDefProto* out, std::string* error) {
  *out = NodeDefProto();
  std::string failed;
  bool invalid = false;  // well-formed bytes, but a value that breaks a rule
  bool ok = ForEachField(bytes, [out, &failed, &invalid](int field, int wire, Reader* r) {
    std::string b;
    switch (field) {
      case 1: return ReadString(r, wire, &out->name);
      case 2: return ReadString(r, wire, &out->op);
      case 3:
        if (!ReadString(r, wire, &b)) return false;
        out->input.push_back(std::move(b));
        return true;
      case 4: return ReadString(r, wire, &out->device);
      case 5: {
        std::string key, value_bytes, attr_error;
        AttrValue value;
        bool good = ReadString(r, wire, &b) &&
                    ForEachField(b, [&](int f, int w, Reader* e) {
                      if (f == 1) return ReadString(e, w, &key);
                      if (f == 2) return ReadString(e, w, &value_bytes);
                      return e->Skip(w);
                    }) &&
                    ParseAttrValue(value_bytes, &value, &attr_error);
        if (!good) {
          failed = key.empty() ? "an attr" : "attr '" + key + "'";
          invalid = !attr_error.empty() && attr_error != "malformed AttrValue";
          if (invalid) failed += ": " + attr_error;
          return false;
        }
        out->attr[key] = std::move(value);  // a repeated key keeps the last, as protobuf does
        return true;
      }
      default: return r->Skip(wire);
    }
  });
  if (!ok && error != nullptr)
    *error = std::string(invalid ? "invalid NodeDef" : "malformed NodeDef") +
             (out->name.empty() ? std::string() : " '" + out->name + "'") +
             (failed.empty() ? "" : " (" + failed + ")");
  return ok;
}

bool ParseGraphDef(const std::string& bytes, GraphDefProto* out, std::string* error) {
  *out = GraphDefProto();
  std::string node_error;
  bool ok = ForEachField(bytes, [out, &node_error](int field, int wire, Reader* r) {
    std::string b;
    switch (field) {
      case 1:
        out->node.emplace_back();
        return ReadString(r, wire, &b) && ParseNodeDef(b, &out->node.back(), &node_error);
      case 2: {
        // Several occurrences of a message field merge; for opaque bytes, concatenating
        // the encodings is that merge.
        if (!ReadString(r, wire, &b)) return false;
        out->library += b;
        return true;
      }
      case 4:
        return ReadString(r, wire, &b) && ForEachField(b, [out](int f, int w, Reader* v) {
                 int64_t x;
                 switch (f) {
                   case 1:
                     if (!ReadInt64(v, w, &x)) return false;
                     out->producer = static_cast<int32_t>(x);
                     return true;
                   case 2:
                     if (!ReadInt64(v, w, &x)) return false;
                     out->min_consumer = static_cast<int32_t>(x);
                     return true;
                   case 3: return ReadRepeated(v, w, &out->bad_consumers);
                   default: return v->Skip(w);
                 }
               });
      default: return r->Skip(wire);
    }
  });
  if (!ok && error != nullptr) {
    *error = !node_error.empty()
                 ? node_error + " (node " + std::to_string(out->node.size() - 1) + ")"
                 : "malformed GraphDef (truncated or corrupt after " +
                       std::to_string(out->node.size()) + " nodes)";
  }
  return ok;
}

}  // namespace opgen
