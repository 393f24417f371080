// The kernel registry, TF_KernelBuilder, and the construction and compute contexts.
#include "kernel_registry.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "denormals.h"
#include "kernel_context.h"
#include "op_registry.h"
#include "opgen/c_api_ext.h"
#include "resource_mgr.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/tf_tstring.h"
#include "wire_format.h"
#include "wire_reader.h"

struct TF_KernelBuilder {
  opgen::KernelDef def;
};

struct TF_OpKernelConstruction {
  const opgen::OpDef* op;
  const opgen::AttrMap* attrs;
  std::string name;
  TF_Status failure;
  // The library of the graph (or eager context) the node belongs to: what the call
  // kernels (function_call.h) instantiate functions from. Null elsewhere.
  const opgen::FunctionLibrary* functions = nullptr;
};

namespace opgen {
const FunctionLibrary* ConstructionFunctions(const TF_OpKernelConstruction* ctx) {
  return ctx->functions;
}
const OpDef* ConstructionOpDef(const TF_OpKernelConstruction* ctx) { return ctx->op; }
const AttrMap* ConstructionAttrs(const TF_OpKernelConstruction* ctx) { return ctx->attrs; }
}  // namespace opgen


namespace opgen {
namespace {

struct KernelTable {
  std::mutex mu;
  std::vector<std::unique_ptr<KernelDef>> kernels;  // in registration order
  // The same kernels by op: a lookup scans only its op's kernels, not every device's.
  std::unordered_map<std::string, std::vector<const KernelDef*>> by_op;
};

KernelTable& Table() {
  static KernelTable* table = new KernelTable();
  return *table;
}

std::string DescribeKernel(const KernelDef& k) {
  std::string s = "device='" + k.device + "'";
  for (const auto& [attr, type] : k.type_constraints)
    s += "; " + attr + " in [DT_" + [](std::string n) {
      for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return n;
    }(DataTypeName(type)) + "]";
  if (k.priority != 0) s += "; priority=" + std::to_string(k.priority);
  if (!k.label.empty()) s += "; label='" + k.label + "'";
  return s;
}

std::atomic<int64_t> g_next_step_id{1};

}  // namespace

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry registry;
  return registry;
}

void KernelRegistry::Register(KernelDef def, TF_Status* status) {
  EnsureRuntimeInitialized(nullptr);
  const OpDef* op = OpRegistry::Global().Find(def.op);
  if (op == nullptr) {
    SetStatus(status, TF_NOT_FOUND,
              "Cannot register kernel '" + def.name + "': op '" + def.op + "' is not registered");
    return;
  }
  for (const auto& constraint : def.type_constraints) {
    const AttrDef* attr = op->FindAttr(constraint.first);
    if (attr == nullptr || (attr->type != "type" && attr->type != "list(type)")) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Cannot register kernel '" + def.name + "' for op '" + def.op +
                    "': type constraint on '" + constraint.first + "', which is not a type attr");
      return;
    }
  }
  std::sort(def.type_constraints.begin(), def.type_constraints.end());
  KernelTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mu);
  std::vector<const KernelDef*>& same_op = table.by_op[def.op];
  for (const KernelDef* k : same_op) {
    if (k->device == def.device && k->type_constraints == def.type_constraints &&
        k->priority == def.priority && k->label == def.label) {
      SetStatus(status, TF_ALREADY_EXISTS,
                "A kernel for op '" + def.op + "' with " + DescribeKernel(def) +
                    " is already registered");
      return;
    }
  }
  table.kernels.push_back(std::make_unique<KernelDef>(std::move(def)));
  same_op.push_back(table.kernels.back().get());
  ClearStatus(status);
}

const KernelDef* KernelRegistry::Find(const OpDef& op, const std::string& device,
                                      const AttrMap& attrs, TF_Status* status) const {
  KernelTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mu);
  const KernelDef* best = nullptr;
  // As in TensorFlow, a node picks a labelled kernel through its "_kernel" attr.
  auto label_attr = attrs.find("_kernel");
  const std::string label = label_attr != attrs.end() && label_attr->second.kind == AttrValue::kString
                                ? label_attr->second.s
                                : std::string();
  static const std::vector<const KernelDef*> kNone;
  auto same_op = table.by_op.find(op.name);
  const std::vector<const KernelDef*>& candidates =
      same_op == table.by_op.end() ? kNone : same_op->second;
  for (const KernelDef* k : candidates) {
    if (k->device != device || k->label != label) continue;
    bool match = true;
    for (const auto& [attr, type] : k->type_constraints) {
      auto it = attrs.find(attr);
      if (it == attrs.end()) { match = false; break; }
      const AttrValue& v = it->second;
      if (v.kind == AttrValue::kType) {
        match = v.type == type;
      } else if (v.kind == AttrValue::kListType) {
        match = std::all_of(v.list_type.begin(), v.list_type.end(),
                            [type](TF_DataType t) { return t == type; });
      } else {
        match = false;
      }
      if (!match) break;
    }
    if (match && (best == nullptr || k->priority > best->priority)) best = k;
  }
  if (best == nullptr) {
    std::string registered;
    for (const KernelDef* k : candidates) registered += "\n  " + DescribeKernel(*k);
    SetStatus(status, TF_NOT_FOUND,
              "No registered '" + op.name + "' OpKernel for '" + device +
                  "' devices compatible with node {{node " + op.name + "}}. Requested: " +
                  AttrMapToString(attrs) + ". Registered:" +
                  (registered.empty() ? std::string(" <no registered kernels>") : registered) +
                  "\n(`opgen kernels " + op.name + "` lists them; an op library can register "
                  "more: see docs/plugins.md)");
  }
  return best;
}

