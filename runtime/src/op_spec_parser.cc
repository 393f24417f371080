// Parser for op-definition spec strings. The grammar (TensorFlow's):
//   attr:  NAME ":" KIND [">=" INT] ["=" DEFAULT]
//   KIND:  string | int | float | bool | type | shape | tensor | func | TYPESET | STRINGSET
//          | list "(" KIND ")"
//   TYPESET: "{" (dtype | type group) ("," ...)* "}" or a bare type group ("numbertypes")
//   arg:   NAME ":" ["Ref(" TYPE ")" | TYPE],  TYPE: dtype | ATTR | NUMBER_ATTR "*" TYPE
#include "op_spec_parser.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <utility>

#include "core_types.h"

namespace opgen {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool IsIdentifier(const std::string& s, bool allow_upper_first) {
  if (s.empty()) return false;
  char c = s[0];
  if (!(std::islower(static_cast<unsigned char>(c)) ||
        (allow_upper_first && std::isupper(static_cast<unsigned char>(c)))))
    return false;
  for (char ch : s)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

// Splits on commas that are not inside quotes or brackets.
std::vector<std::string> SplitTopLevel(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::string cur;
  for (char c : s) {
    if (quote) {
      cur += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty() || !parts.empty()) parts.push_back(Trim(cur));
  return parts;
}

struct NamedType {
  const char* name;
  TF_DataType type;
};
const NamedType kTypeNames[] = {
    {"float", TF_FLOAT}, {"double", TF_DOUBLE}, {"int32", TF_INT32}, {"uint8", TF_UINT8},
    {"int16", TF_INT16}, {"int8", TF_INT8}, {"string", TF_STRING},
    {"complex64", TF_COMPLEX64}, {"int64", TF_INT64}, {"bool", TF_BOOL},
    {"qint8", TF_QINT8}, {"quint8", TF_QUINT8}, {"qint32", TF_QINT32},
    {"bfloat16", TF_BFLOAT16}, {"qint16", TF_QINT16}, {"quint16", TF_QUINT16},
    {"uint16", TF_UINT16}, {"complex128", TF_COMPLEX128}, {"half", TF_HALF},
    {"resource", TF_RESOURCE}, {"variant", TF_VARIANT}, {"uint32", TF_UINT32},
    {"uint64", TF_UINT64}, {"float8_e5m2", TF_FLOAT8_E5M2},
    {"float8_e4m3fn", TF_FLOAT8_E4M3FN}, {"float8_e4m3fnuz", TF_FLOAT8_E4M3FNUZ},
    {"float8_e4m3b11fnuz", TF_FLOAT8_E4M3B11FNUZ}, {"float8_e5m2fnuz", TF_FLOAT8_E5M2FNUZ},
    {"int4", TF_INT4}, {"uint4", TF_UINT4}, {"int2", TF_INT2}, {"uint2", TF_UINT2},
};

// Type groups, in the order TensorFlow lists their members (allowed_values keep it).
const std::vector<TF_DataType>* TypeGroup(const std::string& name) {
  static const std::vector<TF_DataType> real = {
      TF_FLOAT, TF_DOUBLE, TF_INT32, TF_UINT8, TF_INT16, TF_INT8,
      TF_INT64, TF_BFLOAT16, TF_UINT16, TF_HALF, TF_UINT32, TF_UINT64};
  static const std::vector<TF_DataType> number = {
      TF_FLOAT, TF_DOUBLE, TF_INT32, TF_UINT8, TF_INT16, TF_INT8, TF_COMPLEX64,
      TF_INT64, TF_QINT8, TF_QUINT8, TF_QINT32, TF_BFLOAT16, TF_QINT16, TF_QUINT16,
      TF_UINT16, TF_COMPLEX128, TF_HALF, TF_UINT32, TF_UINT64};
  static const std::vector<TF_DataType> quantized = {TF_QINT8, TF_QUINT8, TF_QINT32,
                                                     TF_QINT16, TF_QUINT16};
  if (name == "realnumbertypes") return &real;
  if (name == "numbertypes") return &number;
  if (name == "quantizedtypes") return &quantized;
  return nullptr;
}

bool ParseInt(const std::string& text, int64_t* out) {
  std::string s = Trim(text);
  if (s.empty()) return false;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

bool ParseFloat(const std::string& text, float* out) {
  std::string s = Trim(text);
  if (s == "inf") { *out = __builtin_inff(); return true; }
  if (s == "-inf") { *out = -__builtin_inff(); return true; }
  if (s == "nan") { *out = __builtin_nanf(""); return true; }
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtof(s.c_str(), &end);
  return *end == '\0';
}

bool ParseQuoted(const std::string& text, std::string* out) {
  std::string s = Trim(text);
  if (s.size() < 2 || (s[0] != '\'' && s[0] != '"') || s.back() != s[0]) return false;
  out->clear();
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) {
      char n = s[++i];
      *out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
    } else {
      *out += s[i];
    }
  }
  return true;
}

bool ParseShape(const std::string& text, Shape* out) {
  std::string s = Trim(text);
  if (s == "?" || s == "<unknown>") {
    out->unknown_rank = true;
    out->dims.clear();
    return true;
  }
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  out->unknown_rank = false;
  out->dims.clear();
  std::string inner = Trim(s.substr(1, s.size() - 2));
  if (inner.empty()) return true;
  for (const std::string& part : SplitTopLevel(inner)) {
    int64_t d;
    if (part == "?") d = -1;
    else if (!ParseInt(part, &d)) return false;
    out->dims.push_back(d);
  }
  return true;
}

// Parses one scalar value of `kind` ("int", "type", ...) into `value`.
bool ParseScalarValue(const std::string& kind, const std::string& text, AttrValue* value) {
  std::string s = Trim(text);
  if (kind == "string") {
    value->kind = AttrValue::kString;
    return ParseQuoted(s, &value->s);
  }
  if (kind == "int") {
    value->kind = AttrValue::kInt;
    return ParseInt(s, &value->i);
  }
  if (kind == "float") {
    value->kind = AttrValue::kFloat;
    return ParseFloat(s, &value->f);
  }
  if (kind == "bool") {
    value->kind = AttrValue::kBool;
    if (s == "true") value->b = true;
    else if (s == "false") value->b = false;
    else return false;
    return true;
  }
  if (kind == "type") {
    value->kind = AttrValue::kType;
    return ParseDataTypeName(s, &value->type);
  }
  if (kind == "shape") {
    value->kind = AttrValue::kShape;
    return ParseShape(s, &value->shape);
  }
  return false;  // tensor and func defaults are not expressible in specs
}

bool ParseDefault(const std::string& type, const std::string& text, AttrValue* value) {
  if (!StartsWith(type, "list(")) return ParseScalarValue(type, text, value);
  std::string inner_kind = type.substr(5, type.size() - 6);
  std::string s = Trim(text);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  std::string inner = Trim(s.substr(1, s.size() - 2));
  std::vector<std::string> items;
  if (!inner.empty()) items = SplitTopLevel(inner);
  static const std::pair<const char*, AttrValue::Kind> kListKinds[] = {
      {"string", AttrValue::kListString}, {"int", AttrValue::kListInt},
      {"float", AttrValue::kListFloat},   {"bool", AttrValue::kListBool},
      {"type", AttrValue::kListType},     {"shape", AttrValue::kListShape}};
  value->kind = AttrValue::kNone;
  for (const auto& k : kListKinds)
    if (inner_kind == k.first) value->kind = k.second;
  if (value->kind == AttrValue::kNone) return false;
  for (const std::string& item : items) {
    AttrValue one;
    if (!ParseScalarValue(inner_kind, item, &one)) return false;
    switch (value->kind) {
      case AttrValue::kListString: value->list_s.push_back(one.s); break;
      case AttrValue::kListInt: value->list_i.push_back(one.i); break;
      case AttrValue::kListFloat: value->list_f.push_back(one.f); break;
      case AttrValue::kListBool: value->list_b.push_back(one.b); break;
      case AttrValue::kListType: value->list_type.push_back(one.type); break;
      case AttrValue::kListShape: value->list_shape.push_back(one.shape); break;
      default: return false;
    }
  }
  return true;
}

// Parses a KIND; fills type ("int", "list(type)") and allowed values.
std::string ParseKind(const std::string& text, AttrDef* attr) {
  std::string s = Trim(text);
  bool is_list = false;
  if (StartsWith(s, "list(") && s.back() == ')') {
    is_list = true;
    s = Trim(s.substr(5, s.size() - 6));
  }
  static const std::set<std::string> kScalarKinds = {"string", "int", "float", "bool",
                                                     "type", "shape", "tensor", "func"};
  std::string kind;
  if (kScalarKinds.count(s)) {
    kind = s;
  } else if (TypeGroup(s) != nullptr) {
    kind = "type";
    attr->has_allowed_values = true;
    attr->allowed_values.kind = AttrValue::kListType;
    attr->allowed_values.list_type = *TypeGroup(s);
  } else if (s.size() >= 2 && s.front() == '{' && s.back() == '}') {
    std::vector<std::string> items = SplitTopLevel(s.substr(1, s.size() - 2));
    if (items.empty() || items[0].empty()) return "an empty set of allowed values";
    attr->has_allowed_values = true;
    if (items[0][0] == '\'' || items[0][0] == '"') {
      kind = "string";
      attr->allowed_values.kind = AttrValue::kListString;
      for (const std::string& item : items) {
        std::string v;
        if (!ParseQuoted(item, &v)) return "bad string '" + item + "' in a set of strings";
        attr->allowed_values.list_s.push_back(v);
      }
    } else {
      kind = "type";
      attr->allowed_values.kind = AttrValue::kListType;
      std::vector<TF_DataType>& types = attr->allowed_values.list_type;
      auto add = [&types](TF_DataType t) {
        for (TF_DataType have : types) if (have == t) return;
        types.push_back(t);
      };
      for (const std::string& item : items) {
        TF_DataType t;
        if (const auto* group = TypeGroup(item)) {
          for (TF_DataType g : *group) add(g);
        } else if (ParseDataTypeName(item, &t)) {
          add(t);
        } else {
          return "unknown type '" + item + "'";
        }
      }
    }
  } else {
    return "unknown attr type '" + s + "'";
  }
  attr->type = is_list ? "list(" + kind + ")" : kind;
  return "";
}

}  // namespace

bool ParseDataTypeName(const std::string& name, TF_DataType* out) {
  std::string s = Trim(name);
  if (StartsWith(s, "DT_")) {
    s = s.substr(3);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const NamedType& nt : kTypeNames) {
    if (s == nt.name) {
      *out = nt.type;
      return true;
    }
  }
  return false;
}

std::string ParseAttrSpec(const std::string& spec, AttrDef* attr) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return "expected 'name: type'";
  attr->name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(attr->name, /*allow_upper_first=*/true))
    return "bad attr name '" + attr->name + "'";
  std::string rest = spec.substr(colon + 1);
  // The default comes after the first '=' that is not part of '>=' and not quoted.
  size_t eq = std::string::npos;
  char quote = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (quote) { if (c == quote) quote = 0; continue; }
    if (c == '\'' || c == '"') { quote = c; continue; }
    if (c == '=' && (i == 0 || rest[i - 1] != '>')) { eq = i; break; }
  }
  std::string kind_part = Trim(rest.substr(0, eq));
  std::string default_part = eq == std::string::npos ? "" : Trim(rest.substr(eq + 1));
  size_t ge = kind_part.find(">=");
  if (ge != std::string::npos) {
    int64_t minimum;
    if (!ParseInt(kind_part.substr(ge + 2), &minimum))
      return "bad minimum '" + Trim(kind_part.substr(ge + 2)) + "'";
    attr->has_minimum = true;
    attr->minimum = minimum;
    kind_part = Trim(kind_part.substr(0, ge));
  }
  std::string error = ParseKind(kind_part, attr);
  if (!error.empty()) return error;
  if (attr->has_minimum && attr->type != "int" && !StartsWith(attr->type, "list("))
    return "a minimum ('>=') is only allowed on int and list attrs";
  if (eq != std::string::npos) {
    if (default_part.empty()) return "missing default after '='";
    attr->has_default = true;
    if (!ParseDefault(attr->type, default_part, &attr->default_value))
      return "cannot parse default '" + default_part + "' as " + attr->type;
  }
  return "";
}

