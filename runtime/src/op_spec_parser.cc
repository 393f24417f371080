// Parser for op-definition spec strings. The grammar (TensorFlow's):
//   attr:  NAME ":" KIND [">=" INT] ["=" DEFAULT]
//   KIND:  string | int | float | bool | type | shape | tensor | func | TYPESET | STRINGSET
//          | list "(" KIND ")"
//   TYPESET: "{" (dtype | type group) ("," ...)* "}" or a bare type group ("numbertype")
//   arg:   NAME ":" ["Ref(" TYPE ")" | TYPE],  TYPE: dtype | ATTR | NUMBER_ATTR "*" TYPE
#include "op_spec_parser.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>

#include "core_types.h"
#include "shape_check.h"

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
// TensorFlow spells them in the singular ("numbertype"); the plural is accepted too.
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
  std::string singular = name;
  if (!singular.empty() && singular.back() == 's') singular.pop_back();
  if (singular == "realnumbertype" || singular == "realnumerictype") return &real;
  if (singular == "numbertype" || singular == "numerictype") return &number;
  if (singular == "quantizedtype") return &quantized;
  return nullptr;
}

// Defaults are written as protobuf text format values, so numbers follow its rules:
// decimal, 0x hex or leading-0 octal integers; floats with an optional 'f' suffix,
// inf and nan.
bool ParseInt(const std::string& text, int64_t* out) {
  std::string s = Trim(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (*end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

bool ParseFloat(const std::string& text, float* out) {
  std::string s = Trim(text);
  if (s.size() > 1 && (s.back() == 'f' || s.back() == 'F') &&
      (std::isdigit(static_cast<unsigned char>(s[s.size() - 2])) || s[s.size() - 2] == '.'))
    s.pop_back();  // "0.5f"
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtof(s.c_str(), &end);  // also reads inf, -inf, infinity and nan
  return *end == '\0';
}

// A quoted string with C escapes (\n, \t, \', \", \\, octal \ooo, hex \xHH).
bool ParseQuoted(const std::string& text, std::string* out) {
  std::string s = Trim(text);
  if (s.size() < 2 || (s[0] != '\'' && s[0] != '"') || s.back() != s[0]) return false;
  out->clear();
  const size_t end = s.size() - 1;
  for (size_t i = 1; i < end; ++i) {
    char c = s[i];
    if (c == s[0]) return false;  // an unescaped quote inside
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++i >= end) return false;
    char e = s[i];
    switch (e) {
      case 'n': *out += '\n'; break;
      case 't': *out += '\t'; break;
      case 'r': *out += '\r'; break;
      case 'a': *out += '\a'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'v': *out += '\v'; break;
      case 'x': {
        int value = 0, digits = 0;
        while (digits < 2 && i + 1 < end && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
          char h = s[++i];
          value = value * 16 + (std::isdigit(static_cast<unsigned char>(h))
                                    ? h - '0'
                                    : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
          ++digits;
        }
        if (digits == 0) return false;
        *out += static_cast<char>(value);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int value = e - '0', digits = 1;
          while (digits < 3 && i + 1 < end && s[i + 1] >= '0' && s[i + 1] <= '7') {
            value = value * 8 + (s[++i] - '0');
            ++digits;
          }
          *out += static_cast<char>(value);
        } else {
          *out += e;  // \\ \' \" \?
        }
    }
  }
  return true;
}

// Tokens of a protobuf text-format message body: identifiers and numbers, quoted
// strings, and the punctuation { } < > [ ] : ,
std::vector<std::string> TextFormatTokens(const std::string& s, bool* ok) {
  std::vector<std::string> tokens;
  *ok = true;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) { ++i; continue; }
    if (std::strchr("{}<>[]:,", c) != nullptr) {
      tokens.emplace_back(1, static_cast<char>(c));
      ++i;
    } else if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != s[i]) j += s[j] == '\\' ? 2 : 1;
      if (j >= s.size()) { *ok = false; return tokens; }
      tokens.push_back(s.substr(i, j + 1 - i));
      i = j + 1;
    } else if (std::isalnum(c) || c == '-' || c == '+' || c == '_' || c == '.') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '-' ||
                              s[j] == '+' || s[j] == '_' || s[j] == '.'))
        ++j;
      tokens.push_back(s.substr(i, j - i));
      i = j;
    } else {
      *ok = false;
      return tokens;
    }
  }
  return tokens;
}