std::string KernelRegistry::SerializeKernels(const std::string* op, bool only_instantiated) const {
  KernelTable& table = Table();
  std::vector<KernelDefProto> listed;
  {
    std::lock_guard<std::mutex> lock(table.mu);
    std::vector<const KernelDef*> kernels;
    if (op == nullptr) {
      for (const auto& k : table.kernels) kernels.push_back(k.get());
    } else if (auto same_op = table.by_op.find(*op); same_op != table.by_op.end()) {
      kernels = same_op->second;
    }
    for (const KernelDef* k : kernels) {
      if (only_instantiated && !k->instantiated.set.load(std::memory_order_relaxed)) continue;
      KernelDefProto proto;
      proto.op = k->op;
      proto.device_type = k->device;
      for (const auto& [attr, type] : k->type_constraints) {
        AttrValue allowed;
        allowed.kind = AttrValue::kListType;
        allowed.list_type.push_back(type);
        proto.constraints.emplace_back(attr, std::move(allowed));
      }
      proto.host_memory_args = k->host_memory_args;
      proto.label = k->label;
      proto.priority = k->priority;
      listed.push_back(std::move(proto));
    }
  }
  return SerializeKernelList(listed);
}

const KernelDef* PlaceKernel(const std::string& requested, const OpDef& op, const AttrMap& attrs,
                             const Device** device, TF_Status* status) {
  const Device* wanted = requested.empty() ? CpuDevice() : FindDevice(requested);
  if (wanted != nullptr && !wanted->is_host()) {
    TF_Status miss;
    const KernelDef* k = KernelRegistry::Global().Find(op, wanted->type(), attrs, &miss);
    if (k != nullptr) {
      *device = wanted;
      ClearStatus(status);
      return k;
    }
  }
  *device = CpuDevice();
  return KernelRegistry::Global().Find(op, "CPU", attrs, status);
}

std::string AttrValueToString(const AttrValue& v) {
  auto type_name = [](TF_DataType t) {
    std::string n = DataTypeName(t);
    for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return "DT_" + n;
  };
  auto join = [](const auto& items, auto fmt) {
    std::string s = "[";
    bool first = true;
    for (const auto& x : items) { if (!first) s += ", "; first = false; s += fmt(x); }
    return s + "]";
  };
  switch (v.kind) {
    case AttrValue::kString: return "\"" + v.s + "\"";
    case AttrValue::kInt: return std::to_string(v.i);
    case AttrValue::kFloat: return std::to_string(v.f);
    case AttrValue::kBool: return v.b ? "true" : "false";
    case AttrValue::kType: return type_name(v.type);
    case AttrValue::kShape: return v.shape.unknown_rank ? "<unknown>" : ShapeToString(v.shape.dims);
    case AttrValue::kListType: return join(v.list_type, type_name);
    case AttrValue::kListInt: return join(v.list_i, [](int64_t i) { return std::to_string(i); });
    case AttrValue::kListString: return join(v.list_s, [](const std::string& s) { return "\"" + s + "\""; });
    default: return "<value>";
  }
}

std::string AttrMapToString(const AttrMap& attrs) {
  std::string s;
  for (const auto& [name, value] : attrs) {
    if (!s.empty()) s += ", ";
    s += name + "=" + AttrValueToString(value);
  }
  return s;
}

int64_t NextStepId() { return g_next_step_id.fetch_add(1, std::memory_order_relaxed); }

std::unique_ptr<KernelInstance> KernelInstance::Create(const KernelDef& kernel, const OpDef& op,
                                                       const std::string& node_name,
                                                       const AttrMap& attrs,
                                                       std::vector<TF_DataType> output_types,
                                                       TF_Status* status, const Device* device,
                                                       ResourceMgr* resources,
                                                       const FunctionLibrary* functions) {
  if (!kernel.instantiated.set.load(std::memory_order_relaxed))
    kernel.instantiated.set.store(true, std::memory_order_relaxed);
  std::unique_ptr<KernelInstance> instance(
      new KernelInstance(kernel, op, node_name, std::move(output_types)));
  instance->device_ = device != nullptr ? device : CpuDevice();
  instance->on_host_ = instance->device_->is_host();
  instance->resources_ = resources;
  if (!instance->device_->is_host() && !kernel.host_memory_args.empty()) {
    // Host-memory args are named; map them to flat indices (list args count their
    // elements, given by the node's attrs).
    auto mark = [&](const std::vector<ArgDef>& args, std::vector<bool>* mask) {
      for (const ArgDef& arg : args) {
        int64_t count = 1;
        if (!arg.number_attr.empty()) {
          auto it = attrs.find(arg.number_attr);
          count = it != attrs.end() ? it->second.i : 0;
        } else if (!arg.type_list_attr.empty()) {
          auto it = attrs.find(arg.type_list_attr);
          count = it != attrs.end() ? static_cast<int64_t>(it->second.list_type.size()) : 0;
        }
        const bool host = std::find(kernel.host_memory_args.begin(), kernel.host_memory_args.end(),
                                    arg.name) != kernel.host_memory_args.end();
        mask->insert(mask->end(), static_cast<size_t>(count), host);
      }
    };
    mark(op.input_arg, &instance->host_inputs_);
    mark(op.output_arg, &instance->host_outputs_);
  }
  TF_OpKernelConstruction construction{&op, &attrs, node_name, {}, functions};
  instance->state_ = kernel.create_func ? kernel.create_func(&construction) : nullptr;
  if (construction.failure.code != TF_OK) {
    SetStatus(status, construction.failure.code, op.name + ": " + construction.failure.message);
    return nullptr;  // the destructor deletes whatever state create returned
  }
  ClearStatus(status);
  return instance;
}