std::string ParseArgSpec(const std::string& spec, ArgDef* arg) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return "expected 'name: type'";
  arg->name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(arg->name, /*allow_upper_first=*/false))
    return "bad arg name '" + arg->name + "' (lower case letters, digits and _)";
  std::string type = Trim(spec.substr(colon + 1));
  if (StartsWith(type, "Ref(") && type.back() == ')') {
    arg->is_ref = true;
    type = Trim(type.substr(4, type.size() - 5));
  }
  size_t star = type.find('*');
  if (star != std::string::npos) {
    arg->number_attr = Trim(type.substr(0, star));
    type = Trim(type.substr(star + 1));
    if (!IsIdentifier(arg->number_attr, true))
      return "bad length attr '" + arg->number_attr + "'";
  }
  if (type.empty()) return "missing type";
  TF_DataType dt;
  if (ParseDataTypeName(type, &dt)) {
    arg->type = dt;
  } else if (IsIdentifier(type, true)) {
    arg->type_attr = type;
  } else {
    return "bad type '" + type + "'";
  }
  return "";
}

std::string ResolveArgTypes(OpDef* op) {
  for (auto* args : {&op->input_arg, &op->output_arg}) {
    for (ArgDef& arg : *args) {
      const std::string where = "arg '" + arg.name + "': ";
      if (!arg.type_attr.empty()) {
        const AttrDef* attr = op->FindAttr(arg.type_attr);
        if (attr == nullptr) return where + "names undefined attr '" + arg.type_attr + "'";
        if (attr->type == "list(type)") {
          if (!arg.number_attr.empty())
            return where + "a list(type) attr cannot be combined with a length attr";
          arg.type_list_attr = arg.type_attr;
          arg.type_attr.clear();
        } else if (attr->type != "type") {
          return where + "attr '" + arg.type_attr + "' has type " + attr->type +
                 ", expected type or list(type)";
        }
      }
      if (!arg.number_attr.empty()) {
        const AttrDef* attr = op->FindAttr(arg.number_attr);
        if (attr == nullptr) return where + "names undefined attr '" + arg.number_attr + "'";
        if (attr->type != "int")
          return where + "length attr '" + arg.number_attr + "' has type " + attr->type +
                 ", expected int";
      }
    }
  }
  return "";
}

