// Binding a polymorphic function's attrs and substituting them (function_instantiate.h).
#include "function_instantiate.h"

#include <cctype>
#include <map>
#include <set>

#include "node_attrs.h"
#include "op_registry.h"
#include "wire_format.h"

namespace opgen {
namespace {

bool Fail(TF_Status* status, const FunctionDefProto& function, const std::string& why) {
  SetStatus(status, TF_INVALID_ARGUMENT, "Function '" + function.signature.name + "': " + why);
  return false;
}

const AttrValue* Find(const AttrMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The dtypes of one signature arg under `binding` (complete: BindFunctionAttrs made it).
std::vector<TF_DataType> ArgTypes(const ArgDef& arg, const AttrMap& binding) {
  if (!arg.type_list_attr.empty()) {
    const AttrValue* v = Find(binding, arg.type_list_attr);
    return v != nullptr ? v->list_type : std::vector<TF_DataType>();
  }
  TF_DataType type = arg.type;
  if (!arg.type_attr.empty()) {
    const AttrValue* v = Find(binding, arg.type_attr);
    type = v != nullptr && v->kind == AttrValue::kType ? v->type : static_cast<TF_DataType>(0);
  }
  size_t n = 1;
  if (!arg.number_attr.empty()) {
    const AttrValue* v = Find(binding, arg.number_attr);
    n = v != nullptr && v->i > 0 ? static_cast<size_t>(v->i) : 0;
  }
  return std::vector<TF_DataType>(n, type);
}

// The attrs the signature declares, as the caller gives them.
AttrMap SignatureAttrs(const OpDef& signature, const AttrMap& given) {
  AttrMap attrs;
  for (const AttrDef& attr : signature.attr)
    if (const AttrValue* v = Find(given, attr.name)) attrs[attr.name] = *v;
  return attrs;
}

bool Substitute(const AttrMap& binding, AttrValue* value, std::string* missing);

// A NameAttrList's attrs with the binding substituted (shared maps are copied first).
bool SubstituteFuncAttrs(const AttrMap& binding,
                         std::shared_ptr<const AttrMap>* attrs, std::string* missing) {
  if (*attrs == nullptr) return true;
  auto copy = std::make_shared<AttrMap>(**attrs);
  for (auto& [name, nested] : *copy)
    if (!Substitute(binding, &nested, missing)) return false;
  *attrs = std::move(copy);
  return true;
}

// `value` with every placeholder replaced from `binding`, in the attrs of func and
// list(func) values too, however deeply nested; the first placeholder the binding lacks
// goes to `*missing`.
bool Substitute(const AttrMap& binding, AttrValue* value, std::string* missing) {
  if (value->kind == AttrValue::kPlaceholder) {
    const AttrValue* bound = Find(binding, value->s);
    if (bound == nullptr) {
      *missing = value->s;
      return false;
    }
    *value = *bound;
    return true;
  }
  if (value->kind == AttrValue::kFunc)
    return SubstituteFuncAttrs(binding, &value->func_attr, missing);
  if (value->kind == AttrValue::kListFunc)  // each NameAttrList's attrs, as for one func
    for (auto& attrs : value->list_func_attr)
      if (!SubstituteFuncAttrs(binding, &attrs, missing)) return false;
  return true;
}

}  // namespace

std::vector<int> OutputArgLengths(const OpDef& def, const AttrMap& attrs) {
  std::vector<int> lengths;
  auto attr = [&](const std::string& name) -> const AttrValue* {
    if (const AttrValue* v = Find(attrs, name)) return v;
    const AttrDef* d = def.FindAttr(name);
    return d != nullptr && d->has_default ? &d->default_value : nullptr;
  };
  for (const ArgDef& arg : def.output_arg) {
    int n = 1;
    if (!arg.number_attr.empty()) {
      const AttrValue* v = attr(arg.number_attr);
      n = v != nullptr ? static_cast<int>(v->i) : 0;
    } else if (!arg.type_list_attr.empty()) {
      const AttrValue* v = attr(arg.type_list_attr);
      n = v != nullptr ? static_cast<int>(v->ListSize()) : 0;
    }
    lengths.push_back(n);
  }
  return lengths;
}

bool BindFunctionAttrs(const FunctionDefProto& function, const AttrMap& given,
                       const std::vector<TF_DataType>& input_types, AttrMap* binding,
                       TF_Status* status) {
  const OpDef& sig = function.signature;
  *binding = SignatureAttrs(sig, given);
  // Split the flat argument types among the signature's args. A list arg whose length
  // the caller does not give takes what the others leave; two such args are ambiguous.
  std::vector<long> lengths;
  long known = 0;
  const ArgDef* open = nullptr;
  size_t open_index = 0;
  for (const ArgDef& arg : sig.input_arg) {
    long n = 1;
    if (!arg.type_list_attr.empty() || !arg.number_attr.empty()) {
      const AttrValue* v = Find(*binding, arg.type_list_attr.empty() ? arg.number_attr
                                                                     : arg.type_list_attr);
      if (v == nullptr) {
        if (open != nullptr)
          return Fail(status, function,
                      "attrs '" + (open->number_attr.empty() ? open->type_list_attr
                                                             : open->number_attr) +
                          "' and '" + (arg.number_attr.empty() ? arg.type_list_attr
                                                              : arg.number_attr) +
                          "' have no values, and the argument types cannot tell them apart");
        open = &arg;
        open_index = lengths.size();
        n = 0;
      } else {
        n = v->kind == AttrValue::kInt ? static_cast<long>(v->i) : static_cast<long>(v->ListSize());
      }
    }
    lengths.push_back(n);
    known += n;
  }
  const long given_count = static_cast<long>(input_types.size());
  if (open != nullptr) {
    if (given_count < known)
      return Fail(status, function,
                  "takes at least " + std::to_string(known) + " arguments, the call gives " +
                      std::to_string(given_count));
    lengths[open_index] = given_count - known;
  } else if (known != given_count) {
    std::string attrs;
    for (const ArgDef& arg : sig.input_arg)
      for (const std::string* a : {&arg.number_attr, &arg.type_list_attr})
        if (!a->empty()) attrs += (attrs.empty() ? "" : ", ") + *a;
    return Fail(status, function,
                "takes " + std::to_string(known) + " arguments" +
                    (attrs.empty() ? std::string() : " (by attrs " + attrs + ")") +
                    ", the call gives " + std::to_string(given_count));
  }
  InputDtypes grouped;
  size_t next = 0;
  for (long n : lengths) {
    grouped.emplace_back(input_types.begin() + next, input_types.begin() + next + n);
    next += static_cast<size_t>(n);
  }
  CompleteAttrs(sig, grouped, binding, status);
  if (status->code != TF_OK) {
    status->message = "Function '" + sig.name + "': " + status->message;
    return false;
  }
  // Outputs may use attrs the arguments cannot imply: CompleteAttrs demanded them all.
  return true;
}

std::string BindingKey(const AttrMap& binding) {
  std::string key;
  for (const auto& [name, value] : binding) {
    const std::string bytes = SerializeAttrValue(value);
    key += name + '\0' + std::to_string(bytes.size()) + '\0' + bytes;
  }
  return key;
}

bool InstantiateFunctionDef(const FunctionDefProto& function, const AttrMap& binding,
                            const FunctionLibrary& library, FunctionDefProto* out,
                            TF_Status* status) {
  const OpDef& sig = function.signature;
  FunctionDefProto result;
  result.signature.name = sig.name;
  result.signature.description = sig.description;
  result.signature.control_output = sig.control_output;
  result.signature.is_stateful = sig.is_stateful;
  result.attr = function.attr;
  result.control_ret = function.control_ret;
  result.arg_attr_entries = function.arg_attr_entries;
  result.resource_arg_entries = function.resource_arg_entries;

  std::set<std::string> node_names;
  for (const NodeDefProto& node : function.node_def) node_names.insert(node.name);
  // Each input arg's elements, by the names their Placeholders get.
  std::map<std::string, std::vector<std::string>> arg_elements;
  for (const ArgDef& arg : sig.input_arg) {
    const std::vector<TF_DataType> types = ArgTypes(arg, binding);
    std::vector<std::string>& names = arg_elements[arg.name];
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] == 0)
        return Fail(status, function, "argument '" + arg.name + "' has no type: attr '" +
                                          arg.type_attr + "' has no value");
      ArgDef element;
      element.name = types.size() > 1 ? arg.name + "_" + std::to_string(i) : arg.name;
      if (types.size() > 1 && node_names.count(element.name))
        return Fail(status, function, "list argument '" + arg.name + "' element '" +
                                          element.name + "' has the name of a node");
      element.type = types[i];
      element.is_ref = arg.is_ref;
      result.signature.input_arg.push_back(element);
      names.push_back(element.name);
    }
  }

  // Node attrs with the binding substituted, then each node's output lists' lengths.
  std::vector<NodeDefProto> nodes = function.node_def;
  std::map<std::string, std::pair<const OpDef*, std::vector<int>>> outputs;
  for (NodeDefProto& node : nodes) {
    for (auto& [name, value] : node.attr) {
      std::string missing;
      if (!Substitute(binding, &value, &missing))
        return Fail(status, function, "node '" + node.name + "' attr '" + name +
                                          "' is the placeholder $" + missing +
                                          ", which the call does not bind");
    }
    const OpDef* def = OpRegistry::Global().Find(node.op);
    if (def == nullptr) {
      const FunctionDefProto* callee = library.Find(node.op);
      if (callee != nullptr) def = &callee->signature;
    }
    if (def != nullptr) outputs[node.name] = {def, OutputArgLengths(*def, node.attr)};
  }

  // One reference as the elements it stands for: a whole arg or a whole output list
  // expands; an element, a control input or a "node:index" stays as it is.
  auto expand = [&](const std::string& ref, std::vector<std::string>* refs) {
    if (ref.empty() || ref[0] == '^') {
      refs->push_back(ref);
      return true;
    }
    const size_t colon = ref.find(':');
    const std::string head = ref.substr(0, colon);
    const std::string tail = colon == std::string::npos ? "" : ref.substr(colon + 1);
    auto arg = arg_elements.find(head);
    if (arg != arg_elements.end() && !node_names.count(head)) {
      if (colon == std::string::npos) {
        refs->insert(refs->end(), arg->second.begin(), arg->second.end());
        return true;
      }
      if (!AllDigits(tail)) return false;
      const size_t index = std::stoul(tail);
      if (index >= arg->second.size()) return false;
      refs->push_back(arg->second[index]);
      return true;
    }
    if (colon == std::string::npos || tail.find(':') != std::string::npos || AllDigits(tail)) {
      refs->push_back(ref);
      return true;
    }
    auto node = outputs.find(head);  // "node:out_arg": the whole output list
    if (node == outputs.end()) return false;
    const OpDef& def = *node->second.first;
    for (size_t a = 0; a < def.output_arg.size(); ++a) {
      if (def.output_arg[a].name != tail) continue;
      for (int i = 0; i < node->second.second[a]; ++i)
        refs->push_back(ref + ":" + std::to_string(i));
      return true;
    }
    return false;
  };

  for (NodeDefProto& node : nodes) {
    std::vector<std::string> inputs;
    for (const std::string& input : node.input)
      if (!expand(input, &inputs))
        return Fail(status, function, "node '" + node.name + "' reads '" + input +
                                          "', which the function does not define");
    node.input = std::move(inputs);
  }
  result.node_def = std::move(nodes);

  for (const ArgDef& arg : sig.output_arg) {
    const std::vector<TF_DataType> types = ArgTypes(arg, binding);
    auto ret = function.ret.find(arg.name);
    std::vector<std::string> refs;
    if (ret == function.ret.end() || !expand(ret->second, &refs))
      return Fail(status, function, "output '" + arg.name + "' has no value in ret");
    if (refs.size() != types.size())
      return Fail(status, function, "output '" + arg.name + "' holds " +
                                        std::to_string(types.size()) + " tensors, its ret '" +
                                        ret->second + "' names " + std::to_string(refs.size()));
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] == 0)
        return Fail(status, function, "output '" + arg.name + "' has no type: attr '" +
                                          arg.type_attr + "' has no value");
      ArgDef element;
      element.name = types.size() > 1 ? arg.name + "_" + std::to_string(i) : arg.name;
      element.type = types[i];
      element.is_ref = arg.is_ref;
      result.signature.output_arg.push_back(element);
      result.ret[element.name] = refs[i];
    }
  }
  *out = std::move(result);
  return true;
}

}  // namespace opgen
