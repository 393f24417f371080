// opgen._oplist_scan: the generator's front end for the common case, compiled.
//
// Two functions read the canonical serialization of an OpList (what
// `OpList.SerializeToString(deterministic=True)` gives):
//
//   check(data, types)   True when every op passes opgen's validation and op names are
//                        distinct, False when any does not, None when the bytes hold
//                        something this file does not read (an unterminated unknown
//                        group, say). Unless True, the Python validator (opgen.opdefs)
//                        runs and says what is wrong.
//   op_specs(data, ctx, skip)
//                        the OpSpec of every op, in input order, as opgen.model builds
//                        them for ops without ApiDef (None in place of those named in
//                        `skip`: the caller builds them); None unless check(data) holds.
//
// They are an accelerator, not a second authority: opgen.opdefs and opgen.model are the
// reference, used whenever this module is missing (or OPGEN_PURE_PYTHON is set), and
// tests/generator/test_oplist_scan.py holds both to the same answers on TensorFlow's
// registry and on generated and corrupted OpLists. Each distinct ArgDef and AttrDef
// (by bytes; TensorFlow's 13,000 are 2,900 distinct) is checked and built once; an op
// then costs index lookups and its cross-checks. An attr default of a kind this file
// does not convert (shape, tensor, func) is built by the Python callback in ctx.
//
// Field numbers are those of protos/op_def.proto and protos/attr_value.proto
// (TensorFlow's).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using Bytes = std::string_view;

// ------------------------------------------------------------------ wire format

enum WireType : uint32_t {
  kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5
};

// A cursor over one message's bytes. Any malformation clears `ok`; callers then give
// the input to the Python path, which reports it.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  explicit Reader(Bytes bytes)
      : p(reinterpret_cast<const uint8_t*>(bytes.data())), end(p + bytes.size()) {}

  bool more() const { return ok && p < end; }

  bool varint(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
      uint8_t byte = *p++;
      result |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *value = result;
        return true;
      }
    }
    return ok = false;
  }

  // The next field's number and wire type.
  bool tag(uint32_t* number, uint32_t* wire_type) {
    uint64_t key;
    if (!varint(&key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) return ok = false;
    *number = uint32_t(key >> 3);
    *wire_type = uint32_t(key & 7);
    return true;
  }

  bool length_delimited(Bytes* out) {
    uint64_t length;
    if (!varint(&length) || length > uint64_t(end - p)) return ok = false;
    *out = Bytes(reinterpret_cast<const char*>(p), size_t(length));
    p += length;
    return true;
  }

  bool fixed32(uint32_t* value) {
    if (end - p < 4) return ok = false;
    std::memcpy(value, p, 4);
    p += 4;
    return true;
  }

  // Skips a field this file does not read. A known field number with an unexpected
  // wire type is skipped too: protobuf keeps it as an unknown field.
  bool skip(uint32_t wire_type, uint32_t number = 0, int depth = 0) {
    uint64_t ignored;
    Bytes ignored_bytes;
    switch (wire_type) {
      case kVarint: return varint(&ignored);
      case kFixed64:
        if (end - p < 8) return ok = false;
        p += 8;
        return true;
      case kLengthDelimited: return length_delimited(&ignored_bytes);
      case kFixed32:
        if (end - p < 4) return ok = false;
        p += 4;
        return true;
      case kStartGroup: {   // an unknown group: fields up to its end-group tag
        if (depth >= 64) return ok = false;
        uint32_t inner_number, inner_type;
        while (tag(&inner_number, &inner_type)) {
          if (inner_type == kEndGroup) return inner_number == number || (ok = false);
          if (!skip(inner_type, inner_number, depth + 1)) return false;
        }
        return ok = false;
      }
      default: return ok = false;   // a stray end-group tag, or no wire type at all
    }
  }
};

// Repeated scalars arrive packed (one length-delimited field) or one per field; both
// are read, as protobuf does.
template <typename Add>
bool repeated_varints(Reader& r, uint32_t wire_type, Add add) {
  uint64_t value;
  if (wire_type == kVarint) {
    if (!r.varint(&value)) return false;
    add(value);
    return true;
  }
  Bytes packed;
  if (!r.length_delimited(&packed)) return false;
  Reader inner(packed);
  while (inner.more()) {
    if (!inner.varint(&value)) return r.ok = false;
    add(value);
  }
  return true;
}

template <typename Add>
bool repeated_fixed32(Reader& r, uint32_t wire_type, Add add) {
  uint32_t value;
  if (wire_type == kFixed32) {
    if (!r.fixed32(&value)) return false;
    add(value);
    return true;
  }
  Bytes packed;
  if (!r.length_delimited(&packed)) return false;
  if (packed.size() % 4) return r.ok = false;
  for (size_t i = 0; i < packed.size(); i += 4) {
    std::memcpy(&value, packed.data() + i, 4);
    add(value);
  }
  return true;
}

// ------------------------------------------------------------------ names

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

// The rules of opgen.opdefs: _OP_NAME, _ARG_NAME, _ATTR_NAME.
bool valid_op_name(Bytes name) {
  size_t i = 0, n = name.size();
  while (i < n && name[i] == '_') ++i;
  for (;;) {
    if (i >= n || !is_alpha(name[i])) return false;
    ++i;
    while (i < n && is_word(name[i])) ++i;
    if (i == n) return true;
    if (name[i] != '>') return false;
    ++i;
  }
}

