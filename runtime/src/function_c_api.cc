// The C API of functions: TF_Function (a FunctionDef), made from a graph's operations
// (TF_GraphToFunction), read from and written as FunctionDef bytes, and added to a graph's
// library (TF_GraphCopyFunction).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "function_library.h"
#include "graph.h"

namespace opgen {
namespace {

// A node or arg name made from `s`: lowercase letters, digits and '_' (as TensorFlow's
// function arg names are), unique among `used`.
std::string UniqueArgName(const std::string& s, std::set<std::string>* used) {
  std::string base;
  for (char c : s) base += std::isalnum(static_cast<unsigned char>(c))
                               ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                               : '_';
  if (base.empty() || !std::isalpha(static_cast<unsigned char>(base[0]))) base = "arg_" + base;
  std::string name = base;
  for (int i = 1; used->count(name); ++i) name = base + "_" + std::to_string(i);
  used->insert(name);
  return name;
}

// "node:out_arg:index", how a FunctionDef's nodes name another node's output.
std::string FunctionOutputName(const TF_Output& out) {
  const OpDef& def = *out.oper->op_def;
  int first = 0;
  for (size_t a = 0; a < def.output_arg.size(); ++a) {
    const int length = out.oper->output_arg_lengths[a];
    if (out.index < first + length)
      return out.oper->name + ":" + def.output_arg[a].name + ":" + std::to_string(out.index - first);
    first += length;
  }
  return out.oper->name + ":?:" + std::to_string(out.index);
}

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

void WriteBuffer(const std::string& bytes, TF_Buffer* out) {
  if (out->data_deallocator) out->data_deallocator(const_cast<void*>(out->data), out->length);
  void* copy = std::malloc(bytes.size() ? bytes.size() : 1);
  std::memcpy(copy, bytes.data(), bytes.size());
  out->data = copy;
  out->length = bytes.size();
  out->data_deallocator = [](void* data, size_t) { std::free(data); };
}

TF_Function* GraphToFunction(const TF_Graph* graph, const char* fn_name, bool append_hash,
                             int num_opers, const TF_Operation* const* opers, int ninputs,
                             const TF_Output* inputs, int noutputs, const TF_Output* outputs,
                             const char* const* output_names, int ncontrol_outputs,
                             const TF_Operation* const* control_outputs,
                             const char* const* control_output_names, const char* description,
                             TF_Status* status) {
  if (!CheckNotNull(status, "TF_GraphToFunction",
                    {{"fn_body", graph}, {"fn_name", fn_name},
                     {"inputs", ArrayArg(inputs, ninputs)}, {"outputs", ArrayArg(outputs, noutputs)},
                     {"control_outputs", ArrayArg(control_outputs, ncontrol_outputs)}}))
    return nullptr;
  if (num_opers > 0 && !CheckNotNull(status, "TF_GraphToFunction", {{"opers", opers}})) return nullptr;
  auto fail = [status](const std::string& message) -> TF_Function* {
    SetStatus(status, TF_INVALID_ARGUMENT, "TF_GraphToFunction: " + message);
    return nullptr;
  };
  if (*fn_name == '\0') return fail("the function name is empty");
  std::lock_guard<std::mutex> lock(graph->mu);
  auto in_graph = [graph](const TF_Operation* op) {
    return op != nullptr && op->graph == graph;
  };
  auto check_output = [&](const TF_Output& o) {
    return in_graph(o.oper) && o.index >= 0 &&
           static_cast<size_t>(o.index) < o.oper->output_types.size();
  };
  auto function = std::make_shared<FunctionDefProto>();
  OpDef& sig = function->signature;
  sig.name = fn_name;
  if (description != nullptr) sig.description = description;
  std::set<std::string> used;
  std::map<std::pair<const TF_Operation*, int>, std::string> arg_of;
  std::set<const TF_Operation*> input_nodes;
  for (int i = 0; i < ninputs; ++i) {
    const TF_Output& in = inputs[i];
    if (!check_output(in)) return fail("input " + std::to_string(i) + " is not an output of this graph");
    if (arg_of.count({in.oper, in.index}))
      return fail("input " + std::to_string(i) + " ('" + OutputName(in) + "') is given twice");
    const std::string name = UniqueArgName(
        in.oper->output_types.size() == 1 ? in.oper->name
                                          : in.oper->name + "_" + std::to_string(in.index),
        &used);
    arg_of[{in.oper, in.index}] = name;
    input_nodes.insert(in.oper);
    ArgDef arg;
    arg.name = name;
    arg.type = in.oper->output_types[in.index];
    sig.input_arg.push_back(arg);
  }
  std::vector<const TF_Operation*> body;
  if (num_opers < 0) {
    for (const auto& op : graph->ops)
      if (!input_nodes.count(op.get())) body.push_back(op.get());
  } else {
    for (int i = 0; i < num_opers; ++i) {
      if (!in_graph(opers[i])) return fail("opers[" + std::to_string(i) + "] is not an operation of this graph");
      body.push_back(opers[i]);
    }
  }
  std::set<const TF_Operation*> in_body(body.begin(), body.end());
  if (in_body.size() != body.size()) return fail("an operation is listed twice in opers");
  // A data edge names an arg or a body node's output; anything else is outside the function.
  auto tensor_ref = [&](const TF_Output& src, std::string* ref) {
    auto arg = arg_of.find({src.oper, src.index});
    if (arg != arg_of.end()) *ref = arg->second;
    else if (in_body.count(src.oper)) *ref = FunctionOutputName(src);
    else return false;
    return true;
  };
  for (const TF_Operation* op : body) {
    NodeDefProto node = ToNodeDef(*op);
    node.input.clear();
    for (size_t i = 0; i < op->inputs.size(); ++i) {
      node.input.emplace_back();
      if (!tensor_ref(op->inputs[i], &node.input.back()))
        return fail("node '" + op->name + "' reads '" + OutputName(op->inputs[i]) +
                    "', which is neither an input of the function nor in its body");
    }
    for (const TF_Operation* control : op->control_inputs) {
      if (in_body.count(control)) node.input.push_back("^" + control->name);
      else if (!input_nodes.count(control))
        return fail("node '" + op->name + "' has a control input '" + control->name +
                    "' outside the function's body");
    }
    if (op->op_def->is_stateful) sig.is_stateful = true;
    function->node_def.push_back(std::move(node));
  }
  std::set<std::string> used_outputs;
  for (int i = 0; i < noutputs; ++i) {
    const TF_Output& out = outputs[i];
    if (!check_output(out)) return fail("output " + std::to_string(i) + " is not an output of this graph");
    std::string name;
    if (output_names != nullptr && output_names[i] != nullptr) {
      name = output_names[i];
      if (name.empty() || !used_outputs.insert(name).second)
        return fail("output name '" + name + "' is empty or given twice");
    } else {
      name = UniqueArgName(out.oper->name + (out.index ? "_" + std::to_string(out.index) : ""),
                           &used_outputs);
    }
    std::string ref;
    if (!tensor_ref(out, &ref))
      return fail("output " + std::to_string(i) + " ('" + OutputName(out) +
                  "') is neither an input of the function nor in its body");
    ArgDef arg;
    arg.name = name;
    arg.type = out.oper->output_types[out.index];
    sig.output_arg.push_back(arg);
    function->ret[name] = ref;
  }
  for (int i = 0; i < ncontrol_outputs; ++i) {
    const TF_Operation* op = control_outputs[i];
    if (!in_body.count(op)) return fail("control output " + std::to_string(i) + " is not in the function's body");
    std::string name = control_output_names != nullptr && control_output_names[i] != nullptr
                           ? control_output_names[i] : op->name;
    if (function->control_ret.count(name)) return fail("control output name '" + name + "' is given twice");
    function->control_ret[name] = op->name;
    sig.control_output.push_back(name);
  }
  if (append_hash) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "_%016llx",
                  static_cast<unsigned long long>(Fnv1a(SerializeFunctionDef(*function))));
    sig.name += suffix;
  }
  ClearStatus(status);
  return new TF_Function{std::move(function)};
}

}  // namespace
}  // namespace opgen

