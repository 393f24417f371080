// The op registry, the op-definition builder of the C API, TF_GetAllOpList, and the
// lazy registration of the built-in ops and kernels.
#include "op_registry.h"

#include "device.h"
#include "function_call.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "../kernels/cpu/cpu_kernels.h"
#include "../ops/builtin_ops.h"
#include "op_spec_parser.h"
#include "opgen/c_api_ext.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/ops.h"
#include "wire_format.h"

namespace opgen {

struct OpRegistry::Impl {
  struct Entry {
    std::unique_ptr<OpDef> def;
    ShapeInferenceFn shape_fn = nullptr;
  };
  mutable std::mutex mu;
  std::map<std::string, Entry> ops;
};

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    r->impl_ = std::make_unique<Impl>();
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(std::unique_ptr<OpDef> op, ShapeInferenceFn shape_fn,
                          TF_Status* status) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->ops.count(op->name)) {
    SetStatus(status, TF_ALREADY_EXISTS, "Op '" + op->name + "' is already registered");
    return;
  }
  const std::string name = op->name;
  impl_->ops.emplace(name, Impl::Entry{std::move(op), shape_fn});
  ClearStatus(status);
}

std::string OpNotRegisteredMessage(const std::string& op, const std::string& node) {
  std::string message = "Op type not registered '" + op + "'";
  if (!node.empty()) message += " (node '" + node + "')";
  return message +
         ". opgen's runtime has no op of that name: `opgen list --from-runtime` lists the "
         "ops it has; an op library written against TensorFlow's C op and kernel API adds "
         "one (TF_LoadLibrary, opgen.load_op_library; see docs/plugins.md)";
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->ops.find(name);
  return it == impl_->ops.end() ? nullptr : it->second.def.get();
}

ShapeInferenceFn OpRegistry::FindShapeFn(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->ops.find(name);
  return it == impl_->ops.end() ? nullptr : it->second.shape_fn;
}

std::vector<const OpDef*> OpRegistry::All() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<const OpDef*> out;
  for (const auto& entry : impl_->ops) out.push_back(entry.second.def.get());
  return out;  // std::map keeps them sorted by name
}

namespace {
thread_local bool t_initializing = false;
thread_local RegistrationLog* t_registration_log = nullptr;
}  // namespace

RegistrationLog* SetThreadRegistrationLog(RegistrationLog* log) {
  RegistrationLog* previous = t_registration_log;
  t_registration_log = log;
  return previous;
}

namespace {
void LogRegistration(const std::string& op_name, const TF_Status& status) {
  if (t_registration_log == nullptr || t_initializing) return;
  if (status.code == TF_OK) t_registration_log->registered.push_back(op_name);
  else t_registration_log->failures.push_back(status.message);
}
}  // namespace

bool EnsureRuntimeInitialized(TF_Status* status) {
  static std::once_flag once;
  static TF_Status init_status;
  if (t_initializing) return true;  // registration code calling back into the registry
  std::call_once(once, [] {
    t_initializing = true;
    opgen_register_builtin_ops(&init_status);
    if (init_status.code == TF_OK) opgen_register_cpu_kernels(&init_status);
    if (init_status.code == TF_OK) RegisterFunctionKernels(&init_status);
    // Device plugins register through the public API, like any plugin; one that cannot
    // start leaves the CPU runtime as it is (see device.h).
    if (init_status.code == TF_OK) LoadDevicePlugins();
    t_initializing = false;
    if (init_status.code != TF_OK)
      init_status.message = "the runtime's built-in registry failed to initialise: " +
                            init_status.message;
  });
  if (init_status.code != TF_OK) {
    SetStatus(status, init_status.code, init_status.message);
    return false;
  }
  return true;
}

}  // namespace opgen

// ---- The op-definition builder --------------------------------------------------------

struct TF_OpDefinitionBuilder {
  opgen::OpDef op;
  opgen::ShapeInferenceFn shape_fn = nullptr;
  std::vector<std::string> attr_specs, input_specs, output_specs;
  std::vector<std::pair<std::string, std::string>> arg_docs;
};