KernelInstance::~KernelInstance() {
  if (kernel_.delete_func && state_) kernel_.delete_func(state_);
}

void KernelInstance::Compute(TF_Tensor* const* inputs, int num_inputs, TF_Tensor** outputs,
                             int64_t step_id, TF_Status* status, bool inputs_in_place,
                             uint64_t forwardable_inputs) const {
  const int n = num_outputs();
  // Inputs that live elsewhere than the kernel reads them are copied for this call.
  // On the CPU with host inputs (the common case) this is one check per input.
  constexpr int kInline = 8;
  TF_Tensor* moved_inline[kInline];
  std::unique_ptr<TF_Tensor*[]> moved_heap;
  TF_Tensor** moved = nullptr;  // [i]: a copy of input i this call owns, or null
  bool all_in_place = true;
  if (inputs_in_place) {
    // nothing to check
  } else if (on_host_) {  // the fast path: host memory is a null device
    for (int i = 0; i < num_inputs && all_in_place; ++i)
      all_in_place = inputs[i]->buffer->device() == nullptr;
  } else {
    all_in_place = false;  // checked input by input below
  }
  for (int i = 0; i < num_inputs && !all_in_place; ++i) {
    const Device* have = DeviceOf(inputs[i]);
    const Device* want = host_input(i) ? CpuDevice() : device_;
    if (have == want) continue;
    if (moved == nullptr) {
      if (num_inputs <= kInline) {
        moved = moved_inline;
      } else {
        moved_heap.reset(new TF_Tensor*[num_inputs]);
        moved = moved_heap.get();
      }
      for (int k = 0; k < num_inputs; ++k) moved[k] = nullptr;
    }
    moved[i] = CopyTensorTo(inputs[i], want, status);
    if (moved[i] == nullptr) {
      for (int k = 0; k < i; ++k) delete moved[k];
      status->message = op_.name + ": input " + std::to_string(i) + ": " + status->message;
      return;
    }
  }
  TF_Tensor* placed_inline[kInline];
  std::unique_ptr<TF_Tensor*[]> placed_heap;
  TF_Tensor* const* kernel_inputs = inputs;
  if (moved != nullptr) {
    TF_Tensor** placed = placed_inline;
    if (num_inputs > kInline) {
      placed_heap.reset(new TF_Tensor*[num_inputs]);
      placed = placed_heap.get();
    }
    for (int i = 0; i < num_inputs; ++i) placed[i] = moved[i] ? moved[i] : inputs[i];
    kernel_inputs = placed;
  }
  TF_OpKernelContext ctx{kernel_inputs, num_inputs,  outputs, n, output_types_.data(),
                         step_id,       &node_name_, this,    {},
                         moved == nullptr ? forwardable_inputs : 0};
  {
    // The pool's workers inherit the modes when the pool starts inside a kernel call
    // (its threads are created lazily, from here); see denormals.h.
    ScopedFlushDenormals flush_denormals;
    kernel_.compute_func(state_, &ctx);
  }
  if (moved != nullptr)
    for (int i = 0; i < num_inputs; ++i) delete moved[i];
  auto discard = [outputs, n] {
    for (int i = 0; i < n; ++i) {
      delete outputs[i];
      outputs[i] = nullptr;
    }
  };
  if (ctx.failure.code != TF_OK) {
    discard();
    SetStatus(status, ctx.failure.code, op_.name + ": " + ctx.failure.message);
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (outputs[i] == nullptr) {
      discard();
      SetStatus(status, TF_INTERNAL, op_.name + ": kernel '" + kernel_.name +
                                         "' did not set output " + std::to_string(i));
      return;
    }
    if (outputs[i]->dtype != output_types_[i]) {
      std::string got = DataTypeName(outputs[i]->dtype);
      discard();
      SetStatus(status, TF_INTERNAL, op_.name + ": kernel '" + kernel_.name + "' produced " +
                                         got + " for output " + std::to_string(i) +
                                         ", expected " + DataTypeName(output_types_[i]));
      return;
    }
  }
  ClearStatus(status);
}