bool valid_arg_name(Bytes name) {
  if (name.empty() || !((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_')) return false;
  return true;
}

bool valid_attr_name(Bytes name) {
  if (name.empty() || !(is_alpha(name[0]) || name[0] == '_')) return false;
  for (char c : name)
    if (!is_word(c)) return false;
  return true;
}

// ------------------------------------------------------------------ attr types

// An attr type's element and where its values live: the AttrValue oneof field of a
// scalar, the ListValue field of a list.
struct Element {
  Bytes name;
  uint32_t scalar_field;
  uint32_t list_field;
};

constexpr Element kElements[] = {
    {"string", 2, 2}, {"int", 3, 3},   {"float", 4, 4},   {"bool", 5, 5},
    {"type", 6, 6},   {"shape", 7, 7}, {"tensor", 8, 8}, {"func", 10, 9},
};
constexpr uint32_t kAttrValueList = 1;   // AttrValue.list

const Element* find_element(Bytes attr_type, bool* is_list) {
  *is_list = attr_type.size() > 6 && attr_type.substr(0, 5) == "list(" && attr_type.back() == ')';
  Bytes element = *is_list ? attr_type.substr(5, attr_type.size() - 6) : attr_type;
  for (const Element& e : kElements)
    if (e.name == element) return &e;
  return nullptr;
}

// The values of one AttrValue, as far as validation and specs need them: which oneof
// member it holds and, for the scalar kinds, the values themselves.
struct AttrValue {
  uint32_t kind = 0;              // oneof field number; 0 when none is set
  Bytes payload;                  // a length-delimited member (s, shape, tensor, func, ...)
  uint64_t scalar = 0;            // a varint member (i, b, type)
  uint32_t float_bits = 0;        // f
  // the list member's fields (ListValue field numbers 2..9)
  std::vector<Bytes> strings;                      // s
  std::vector<uint64_t> list_i, list_b, list_type;
  std::vector<uint32_t> floats;                    // f
  size_t count[10] = {};                           // elements per ListValue field

  const std::vector<uint64_t>& ints(uint32_t field) const {
    return field == 3 ? list_i : field == 5 ? list_b : list_type;
  }
};

bool read_list_value(Bytes bytes, AttrValue* value) {
  Reader r(bytes);
  uint32_t number, wire_type;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    bool read = false;
    if (number == 2 || (number >= 7 && number <= 9)) {   // s, shape, tensor, func
      if (wire_type == kLengthDelimited) {
        Bytes element;
        if (!r.length_delimited(&element)) return false;
        if (number == 2) value->strings.push_back(element);
        ++value->count[number];
        read = true;
      }
    } else if (number == 3 || number == 5 || number == 6) {   // i, b, type
      if (wire_type == kVarint || wire_type == kLengthDelimited) {
        std::vector<uint64_t>& ints = number == 3 ? value->list_i
                                      : number == 5 ? value->list_b : value->list_type;
        if (!repeated_varints(r, wire_type, [&](uint64_t v) { ints.push_back(v); })) return false;
        value->count[number] = ints.size();
        read = true;
      }
    } else if (number == 4) {   // f
      if (wire_type == kFixed32 || wire_type == kLengthDelimited) {
        if (!repeated_fixed32(r, wire_type, [&](uint32_t v) { value->floats.push_back(v); }))
          return false;
        value->count[4] = value->floats.size();
        read = true;
      }
    }
    if (!read && !r.skip(wire_type, number)) return false;
  }
  return r.ok;
}

bool read_attr_value(Bytes bytes, AttrValue* value) {
  Reader r(bytes);
  uint32_t number, wire_type;
  bool seen_list = false;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    bool read = false;
    switch (number) {
      case 1: case 2: case 7: case 8: case 9: case 10:   // list, s, shape, tensor, placeholder, func
        if (wire_type == kLengthDelimited) {
          if (!r.length_delimited(&value->payload)) return false;
          if (number == kAttrValueList) {
            if (seen_list) return false;   // a repeated message merges: never canonical
            seen_list = true;
          }
          value->kind = number;
          read = true;
        }
        break;
      case 3: case 5: case 6:   // i, b, type
        if (wire_type == kVarint) {
          if (!r.varint(&value->scalar)) return false;
          value->kind = number;
          read = true;
        }
        break;
      case 4:   // f
        if (wire_type == kFixed32) {
          if (!r.fixed32(&value->float_bits)) return false;
          value->kind = number;
          read = true;
        }
        break;
    }
    if (!read && !r.skip(wire_type, number)) return false;
  }
  if (!r.ok) return false;
  return value->kind != kAttrValueList || read_list_value(value->payload, value);
}

// ------------------------------------------------------------------ args and attrs

struct Rules {
  std::unordered_set<int32_t> data_types;   // DataType values (types_pb2.DataType)
  bool is_data_type(uint64_t value) const { return data_types.count(int32_t(value)) != 0; }
};

struct ArgInfo {
  Bytes bytes;
  Bytes name, description, type_attr, number_attr, type_list_attr;
  int32_t type = 0;
  bool is_ref = false;
  bool valid = false;
  PyObject* spec = nullptr;   // borrowed from the call's list of specs
  PyObject* spec_name = nullptr;   // spec.name, borrowed from the spec
};

struct AttrInfo {
  Bytes bytes;
  Bytes name, type, description;
  bool has_minimum = false;
  int64_t minimum = 0;
  bool has_default = false, has_allowed = false;
  Bytes default_bytes, allowed_bytes;
  bool valid = false;
  bool is_list = false;
  const Element* element = nullptr;
  Bytes role;               // what an arg may ask of it: its type, or "count"
  PyObject* spec = nullptr; // borrowed
  bool required = false;    // spec.default is NO_DEFAULT
};

bool read_arg(Bytes bytes, ArgInfo* arg) {
  Reader r(bytes);
  uint32_t number, wire_type;
  uint64_t value;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    Bytes* text = nullptr;
    switch (number) {
      case 1: text = &arg->name; break;
      case 2: text = &arg->description; break;
      case 4: text = &arg->type_attr; break;
      case 5: text = &arg->number_attr; break;
      case 6: text = &arg->type_list_attr; break;
    }
    if (text && wire_type == kLengthDelimited) {
      if (!r.length_delimited(text)) return false;
    } else if ((number == 3 || number == 16) && wire_type == kVarint) {
      if (!r.varint(&value)) return false;
      if (number == 3) arg->type = int32_t(value);
      else arg->is_ref = value != 0;
    } else if (!r.skip(wire_type, number)) {
      return false;
    }
  }
  return r.ok;
}

// opgen.opdefs._CheckedParts._arg: the arg's own rules.
void check_arg(ArgInfo* arg, const Rules& rules) {
  int sources = (arg->type != 0) + !arg->type_attr.empty() + !arg->type_list_attr.empty();
  arg->valid = valid_arg_name(arg->name) && (arg->type == 0 || rules.is_data_type(arg->type)) &&
               sources == 1 && !(!arg->number_attr.empty() && !arg->type_list_attr.empty());
}