namespace {

// Applies the collected specs and docs; "" on success.
std::string BuildOpDef(TF_OpDefinitionBuilder* b) {
  using namespace opgen;
  OpDef& op = b->op;
  for (const std::string& spec : b->attr_specs) {
    AttrDef attr;
    std::string error = ParseAttrSpec(spec, &attr);
    if (!error.empty()) return "attr spec '" + spec + "': " + error;
    op.attr.push_back(std::move(attr));
  }
  for (auto [specs, args] : {std::make_pair(&b->input_specs, &op.input_arg),
                             std::make_pair(&b->output_specs, &op.output_arg)}) {
    for (const std::string& spec : *specs) {
      ArgDef arg;
      std::string error = ParseArgSpec(spec, &arg);
      if (!error.empty()) return "arg spec '" + spec + "': " + error;
      args->push_back(std::move(arg));
    }
  }
  std::string error = ResolveArgTypes(&op, b->input_specs, b->output_specs);
  if (error.empty()) error = ValidateOpDef(op);
  if (!error.empty()) return error;
  for (const auto& [name, doc] : b->arg_docs) {
    bool found = false;
    for (auto* args : {&op.input_arg, &op.output_arg})
      for (ArgDef& a : *args)
        if (a.name == name) { a.description = doc; found = true; }
    for (AttrDef& a : op.attr)
      if (a.name == name) { a.description = doc; found = true; }
    if (!found) return "description given for unknown arg or attr '" + name + "'";
  }
  return "";
}

}  // namespace

extern "C" {

TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name) {
  auto* b = new TF_OpDefinitionBuilder();
  b->op.name = op_name ? op_name : "";
  return b;
}

void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder) { delete builder; }

void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* attr_spec) {
  builder->attr_specs.emplace_back(attr_spec ? attr_spec : "");
}
void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* input_spec) {
  builder->input_specs.emplace_back(input_spec ? input_spec : "");
}
void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder, const char* output_spec) {
  builder->output_specs.emplace_back(output_spec ? output_spec : "");
}
void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder* builder, bool v) {
  builder->op.is_commutative = v;
}
void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder, bool v) {
  builder->op.is_aggregate = v;
}
void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder, bool v) {
  builder->op.is_stateful = v;
}
void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder* builder, bool v) {
  builder->op.allows_uninitialized_input = v;
}
void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder, int version,
                                      const char* explanation) {
  builder->op.has_deprecation = true;
  builder->op.deprecation.version = version;
  builder->op.deprecation.explanation = explanation ? explanation : "";
}

void TF_OpDefinitionBuilderSetShapeInferenceFunction(
    TF_OpDefinitionBuilder* builder,
    void (*shape_inference_func)(TF_ShapeInferenceContext* ctx, TF_Status* status)) {
  builder->shape_fn = shape_inference_func;
}

void OPGEN_OpDefinitionBuilderSetIsDistributedCommunication(TF_OpDefinitionBuilder* builder,
                                                            bool v) {
  builder->op.is_distributed_communication = v;
}
void OPGEN_OpDefinitionBuilderSetSummary(TF_OpDefinitionBuilder* builder, const char* summary) {
  builder->op.summary = summary ? summary : "";
}
void OPGEN_OpDefinitionBuilderSetDescription(TF_OpDefinitionBuilder* builder,
                                             const char* description) {
  builder->op.description = description ? description : "";
}
void OPGEN_OpDefinitionBuilderSetArgDescription(TF_OpDefinitionBuilder* builder,
                                                const char* name, const char* description) {
  builder->arg_docs.emplace_back(name ? name : "", description ? description : "");
}

void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status) {
  std::unique_ptr<TF_OpDefinitionBuilder> owned(builder);
  TF_Status local;
  if (status == nullptr) status = &local;
  if (!opgen::CheckNotNull(status, __func__, {{"builder", builder}})) return;
  struct Logger {
    const std::string name;
    TF_Status* status;
    ~Logger() { opgen::LogRegistration(name, *status); }
  } logger{builder->op.name, status};
  try {
    // Plugins may register before the built-ins are in; make sure they are first, so a
    // name clash is reported against the plugin rather than breaking the runtime.
    opgen::EnsureRuntimeInitialized(nullptr);
    std::string error = BuildOpDef(builder);
    if (!error.empty()) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Invalid definition of op '" + builder->op.name + "': " + error);
      return;
    }
    opgen::OpRegistry::Global().Register(std::make_unique<opgen::OpDef>(std::move(builder->op)),
                                         builder->shape_fn, status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

const char* TF_Version(void) { return "2.21.0-opgen0.1.0"; }

TF_Buffer* TF_GetAllOpList(void) {
  TF_Status status;
  opgen::EnsureRuntimeInitialized(&status);  // on failure, list what did register
  std::string bytes = opgen::SerializeOpList(opgen::OpRegistry::Global().All());
  return TF_NewBufferFromString(bytes.data(), bytes.size());
}

}  // extern "C"
