// See oplist_check.h.
#include "oplist_check.h"

#include <unordered_map>
#include <unordered_set>

namespace opgen_native {
namespace {

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

constexpr Element kElements[] = {
    {"string", 2, 2}, {"int", 3, 3},   {"float", 4, 4},   {"bool", 5, 5},
    {"type", 6, 6},   {"shape", 7, 7}, {"tensor", 8, 8}, {"func", 10, 9},
};

const Element* find_element(Bytes attr_type, bool* is_list) {
  *is_list = attr_type.size() > 6 && attr_type.substr(0, 5) == "list(" && attr_type.back() == ')';
  Bytes element = *is_list ? attr_type.substr(5, attr_type.size() - 6) : attr_type;
  for (const Element& e : kElements)
    if (e.name == element) return &e;
  return nullptr;
}

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
        if (!repeated<kVarint>(r, wire_type, [&](uint64_t v) { ints.push_back(v); })) return false;
        value->count[number] = ints.size();
        read = true;
      }
    } else if (number == 4) {   // f
      if (wire_type == kFixed32 || wire_type == kLengthDelimited) {
        if (!repeated<kFixed32>(r, wire_type, [&](uint32_t v) { value->floats.push_back(v); }))
          return false;
        value->count[4] = value->floats.size();
        read = true;
      }
    }
    if (!read && !r.skip(wire_type, number)) return false;
  }
  return r.ok;
}


// ------------------------------------------------------------------ args and attrs

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

}  // namespace

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

}  // namespace opgen_native