bool read_attr(Bytes bytes, AttrInfo* attr) {
  Reader r(bytes);
  uint32_t number, wire_type;
  uint64_t value;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    bool read = false;
    if (wire_type == kLengthDelimited) {
      Bytes* target = nullptr;
      switch (number) {
        case 1: target = &attr->name; break;
        case 2: target = &attr->type; break;
        case 3: target = &attr->default_bytes; break;
        case 4: target = &attr->description; break;
        case 7: target = &attr->allowed_bytes; break;
      }
      if (target) {
        if (number == 3 || number == 7) {
          bool& present = number == 3 ? attr->has_default : attr->has_allowed;
          if (present) return false;   // a repeated message merges: never canonical
          present = true;
        }
        if (!r.length_delimited(target)) return false;
        read = true;
      }
    } else if (wire_type == kVarint && (number == 5 || number == 6)) {
      if (!r.varint(&value)) return false;
      if (number == 5) attr->has_minimum = value != 0;
      else attr->minimum = int64_t(value);
      read = true;
    }
    if (!read && !r.skip(wire_type, number)) return false;
  }
  return r.ok;
}

bool contains(const std::vector<Bytes>& values, Bytes value) {
  for (Bytes v : values)
    if (v == value) return true;
  return false;
}

bool contains(const std::vector<uint64_t>& values, uint64_t value) {
  for (uint64_t v : values)
    if (int32_t(v) == int32_t(value)) return true;
  return false;
}

// opgen.opdefs._validate_attr, as a yes or no. Returns false when the bytes cannot be
// read (the caller then gives up on the whole input).
bool check_attr(AttrInfo* attr, const Rules& rules) {
  attr->valid = false;
  if (!valid_attr_name(attr->name)) return true;
  attr->element = find_element(attr->type, &attr->is_list);
  if (!attr->element) return true;
  Bytes element = attr->element->name;
  attr->role = (attr->type == "int" && attr->has_minimum && attr->minimum >= 0) ? Bytes("count")
                                                                               : attr->type;
  if (!(attr->has_minimum || attr->has_allowed || attr->has_default)) {
    attr->valid = true;
    return true;
  }
  if (attr->has_minimum && element != "int" && !attr->is_list) return true;
  bool typed_allowed = element == "type" || element == "string";
  AttrValue allowed;
  if (attr->has_allowed) {
    if (!typed_allowed) return true;
    if (!read_attr_value(attr->allowed_bytes, &allowed)) return false;
    if (allowed.kind != kAttrValueList) return true;
    if (element == "type") {
      for (uint64_t v : allowed.list_type)
        if (!rules.is_data_type(v)) return true;
    }
  }
  if (!attr->has_default) {
    attr->valid = true;
    return true;
  }
  AttrValue value;
  if (!read_attr_value(attr->default_bytes, &value)) return false;
  uint32_t expected = attr->is_list ? kAttrValueList : attr->element->scalar_field;
  if (value.kind != expected) return true;
  uint32_t field = attr->element->list_field;
  size_t count = 1;
  if (attr->is_list) {
    // ListFields(): a list default may hold values of its element's field only
    for (uint32_t other = 2; other <= 9; ++other)
      if (other != field && value.count[other]) return true;
    count = value.count[field];
  }
  if (element == "type") {
    if (attr->is_list) {
      for (uint64_t v : value.list_type)
        if (!rules.is_data_type(v)) return true;
    } else if (!rules.is_data_type(value.scalar)) {
      return true;
    }
  }
  if (attr->has_allowed && typed_allowed) {
    if (element == "type") {
      if (attr->is_list) {
        for (uint64_t v : value.list_type)
          if (!contains(allowed.list_type, v)) return true;
      } else if (!contains(allowed.list_type, value.scalar)) {
        return true;
      }
    } else {
      if (attr->is_list) {
        for (Bytes s : value.strings)
          if (!contains(allowed.strings, s)) return true;
      } else if (!contains(allowed.strings, value.payload)) {
        return true;
      }
    }
  }
  if (attr->has_minimum) {
    if (attr->is_list && int64_t(count) < attr->minimum) return true;
    if (!attr->is_list && element == "int" && int64_t(value.scalar) < attr->minimum) return true;
  }
  attr->valid = true;
  return true;
}

// ------------------------------------------------------------------ ops

struct OpInfo {
  Bytes name, summary, description, deprecation;
  bool has_deprecation = false;
  bool is_aggregate = false, is_stateful = false, is_commutative = false;
  bool allows_uninitialized_input = false, is_distributed_communication = false;
  std::vector<int> inputs, outputs, attrs;
  std::vector<Bytes> control_outputs;
};

struct Scan {
  std::vector<OpInfo> ops;
  std::vector<ArgInfo> args;
  std::vector<AttrInfo> attrs;
  bool all_valid = false;
};

template <typename Info>
int intern(Bytes bytes, std::unordered_map<Bytes, int>& index, std::vector<Info>& parts) {
  auto found = index.find(bytes);
  if (found != index.end()) return found->second;
  int id = int(parts.size());
  index.emplace(bytes, id);
  parts.emplace_back();
  parts.back().bytes = bytes;
  return id;
}

bool read_op(Bytes bytes, OpInfo* op, Scan* scan, std::unordered_map<Bytes, int>& arg_index,
             std::unordered_map<Bytes, int>& attr_index) {
  Reader r(bytes);
  uint32_t number, wire_type;
  uint64_t value;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    bool read = false;
    if (wire_type == kLengthDelimited) {
      Bytes field;
      switch (number) {
        case 1: case 2: case 3: case 4: case 5: case 6: case 8: case 20:
          if (!r.length_delimited(&field)) return false;
          read = true;
          break;
      }
      switch (number) {
        case 1: op->name = field; break;
        case 2: op->inputs.push_back(intern(field, arg_index, scan->args)); break;
        case 3: op->outputs.push_back(intern(field, arg_index, scan->args)); break;
        case 4: op->attrs.push_back(intern(field, attr_index, scan->attrs)); break;
        case 5: op->summary = field; break;
        case 6: op->description = field; break;
        case 8:
          if (op->has_deprecation) return false;   // would merge: not canonical
          op->deprecation = field;
          op->has_deprecation = true;
          break;
        case 20: op->control_outputs.push_back(field); break;
      }
    } else if (wire_type == kVarint && number >= 16 && number <= 21 && number != 20) {
      if (!r.varint(&value)) return false;
      bool flag = value != 0;
      switch (number) {
        case 16: op->is_aggregate = flag; break;
        case 17: op->is_stateful = flag; break;
        case 18: op->is_commutative = flag; break;
        case 19: op->allows_uninitialized_input = flag; break;
        case 21: op->is_distributed_communication = flag; break;
      }
      read = true;
    }
    if (!read && !r.skip(wire_type, number)) return false;
  }
  return r.ok;
}