extern "C" {

TF_Function* TF_GraphToFunction(const TF_Graph* fn_body, const char* fn_name,
                                unsigned char append_hash_to_fn_name, int num_opers,
                                const TF_Operation* const* opers, int ninputs,
                                const TF_Output* inputs, int noutputs, const TF_Output* outputs,
                                const char* const* output_names, const TF_FunctionOptions*,
                                const char* description, TF_Status* status) {
  return opgen::GraphToFunction(fn_body, fn_name, append_hash_to_fn_name != 0, num_opers, opers,
                                ninputs, inputs, noutputs, outputs, output_names, 0, nullptr,
                                nullptr, description, status);
}

TF_Function* TF_GraphToFunctionWithControlOutputs(
    const TF_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
    int num_opers, const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    int ncontrol_outputs, const TF_Operation* const* control_outputs,
    const char* const* control_output_names, const TF_FunctionOptions*, const char* description,
    TF_Status* status) {
  return opgen::GraphToFunction(fn_body, fn_name, append_hash_to_fn_name != 0, num_opers, opers,
                                ninputs, inputs, noutputs, outputs, output_names,
                                ncontrol_outputs, control_outputs, control_output_names,
                                description, status);
}

const char* TF_FunctionName(TF_Function* func) {
  return func != nullptr ? func->def->signature.name.c_str() : nullptr;
}

void TF_FunctionToFunctionDef(TF_Function* func, TF_Buffer* output_func_def, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"func", func}, {"output_func_def", output_func_def}}))
    return;
  opgen::WriteBuffer(opgen::SerializeFunctionDef(*func->def), output_func_def);
  opgen::ClearStatus(status);
}