// A TensorShapeProto in text format, as TensorFlow's op specs write shape defaults:
// "{ unknown_rank: true }", "{ dim { size: 2 } dim { size: -1 } }", "{}".
bool ParseShapeProtoText(const std::string& text, Shape* out) {
  bool ok = true;
  std::vector<std::string> t = TextFormatTokens(text, &ok);
  if (!ok || t.size() < 2) return false;
  auto close_of = [](const std::string& open) { return open == "<" ? ">" : "}"; };
  if (t.front() != "{" && t.front() != "<") return false;
  if (t.back() != close_of(t.front())) return false;
  size_t i = 1;
  const size_t end = t.size() - 1;
  out->unknown_rank = false;
  out->dims.clear();
  auto skip_colon = [&] { if (i < end && t[i] == ":") ++i; };
  // One Dim message body starting at an opening brace; appends its size.
  auto parse_dim = [&]() -> bool {
    if (i >= end || (t[i] != "{" && t[i] != "<")) return false;
    const std::string close = close_of(t[i++]);
    int64_t size = 0;
    while (i < end && t[i] != close) {
      const std::string field = t[i++];
      skip_colon();
      if (i >= end) return false;
      if (field == "size") {
        if (!ParseInt(t[i++], &size)) return false;
      } else if (field == "name") {
        std::string ignored;  // dim names do not affect shapes; opgen does not keep them
        if (!ParseQuoted(t[i++], &ignored)) return false;
      } else {
        return false;
      }
      if (i < end && t[i] == ",") ++i;
    }
    if (i >= end) return false;
    ++i;  // the closing brace
    out->dims.push_back(size);
    return true;
  };
  while (i < end) {
    const std::string field = t[i++];
    if (field == "dim") {
      skip_colon();
      if (i < end && t[i] == "[") {  // dim [ {size: 1}, {size: 2} ]
        ++i;
        while (i < end && t[i] != "]") {
          if (!parse_dim()) return false;
          if (i < end && t[i] == ",") ++i;
        }
        if (i >= end) return false;
        ++i;
      } else if (!parse_dim()) {
        return false;
      }
    } else if (field == "unknown_rank") {
      skip_colon();
      if (i >= end) return false;
      const std::string& v = t[i++];
      if (v == "true" || v == "True" || v == "t" || v == "1") out->unknown_rank = true;
      else if (!(v == "false" || v == "False" || v == "f" || v == "0")) return false;
    } else {
      return false;
    }
    if (i < end && (t[i] == "," || t[i] == ";")) ++i;
  }
  if (out->unknown_rank) out->dims.clear();
  return true;
}

// Shape defaults: TensorFlow's text format ("{ dim { size: 2 } }"), or opgen's short
// forms "[2, -1]" (-1 or ? for an unknown dim) and "?" (unknown rank).
bool ParseShape(const std::string& text, Shape* out) {
  std::string s = Trim(text);
  if (!s.empty() && (s.front() == '{' || s.front() == '<')) return ParseShapeProtoText(s, out);
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
    // Text format's spellings of booleans.
    if (s == "true" || s == "True" || s == "t" || s == "1") value->b = true;
    else if (s == "false" || s == "False" || s == "f" || s == "0") value->b = false;
    else return false;
    return true;
  }
  if (kind == "type") {
    value->kind = AttrValue::kType;
    return ParseDataTypeName(s, &value->type);
  }
  if (kind == "shape") {
    value->kind = AttrValue::kShape;
    return ParseShape(s, &value->shape) && CheckPartialShape(value->shape, nullptr);  // dims >= -1
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
    if (items.size() > 1 && items.back().empty()) items.pop_back();  // "{a, b, }"
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
      // Kept as written, repeats included: TensorFlow's registry does the same (its Mod
      // lists half twice), and OpDefs must compare equal.
      std::vector<TF_DataType>& types = attr->allowed_values.list_type;
      for (const std::string& item : items) {
        TF_DataType t;
        if (const auto* group = TypeGroup(item)) {
          types.insert(types.end(), group->begin(), group->end());
        } else if (ParseDataTypeName(item, &t)) {
          types.push_back(t);
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

std::string ResolveArgTypes(OpDef* op, const std::vector<std::string>& input_specs,
                            const std::vector<std::string>& output_specs) {
  for (auto [args, specs] : {std::make_pair(&op->input_arg, &input_specs),
                             std::make_pair(&op->output_arg, &output_specs)}) {
    for (size_t i = 0; i < args->size(); ++i) {
      ArgDef& arg = (*args)[i];
      const std::string where = i < specs->size() ? "arg spec '" + (*specs)[i] + "': "
                                                  : "arg '" + arg.name + "': ";
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
      // As in TensorFlow's registry: an attr giving the length or the types of a list
      // arg has a minimum of 1 unless the spec says otherwise ...
      const std::string& list_attr =
          !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
      if (!list_attr.empty()) {
        for (AttrDef& attr : op->attr) {
          if (attr.name == list_attr && !attr.has_minimum) {
            attr.has_minimum = true;
            attr.minimum = 1;
          }
        }
      }
      // ... and an arg of dtype resource makes the op stateful.
      if (arg.type == TF_RESOURCE) op->is_stateful = true;
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
    if (attr.has_minimum && attr.type == "int" && attr.minimum < 0) {
      for (const auto* args : {&op.input_arg, &op.output_arg})
        for (const ArgDef& arg : *args)
          if (arg.number_attr == attr.name)
            return where + "used as the length of '" + arg.name + "', needs a minimum >= 0";
    }
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