// The attr a name refers to within one op: ops have few attrs, so a linear search.
const AttrInfo* op_attr(const Scan& scan, const OpInfo& op, Bytes name) {
  for (int id : op.attrs)
    if (scan.attrs[id].name == name) return &scan.attrs[id];
  return nullptr;
}

// opgen.opdefs._CheckedParts.op_is_valid, plus the op name. `seen` is scratch space.
bool op_is_valid(const Scan& scan, const OpInfo& op, std::vector<Bytes>& seen) {
  if (!valid_op_name(op.name)) return false;
  seen.clear();
  for (int id : op.attrs) {
    const AttrInfo& attr = scan.attrs[id];
    if (!attr.valid) return false;
    for (Bytes name : seen)
      if (name == attr.name) return false;
    seen.push_back(attr.name);
  }
  for (const std::vector<int>* args : {&op.inputs, &op.outputs}) {
    for (int id : *args) {
      const ArgInfo& arg = scan.args[id];
      if (!arg.valid) return false;
      for (Bytes name : seen)
        if (name == arg.name) return false;
      seen.push_back(arg.name);
      const std::pair<Bytes, Bytes> needs[] = {
          {arg.type_attr, "type"}, {arg.number_attr, "count"}, {arg.type_list_attr, "list(type)"}};
      for (const auto& [attr_name, role] : needs) {
        if (attr_name.empty()) continue;
        const AttrInfo* attr = op_attr(scan, op, attr_name);
        if (!attr || attr->role != role) return false;
      }
    }
  }
  return true;
}

// Reads and validates `data`. Returns false (with no Python error set) when the bytes
// cannot be read; scan->all_valid says whether everything passed.
bool scan_oplist(Bytes data, const Rules& rules, Scan* scan) {
  std::unordered_map<Bytes, int> arg_index, attr_index;
  arg_index.reserve(4096);   // TensorFlow's registry: ~1,600 distinct args, ~1,300 attrs
  attr_index.reserve(4096);
  Reader r(data);
  uint32_t number, wire_type;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) return false;
    if (number == 1 && wire_type == kLengthDelimited) {
      Bytes op_bytes;
      if (!r.length_delimited(&op_bytes)) return false;
      scan->ops.emplace_back();
      OpInfo& op = scan->ops.back();   // typical sizes: one allocation each
      op.inputs.reserve(4);
      op.outputs.reserve(2);
      op.attrs.reserve(4);
      if (!read_op(op_bytes, &scan->ops.back(), scan, arg_index, attr_index)) return false;
    } else if (!r.skip(wire_type, number)) {
      return false;
    }
  }
  if (!r.ok) return false;
  for (ArgInfo& arg : scan->args) {
    if (!read_arg(arg.bytes, &arg)) return false;
    check_arg(&arg, rules);
  }
  for (AttrInfo& attr : scan->attrs) {
    if (!read_attr(attr.bytes, &attr) || !check_attr(&attr, rules)) return false;
  }
  std::unordered_set<Bytes> names;
  names.reserve(scan->ops.size());
  std::vector<Bytes> seen;
  for (const OpInfo& op : scan->ops) {
    if (!names.insert(op.name).second || !op_is_valid(*scan, op, seen)) return true;
  }
  scan->all_valid = true;
  return true;
}

bool read_rules(PyObject* data_types, Rules* rules) {
  PyObject* iterator = PyObject_GetIter(data_types);
  if (!iterator) return false;
  while (PyObject* item = PyIter_Next(iterator)) {
    long value = PyLong_AsLong(item);
    Py_DECREF(item);
    if (value == -1 && PyErr_Occurred()) {
      Py_DECREF(iterator);
      return false;
    }
    rules->data_types.insert(int32_t(value));
  }
  Py_DECREF(iterator);
  return !PyErr_Occurred();
}

// ------------------------------------------------------------------ Python objects

// Owns a reference; releases it on scope exit.
struct Ref {
  PyObject* object;
  explicit Ref(PyObject* o = nullptr) : object(o) {}
  ~Ref() { Py_XDECREF(object); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return object; }
  PyObject* release() {
    PyObject* o = object;
    object = nullptr;
    return o;
  }
  explicit operator bool() const { return object != nullptr; }
};

PyObject* text(Bytes bytes) {
  return PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), nullptr);
}

// An AttrValue string: text when it is UTF-8, else bytes (opgen.model._scalar).
PyObject* string_value(Bytes bytes) {
  PyObject* value = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), nullptr);
  if (value || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return value;
  PyErr_Clear();
  return PyBytes_FromStringAndSize(bytes.data(), Py_ssize_t(bytes.size()));
}

PyObject* float_value(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return PyFloat_FromDouble(double(value));
}

// The dict keys of the records, interned once.
struct Keys {
  PyObject *name, *kind, *type_attr, *fixed_type, *number_attr, *type_list_attr, *is_ref,
      *description, *api_name, *type, *default_, *allowed_values, *minimum, *inferred_from,
      *is_list, *element_type, *inputs, *outputs, *inferred_attrs, *required_attrs,
      *optional_attrs, *summary, *deprecation, *is_stateful, *is_commutative, *is_aggregate,
      *allows_uninitialized_input, *is_distributed_communication, *control_outputs,
      *visibility, *endpoints, *deprecated_endpoints, *input_order, *signature_inputs,
      *caller_attrs, *VISIBLE, *empty_text, *empty_tuple;
};
Keys keys;