void RunKernel(const KernelDef& kernel, const OpDef& op, const std::string& node_name,
               const AttrMap& attrs, const std::vector<TF_Tensor*>& inputs,
               const std::vector<TF_DataType>& output_types, std::vector<TF_Tensor*>* outputs,
               TF_Status* status) {
  std::unique_ptr<KernelInstance> instance =
      KernelInstance::Create(kernel, op, node_name, attrs, output_types, status);
  if (instance == nullptr) return;
  std::vector<TF_Tensor*> results(output_types.size(), nullptr);
  instance->Compute(inputs.data(), static_cast<int>(inputs.size()), results.data(), NextStepId(),
                    status);
  if (status->code != TF_OK) return;
  *outputs = std::move(results);
}

}  // namespace opgen

// ---- C API ------------------------------------------------------------------------------

namespace {

const opgen::AttrValue* GetAttr(TF_OpKernelConstruction* ctx, const char* name,
                                opgen::AttrValue::Kind kind, const char* kind_name,
                                TF_Status* status) {
  auto it = ctx->attrs->find(name);
  if (it == ctx->attrs->end()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("No attr named '") + name + "' in NodeDef of " + ctx->op->name);
    return nullptr;
  }
  if (it->second.kind != kind) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Attr '") + name + "' of " + ctx->op->name + " is not a " +
                         kind_name);
    return nullptr;
  }
  opgen::ClearStatus(status);
  return &it->second;
}

template <typename Out, typename In>
void CopyList(const std::vector<In>& from, Out* to, int max_vals) {
  int n = std::min<int>(max_vals, static_cast<int>(from.size()));
  for (int i = 0; i < n; ++i) to[i] = static_cast<Out>(from[i]);
}

}  // namespace

namespace opgen {
namespace {

// The KernelList that TF_GetAllRegisteredKernels / TF_GetRegisteredKernelsForOp return:
// the kernels of every library and plugin the runtime has loaded.
TF_Buffer* RegisteredKernels(const std::string* op, TF_Status* status,
                             bool only_instantiated = false) {
  try {
    EnsureRuntimeInitialized(nullptr);  // on failure, list what did register
    const std::string bytes = KernelRegistry::Global().SerializeKernels(op, only_instantiated);
    ClearStatus(status);
    return TF_NewBufferFromString(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

}  // namespace
}  // namespace opgen

extern "C" {

TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                      void* (*create_func)(TF_OpKernelConstruction*),
                                      void (*compute_func)(void*, TF_OpKernelContext*),
                                      void (*delete_func)(void*)) {
  auto* b = new TF_KernelBuilder();
  b->def.op = op_name ? op_name : "";
  b->def.device = device_name ? device_name : "";
  b->def.create_func = create_func;
  b->def.compute_func = compute_func;
  b->def.delete_func = delete_func;
  return b;
}

void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder, const char* attr_name,
                                     const TF_DataType type, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"kernel_builder", kernel_builder}, {"attr_name", attr_name}}))
    return;
  kernel_builder->def.type_constraints.emplace_back(attr_name, type);
  opgen::ClearStatus(status);
}

void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder, const char* arg_name) {
  kernel_builder->def.host_memory_args.emplace_back(arg_name);
}

void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder, int32_t priority_number) {
  kernel_builder->def.priority = priority_number;
}

void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder, const char* label) {
  kernel_builder->def.label = label ? label : "";
}

void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder,
                              TF_Status* status) {
  std::unique_ptr<TF_KernelBuilder> owned(builder);
  if (!opgen::CheckNotNull(status, __func__, {{"builder", builder}})) return;
  if (builder->def.compute_func == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Kernel for op '" + builder->def.op + "' has no compute function");
    return;
  }
  try {
    builder->def.name = kernel_name ? kernel_name : "";
    opgen::KernelRegistry::Global().Register(std::move(builder->def), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def, const char* name,
                                           TF_KernelBuilder* builder, TF_Status* status) {
  if (serialized_kernel_def == nullptr) {
    TF_RegisterKernelBuilder(name, builder, status);
    return;
  }
  std::unique_ptr<TF_KernelBuilder> owned(builder);
  if (!opgen::CheckNotNull(status, __func__, {{"builder", builder}})) return;
  try {
    // TensorFlow's signature passes the bytes without a length; like TensorFlow, read
    // them up to the first NUL.
    opgen::KernelDefProto proto;
    std::string error;
    if (!opgen::ParseKernelDef(serialized_kernel_def, &proto, &error)) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Cannot register kernel '" + std::string(name ? name : "") + "': " + error);
      return;
    }
    const std::string where = "Cannot register kernel '" + std::string(name ? name : "") +
                              "' for op '" + proto.op + "': ";
    // The registry matches one dtype per constrained attr; a constraint allowing several
    // dtypes becomes one kernel per combination.
    std::vector<std::vector<std::pair<std::string, TF_DataType>>> combos(1);
    for (const auto& [attr, allowed] : proto.constraints) {
      std::vector<TF_DataType> types;
      if (allowed.kind == opgen::AttrValue::kType) types.push_back(allowed.type);
      else if (allowed.kind == opgen::AttrValue::kListType) types = allowed.list_type;
      if (types.empty()) {
        opgen::SetStatus(status, TF_UNIMPLEMENTED,
                         where + "constraint on '" + attr + "' is not a list of dtypes");
        return;
      }
      std::vector<std::vector<std::pair<std::string, TF_DataType>>> next;
      for (const auto& combo : combos)
        for (TF_DataType t : types) {
          next.push_back(combo);
          next.back().emplace_back(attr, t);
        }
      combos = std::move(next);
    }
    for (const auto& combo : combos) {
      opgen::KernelDef def = builder->def;
      def.name = name ? name : "";
      def.op = proto.op;
      def.device = proto.device_type;
      def.type_constraints = combo;
      def.host_memory_args = proto.host_memory_args;
      def.priority = proto.priority;
      def.label = proto.label;
      if (def.compute_func == nullptr) {
        opgen::SetStatus(status, TF_INVALID_ARGUMENT, where + "no compute function");
        return;
      }
      opgen::KernelRegistry::Global().Register(std::move(def), status);
      if (status->code != TF_OK) return;
    }
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

void TF_DeleteKernelBuilder(TF_KernelBuilder* builder) { delete builder; }

TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status) {
  return opgen::RegisteredKernels(nullptr, status);
}

TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"name", name}})) return nullptr;
  const std::string op = name;
  return opgen::RegisteredKernels(&op, status);
}

