#include "node_attrs.h"

#include <algorithm>

#include "kernel_registry.h"

namespace opgen {
namespace {

AttrValue::Kind KindOf(const std::string& type) {
  static const std::pair<const char*, AttrValue::Kind> kKinds[] = {
      {"string", AttrValue::kString},     {"int", AttrValue::kInt},
      {"float", AttrValue::kFloat},       {"bool", AttrValue::kBool},
      {"type", AttrValue::kType},         {"shape", AttrValue::kShape},
      {"tensor", AttrValue::kTensor},     {"func", AttrValue::kFunc},
      {"list(string)", AttrValue::kListString}, {"list(int)", AttrValue::kListInt},
      {"list(float)", AttrValue::kListFloat},   {"list(bool)", AttrValue::kListBool},
      {"list(type)", AttrValue::kListType},     {"list(shape)", AttrValue::kListShape},
      {"list(tensor)", AttrValue::kListTensor}, {"list(func)", AttrValue::kListFunc}};
  for (const auto& k : kKinds)
    if (type == k.first) return k.second;
  return AttrValue::kNone;
}

std::string TypeName(TF_DataType t) { return DataTypeName(t); }

std::string AllowedTypes(const AttrDef& attr) {
  std::string s;
  for (TF_DataType t : attr.allowed_values.list_type) {
    if (!s.empty()) s += ", ";
    s += TypeName(t);
  }
  return "{" + s + "}";
}

// Sets attr `name` to `value`, or checks it agrees with what is already there.
bool SetOrCheck(const OpDef& op, const std::string& arg, const std::string& name,
                const AttrValue& value, AttrMap* attrs, TF_Status* status) {
  auto it = attrs->find(name);
  if (it == attrs->end()) {
    (*attrs)[name] = value;
    return true;
  }
  AttrValue& have = it->second;
  // An empty list read from a NodeDef ("list {}") carries no element kind: it is the
  // empty list of types that no inputs imply.
  if (value.kind == AttrValue::kListType && value.list_type.empty() && have.IsList() &&
      have.ListSize() == 0) {
    have = value;
    return true;
  }
  bool same = have.kind == value.kind &&
              (value.kind == AttrValue::kType ? have.type == value.type
               : value.kind == AttrValue::kInt ? have.i == value.i
                                               : have.list_type == value.list_type);
  if (!same) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              op.name + ": input '" + arg + "' implies " + name + "=" +
                  AttrValueToString(value) + ", but " + name + "=" + AttrValueToString(have) +
                  " was given");
    return false;
  }
  return true;
}

}  // namespace