bool make_keys() {
#define KEY(field, text) \
  if (!(keys.field = PyUnicode_InternFromString(text))) return false;
  KEY(name, "name") KEY(kind, "kind") KEY(type_attr, "type_attr") KEY(fixed_type, "fixed_type")
  KEY(number_attr, "number_attr") KEY(type_list_attr, "type_list_attr") KEY(is_ref, "is_ref")
  KEY(description, "description") KEY(api_name, "api_name") KEY(type, "type")
  KEY(default_, "default") KEY(allowed_values, "allowed_values") KEY(minimum, "minimum")
  KEY(inferred_from, "inferred_from") KEY(is_list, "is_list") KEY(element_type, "element_type")
  KEY(inputs, "inputs") KEY(outputs, "outputs") KEY(inferred_attrs, "inferred_attrs")
  KEY(required_attrs, "required_attrs") KEY(optional_attrs, "optional_attrs")
  KEY(summary, "summary") KEY(deprecation, "deprecation") KEY(is_stateful, "is_stateful")
  KEY(is_commutative, "is_commutative") KEY(is_aggregate, "is_aggregate")
  KEY(allows_uninitialized_input, "allows_uninitialized_input")
  KEY(is_distributed_communication, "is_distributed_communication")
  KEY(control_outputs, "control_outputs") KEY(visibility, "visibility")
  KEY(endpoints, "endpoints") KEY(deprecated_endpoints, "deprecated_endpoints")
  KEY(input_order, "input_order") KEY(signature_inputs, "signature_inputs")
  KEY(caller_attrs, "caller_attrs") KEY(VISIBLE, "VISIBLE") KEY(empty_text, "")
#undef KEY
  return (keys.empty_tuple = PyTuple_New(0)) != nullptr;
}

// What op_specs needs from opgen.model, passed by it (see model._native_context).
struct Context {
  PyObject *op_spec, *arg_spec, *attr_spec, *deprecation;
  PyObject *single, *number_list, *type_list;
  PyObject *no_default, *dtype, *new_attr;
  Rules rules;
};

bool set(PyObject* dict, PyObject* key, PyObject* value) {   // steals value
  if (!value) return false;
  int rc = PyDict_SetItem(dict, key, value);
  Py_DECREF(value);
  return rc == 0;
}

bool set_borrowed(PyObject* dict, PyObject* key, PyObject* value) {
  return PyDict_SetItem(dict, key, value) == 0;
}

// An instance of frozen dataclass `cls` whose __dict__ is `values`, as model.make_frozen.
PyObject* make_frozen(PyObject* cls, PyObject* values) {
  Ref record(PyBaseObject_Type.tp_new(reinterpret_cast<PyTypeObject*>(cls), keys.empty_tuple,
                                      nullptr));
  if (!record || PyObject_GenericSetDict(record.get(), values, nullptr) < 0) return nullptr;
  return record.release();
}

PyObject* optional_text(Bytes bytes) {
  if (bytes.empty()) Py_RETURN_NONE;
  return text(bytes);
}

PyObject* dtype(const Context& ctx, int64_t value) {
  Ref number(PyLong_FromLongLong(value));
  return number ? PyObject_CallOneArg(ctx.dtype, number.get()) : nullptr;
}

// model._arg_spec of an op without ApiDef.
PyObject* arg_spec(const Context& ctx, const ArgInfo& arg) {
  Ref values(PyDict_New());
  if (!values) return nullptr;
  PyObject* kind = !arg.type_list_attr.empty() ? ctx.type_list
                   : !arg.number_attr.empty()  ? ctx.number_list
                                               : ctx.single;
  PyObject* d = values.get();
  if (!set(d, keys.name, text(arg.name)) || !set_borrowed(d, keys.kind, kind) ||
      !set(d, keys.type_attr, optional_text(arg.type_attr)) ||
      !set(d, keys.fixed_type, arg.type ? dtype(ctx, arg.type) : Py_NewRef(Py_None)) ||
      !set(d, keys.number_attr, optional_text(arg.number_attr)) ||
      !set(d, keys.type_list_attr, optional_text(arg.type_list_attr)) ||
      !set(d, keys.is_ref, PyBool_FromLong(arg.is_ref)) ||
      !set(d, keys.description, text(arg.description)) ||
      !set_borrowed(d, keys.api_name, keys.empty_text))
    return nullptr;
  return make_frozen(ctx.arg_spec, d);
}

// One scalar of `element` from an AttrValue list or member.
PyObject* scalar_value(const Context& ctx, Bytes element, uint64_t integer, uint32_t bits,
                       Bytes bytes) {
  if (element == "string") return string_value(bytes);
  if (element == "int") return PyLong_FromLongLong(int64_t(integer));
  if (element == "float") return float_value(bits);
  if (element == "bool") return PyBool_FromLong(integer != 0);
  return dtype(ctx, int32_t(integer));   // "type"
}

// model.attr_value_to_python for the scalar kinds: a list for list types.
PyObject* default_value(const Context& ctx, const AttrInfo& attr, const AttrValue& value) {
  Bytes element = attr.element->name;
  if (!attr.is_list)
    return scalar_value(ctx, element, value.scalar, value.float_bits, value.payload);
  const std::vector<uint64_t>& ints = value.ints(attr.element->list_field);
  size_t n = element == "string" ? value.strings.size()
             : element == "float" ? value.floats.size()
                                  : ints.size();
  Ref list(PyList_New(Py_ssize_t(n)));
  if (!list) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item =
        element == "string"  ? string_value(value.strings[i])
        : element == "float" ? float_value(value.floats[i])
                             : scalar_value(ctx, element, ints[i], 0, Bytes());
    if (!item) return nullptr;
    PyList_SET_ITEM(list.get(), Py_ssize_t(i), item);
  }
  return list.release();
}

