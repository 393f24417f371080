// opgen's own part of the C++ custom-op API: what REGISTER_OP and REGISTER_KERNEL_BUILDER
// record inside the plugin, and how they reach the runtime through the C API. Everything
// here keeps its records per plugin, shared by its translation
// units and by no other library: the two lists below live in functions of hidden
// visibility (a static in a default-visibility inline function would be one object per
// process, shared by every plugin built with these headers).
#ifndef TENSORFLOW_CORE_FRAMEWORK_OPGEN_REGISTRY_H_
#define TENSORFLOW_CORE_FRAMEWORK_OPGEN_REGISTRY_H_

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {
namespace opgen_registry {

// An op as REGISTER_OP describes it: TensorFlow's spec strings, flags and doc.
struct OpSpec {
  std::string name;
  std::vector<std::string> attrs, inputs, outputs;
  bool stateful = false, commutative = false, aggregate = false, allows_uninitialized = false;
  int deprecated_version = 0;
  std::string deprecation;
  std::string doc;
  void (*shape_fn)(TF_ShapeInferenceContext*, TF_Status*) = nullptr;
};

// A kernel as REGISTER_KERNEL_BUILDER describes it, with the C callbacks made for its class.
struct KernelSpec {
  std::string op, device = "CPU", label, class_name;
  std::vector<std::pair<std::string, std::vector<DataType>>> type_constraints;
  std::vector<std::string> host_memory;
  int priority = 0;
  bool has_priority = false;
  void* (*create)(TF_OpKernelConstruction*) = nullptr;
  void (*compute)(void*, TF_OpKernelContext*) = nullptr;
  void (*destroy)(void*) = nullptr;
};

__attribute__((visibility("hidden"))) inline std::vector<OpSpec>& Ops() {
  static std::vector<OpSpec> ops;
  return ops;
}
// Kernels whose op was not registered yet when their static initializer ran (another
// translation unit's REGISTER_OP may come later): retried after each op of this plugin.
__attribute__((visibility("hidden"))) inline std::vector<KernelSpec>& PendingKernels() {
  static std::vector<KernelSpec> pending;
  return pending;
}

inline const OpSpec* FindOp(const std::string& name) {
  for (const OpSpec& op : Ops())
    if (op.name == name) return &op;
  return nullptr;
}

inline std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// TensorFlow's Doc(): a summary (the first paragraph), a description (the rest), and
// "name: text" lines describing args and attrs.
inline void ApplyDoc(const OpSpec& op, TF_OpDefinitionBuilder* b) {
  std::vector<std::string> names;
  for (const auto* list : {&op.attrs, &op.inputs, &op.outputs})
    for (const std::string& spec : *list) names.push_back(Trim(spec.substr(0, spec.find(':'))));
  std::string summary, description, arg, arg_text;
  bool in_summary = true;
  auto flush_arg = [&] {
    if (!arg.empty()) OPGEN_OpDefinitionBuilderSetArgDescription(b, arg.c_str(), Trim(arg_text).c_str());
    arg.clear();
    arg_text.clear();
  };
  size_t start = 0;
  const std::string& doc = op.doc;
  while (start <= doc.size()) {
    size_t end = doc.find('\n', start);
    if (end == std::string::npos) end = doc.size();
    const std::string line = doc.substr(start, end - start);
    start = end + 1;
    const std::string trimmed = Trim(line);
    const size_t colon = trimmed.find(':');
    const std::string head = colon == std::string::npos ? "" : trimmed.substr(0, colon);
    bool is_arg = false;
    for (const std::string& n : names) is_arg = is_arg || (!head.empty() && n == head && line[0] != ' ');
    if (is_arg) {
      flush_arg();
      arg = head;
      arg_text = trimmed.substr(colon + 1);
      in_summary = false;
    } else if (!arg.empty()) {
      arg_text += " " + trimmed;
    } else if (in_summary) {
      if (trimmed.empty()) { in_summary = summary.empty(); continue; }
      summary += (summary.empty() ? "" : " ") + trimmed;
    } else {
      description += line + "\n";
    }
  }
  flush_arg();
  if (!summary.empty()) OPGEN_OpDefinitionBuilderSetSummary(b, summary.c_str());
  description = Trim(description);
  if (!description.empty()) OPGEN_OpDefinitionBuilderSetDescription(b, description.c_str());
}

inline void Report(const std::string& what, TF_Status* status) {
  std::fprintf(stderr, "opgen C++ plugin: %s failed: %s\n", what.c_str(), TF_Message(status));
}

// Registers one kernel (one per combination of allowed types); true when done or failed
// for good, false when its op is not registered yet.
inline bool TryRegisterKernel(const KernelSpec& k, bool report_missing_op) {
  std::vector<std::vector<std::pair<std::string, DataType>>> combos(1);
  for (const auto& [attr, types] : k.type_constraints) {
    std::vector<std::vector<std::pair<std::string, DataType>>> next;
    for (const auto& combo : combos)
      for (DataType t : types) {
        auto c = combo;
        c.emplace_back(attr, t);
        next.push_back(std::move(c));
      }
    combos = std::move(next);
  }
  TF_Status* status = TF_NewStatus();
  bool done = true;
  for (const auto& combo : combos) {
    TF_KernelBuilder* b = TF_NewKernelBuilder(k.op.c_str(), k.device.c_str(), k.create, k.compute, k.destroy);
    for (const auto& [attr, type] : combo) {
      TF_KernelBuilder_TypeConstraint(b, attr.c_str(), static_cast<TF_DataType>(type), status);
      if (TF_GetCode(status) != TF_OK) break;
    }
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(b);
      Report("a kernel of " + k.op, status);
      break;
    }
    for (const std::string& arg : k.host_memory) TF_KernelBuilder_HostMemory(b, arg.c_str());
    if (!k.label.empty()) TF_KernelBuilder_Label(b, k.label.c_str());
    if (k.has_priority) TF_KernelBuilder_Priority(b, k.priority);
    TF_RegisterKernelBuilder(k.class_name.c_str(), b, status);
    if (TF_GetCode(status) == TF_NOT_FOUND && !report_missing_op && FindOp(k.op) == nullptr) {
      done = false;  // only the first combination can meet a missing op
      break;
    }
    if (TF_GetCode(status) != TF_OK) {
      Report("registering kernel " + k.class_name + " of " + k.op + " on " + k.device, status);
      break;
    }
  }
  TF_DeleteStatus(status);
  return done;
}

inline void RegisterKernel(const KernelSpec& k) {
  if (!TryRegisterKernel(k, /*report_missing_op=*/false)) PendingKernels().push_back(k);
}

inline void RegisterOp(const OpSpec& op) {
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(op.name.c_str());
  for (const std::string& s : op.attrs) TF_OpDefinitionBuilderAddAttr(b, s.c_str());
  for (const std::string& s : op.inputs) TF_OpDefinitionBuilderAddInput(b, s.c_str());
  for (const std::string& s : op.outputs) TF_OpDefinitionBuilderAddOutput(b, s.c_str());
  if (op.stateful) TF_OpDefinitionBuilderSetIsStateful(b, true);
  if (op.commutative) TF_OpDefinitionBuilderSetIsCommutative(b, true);
  if (op.aggregate) TF_OpDefinitionBuilderSetIsAggregate(b, true);
  if (op.allows_uninitialized) TF_OpDefinitionBuilderSetAllowsUninitializedInput(b, true);
  if (op.deprecated_version > 0)
    TF_OpDefinitionBuilderDeprecated(b, op.deprecated_version, op.deprecation.c_str());
  if (op.shape_fn) TF_OpDefinitionBuilderSetShapeInferenceFunction(b, op.shape_fn);
  if (!op.doc.empty()) ApplyDoc(op, b);
  TF_Status* status = TF_NewStatus();
  TF_RegisterOpDefinition(b, status);
  if (TF_GetCode(status) != TF_OK) Report("registering op " + op.name, status);
  TF_DeleteStatus(status);
  Ops().push_back(op);
  auto& pending = PendingKernels();
  std::vector<KernelSpec> waiting;
  waiting.swap(pending);
  for (const KernelSpec& k : waiting)
    if (!TryRegisterKernel(k, /*report_missing_op=*/false)) pending.push_back(k);
}

// How many tensors each input (or output) arg of `op` holds for a node's attrs, read
// through `get_int` (a number attr) and `get_list_size` (a list(type) attr).
template <typename GetInt, typename GetListSize>
bool ArgSizes(const OpSpec& op, const std::vector<std::string>& args, GetInt get_int,
              GetListSize get_list_size, std::vector<std::pair<std::string, int>>* out) {
  for (const std::string& spec : args) {
    const size_t colon = spec.find(':');
    if (colon == std::string::npos) return false;
    const std::string name = Trim(spec.substr(0, colon));
    std::string type = Trim(spec.substr(colon + 1));
    if (type.rfind("Ref(", 0) == 0 && type.back() == ')') type = Trim(type.substr(4, type.size() - 5));
    int count = 1;
    const size_t star = type.find('*');
    if (star != std::string::npos) {
      int64_t n = 0;
      if (!get_int(Trim(type.substr(0, star)), &n)) return false;
      count = static_cast<int>(n);
    } else {
      for (const std::string& attr : op.attrs) {
        const size_t c = attr.find(':');
        if (c != std::string::npos && Trim(attr.substr(0, c)) == type &&
            Trim(attr.substr(c + 1)).rfind("list(", 0) == 0) {
          int n = 0;
          if (!get_list_size(type, &n)) return false;
          count = n;
        }
      }
    }
    out->emplace_back(name, count);
  }
  return true;
}

}  // namespace opgen_registry
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_OPGEN_REGISTRY_H_
