// FunctionDef and FunctionDefLibrary: the wire format (TensorFlow's field numbers) and
// the library's naming rules.
#include "function_library.h"

#include "op_registry.h"
#include "wire_reader.h"
#include "wire_writer.h"

namespace opgen {
namespace {

using wire::Bytes;
using wire::Reader;

std::string MapEntry(const std::string& key, const std::string& value) {
  wire::Writer entry;
  entry.Bytes(1, key);
  entry.Bytes(2, value);
  return entry.str();
}

// Calls on_field(number, bytes) for every length-delimited field; skips the others.
template <typename OnField>
bool ForEachLengthDelimited(Bytes bytes, OnField on_field) {
  Reader r(bytes);
  uint32_t field, wire_type;
  while (r.more()) {
    if (!r.tag(&field, &wire_type)) return false;
    if (wire_type != wire::kLengthDelimited) {
      if (!r.skip(wire_type, field)) return false;
      continue;
    }
    Bytes b;
    if (!r.length_delimited(&b) || !on_field(field, b)) return false;
  }
  return r.ok;
}

// A map<string, string> or map<string, bytes-message> entry: key = 1, value = 2.
bool ReadEntry(Bytes bytes, std::string* key, std::string* value) {
  key->clear();
  value->clear();
  return ForEachLengthDelimited(bytes, [&](uint32_t f, Bytes b) {
    if (f == 1) key->assign(b);
    else if (f == 2) value->assign(b);
    return true;
  });
}

}  // namespace

std::string SerializeFunctionDef(const FunctionDefProto& function) {
  wire::Writer w;
  w.Bytes(1, SerializeOpDef(function.signature));
  for (const NodeDefProto& node : function.node_def) w.Bytes(3, SerializeNodeDef(node));
  for (const auto& [key, value] : function.ret) w.Bytes(4, MapEntry(key, value));
  for (const auto& [key, value] : function.attr) w.Bytes(5, MapEntry(key, SerializeAttrValue(value)));
  for (const auto& [key, value] : function.control_ret) w.Bytes(6, MapEntry(key, value));
  for (const std::string& entry : function.arg_attr_entries) w.Bytes(7, entry);
  for (const std::string& entry : function.resource_arg_entries) w.Bytes(8, entry);
  return w.str();
}

bool ParseFunctionDef(std::string_view bytes, FunctionDefProto* out, std::string* error) {
  *out = FunctionDefProto();
  std::string part_error, what;
  const bool ok = ForEachLengthDelimited(bytes, [&](uint32_t field, Bytes b) {
    std::string key, value;
    switch (field) {
      case 1:
        what = "signature";
        return ParseOpDef(b, &out->signature, &part_error);
      case 3:
        what = "node_def";
        out->node_def.emplace_back();
        return ParseNodeDef(b, &out->node_def.back(), &part_error);
      case 4: case 6:
        what = field == 4 ? "ret" : "control_ret";
        if (!ReadEntry(b, &key, &value)) return false;
        (field == 4 ? out->ret : out->control_ret)[key] = value;
        return true;
      case 5: {
        what = "attr";
        AttrValue attr;
        if (!ReadEntry(b, &key, &value) || !ParseAttrValue(value, &attr, &part_error)) return false;
        out->attr[key] = std::move(attr);
        return true;
      }
      case 7: out->arg_attr_entries.emplace_back(b); return true;
      case 8: out->resource_arg_entries.emplace_back(b); return true;
      default: return true;
    }
  });
  if (!ok && error != nullptr) {
    *error = "malformed FunctionDef";
    if (!out->signature.name.empty()) *error += " '" + out->signature.name + "'";
    if (!what.empty()) *error += " (" + what + (part_error.empty() ? "" : ": " + part_error) + ")";
  }
  return ok;
}

const FunctionDefProto* FunctionLibrary::Find(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second.get();
}

bool FunctionLibrary::Add(FunctionPtr function, TF_Status* status) {
  const std::string& name = function->signature.name;
  if (name.empty()) {
    SetStatus(status, TF_INVALID_ARGUMENT, "A function has no name (FunctionDef.signature.name)");
    return false;
  }
  if (OpRegistry::Global().Find(name) != nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Cannot add function '" + name + "' because an op with the same name already exists");
    return false;
  }
  auto it = functions_.find(name);
  if (it != functions_.end()) {
    if (it->second == function ||
        SerializeFunctionDef(*it->second) == SerializeFunctionDef(*function))
      return true;
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Cannot add function '" + name +
                  "' because a different function with the same name already exists");
    return false;
  }
  functions_.emplace(name, std::move(function));
  return true;
}

bool FunctionLibrary::AddGradient(const std::string& function, const std::string& gradient,
                                  TF_Status* status) {
  auto [it, added] = gradients_.emplace(function, gradient);
  if (added || it->second == gradient) return true;
  SetStatus(status, TF_INVALID_ARGUMENT,
            "Cannot assign gradient function '" + gradient + "' to '" + function +
                "' because it already has gradient function '" + it->second + "'");
  return false;
}

bool FunctionLibrary::Merge(const FunctionLibrary& other, TF_Status* status) {
  FunctionLibrary merged = *this;
  for (const auto& [name, function] : other.functions_)
    if (!merged.Add(function, status)) return false;
  for (const auto& [name, gradient] : other.gradients_)
    if (!merged.AddGradient(name, gradient, status)) return false;
  for (const std::string& bytes : other.registered_gradients_) merged.AddRegisteredGradient(bytes);
  *this = std::move(merged);
  return true;
}

bool FunctionLibrary::Remove(const std::string& name) {
  gradients_.erase(name);
  return functions_.erase(name) > 0;
}

std::string FunctionLibrary::Serialize() const {
  wire::Writer w;
  for (const auto& [name, function] : functions_) w.Bytes(1, SerializeFunctionDef(*function));
  for (const auto& [name, gradient] : gradients_) {
    wire::Writer g;
    g.OptionalString(1, name);
    g.OptionalString(2, gradient);
    w.Bytes(2, g.str());
  }
  for (const std::string& bytes : registered_gradients_) w.Bytes(3, bytes);
  return w.str();
}

bool ParseFunctionLibrary(std::string_view bytes, FunctionLibrary* out, std::string* error,
                          TF_Status* status) {
  FunctionLibrary library;
  std::string what;
  bool clash = false;
  const bool ok = ForEachLengthDelimited(bytes, [&](uint32_t field, Bytes b) {
    if (field == 1) {
      auto function = std::make_shared<FunctionDefProto>();
      std::string part_error;
      if (!ParseFunctionDef(b, function.get(), &part_error)) {
        what = part_error;
        return false;
      }
      // As in TensorFlow, a nameless function is kept only if nothing calls it: skip it.
      if (function->signature.name.empty()) return true;
      if (!library.Add(std::move(function), status)) return !(clash = true);
      return true;
    }
    if (field == 2) {
      std::string name, gradient;
      if (!ReadEntry(b, &name, &gradient)) {
        what = "a GradientDef";
        return false;
      }
      if (!library.AddGradient(name, gradient, status)) return !(clash = true);
      return true;
    }
    if (field == 3) {
      std::string a, c;
      if (!ReadEntry(b, &a, &c)) {
        what = "a RegisteredGradient";
        return false;
      }
      library.AddRegisteredGradient(std::string(b));
    }
    return true;
  });
  if (!ok) {
    if (!clash && error != nullptr)
      *error = "malformed function library" + (what.empty() ? std::string() : " (" + what + ")");
    return false;
  }
  *out = std::move(library);
  return true;
}

}  // namespace opgen