void CompleteAttrs(const OpDef& op, const InputDtypes& inputs, AttrMap* attrs,
                   TF_Status* status) {
  if (inputs.size() != op.input_arg.size()) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              op.name + " expects " + std::to_string(op.input_arg.size()) + " inputs, got " +
                  std::to_string(inputs.size()));
    return;
  }
  for (size_t i = 0; i < op.input_arg.size(); ++i) {
    const ArgDef& arg = op.input_arg[i];
    const std::vector<TF_DataType>& dtypes = inputs[i];
    bool is_list = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    if (!is_list && dtypes.size() != 1) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                op.name + ": input '" + arg.name + "' takes one tensor, got " +
                    std::to_string(dtypes.size()));
      return;
    }
    if (!arg.number_attr.empty()) {
      AttrValue n;
      n.kind = AttrValue::kInt;
      n.i = static_cast<int64_t>(dtypes.size());
      if (!SetOrCheck(op, arg.name, arg.number_attr, n, attrs, status)) return;
    }
    if (!arg.type_list_attr.empty()) {
      AttrValue types;
      types.kind = AttrValue::kListType;
      types.list_type = dtypes;
      if (!SetOrCheck(op, arg.name, arg.type_list_attr, types, attrs, status)) return;
    } else if (!arg.type_attr.empty()) {
      if (!dtypes.empty()) {
        for (TF_DataType t : dtypes) {
          if (t != dtypes[0]) {
            SetStatus(status, TF_INVALID_ARGUMENT,
                      op.name + ": the tensors of list input '" + arg.name +
                          "' must share one dtype, got " + TypeName(dtypes[0]) + " and " +
                          TypeName(t));
            return;
          }
        }
        AttrValue t;
        t.kind = AttrValue::kType;
        t.type = dtypes[0];
        if (!SetOrCheck(op, arg.name, arg.type_attr, t, attrs, status)) return;
      }
    } else {
      for (TF_DataType t : dtypes) {
        if (t != arg.type) {
          SetStatus(status, TF_INVALID_ARGUMENT,
                    op.name + ": input '" + arg.name + "' must be " + TypeName(arg.type) +
                        ", got " + TypeName(t));
          return;
        }
      }
    }
  }
  for (const auto& [name, value] : *attrs) {
    if (op.FindAttr(name) == nullptr) {
      SetStatus(status, TF_INVALID_ARGUMENT, op.name + " has no attr named '" + name + "'");
      return;
    }
  }
  for (const AttrDef& attr : op.attr) {
    auto it = attrs->find(attr.name);
    if (it == attrs->end()) {
      if (!attr.has_default) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  op.name + " is missing required attr '" + attr.name + "' (" + attr.type + ")");
        return;
      }
      it = attrs->emplace(attr.name, attr.default_value).first;
    }
    const AttrValue& v = it->second;
    const std::string where = op.name + ": attr '" + attr.name + "'";
    AttrValue::Kind want = KindOf(attr.type);
    // An empty list set through a setter of another element kind is still an empty list.
    bool empty_list_ok = v.IsList() && v.ListSize() == 0 && want >= AttrValue::kListString;
    if (v.kind != want && !empty_list_ok) {
      SetStatus(status, TF_INVALID_ARGUMENT, where + " must be a " + attr.type);
      return;
    }
    if (attr.has_allowed_values) {
      if (v.kind == AttrValue::kType || v.kind == AttrValue::kListType) {
        const auto& allowed = attr.allowed_values.list_type;
        std::vector<TF_DataType> values =
            v.kind == AttrValue::kType ? std::vector<TF_DataType>{v.type} : v.list_type;
        for (TF_DataType t : values) {
          if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
            SetStatus(status, TF_INVALID_ARGUMENT,
                      where + " has value " + TypeName(t) + " not in the allowed list " +
                          AllowedTypes(attr));
            return;
          }
        }
      } else if (v.kind == AttrValue::kString) {
        const auto& allowed = attr.allowed_values.list_s;
        if (std::find(allowed.begin(), allowed.end(), v.s) == allowed.end()) {
          SetStatus(status, TF_INVALID_ARGUMENT,
                    where + " has value \"" + v.s + "\" not in the allowed list " +
                        AttrValueToString(attr.allowed_values));
          return;
        }
      }
    }
    if (attr.has_minimum) {
      int64_t got = v.kind == AttrValue::kInt ? v.i : static_cast<int64_t>(v.ListSize());
      if (got < attr.minimum) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  where + (v.kind == AttrValue::kInt ? " is " : " has length ") +
                      std::to_string(got) + ", below the minimum " + std::to_string(attr.minimum));
        return;
      }
    }
  }
  // A length attr sizes per-tensor structures before any kernel can compare it with its
  // inputs (Unpack's num): bound it, so a huge value is an error, not an allocation of
  // gigabytes, or a count that wraps in the C API's int.
  for (const std::vector<ArgDef>* args : {&op.input_arg, &op.output_arg}) {
    for (const ArgDef& arg : *args) {
      if (arg.number_attr.empty()) continue;
      const int64_t n = attrs->at(arg.number_attr).i;
      if (n < 0 || n > kMaxListArgLength) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  op.name + ": attr '" + arg.number_attr + "' is " + std::to_string(n) +
                      "; list arg '" + arg.name + "' holds 0 to " +
                      std::to_string(kMaxListArgLength) + " tensors");
        return;
      }
    }
  }
  ClearStatus(status);
}

std::vector<TF_DataType> OutputDtypes(const OpDef& op, const AttrMap& attrs) {
  std::vector<TF_DataType> out;
  for (const ArgDef& arg : op.output_arg) {
    if (!arg.type_list_attr.empty()) {
      const auto& types = attrs.at(arg.type_list_attr).list_type;
      out.insert(out.end(), types.begin(), types.end());
      continue;
    }
    TF_DataType t = arg.type_attr.empty() ? arg.type : attrs.at(arg.type_attr).type;
    int64_t n = arg.number_attr.empty() ? 1 : attrs.at(arg.number_attr).i;
    for (int64_t i = 0; i < n; ++i) out.push_back(t);
  }
  return out;
}

}  // namespace opgen