namespace {

bool ValueAllowed(const AttrValue& allowed, const AttrValue& v) {
  auto has_type = [&](TF_DataType t) {
    for (TF_DataType a : allowed.list_type) if (a == t) return true;
    return false;
  };
  auto has_string = [&](const std::string& s) {
    for (const std::string& a : allowed.list_s) if (a == s) return true;
    return false;
  };
  switch (v.kind) {
    case AttrValue::kType: return has_type(v.type);
    case AttrValue::kListType:
      for (TF_DataType t : v.list_type) if (!has_type(t)) return false;
      return true;
    case AttrValue::kString: return has_string(v.s);
    case AttrValue::kListString:
      for (const std::string& s : v.list_s) if (!has_string(s)) return false;
      return true;
    default: return true;
  }
}

}  // namespace

std::string ValidateOpDef(const OpDef& op) {
  if (op.name.empty() || !(std::isupper(static_cast<unsigned char>(op.name[0])) || op.name[0] == '_'))
    return "op name '" + op.name + "' must start with an upper-case letter or '_'";
  std::set<std::string> names;
  for (const auto* args : {&op.input_arg, &op.output_arg})
    for (const ArgDef& arg : *args)
      if (!names.insert(arg.name).second) return "duplicate name '" + arg.name + "'";
  for (const AttrDef& attr : op.attr) {
    if (!names.insert(attr.name).second) return "duplicate name '" + attr.name + "'";
    const std::string where = "attr '" + attr.name + "': ";
    if (attr.has_default && attr.has_allowed_values &&
        !ValueAllowed(attr.allowed_values, attr.default_value))
      return where + "default is not one of the allowed values";
    if (attr.has_default && attr.has_minimum) {
      if (attr.type == "int" && attr.default_value.i < attr.minimum)
        return where + "default " + std::to_string(attr.default_value.i) + " is below minimum " +
               std::to_string(attr.minimum);
      if (StartsWith(attr.type, "list(") &&
          static_cast<int64_t>(attr.default_value.ListSize()) < attr.minimum)
        return where + "default list is shorter than minimum " + std::to_string(attr.minimum);
    }
  }
  return "";
}

}  // namespace opgen
