// The protobuf wire format of the messages the runtime exchanges. Writers (over
// wire_writer.h) of OpList / OpDef / AttrValue / TensorShapeProto /
// TensorProto in field-number order, as the protobuf library writes them. Reader: the
// same messages plus KernelDef and NodeDef / GraphDef, over wire_reader.h's cursor:
// bounds-checked, and skipping what protobuf keeps as unknown fields (unknown numbers,
// known numbers with another wire type, groups).
#include "wire_format.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "shape_check.h"
#include "shape_proto_wire.h"
#include "wire_reader.h"
#include "wire_writer.h"

namespace opgen {

using namespace wire;  // NOLINT: the cursor's vocabulary, used throughout this file

namespace {


std::string SerializeShape(const Shape& shape) {
  return WriteShapeProto(shape.unknown_rank, shape.dims);
}

std::string SerializeNameAttrList(const std::string& name,
                                  const std::map<std::string, AttrValue>* attrs = nullptr) {
  Writer w;
  w.OptionalString(1, name);
  if (attrs != nullptr) {
    for (const auto& [key, value] : *attrs) {  // map entries in key order, as protobuf does
      Writer entry;
      entry.Bytes(1, key);
      entry.Bytes(2, SerializeAttrValue(value));
      w.Bytes(2, entry.str());
    }
  }
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
      for (size_t i = 0; i < v.list_s.size(); ++i) {
        const auto* attrs = i < v.list_func_attr.size() ? v.list_func_attr[i].get() : nullptr;
        w.Bytes(9, SerializeNameAttrList(v.list_s[i], attrs));
      }
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
    case AttrValue::kTensor: w.Bytes(8, v.tensor_proto.bytes()); break;
    case AttrValue::kPlaceholder: w.Bytes(9, v.s); break;
    case AttrValue::kFunc: w.Bytes(10, SerializeNameAttrList(v.s, v.func_attr.get())); break;
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
#include "string_tensor.h"

namespace opgen {
namespace {

// ---- reading: fields, scalars, repeated scalars ---------------------------------------

// The wire types a known field takes, as a mask for wire::Accepts. A repeated scalar
// takes its element's own type (one value per field) or length-delimited (packed).
constexpr unsigned kLen = 1u << kLengthDelimited;
constexpr unsigned kVar = 1u << kVarint;
constexpr unsigned kF32 = 1u << kFixed32;
constexpr unsigned kRepeatedVarint = kVar | kLen;
constexpr unsigned kRepeatedF32 = kF32 | kLen;
constexpr unsigned kRepeatedF64 = (1u << kFixed64) | kLen;

// A message's known fields: number and accepted wire types.
using FieldType = std::pair<uint32_t, unsigned>;

// Calls `on_field(field, wire_type, reader)` for each field of `bytes` that [first, last)
// names with a wire type it accepts; the callback consumes the value, or returns false
// for one that does not read. Every other field is skipped, as protobuf keeps it as an
// unknown field: unknown numbers, known numbers with another wire type, groups. On
// failure `*failed` (when given) is the number of the field that did not read, 0 when
// a tag did not.
template <typename OnField>
bool ForEachField(Bytes bytes, const FieldType* first, const FieldType* last, OnField on_field,
                  uint32_t* failed = nullptr) {
  Reader r(bytes);
  uint32_t field = 0, wire_type;
  while (r.more()) {
    if (!r.tag(&field, &wire_type)) {
      field = 0;
      break;
    }
    unsigned accepted = 0;
    for (const FieldType* f = first; f != last; ++f) {
      if (f->first == field) {
        accepted = f->second;
        break;
      }
    }
    const bool good = Accepts(accepted, wire_type) ? on_field(field, wire_type, &r)
                                                   : r.skip(wire_type, field);
    if (!good) {
      r.ok = false;
      break;
    }
  }
  if (!r.ok && failed != nullptr) *failed = field;
  return r.ok;
}

template <typename OnField>
bool ForEachField(Bytes bytes, std::initializer_list<FieldType> fields, OnField on_field,
                  uint32_t* failed = nullptr) {
  return ForEachField(bytes, fields.begin(), fields.end(), on_field, failed);
}

bool ReadString(Reader* r, std::string* out) {
  Bytes b;
  if (!r->length_delimited(&b)) return false;
  out->assign(b.data(), b.size());
  return true;
}
bool ReadBool(Reader* r, bool* out) {
  uint64_t v;
  if (!r->varint(&v)) return false;
  *out = v != 0;
  return true;
}
bool ReadInt64(Reader* r, int64_t* out) {
  uint64_t v;
  if (!r->varint(&v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}
bool ReadFloat(Reader* r, float* out) {
  uint32_t bits;
  if (!r->fixed32(&bits)) return false;
  std::memcpy(out, &bits, sizeof bits);
  return true;
}

// A DataType enum value as TF_DataType. Values past the last TF_DataType (unknown
// types, and reference types, 100 + the type) do not fit the C++ enum, so storing one
// would be undefined behaviour: readers refuse them.
bool ToDataType(uint64_t value, TF_DataType* out) {
  if (value > static_cast<uint64_t>(TF_UINT2)) return false;
  *out = static_cast<TF_DataType>(value);
  return true;
}

// Appends the values of one repeated scalar field, packed or not (ForEachField has
// checked the wire type): varints for integers, fixed32 / fixed64 for float / double.
template <typename T>
bool ReadRepeated(Reader* r, uint32_t wire_type, std::vector<T>* out) {
  if constexpr (std::is_same_v<T, float>) {
    return repeated<kFixed32>(*r, wire_type, [out](uint32_t bits) {
      float f;
      std::memcpy(&f, &bits, sizeof f);
      out->push_back(f);
    });
  } else if constexpr (std::is_same_v<T, double>) {
    return repeated<kFixed64>(*r, wire_type, [out](uint64_t bits) {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      out->push_back(d);
    });
  } else {
    return repeated<kVarint>(*r, wire_type, [out](uint64_t x) {
      out->push_back(static_cast<T>(static_cast<int64_t>(x)));
    });
  }
}

// A TensorProto's TensorShapeProto, as read (CheckTensorShape judges it; a tensor's
// shape has no unknown rank to read).
bool ParseShapeProto(Bytes bytes, std::vector<int64_t>* dims) {
  bool unknown_rank;
  return ReadShapeProto(bytes, &unknown_rank, dims);
}

// ---- OpList / OpDef / AttrValue / TensorShapeProto: reader ----------------------------

// A TensorShapeProto of an attr value: well-formed bytes and a valid partial shape
// (dims >= -1, ...); `*reason` says what is wrong with a shape that parses but is not.
ParseOutcome ParseShape(Bytes bytes, Shape* shape, std::string* reason) {
  if (!ReadShapeProto(bytes, &shape->unknown_rank, &shape->dims)) return ParseOutcome::kUnparseable;
  return CheckPartialShape(*shape, reason) ? ParseOutcome::kOk : ParseOutcome::kInvalid;
}

// A func attr's NameAttrList: the name and its attr map (entries: key = 1, value = 2).
bool ParseNameAttrList(Bytes bytes, AttrValue* out) {
  std::map<std::string, AttrValue> attrs;
  const bool ok = ForEachField(bytes, {{1, kLen}, {2, kLen}}, [&](uint32_t field, uint32_t, Reader* r) {
    if (field == 1) return ReadString(r, &out->s);
    Bytes entry;
    if (!r->length_delimited(&entry)) return false;
    std::string key;
    AttrValue value;
    const bool entry_ok = ForEachField(entry, {{1, kLen}, {2, kLen}}, [&](uint32_t f, uint32_t, Reader* er) {
      if (f == 1) return ReadString(er, &key);
      Bytes value_bytes;
      return er->length_delimited(&value_bytes) &&
             ReadAttrValue(value_bytes, &value, nullptr) == ParseOutcome::kOk;
    });
    if (!entry_ok) return false;
    attrs[key] = std::move(value);
    return true;
  });
  if (ok && !attrs.empty())
    out->func_attr = std::make_shared<const std::map<std::string, AttrValue>>(std::move(attrs));
  return ok;
}

ParseOutcome ParseListValue(Bytes bytes, AttrValue* v, std::string* reason) {
  v->kind = AttrValue::kListString;  // an empty list; refined by the first element
  bool seen = false;
  auto claim = [&](AttrValue::Kind kind) {
    if (seen && v->kind != kind) return false;  // one element kind per list
    seen = true;
    v->kind = kind;
    return true;
  };
  ParseOutcome shape_outcome = ParseOutcome::kOk;
  static constexpr FieldType kFields[] = {
      {2, kLen}, {3, kRepeatedVarint}, {4, kRepeatedF32}, {5, kRepeatedVarint},
      {6, kRepeatedVarint}, {7, kLen}, {8, kLen}, {9, kLen}};
  bool ok = ForEachField(bytes, std::begin(kFields), std::end(kFields),
                         [&](uint32_t field, uint32_t wire, Reader* r) {
    switch (field) {
      case 2: case 8: {  // strings; serialized TensorProtos
        std::string bytes_value;
        if (!claim(field == 2 ? AttrValue::kListString : AttrValue::kListTensor) ||
            !ReadString(r, &bytes_value))
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
        Bytes shape_bytes;
        Shape shape;
        if (!claim(AttrValue::kListShape) || !r->length_delimited(&shape_bytes)) return false;
        shape_outcome = ParseShape(shape_bytes, &shape, reason);
        if (shape_outcome != ParseOutcome::kOk) return false;
        v->list_shape.push_back(shape);
        return true;
      }
      default: {  // 9: functions, each with the attrs it is instantiated with
        Bytes func_bytes;
        AttrValue func;
        if (!claim(AttrValue::kListFunc) || !r->length_delimited(&func_bytes) ||
            !ParseNameAttrList(func_bytes, &func))
          return false;
        v->list_s.push_back(std::move(func.s));
        v->list_func_attr.push_back(std::move(func.func_attr));
        return true;
      }
    }
  });
  if (ok) return ParseOutcome::kOk;
  return shape_outcome == ParseOutcome::kInvalid ? ParseOutcome::kInvalid
                                                 : ParseOutcome::kUnparseable;
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

bool ParseArgDef(Bytes bytes, ArgDef* arg) {
  // handle_data (7) and experimental_full_type (17) are not modelled: skipped.
  return ForEachField(bytes, {{1, kLen}, {2, kLen}, {3, kVar}, {4, kLen}, {5, kLen}, {6, kLen},
                              {16, kVar}},
                      [arg](uint32_t field, uint32_t, Reader* r) {
    uint64_t v;
    switch (field) {
      case 1: return ReadString(r, &arg->name);
      case 2: return ReadString(r, &arg->description);
      case 3: return r->varint(&v) && ToDataType(v, &arg->type);
      case 4: return ReadString(r, &arg->type_attr);
      case 5: return ReadString(r, &arg->number_attr);
      case 6: return ReadString(r, &arg->type_list_attr);
      default: return ReadBool(r, &arg->is_ref);  // 16
    }
  });
}

bool ParseAttrDef(Bytes bytes, AttrDef* attr) {
  bool ok = ForEachField(bytes, {{1, kLen}, {2, kLen}, {3, kLen}, {4, kLen}, {5, kVar},
                                 {6, kVar}, {7, kLen}},
                         [attr](uint32_t field, uint32_t, Reader* r) {
    Bytes value;
    switch (field) {
      case 1: return ReadString(r, &attr->name);
      case 2: return ReadString(r, &attr->type);
      case 3:
        attr->has_default = true;
        return r->length_delimited(&value) && ParseAttrValue(value, &attr->default_value, nullptr);
      case 4: return ReadString(r, &attr->description);
      case 5: return ReadBool(r, &attr->has_minimum);
      case 6: return ReadInt64(r, &attr->minimum);
      default:  // 7
        attr->has_allowed_values = true;
        return r->length_delimited(&value) && ParseAttrValue(value, &attr->allowed_values, nullptr);
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

ParseOutcome ReadAttrValue(std::string_view bytes, AttrValue* out, std::string* error) {
  *out = AttrValue();
  std::string reason;  // what is wrong with a value that parses but is not valid
  ParseOutcome nested = ParseOutcome::kOk;  // of a list or shape member
  // The value is a oneof: ForEachField hands over only members of their own wire type,
  // so a member that protobuf would keep as an unknown field never sets the kind.
  bool ok = ForEachField(
      bytes, {{1, kLen}, {2, kLen}, {3, kVar}, {4, kF32}, {5, kVar}, {6, kVar}, {7, kLen},
              {8, kLen}, {9, kLen}, {10, kLen}},
      [out, &reason, &nested](uint32_t field, uint32_t, Reader* r) {
        Bytes b;
        uint64_t v;
        switch (field) {
          case 1:
            if (!r->length_delimited(&b)) return false;
            nested = ParseListValue(b, out, &reason);
            return nested == ParseOutcome::kOk;
          case 2: out->kind = AttrValue::kString; return ReadString(r, &out->s);
          case 3: out->kind = AttrValue::kInt; return ReadInt64(r, &out->i);
          case 4: out->kind = AttrValue::kFloat; return ReadFloat(r, &out->f);
          case 5: out->kind = AttrValue::kBool; return ReadBool(r, &out->b);
          case 6:
            out->kind = AttrValue::kType;
            return r->varint(&v) && ToDataType(v, &out->type);
          case 7:
            out->kind = AttrValue::kShape;
            if (!r->length_delimited(&b)) return false;
            nested = ParseShape(b, &out->shape, &reason);
            return nested == ParseOutcome::kOk;
          case 8:
            out->kind = AttrValue::kTensor;
            if (!r->length_delimited(&b)) return false;
            out->tensor_proto = TensorAttr::Read(std::string_view(b.data(), b.size()));
            return true;
          case 9: out->kind = AttrValue::kPlaceholder; return ReadString(r, &out->s);
          default:  // 10
            out->kind = AttrValue::kFunc;
            return r->length_delimited(&b) && ParseNameAttrList(b, out);
        }
      });
  if (ok) return ParseOutcome::kOk;
  const ParseOutcome outcome =
      nested == ParseOutcome::kInvalid ? ParseOutcome::kInvalid : ParseOutcome::kUnparseable;
  if (error != nullptr) *error = outcome == ParseOutcome::kInvalid ? reason : "malformed AttrValue";
  return outcome;
}

bool ParseOpDef(std::string_view bytes, OpDef* out, std::string* error) {
  *out = OpDef();
  std::string failed;  // which part did not parse, for the message
  bool ok = ForEachField(
      bytes, {{1, kLen}, {2, kLen}, {3, kLen}, {4, kLen}, {5, kLen}, {6, kLen}, {8, kLen},
              {16, kVar}, {17, kVar}, {18, kVar}, {19, kVar}, {20, kLen}, {21, kVar}},
      [out, &failed](uint32_t field, uint32_t, Reader* r) {
    Bytes b;
    bool good = true;
    switch (field) {
      case 1: good = ReadString(r, &out->name); break;
      case 2: case 3: {
        ArgDef arg;
        good = r->length_delimited(&b) && ParseArgDef(b, &arg);
        (field == 2 ? out->input_arg : out->output_arg).push_back(std::move(arg));
        if (!good) failed = std::string(field == 2 ? "input_arg" : "output_arg");
        return good;
      }
      case 4: {
        AttrDef attr;
        good = r->length_delimited(&b) && ParseAttrDef(b, &attr);
        out->attr.push_back(std::move(attr));
        if (!good) failed = "attr";
        return good;
      }
      case 5: good = ReadString(r, &out->summary); break;
      case 6: good = ReadString(r, &out->description); break;
      case 8:
        out->has_deprecation = true;
        good = r->length_delimited(&b) &&
               ForEachField(b, {{1, kVar}, {2, kLen}}, [out](uint32_t f, uint32_t, Reader* d) {
                 int64_t version;
                 if (f == 2) return ReadString(d, &out->deprecation.explanation);
                 if (!ReadInt64(d, &version)) return false;
                 out->deprecation.version = static_cast<int32_t>(version);
                 return true;
               });
        break;
      case 16: good = ReadBool(r, &out->is_aggregate); break;
      case 17: good = ReadBool(r, &out->is_stateful); break;
      case 18: good = ReadBool(r, &out->is_commutative); break;
      case 19: good = ReadBool(r, &out->allows_uninitialized_input); break;
      case 20:
        out->control_output.emplace_back();
        good = ReadString(r, &out->control_output.back());
        break;
      default: good = ReadBool(r, &out->is_distributed_communication); break;  // 21
    }
    if (!good) failed = "field " + std::to_string(field);
    return good;
  });
  if (!ok && error != nullptr)
    *error = "malformed OpDef '" + out->name + "'" + (failed.empty() ? "" : " (" + failed + ")");
  return ok;
}

bool ParseOpList(std::string_view bytes, std::vector<OpDef>* out, std::string* error) {
  out->clear();
  std::string op_error;
  bool ok = ForEachField(bytes, {{1, kLen}}, [out, &op_error](uint32_t, uint32_t, Reader* r) {
    Bytes b;
    out->emplace_back();
    return r->length_delimited(&b) && ParseOpDef(b, &out->back(), &op_error);
  });
  if (!ok && error != nullptr)
    *error = op_error.empty() ? "malformed OpList (op " + std::to_string(out->size()) + ")" : op_error;
  return ok;
}

bool ParseKernelDef(std::string_view bytes, KernelDefProto* out, std::string* error) {
  *out = KernelDefProto();
  bool ok = ForEachField(
      bytes, {{1, kLen}, {2, kLen}, {3, kLen}, {4, kLen}, {5, kLen}, {6, kVar}},
      [out](uint32_t field, uint32_t, Reader* r) {
    Bytes b;
    int64_t priority;
    switch (field) {
      case 1: return ReadString(r, &out->op);
      case 2: return ReadString(r, &out->device_type);
      case 3: {  // AttrConstraint: name, allowed_values
        std::pair<std::string, AttrValue> constraint;
        if (!r->length_delimited(&b)) return false;
        bool good = ForEachField(b, {{1, kLen}, {2, kLen}},
                                 [&constraint](uint32_t f, uint32_t, Reader* c) {
          Bytes value;
          if (f == 1) return ReadString(c, &constraint.first);
          return c->length_delimited(&value) && ParseAttrValue(value, &constraint.second, nullptr);
        });
        out->constraints.push_back(std::move(constraint));
        return good;
      }
      case 4:
        out->host_memory_args.emplace_back();
        return ReadString(r, &out->host_memory_args.back());
      case 5: return ReadString(r, &out->label);
      default:  // 6
        if (!ReadInt64(r, &priority)) return false;
        out->priority = static_cast<int32_t>(priority);
        return true;
    }
  });
  if (!ok && error != nullptr) *error = "malformed KernelDef";
  return ok;
}

bool SerializeTensorProto(const TF_Tensor* tensor, std::string* out) {
  const bool strings = tensor->dtype == TF_STRING;
  if (TF_DataTypeSize(tensor->dtype) == 0 && !strings) return false;
  Writer w;
  w.OptionalVarint(1, static_cast<uint64_t>(tensor->dtype));
  Shape shape;
  shape.unknown_rank = false;
  shape.dims = tensor->dims;
  w.Bytes(2, SerializeShape(shape));
  if (strings) {  // string_val, one per element, as TensorFlow writes string tensors
    const TF_TString* elements = StringElements(tensor);
    const int64_t n = NumElements(tensor->dims);
    for (int64_t i = 0; i < n; ++i) w.Bytes(8, std::string(StringElement(&elements[i])));
    *out = w.str();
    return true;
  }
  std::string content(static_cast<const char*>(tensor->buffer->data()), tensor->buffer->size());
  w.OptionalString(4, content);
  *out = w.str();
  return true;
}

bool IsCanonicalTensorProto(std::string_view bytes, const TF_Tensor* tensor) {
  if (tensor->dtype == TF_STRING || tensor->buffer->size() == 0) return false;
  Writer w;
  w.OptionalVarint(1, static_cast<uint64_t>(tensor->dtype));
  Shape shape;
  shape.unknown_rank = false;
  shape.dims = tensor->dims;
  w.Bytes(2, SerializeShape(shape));
  w.Tag(4, kLengthDelimited);
  w.Varint(tensor->buffer->size());
  const std::string& header = w.str();
  return bytes.size() == header.size() + tensor->buffer->size() &&
         bytes.compare(0, header.size(), header) == 0;
}

namespace {

// What a TensorProto holds, as read (not yet checked against its dtype and shape).
struct TensorProtoFields {
  uint64_t dtype = 0;
  std::vector<int64_t> dims;
  Bytes content;  // a view of the bytes being read
  bool has_content = false;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<int64_t> ints;  // int_val, int64_val, bool_val, half_val bits
  std::vector<Bytes> strings;  // string_val, views of the bytes being read
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
bool ReadTensorProtoFields(std::string_view bytes, bool header_only, TensorProtoFields* f,
                           TF_DataType* type, std::string* error) {
  static constexpr FieldType kFields[] = {
      {1, kVar}, {2, kLen}, {4, kLen}, {5, kRepeatedF32}, {6, kRepeatedF64},
      // int_val, int64_val, bool_val, half_val, uint32_val, uint64_val (the unsigned
      // ones keep their bits through int64_t)
      {7, kRepeatedVarint}, {10, kRepeatedVarint}, {11, kRepeatedVarint},
      {13, kRepeatedVarint}, {16, kRepeatedVarint}, {17, kRepeatedVarint}, {8, kLen}};
  const auto* last = header_only ? std::begin(kFields) + 2 : std::end(kFields);
  uint32_t failed = 0;
  bool ok = ForEachField(bytes, std::begin(kFields), last, [f](uint32_t field, uint32_t wire, Reader* r) {
    Bytes shape;
    switch (field) {
      case 1: return r->varint(&f->dtype);
      case 2: return r->length_delimited(&shape) && ParseShapeProto(shape, &f->dims);
      case 4: f->has_content = true; return r->length_delimited(&f->content);
      case 5: return ReadRepeated(r, wire, &f->floats);
      case 6: return ReadRepeated(r, wire, &f->doubles);
      case 8: {
        Bytes value;
        if (!r->length_delimited(&value)) return false;
        f->strings.push_back(value);
        return true;
      }
      default: return ReadRepeated(r, wire, &f->ints);
    }
  }, &failed);
  if (!ok) {
    *error = failed == 0 ? "truncated TensorProto"
                         : "malformed TensorProto (field " + std::to_string(failed) + ")";
    return false;
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
bool ReadTensorProto(std::string_view bytes, TensorProtoFields* f, TF_DataType* type,
                     size_t* len, std::string* error) {
  if (!ReadTensorProtoFields(bytes, /*header_only=*/false, f, type, error)) return false;
  if (*type == TF_STRING) {  // string_val only (TensorFlow writes no tensor_content)
    if (f->has_content) {
      *error = "TensorProto of dtype string with tensor_content is not supported";
      return false;
    }
    if (!ByteSize(sizeof(TF_TString), NumElements(f->dims), len)) {
      *error = "TensorProto shape " + ShapeToString(f->dims) + " has too many strings";
      return false;
    }
    return true;
  }
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

bool ParseTensorProtoHeader(std::string_view bytes, TF_DataType* dtype,
                            std::vector<int64_t>* dims, std::string* error) {
  TensorProtoFields f;
  if (!ReadTensorProtoFields(bytes, /*header_only=*/true, &f, dtype, error)) return false;
  *dims = std::move(f.dims);
  return true;
}

bool ParseTensorProtoShape(std::string_view bytes, TF_DataType* dtype,
                           std::vector<int64_t>* dims, std::string* error) {
  TensorProtoFields f;
  size_t len;
  if (!ReadTensorProto(bytes, &f, dtype, &len, error)) return false;
  *dims = std::move(f.dims);
  return true;
}

TF_Tensor* ParseTensorProto(std::string_view bytes, std::string* error) {
  TensorProtoFields f;
  TF_DataType type;
  size_t len;
  if (!ReadTensorProto(bytes, &f, &type, &len, error)) return nullptr;
  if (type == TF_STRING) {
    TF_Tensor* t = NewStringTensor(f.dims);
    if (t == nullptr) { *error = "cannot allocate the tensor"; return nullptr; }
    TF_TString* out = MutableStringElements(t);
    const int64_t n = NumElements(f.dims);
    // A short list repeats its last value, as for numbers.
    for (int64_t i = 0; i < n && !f.strings.empty(); ++i) {
      const Bytes& v = f.strings[std::min<size_t>(static_cast<size_t>(i), f.strings.size() - 1)];
      if (!AssignString(&out[i], v)) {
        TF_DeleteTensor(t);
        *error = "cannot allocate the tensor";
        return nullptr;
      }
    }
    return t;
  }
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

bool ParseNodeDef(std::string_view bytes, NodeDefProto* out, std::string* error) {
  *out = NodeDefProto();
  std::string failed;
  bool invalid = false;  // well-formed bytes, but a value that breaks a rule
  bool ok = ForEachField(
      bytes, {{1, kLen}, {2, kLen}, {3, kLen}, {4, kLen}, {5, kLen}},
      [out, &failed, &invalid](uint32_t field, uint32_t, Reader* r) {
    Bytes b;
    switch (field) {
      case 1: return ReadString(r, &out->name);
      case 2: return ReadString(r, &out->op);
      case 3:
        out->input.emplace_back();
        return ReadString(r, &out->input.back());
      case 4: return ReadString(r, &out->device);
      default: {  // 5: a map<string, AttrValue> entry
        std::string key, attr_error;
        Bytes value_bytes;
        AttrValue value;
        ParseOutcome outcome = ParseOutcome::kUnparseable;
        if (r->length_delimited(&b) &&
            ForEachField(b, {{1, kLen}, {2, kLen}}, [&](uint32_t f, uint32_t, Reader* e) {
              return f == 1 ? ReadString(e, &key) : e->length_delimited(&value_bytes);
            }))
          outcome = ReadAttrValue(value_bytes, &value, &attr_error);
        if (outcome != ParseOutcome::kOk) {
          failed = key.empty() ? "an attr" : "attr '" + key + "'";
          invalid = outcome == ParseOutcome::kInvalid;
          if (invalid) failed += ": " + attr_error;
          return false;
        }
        out->attr[key] = std::move(value);  // a repeated key keeps the last, as protobuf does
        return true;
      }
    }
  });
  if (!ok && error != nullptr)
    *error = std::string(invalid ? "invalid NodeDef" : "malformed NodeDef") +
             (out->name.empty() ? std::string() : " '" + out->name + "'") +
             (failed.empty() ? "" : " (" + failed + ")");
  return ok;
}

bool ParseGraphDef(std::string_view bytes, GraphDefProto* out, std::string* error) {
  *out = GraphDefProto();
  std::string node_error;
  bool ok = ForEachField(
      bytes, {{1, kLen}, {2, kLen}, {4, kLen}},
      [out, &node_error](uint32_t field, uint32_t, Reader* r) {
    Bytes b;
    switch (field) {
      case 1:
        out->node.emplace_back();
        return r->length_delimited(&b) && ParseNodeDef(b, &out->node.back(), &node_error);
      case 2:
        // Several occurrences of a message field merge; for opaque bytes, concatenating
        // the encodings is that merge.
        if (!r->length_delimited(&b)) return false;
        out->library.append(b.data(), b.size());
        return true;
      default:  // 4: VersionDef
        return r->length_delimited(&b) &&
               ForEachField(b, {{1, kVar}, {2, kVar}, {3, kRepeatedVarint}},
                            [out](uint32_t f, uint32_t w, Reader* v) {
                 int64_t x;
                 if (f == 3) return ReadRepeated(v, w, &out->bad_consumers);
                 if (!ReadInt64(v, &x)) return false;
                 (f == 1 ? out->producer : out->min_consumer) = static_cast<int32_t>(x);
                 return true;
               });
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