// model._allowed_values: DType tuples are shared by their values within one call.
PyObject* allowed_values(const Context& ctx, const AttrInfo& attr, PyObject* type_cache) {
  AttrValue allowed;
  if (!read_attr_value(attr.allowed_bytes, &allowed)) {
    PyErr_SetString(PyExc_ValueError, "unreadable allowed_values");
    return nullptr;
  }
  bool types = attr.element->name == "type";
  // only the element's own ListValue field counts (a valid attr holds no other)
  size_t n = types ? allowed.list_type.size() : allowed.strings.size();
  Ref key(PyTuple_New(Py_ssize_t(n)));
  if (!key) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = types ? PyLong_FromLong(int32_t(allowed.list_type[i]))
                           : string_value(allowed.strings[i]);
    if (!item) return nullptr;
    PyTuple_SET_ITEM(key.get(), Py_ssize_t(i), item);
  }
  if (!types) return key.release();
  PyObject* cached = PyDict_GetItemWithError(type_cache, key.get());
  if (cached) return Py_NewRef(cached);
  if (PyErr_Occurred()) return nullptr;
  Ref dtypes(PyTuple_New(Py_ssize_t(n)));
  if (!dtypes) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = PyObject_CallOneArg(ctx.dtype, PyTuple_GET_ITEM(key.get(), Py_ssize_t(i)));
    if (!item) return nullptr;
    PyTuple_SET_ITEM(dtypes.get(), Py_ssize_t(i), item);
  }
  if (PyDict_SetItem(type_cache, key.get(), dtypes.get()) < 0) return nullptr;
  return dtypes.release();
}

// model._attr_spec of an attr no input infers, for an op without ApiDef.
PyObject* attr_spec(const Context& ctx, const AttrInfo& attr, PyObject* type_cache) {
  Bytes element = attr.element->name;
  bool converted = element == "string" || element == "int" || element == "float" ||
                   element == "bool" || element == "type";
  if (attr.has_default && !converted) {
    Ref bytes(PyBytes_FromStringAndSize(attr.bytes.data(), Py_ssize_t(attr.bytes.size())));
    return bytes ? PyObject_CallOneArg(ctx.new_attr, bytes.get()) : nullptr;
  }
  Ref values(PyDict_New());
  if (!values) return nullptr;
  PyObject* d = values.get();
  PyObject* default_object;
  if (attr.has_default) {
    AttrValue value;
    if (!read_attr_value(attr.default_bytes, &value)) {
      PyErr_SetString(PyExc_ValueError, "unreadable default_value");
      return nullptr;
    }
    default_object = default_value(ctx, attr, value);
  } else {
    default_object = Py_NewRef(ctx.no_default);
  }
  if (!set(d, keys.name, text(attr.name)) || !set(d, keys.type, text(attr.type)) ||
      !set(d, keys.default_, default_object) ||
      !set(d, keys.allowed_values,
           attr.has_allowed ? allowed_values(ctx, attr, type_cache) : Py_NewRef(Py_None)) ||
      !set(d, keys.minimum,
           attr.has_minimum ? PyLong_FromLongLong(attr.minimum) : Py_NewRef(Py_None)) ||
      !set_borrowed(d, keys.inferred_from, keys.empty_tuple) ||
      !set(d, keys.description, text(attr.description)) ||
      !set_borrowed(d, keys.api_name, keys.empty_text) ||
      !set(d, keys.is_list, PyBool_FromLong(attr.is_list)) ||
      !set(d, keys.element_type, text(element)))
    return nullptr;
  return make_frozen(ctx.attr_spec, d);
}

// The spec of `attr` inferred from the inputs `sources`, shared by (attr, sources)
// within one call as model.SharedSpecs.inferred does.
PyObject* inferred_spec(const Context& ctx, int attr_id, PyObject* plain, PyObject* sources,
                        PyObject* cache) {
  Ref id(PyLong_FromLong(attr_id));
  if (!id) return nullptr;
  Ref key(PyTuple_Pack(2, id.get(), sources));
  if (!key) return nullptr;
  PyObject* cached = PyDict_GetItemWithError(cache, key.get());
  if (cached) return Py_NewRef(cached);
  if (PyErr_Occurred()) return nullptr;
  PyObject* plain_dict = PyObject_GenericGetDict(plain, nullptr);
  if (!plain_dict) return nullptr;
  Ref values(PyDict_Copy(plain_dict));
  Py_DECREF(plain_dict);
  if (!values || !set_borrowed(values.get(), keys.inferred_from, sources)) return nullptr;
  Ref spec(make_frozen(ctx.attr_spec, values.get()));
  if (!spec || PyDict_SetItem(cache, key.get(), spec.get()) < 0) return nullptr;
  return spec.release();
}

PyObject* deprecation(const Context& ctx, Bytes bytes) {
  Reader r(bytes);
  uint32_t number, wire_type;
  uint64_t version = 0;
  Bytes explanation;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) break;
    if (number == 1 && wire_type == kVarint) {
      if (!r.varint(&version)) break;
    } else if (number == 2 && wire_type == kLengthDelimited) {
      if (!r.length_delimited(&explanation)) break;
    } else if (!r.skip(wire_type, number)) {
      break;
    }
  }
  if (!r.ok) {
    PyErr_SetString(PyExc_ValueError, "unreadable OpDeprecation");
    return nullptr;
  }
  Ref text_object(text(explanation));
  if (!text_object) return nullptr;
  return PyObject_CallFunction(ctx.deprecation, "iO", int(int32_t(version)), text_object.get());
}

