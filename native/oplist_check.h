// Reading and validating an OpList from its wire bytes, without Python: each distinct
// ArgDef and AttrDef is read and checked once (by its bytes), then each op's
// cross-references. The rules are opgen.opdefs' (its validator is the reference; see
// oplist_scan.cc); field numbers are those of protos/op_def.proto and attr_value.proto.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "wire_reader.h"   // runtime/src: the cursor the runtime's readers use too

namespace opgen_native {

using opgen::wire::Bytes;
using opgen::wire::Reader;
using opgen::wire::repeated;
using opgen::wire::kVarint;
using opgen::wire::kLengthDelimited;
using opgen::wire::kFixed32;

constexpr uint32_t kAttrValueList = 1;   // AttrValue.list

// An attr type's element and where its values live: the AttrValue oneof field of a
// scalar, the ListValue field of a list.
struct Element {
  Bytes name;
  uint32_t scalar_field;
  uint32_t list_field;
};

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
};

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

// The values of AttrValue bytes; false when they do not read.
bool read_attr_value(Bytes bytes, AttrValue* value);

// Reads `data` (a serialized OpList) into `scan` and validates it: false (nothing
// decided) when the bytes do not read; else scan->all_valid says whether every op
// passed and op names are distinct.
bool scan_oplist(Bytes data, const Rules& rules, Scan* scan);

}  // namespace opgen_native