TF_Buffer* OPGEN_GetInstantiatedKernels(TF_Status* status) {
  return opgen::RegisteredKernels(nullptr, status, /*only_instantiated=*/true);
}

int TF_NumInputs(TF_OpKernelContext* ctx) { return ctx->num_inputs; }
int TF_NumOutputs(TF_OpKernelContext* ctx) { return ctx->num_outputs; }

void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE, "input index " + std::to_string(i) + " out of range");
    return;
  }
  *tensor = ctx->inputs[i]->Share();
  opgen::ClearStatus(status);
}

const TF_Tensor* OPGEN_KernelInput(TF_OpKernelContext* ctx, int index, TF_Status* status) {
  if (index < 0 || index >= ctx->num_inputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "input index " + std::to_string(index) + " out of range");
    return nullptr;
  }
  return ctx->inputs[index];
}

void TF_SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor, TF_Status* status) {
  if (i < 0 || i >= ctx->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE, "output index " + std::to_string(i) + " out of range");
    return;
  }
  delete ctx->outputs[i];
  ctx->outputs[i] = tensor->Share();
  opgen::ClearStatus(status);
}

// Bytes per element of a tensor's buffer: a TF_TString for strings, whose
// TF_DataTypeSize is 0 as in TensorFlow.
static size_t ElementSize(TF_DataType dtype) {
  return dtype == TF_STRING ? sizeof(TF_TString) : TF_DataTypeSize(dtype);
}

// Allocates output `index` into the context, which owns it; nullptr after a failure.
static TF_Tensor* AllocateContextOutput(TF_OpKernelContext* context, int index,
                                        TF_DataType dtype, const int64_t* dims, int num_dims,
                                        size_t len, TF_Status* status) {
  if (index < 0 || index >= context->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "output index " + std::to_string(index) + " out of range");
    return nullptr;
  }
  // Strings live in host memory on every device, as in TensorFlow.
  TF_Tensor* t = context->instance->host_output(index) || dtype == TF_STRING
                    ? TF_AllocateTensor(dtype, dims, num_dims, len)
                    : opgen::AllocateDeviceTensor(context->instance->device(), dtype, dims,
                                                  num_dims, len, status);
  if (t == nullptr) {
    if (status == nullptr || status->code == TF_OK)
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "cannot allocate output " + std::to_string(index) + ": " +
                           std::to_string(len) + " bytes do not fit dtype and shape " +
                           opgen::ShapeToString(std::vector<int64_t>(dims, dims + num_dims)));
    return nullptr;
  }
  delete context->outputs[index];
  context->outputs[index] = t;
  opgen::ClearStatus(status);
  return t;
}

TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index, TF_DataType dtype,
                             const int64_t* dims, int num_dims, size_t len, TF_Status* status) {
  TF_Tensor* t = AllocateContextOutput(context, index, dtype, dims, num_dims, len, status);
  return t == nullptr ? nullptr : t->Share();  // the caller's own reference
}

TF_Tensor* OPGEN_KernelAllocateOutput(TF_OpKernelContext* context, int index, TF_DataType dtype,
                                      const int64_t* dims, int num_dims, size_t len,
                                      TF_Status* status) {
  return AllocateContextOutput(context, index, dtype, dims, num_dims, len, status);
}

void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status) {
  ctx->failure.code = status->code;
  ctx->failure.message = status->message;
}

TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i) {
  return ctx->output_types[i];
}

int64_t TF_StepId(TF_OpKernelContext* ctx) { return ctx->step_id; }

TF_DataType TF_InputDatatype(TF_OpKernelContext* ctx, int index) {
  if (index < 0 || index >= ctx->num_inputs) return static_cast<TF_DataType>(0);
  return ctx->inputs[index]->dtype;
}

bool TF_IsHostMemoryInput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE, "input index " + std::to_string(i) + " out of range");
    return false;
  }
  opgen::ClearStatus(status);
  return ctx->instance->host_input(i);
}

bool TF_IsHostMemoryOutput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE, "output index " + std::to_string(i) + " out of range");
    return false;
  }
  opgen::ClearStatus(status);
  return ctx->instance->host_output(i);
}

SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* status) {
  const opgen::Device* device = ctx->instance->device();
  if (device->is_host()) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                     "Accessing device stream is not supported for a CPU device.");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return device->stream();
}

int TF_GetDeviceId(TF_OpKernelContext* ctx) {
  const opgen::Device* device = ctx->instance->device();
  return device->is_host() ? -1 : device->ordinal();
}

uint64_t OPGEN_KernelSeedGeneration(TF_OpKernelContext* ctx) {
  const opgen::ResourceMgr* resources = ctx->instance->resources();
  return resources == nullptr ? 0 : resources->seed_generation();
}

TF_StringView TF_GetOpKernelName(TF_OpKernelContext* ctx) {
  return TF_StringView{ctx->node_name->data(), ctx->node_name->size()};
}

// Input `input` made output `output` (held by the context), when the kernel may write it:
// the caller reads it no more, nothing else holds its buffer, the buffer is memory the
// runtime allocated (a caller's memory stays theirs) or a variant's payload (an object
// only kernels reach), and it is what the output must be: dtype, shape (`dims` unless
// null), device. Null otherwise.
static TF_Tensor* ForwardInput(TF_OpKernelContext* ctx, int input, int output,
                               const int64_t* dims, int num_dims) {
  if (input < 0 || input >= ctx->num_inputs || input >= 64 || output < 0 ||
      output >= ctx->num_outputs || ((ctx->forwardable_inputs >> input) & 1) == 0)
    return nullptr;
  TF_Tensor* t = ctx->inputs[input];
  opgen::TensorBuffer* buffer = t->buffer;
  if (t->dtype != ctx->output_types[output] || !buffer->SoleHolder() ||
      !(buffer->WritableInPlace() || t->dtype == TF_VARIANT))
    return nullptr;
  const opgen::Device* want =
      ctx->instance->host_output(output) ? opgen::CpuDevice() : ctx->instance->device();
  if (opgen::DeviceOf(t) != want) return nullptr;
  if (dims != nullptr && (t->dims.size() != static_cast<size_t>(num_dims) ||
                          !std::equal(t->dims.begin(), t->dims.end(), dims)))
    return nullptr;
  delete ctx->outputs[output];
  ctx->outputs[output] = t->Share();
  return ctx->outputs[output];
}

TF_Tensor* OPGEN_KernelForwardInput(TF_OpKernelContext* ctx, int input_index, int output_index,
                                    TF_Status* status) {
  if (input_index < 0 || input_index >= ctx->num_inputs || output_index < 0 ||
      output_index >= ctx->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "input " + std::to_string(input_index) + " or output " +
                         std::to_string(output_index) + " out of range");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return ForwardInput(ctx, input_index, output_index, nullptr, 0);
}

TF_Tensor* TF_ForwardInputOrAllocateOutput(TF_OpKernelContext* context,
                                           const int* candidate_input_indices,
                                           int num_candidate_input_indices, int output_index,
                                           const int64_t* output_dims, int output_num_dims,
                                           int* forwarded_input, TF_Status* status) {
  if (forwarded_input != nullptr) *forwarded_input = -1;
  if (output_index < 0 || output_index >= context->num_outputs) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "output index " + std::to_string(output_index) + " out of range");
    return nullptr;
  }
  for (int c = 0; candidate_input_indices != nullptr && c < num_candidate_input_indices; ++c) {
    TF_Tensor* t = ForwardInput(context, candidate_input_indices[c], output_index, output_dims,
                                output_num_dims);
    if (t == nullptr) continue;
    if (forwarded_input != nullptr) *forwarded_input = candidate_input_indices[c];
    opgen::ClearStatus(status);
    return t->Share();  // the caller's own reference, as TF_AllocateOutput's
  }
  const TF_DataType dtype = context->output_types[output_index];
  const int64_t elements =
      opgen::NumElements(std::vector<int64_t>(output_dims, output_dims + output_num_dims));
  const size_t element_size = ElementSize(dtype);
  if (elements < 0 || element_size == 0) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "cannot allocate output " + std::to_string(output_index) + " of dtype " +
                         std::string(opgen::DataTypeName(dtype)) + " and shape " +
                         opgen::ShapeToString(std::vector<int64_t>(
                             output_dims, output_dims + output_num_dims)));
    return nullptr;
  }
  return TF_AllocateOutput(context, output_index, dtype, output_dims, output_num_dims,
                           static_cast<size_t>(elements) * element_size, status);
}

TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* context, TF_DataType dtype,
                           const int64_t* dims, int num_dims, TF_AllocatorAttributes* alloc_attrs,
                           TF_Status* status) {
  if (alloc_attrs != nullptr && alloc_attrs->struct_size != TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "TF_AllocatorAttributes.struct_size is " +
                         std::to_string(alloc_attrs->struct_size) + ", expected " +
                         std::to_string(TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE));
    return nullptr;
  }
  const std::vector<int64_t> shape(dims, dims + num_dims);
  const int64_t elements = opgen::NumElements(shape);
  const opgen::Device* device = context->instance->device();
  const bool on_host = device->is_host() || (alloc_attrs != nullptr && alloc_attrs->on_host) ||
                       dtype == TF_STRING;
  const size_t len = static_cast<size_t>(elements) * ElementSize(dtype);
  TF_Tensor* t = nullptr;
  if (elements >= 0 && ElementSize(dtype) != 0) {
    t = on_host ? TF_AllocateTensor(dtype, dims, num_dims, len)
                : opgen::AllocateDeviceTensor(device, dtype, dims, num_dims, len, status);
    if (t == nullptr && !on_host) return nullptr;  // the device said why
  }
  if (t == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "cannot allocate a temporary of dtype " + std::string(opgen::DataTypeName(dtype)) +
                         " and shape " + opgen::ShapeToString(shape));
    return nullptr;
  }
  opgen::ClearStatus(status);
  return t;
}

void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* status) {
  ctx->failure.code = status->code;
  ctx->failure.message = status->message;
}

TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* ctx) {
  return TF_StringView{ctx->name.data(), ctx->name.size()};
}

void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx, const char* attr_name,
                                         TF_DataType* val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kType, "type", status)) *val = v->type;
}
void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx, const char* attr_name,
                                          int32_t* val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kInt, "int", status)) {
    if (v->i < INT32_MIN || v->i > INT32_MAX) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       std::string("Attr '") + attr_name + "' does not fit in int32");
      return;
    }
    *val = static_cast<int32_t>(v->i);
  }
}
void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx, const char* attr_name,
                                          int64_t* val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kInt, "int", status)) *val = v->i;
}
void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx, const char* attr_name,
                                          float* val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kFloat, "float", status)) *val = v->f;
}
void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* attr_name,
                                         TF_Bool* val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kBool, "bool", status)) *val = v->b;
}
void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx, const char* attr_name,
                                           char* val, size_t max_length, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kString, "string", status))
    std::memcpy(val, v->s.data(), std::min(max_length, v->s.size()));
}

void TF_OpKernelConstruction_GetAttrTensorShape(TF_OpKernelConstruction* ctx,
                                                const char* attr_name, int64_t* dims,
                                                size_t num_dims, TF_Status* status) {
  auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kShape, "shape", status);
  if (v == nullptr) return;
  if (v->shape.unknown_rank || v->shape.dims.size() != num_dims) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("attr '") + attr_name + "' has rank " +
                         (v->shape.unknown_rank ? std::string("unknown")
                                                : std::to_string(v->shape.dims.size())) +
                         ", asked for " + std::to_string(num_dims) + " dims");
    return;
  }
  for (size_t i = 0; i < num_dims; ++i) dims[i] = v->shape.dims[i];
}

void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx, const char* attr_name,
                                         int32_t* list_size, int32_t* total_size,
                                         TF_Status* status) {
  auto it = ctx->attrs->find(attr_name);
  if (it == ctx->attrs->end()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("No attr named '") + attr_name + "' in NodeDef of " + ctx->op->name);
    return;
  }
  const opgen::AttrValue& v = it->second;
  *total_size = -1;
  *list_size = -1;
  switch (v.kind) {
    case opgen::AttrValue::kString: *total_size = static_cast<int32_t>(v.s.size()); break;
    case opgen::AttrValue::kShape:  // total_size: the rank, -1 when unknown
      *total_size = v.shape.unknown_rank ? -1 : static_cast<int32_t>(v.shape.dims.size());
      break;
    case opgen::AttrValue::kListTensor:
      *list_size = static_cast<int32_t>(v.list_s.size());
      break;
    case opgen::AttrValue::kListString: {
      *list_size = static_cast<int32_t>(v.list_s.size());
      size_t total = 0;
      for (const auto& s : v.list_s) total += s.size();
      *total_size = static_cast<int32_t>(total);
      break;
    }
    case opgen::AttrValue::kListInt: *list_size = static_cast<int32_t>(v.list_i.size()); break;
    case opgen::AttrValue::kListFloat: *list_size = static_cast<int32_t>(v.list_f.size()); break;
    case opgen::AttrValue::kListBool: *list_size = static_cast<int32_t>(v.list_b.size()); break;
    case opgen::AttrValue::kListType: *list_size = static_cast<int32_t>(v.list_type.size()); break;
    case opgen::AttrValue::kListShape: *list_size = static_cast<int32_t>(v.list_shape.size()); break;
    default: break;
  }
  opgen::ClearStatus(status);
}

void TF_OpKernelConstruction_GetAttrTypeList(TF_OpKernelConstruction* ctx, const char* attr_name,
                                             TF_DataType* vals, int max_vals, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListType, "list(type)", status))
    CopyList(v->list_type, vals, max_vals);
}
void TF_OpKernelConstruction_GetAttrInt32List(TF_OpKernelConstruction* ctx, const char* attr_name,
                                              int32_t* vals, int max_vals, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListInt, "list(int)", status))
    CopyList(v->list_i, vals, max_vals);
}
void TF_OpKernelConstruction_GetAttrInt64List(TF_OpKernelConstruction* ctx, const char* attr_name,
                                              int64_t* vals, int max_vals, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListInt, "list(int)", status))
    CopyList(v->list_i, vals, max_vals);
}
void TF_OpKernelConstruction_GetAttrFloatList(TF_OpKernelConstruction* ctx, const char* attr_name,
                                              float* vals, int max_vals, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListFloat, "list(float)", status))
    CopyList(v->list_f, vals, max_vals);
}
void TF_OpKernelConstruction_GetAttrBoolList(TF_OpKernelConstruction* ctx, const char* attr_name,
                                             TF_Bool* vals, int max_vals, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListBool, "list(bool)", status)) {
    int n = std::min<int>(max_vals, static_cast<int>(v->list_b.size()));
    for (int i = 0; i < n; ++i) vals[i] = v->list_b[i] ? 1 : 0;
  }
}