TF_Function* TF_FunctionImportFunctionDef(const void* proto, size_t proto_len, TF_Status* status) {
  if (proto_len > 0 && !opgen::CheckNotNull(status, __func__, {{"proto", proto}})) return nullptr;
  auto def = std::make_shared<opgen::FunctionDefProto>();
  std::string error;
  if (!opgen::ParseFunctionDef(std::string_view(static_cast<const char*>(proto), proto_len),
                               def.get(), &error)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "Invalid FunctionDef: " + error);
    return nullptr;
  }
  if (def->signature.name.empty()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Invalid FunctionDef: the signature has no name");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return new TF_Function{std::move(def)};
}

void TF_FunctionSetAttrValueProto(TF_Function* func, const char* attr_name, const void* proto,
                                  size_t proto_len, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"func", func}, {"attr_name", attr_name}}) ||
      (proto_len > 0 && !opgen::CheckNotNull(status, __func__, {{"proto", proto}})))
    return;
  opgen::AttrValue value;
  std::string error;
  if (!opgen::ParseAttrValue(std::string_view(static_cast<const char*>(proto), proto_len), &value,
                             &error)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Unparseable AttrValue proto for attr '") + attr_name + "': " + error);
    return;
  }
  auto copy = std::make_shared<opgen::FunctionDefProto>(*func->def);
  copy->attr[attr_name] = std::move(value);
  func->def = std::move(copy);
  opgen::ClearStatus(status);
}

void TF_FunctionGetAttrValueProto(TF_Function* func, const char* attr_name,
                                  TF_Buffer* output_attr_value, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"func", func}, {"attr_name", attr_name},
                                              {"output_attr_value", output_attr_value}}))
    return;
  auto it = func->def->attr.find(attr_name);
  if (it == func->def->attr.end()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Function '") + func->def->signature.name +
                         "' has no attr named '" + attr_name + "'.");
    return;
  }
  opgen::WriteBuffer(opgen::SerializeAttrValue(it->second), output_attr_value);
  opgen::ClearStatus(status);
}

void TF_DeleteFunction(TF_Function* func) { delete func; }

void TF_GraphCopyFunction(TF_Graph* g, const TF_Function* func, const TF_Function* grad,
                          TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"g", g}, {"func", func}})) return;
  std::lock_guard<std::mutex> lock(g->mu);
  opgen::FunctionLibrary library = g->functions;
  if (!library.Add(func->def, status)) return;
  if (grad != nullptr && (!library.Add(grad->def, status) ||
                          !library.AddGradient(func->def->signature.name,
                                               grad->def->signature.name, status)))
    return;
  g->functions = std::move(library);
  opgen::ClearStatus(status);
}

int TF_GraphNumFunctions(TF_Graph* g) {
  if (g == nullptr) return 0;
  std::lock_guard<std::mutex> lock(g->mu);
  return static_cast<int>(g->functions.size());
}

int TF_GraphGetFunctions(TF_Graph* g, TF_Function** funcs, int max_func, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"g", g}, {"funcs", opgen::ArrayArg(funcs, max_func)}}))
    return 0;
  std::lock_guard<std::mutex> lock(g->mu);
  int n = 0;
  for (const auto& [name, def] : g->functions.functions()) {
    if (n >= max_func) break;
    funcs[n++] = new TF_Function{def};
  }
  opgen::ClearStatus(status);
  return n;
}

}  // extern "C"