PyObject* tuple_of(const std::vector<PyObject*>& items) {   // borrowed items
  PyObject* tuple = PyTuple_New(Py_ssize_t(items.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < items.size(); ++i)
    PyTuple_SET_ITEM(tuple, Py_ssize_t(i), Py_NewRef(items[i]));
  return tuple;
}

PyObject* arg_tuple(const Scan& scan, const std::vector<int>& ids) {
  PyObject* tuple = PyTuple_New(Py_ssize_t(ids.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < ids.size(); ++i)
    PyTuple_SET_ITEM(tuple, Py_ssize_t(i), Py_NewRef(scan.args[ids[i]].spec));
  return tuple;
}

// model._spec_from_wire, from the scanned op.
PyObject* op_spec(const Context& ctx, const Scan& scan, const OpInfo& op, PyObject* inferred_cache) {
  Ref inputs(arg_tuple(scan, op.inputs));
  Ref outputs(arg_tuple(scan, op.outputs));
  if (!inputs || !outputs) return nullptr;
  // attr name -> the names of the inputs it follows from, in input order
  std::vector<std::pair<Bytes, std::vector<int>>> inferred_from;
  for (int id : op.inputs) {
    const ArgInfo& arg = scan.args[id];
    for (Bytes attr_name : {arg.type_attr, arg.number_attr, arg.type_list_attr}) {
      if (attr_name.empty()) continue;
      auto it = inferred_from.begin();
      while (it != inferred_from.end() && it->first != attr_name) ++it;
      if (it == inferred_from.end()) {
        inferred_from.push_back({attr_name, {}});
        it = inferred_from.end() - 1;
      }
      it->second.push_back(id);
    }
  }
  std::vector<PyObject*> required, optional;   // borrowed from the attr specs
  struct Owned {                                // the inferred specs: new references
    std::vector<PyObject*> items;
    ~Owned() {
      for (PyObject* o : items) Py_DECREF(o);
    }
  } inferred;
  for (int id : op.attrs) {
    const AttrInfo& attr = scan.attrs[id];
    const std::vector<int>* sources = nullptr;
    for (const auto& [name, ids] : inferred_from)
      if (name == attr.name) sources = &ids;
    if (sources) {
      Ref names(PyTuple_New(Py_ssize_t(sources->size())));
      if (!names) return nullptr;
      for (size_t i = 0; i < sources->size(); ++i) {
        PyTuple_SET_ITEM(names.get(), Py_ssize_t(i), Py_NewRef(scan.args[(*sources)[i]].spec_name));
      }
      PyObject* spec = inferred_spec(ctx, id, attr.spec, names.get(), inferred_cache);
      if (!spec) return nullptr;
      inferred.items.push_back(spec);
      continue;
    }
    (attr.required ? required : optional).push_back(attr.spec);
  }
  std::vector<PyObject*> caller = required;
  caller.insert(caller.end(), optional.begin(), optional.end());
  Ref control(PyTuple_New(Py_ssize_t(op.control_outputs.size())));
  if (!control) return nullptr;
  for (size_t i = 0; i < op.control_outputs.size(); ++i) {
    PyObject* item = text(op.control_outputs[i]);
    if (!item) return nullptr;
    PyTuple_SET_ITEM(control.get(), Py_ssize_t(i), item);
  }
  Ref name(text(op.name));
  if (!name) return nullptr;
  Ref endpoints(PyTuple_Pack(1, name.get()));
  Ref values(PyDict_New());
  if (!endpoints || !values) return nullptr;
  PyObject* d = values.get();
  if (!set_borrowed(d, keys.name, name.get()) || !set_borrowed(d, keys.inputs, inputs.get()) ||
      !set_borrowed(d, keys.outputs, outputs.get()) ||
      !set(d, keys.inferred_attrs, tuple_of(inferred.items)) ||
      !set(d, keys.required_attrs, tuple_of(required)) ||
      !set(d, keys.optional_attrs, tuple_of(optional)) ||
      !set(d, keys.summary, text(op.summary)) ||
      !set(d, keys.description, text(op.description)) ||
      !set(d, keys.deprecation,
           op.has_deprecation ? deprecation(ctx, op.deprecation) : Py_NewRef(Py_None)) ||
      !set(d, keys.is_stateful, PyBool_FromLong(op.is_stateful)) ||
      !set(d, keys.is_commutative, PyBool_FromLong(op.is_commutative)) ||
      !set(d, keys.is_aggregate, PyBool_FromLong(op.is_aggregate)) ||
      !set(d, keys.allows_uninitialized_input, PyBool_FromLong(op.allows_uninitialized_input)) ||
      !set(d, keys.is_distributed_communication,
           PyBool_FromLong(op.is_distributed_communication)) ||
      !set_borrowed(d, keys.control_outputs, control.get()) ||
      !set_borrowed(d, keys.visibility, keys.VISIBLE) ||
      !set_borrowed(d, keys.endpoints, endpoints.get()) ||
      !set_borrowed(d, keys.deprecated_endpoints, keys.empty_tuple) ||
      !set_borrowed(d, keys.input_order, keys.empty_tuple) ||
      !set_borrowed(d, keys.signature_inputs, inputs.get()) ||
      !set(d, keys.caller_attrs, tuple_of(caller)))
    return nullptr;
  return make_frozen(ctx.op_spec, d);
}

bool read_bytes_arg(PyObject* object, Bytes* out) {
  char* data;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(object, &data, &size) < 0) return false;
  *out = Bytes(data, size_t(size));
  return true;
}

PyObject* py_check(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Bytes data;
  Rules rules;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "check(data, data_types)");
    return nullptr;
  }
  if (!read_bytes_arg(args[0], &data) || !read_rules(args[1], &rules)) return nullptr;
  Scan scan;
  if (!scan_oplist(data, rules, &scan)) Py_RETURN_NONE;
  return PyBool_FromLong(scan.all_valid);
}