void TF_OpKernelConstruction_GetAttrStringList(TF_OpKernelConstruction* ctx,
                                               const char* attr_name, char** values,
                                               size_t* lengths, int max_values, void* storage,
                                               size_t storage_size, TF_Status* status) {
  auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListString, "list(string)", status);
  if (v == nullptr) return;
  const int n = std::min<int>(max_values, static_cast<int>(v->list_s.size()));
  size_t needed = 0;
  for (int i = 0; i < n; ++i) needed += v->list_s[i].size();
  if (needed > storage_size) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Attr '") + attr_name + "' needs " + std::to_string(needed) +
                         " bytes of storage, " + std::to_string(storage_size) + " given");
    return;
  }
  char* at = static_cast<char*>(storage);
  for (int i = 0; i < n; ++i) {
    const std::string& item = v->list_s[i];
    if (!item.empty()) std::memcpy(at, item.data(), item.size());
    values[i] = at;
    lengths[i] = item.size();
    at += item.size();
  }
}

void TF_OpKernelConstruction_GetAttrTensorList(TF_OpKernelConstruction* ctx,
                                               const char* attr_name, TF_Tensor** vals,
                                               int max_values, TF_Status* status) {
  auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kListTensor, "list(tensor)", status);
  if (v == nullptr) return;
  const int n = std::min<int>(max_values, static_cast<int>(v->list_s.size()));
  std::vector<TF_Tensor*> parsed;
  for (int i = 0; i < n; ++i) {
    std::string error;
    TF_Tensor* t = opgen::ParseTensorProto(v->list_s[i], &error);
    if (t == nullptr) {
      for (TF_Tensor* done : parsed) delete done;
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       std::string("Attr '") + attr_name + "' element " + std::to_string(i) +
                           ": " + error);
      return;
    }
    parsed.push_back(t);
  }
  std::copy(parsed.begin(), parsed.end(), vals);
}

TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(TF_OpKernelConstruction* ctx,
                                                   const char* attr_name, TF_Status* status) {
  auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kFunc, "func", status);
  if (v == nullptr) return nullptr;
  // The NameAttrList is AttrValue's field 10: taken from the AttrValue's own bytes, so it
  // carries whatever of the function value the runtime keeps.
  const std::string bytes = opgen::SerializeAttrValue(*v);
  opgen::wire::Reader r(bytes);
  uint32_t number = 0, wire_type = 0;
  while (r.more() && r.tag(&number, &wire_type)) {
    if (number == 10 && wire_type == opgen::wire::kLengthDelimited) {
      opgen::wire::Bytes func;
      if (!r.length_delimited(&func)) break;
      return TF_NewBufferFromString(func.data(), func.size());
    }
    if (!r.skip(wire_type, number)) break;
  }
  return TF_NewBufferFromString("", 0);  // a NameAttrList with no name
}

TF_Buffer* OPGEN_OpKernelConstructionGetAttrValue(TF_OpKernelConstruction* ctx,
                                                  const char* attr_name, TF_Status* status) {
  auto it = ctx->attrs->find(attr_name != nullptr ? attr_name : "");
  if (it == ctx->attrs->end()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("No attr named '") + (attr_name != nullptr ? attr_name : "") +
                         "' in NodeDef of " + ctx->op->name);
    return nullptr;
  }
  opgen::ClearStatus(status);
  const std::string bytes = opgen::SerializeAttrValue(it->second);
  return TF_NewBufferFromString(bytes.data(), bytes.size());
}

void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* ctx, const char* attr_name,
                                           TF_Tensor** val, TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kTensor, "tensor", status)) {
    std::string error;
    TF_Tensor* t = v->tensor_proto.NewCopy(&error);  // the kernel's to write
    if (t == nullptr) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, std::string("Attr '") + attr_name + "': " + error);
      return;
    }
    *val = t;
  }
}

void OPGEN_OpKernelConstructionGetAttrTensorShared(TF_OpKernelConstruction* ctx,
                                                   const char* attr_name, TF_Tensor** val,
                                                   TF_Status* status) {
  if (auto* v = GetAttr(ctx, attr_name, opgen::AttrValue::kTensor, "tensor", status)) {
    std::string error;
    const TF_Tensor* t = v->tensor_proto.tensor(&error);
    if (t == nullptr) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, std::string("Attr '") + attr_name + "': " + error);
      return;
    }
    *val = t->Share();
  }
}

bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx, const char* attr_name,
                                     TF_Status* status) {
  opgen::ClearStatus(status);
  return ctx->attrs->count(attr_name) > 0;
}

}  // extern "C"