PyObject* op_specs(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 2 || nargs > 3 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != 11) {
    PyErr_SetString(PyExc_TypeError,
                    "op_specs(data, context, skip=None): context is an 11-tuple");
    return nullptr;
  }
  PyObject* skip = nargs == 3 && args[2] != Py_None ? args[2] : nullptr;
  Bytes data;
  Context ctx;
  PyObject* c = args[1];
  ctx.op_spec = PyTuple_GET_ITEM(c, 0);
  ctx.arg_spec = PyTuple_GET_ITEM(c, 1);
  ctx.attr_spec = PyTuple_GET_ITEM(c, 2);
  ctx.deprecation = PyTuple_GET_ITEM(c, 3);
  ctx.single = PyTuple_GET_ITEM(c, 4);
  ctx.number_list = PyTuple_GET_ITEM(c, 5);
  ctx.type_list = PyTuple_GET_ITEM(c, 6);
  ctx.no_default = PyTuple_GET_ITEM(c, 7);
  ctx.dtype = PyTuple_GET_ITEM(c, 8);
  ctx.new_attr = PyTuple_GET_ITEM(c, 9);
  for (PyObject* cls : {ctx.op_spec, ctx.arg_spec, ctx.attr_spec}) {
    if (!PyType_Check(cls)) {
      PyErr_SetString(PyExc_TypeError, "op_specs: the record classes must be types");
      return nullptr;
    }
  }
  if (!read_bytes_arg(args[0], &data) || !read_rules(PyTuple_GET_ITEM(c, 10), &ctx.rules))
    return nullptr;
  Scan scan;
  if (!scan_oplist(data, ctx.rules, &scan) || !scan.all_valid) Py_RETURN_NONE;
  // The cyclic collector would walk every record made so far, several times over, while
  // none of them can be part of a cycle yet: it is paused for the call (~40% of it).
  struct PauseGC {
    int was_enabled = PyGC_Disable();
    ~PauseGC() {
      if (was_enabled) PyGC_Enable();
    }
  } pause_gc;

  // Specs of the distinct args and attrs, held by these lists for the call.
  Ref arg_specs(PyList_New(Py_ssize_t(scan.args.size())));
  Ref attr_specs(PyList_New(Py_ssize_t(scan.attrs.size())));
  Ref type_cache(PyDict_New()), inferred_cache(PyDict_New());
  if (!arg_specs || !attr_specs || !type_cache || !inferred_cache) return nullptr;
  for (size_t i = 0; i < scan.args.size(); ++i) {
    PyObject* spec = arg_spec(ctx, scan.args[i]);
    if (!spec) return nullptr;
    PyList_SET_ITEM(arg_specs.get(), Py_ssize_t(i), spec);
    scan.args[i].spec = spec;
    PyObject* name = PyObject_GetAttr(spec, keys.name);   // the spec keeps it alive
    if (!name) return nullptr;
    Py_DECREF(name);
    scan.args[i].spec_name = name;
  }
  for (size_t i = 0; i < scan.attrs.size(); ++i) {
    PyObject* spec = attr_spec(ctx, scan.attrs[i], type_cache.get());
    if (!spec) return nullptr;
    PyList_SET_ITEM(attr_specs.get(), Py_ssize_t(i), spec);
    scan.attrs[i].spec = spec;
    PyObject* default_object = PyObject_GetAttr(spec, keys.default_);
    if (!default_object) return nullptr;
    scan.attrs[i].required = default_object == ctx.no_default;
    Py_DECREF(default_object);
  }
  Ref specs(PyList_New(Py_ssize_t(scan.ops.size())));
  if (!specs) return nullptr;
  for (size_t i = 0; i < scan.ops.size(); ++i) {
    if (skip) {   // ops the caller builds itself (those with an ApiDef) stay None
      Ref name(text(scan.ops[i].name));
      if (!name) return nullptr;
      int skipped = PySequence_Contains(skip, name.get());
      if (skipped < 0) return nullptr;
      if (skipped) {
        PyList_SET_ITEM(specs.get(), Py_ssize_t(i), Py_NewRef(Py_None));
        continue;
      }
    }
    PyObject* spec = op_spec(ctx, scan, scan.ops[i], inferred_cache.get());
    if (!spec) return nullptr;
    PyList_SET_ITEM(specs.get(), Py_ssize_t(i), spec);
  }
  return specs.release();
}

PyObject* py_op_specs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* specs = op_specs(self, args, nargs);
  // Text that is not UTF-8 never comes from protobuf (it refuses such proto3 strings):
  // these bytes are not what this module reads, so the Python path takes them.
  if (!specs && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  return specs;
}

// The ops of a serialized OpList, sorted by name (stably), as one serialized OpList;
// None when it holds a field other than op, or bytes that do not read.
PyObject* py_sorted_by_name(PyObject*, PyObject* data_object) {
  Bytes data;
  if (!read_bytes_arg(data_object, &data)) return nullptr;
  struct Field {
    Bytes name, field;
  };
  std::vector<Field> fields;
  Reader r(data);
  uint32_t number, wire_type;
  while (r.more()) {
    const char* start = reinterpret_cast<const char*>(r.p);
    Bytes body;
    if (!r.tag(&number, &wire_type) || number != 1 || wire_type != kLengthDelimited ||
        !r.length_delimited(&body))
      Py_RETURN_NONE;
    Field f{Bytes(), Bytes(start, size_t(reinterpret_cast<const char*>(r.p) - start))};
    Reader op(body);   // the name: last one wins, as protobuf reads it
    uint32_t op_number, op_wire_type;
    while (op.more()) {
      if (!op.tag(&op_number, &op_wire_type)) Py_RETURN_NONE;
      if (op_number == 1 && op_wire_type == kLengthDelimited) {
        if (!op.length_delimited(&f.name)) Py_RETURN_NONE;
      } else if (!op.skip(op_wire_type, op_number)) {
        Py_RETURN_NONE;
      }
    }
    fields.push_back(f);
  }
  // UTF-8 byte order is code point order, which is how Python sorts the names
  std::stable_sort(fields.begin(), fields.end(),
                   [](const Field& a, const Field& b) { return a.name < b.name; });
  PyObject* out = PyBytes_FromStringAndSize(nullptr, Py_ssize_t(data.size()));
  if (!out) return nullptr;
  char* cursor = PyBytes_AS_STRING(out);
  for (const Field& f : fields) {
    std::memcpy(cursor, f.field.data(), f.field.size());
    cursor += f.field.size();
  }
  return out;
}

PyMethodDef methods[] = {
    {"sorted_by_name", py_sorted_by_name, METH_O,
     "sorted_by_name(data) -> bytes | None: the ops of serialized OpList `data` in name "
     "order (stable), serialized; None when `data` holds other fields or does not read."},
    {"check", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_check)),
     METH_FASTCALL,
     "check(data, data_types) -> bool | None: whether every op of the canonical OpList "
     "bytes `data` is valid and op names are distinct; None when the bytes hold something "
     "this module does not read."},
    {"op_specs", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_op_specs)),
     METH_FASTCALL,
     "op_specs(data, context, skip=None) -> list[OpSpec | None] | None: the OpSpecs of "
     "every op, in input order, as opgen.model builds them for ops without ApiDef (None for "
     "ops whose name is in `skip`); None unless check() holds."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "opgen._oplist_scan",
    "The generator's front end for valid OpLists, compiled (see opgen.opdef_wire).", -1,
    methods, nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__oplist_scan(void) {
  if (!make_keys()) return nullptr;
  return PyModule_Create(&module);
}
