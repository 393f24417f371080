// Instantiating and calling functions (function_call.h).
#include "function_call.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "executor.h"
#include "function_instantiate.h"
#include "kernel_context.h"
#include "op_registry.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace {

int64_t LimitFromEnv(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const long long parsed = std::atoll(v);
  return parsed >= 1 ? parsed : fallback;
}
std::atomic<int64_t> g_depth_limit{LimitFromEnv("OPGEN_FUNCTION_CALL_DEPTH_LIMIT", 100)};
std::atomic<int64_t> g_iteration_limit{LimitFromEnv("OPGEN_WHILE_ITERATION_LIMIT", 10000000)};

// Nested calls on this thread (the executors run a plan's kernels on the calling thread).
thread_local int64_t t_call_depth = 0;
// The first error of a failing nested call, as its innermost run reported it: each level
// above would otherwise wrap it in its own node context (a hundred times over for a
// runaway recursion); the outermost call reports it once.
thread_local bool t_failing = false;
thread_local std::string t_first_error;

struct GraphDeleter {
  void operator()(TF_Graph* g) const { TF_DeleteGraph(g); }
};

// One function made runnable: its body as a graph, the plan that runs it, and the
// kernels of that plan (on the caller's resources).
struct Instance {
  std::string name;
  std::unique_ptr<TF_Graph, GraphDeleter> graph;
  std::unique_ptr<SessionKernels> kernels;
  std::unique_ptr<ExecutionPlan> plan;
  std::vector<TF_DataType> input_types;
  std::vector<TF_DataType> output_types;
  std::string binding_key;  // BindingKey of the attrs it was instantiated with
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

std::string LibraryNames(const FunctionLibrary& library) {
  std::string names;
  int shown = 0;
  for (const auto& [name, f] : library.functions()) {
    if (shown++ == 20) return names + ", ...";
    names += (names.empty() ? "" : ", ") + name;
  }
  return names.empty() ? "none" : names;
}

// The body of `function` (monomorphic: InstantiateFunctionDef's output) as a GraphDef: a
// Placeholder per argument, the nodes with their inputs renamed from "node:out_arg:index"
// to "node:flat_index". Fills `ret` with each output's tensor ("node:index") in signature
// order and `control` with the control outputs' nodes.
bool BodyGraphDef(const FunctionDefProto& function, const FunctionLibrary& library,
                  GraphDefProto* gd, std::vector<std::string>* ret,
                  std::vector<std::string>* control, TF_Status* status) {
  const std::string& fname = function.signature.name;
  auto fail = [&](TF_Code code, const std::string& why) {
    SetStatus(status, code, "Function '" + fname + "': " + why);
    return false;
  };
  for (const ArgDef& arg : function.signature.input_arg) {
    if (arg.type == 0) return fail(TF_INVALID_ARGUMENT, "argument '" + arg.name + "' has no type");
    NodeDefProto node;
    node.name = arg.name;
    node.op = "Placeholder";
    node.attr["dtype"].kind = AttrValue::kType;
    node.attr["dtype"].type = arg.type;
    gd->node.push_back(std::move(node));
  }
  std::map<std::string, const NodeDefProto*> nodes;
  for (const NodeDefProto& node : function.node_def) nodes[node.name] = &node;
  auto resolve = [&](const std::string& ref, std::string* out) {
    if (!ref.empty() && ref[0] == '^') {
      *out = ref;
      return true;
    }
    const std::vector<std::string> parts = Split(ref, ':');
    if (parts.size() != 3) {
      *out = ref;  // an argument, or already "node:index"
      return true;
    }
    auto it = nodes.find(parts[0]);
    if (it == nodes.end()) return false;
    const NodeDefProto& node = *it->second;
    const OpDef* def = OpRegistry::Global().Find(node.op);
    if (def == nullptr) {
      const FunctionDefProto* callee = library.Find(node.op);
      if (callee == nullptr) return false;
      def = &callee->signature;
    }
    const std::vector<int> lengths = OutputArgLengths(*def, node.attr);
    int first = 0;
    for (size_t a = 0; a < def->output_arg.size(); ++a) {
      if (def->output_arg[a].name == parts[1]) {
        const int index = std::atoi(parts[2].c_str());
        if (index < 0 || index >= lengths[a]) return false;
        *out = parts[0] + ":" + std::to_string(first + index);
        return true;
      }
      first += lengths[a];
    }
    return false;
  };
  for (const NodeDefProto& in : function.node_def) {
    NodeDefProto node = in;
    for (std::string& input : node.input)
      if (!resolve(in.input[&input - node.input.data()], &input))
        return fail(TF_INVALID_ARGUMENT, "node '" + in.name + "' reads '" + input +
                                             "', which the function does not define");
    gd->node.push_back(std::move(node));
  }
  for (const ArgDef& arg : function.signature.output_arg) {
    auto it = function.ret.find(arg.name);
    std::string tensor;
    if (it == function.ret.end() || !resolve(it->second, &tensor))
      return fail(TF_INVALID_ARGUMENT, "output '" + arg.name + "' has no value in ret");
    ret->push_back(tensor);
  }
  for (const auto& [name, node] : function.control_ret) control->push_back(node);
  return true;
}

}  // namespace

bool BuildFunctionBody(const FunctionLibrary& library, const std::string& name, TF_Graph* g,
                       std::vector<TF_Output>* args, std::vector<TF_Output>* rets,
                       std::vector<std::string>* control, TF_Status* status,
                       const AttrMap* binding) {
  const FunctionDefProto* declared = library.Find(name);
  if (declared == nullptr) {
    SetStatus(status, TF_NOT_FOUND,
              "Function '" + name + "' is not in the function library (it holds: " +
                  LibraryNames(library) + ")");
    return false;
  }
  if (binding == nullptr && IsPolymorphic(*declared)) {
    std::string attrs;
    for (const AttrDef& attr : declared->signature.attr)
      attrs += (attrs.empty() ? "" : ", ") + attr.name + ": " + attr.type;
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Function '" + name + "' is polymorphic (attrs " + attrs +
                  "): only a call that binds them can build its body");
    return false;
  }
  FunctionDefProto instantiated;
  if (!InstantiateFunctionDef(*declared, binding ? *binding : AttrMap(), library,
                              &instantiated, status))
    return false;
  const FunctionDefProto* function = &instantiated;
  GraphDefProto gd;
  std::vector<std::string> ret;
  std::vector<std::string> unused_control;
  if (!BodyGraphDef(*function, library, &gd, &ret, control ? control : &unused_control, status))
    return false;
  g->functions = library;  // nested calls see the same functions
  const std::string bytes = SerializeGraphDef(gd);
  TF_Buffer buffer{bytes.data(), bytes.size(), nullptr};
  TF_GraphImportGraphDef(g, &buffer, nullptr, status);
  if (status->code != TF_OK) {
    status->message = "Function '" + name + "': its body does not build: " + status->message;
    return false;
  }
  for (const ArgDef& arg : function->signature.input_arg)
    args->push_back(TF_Output{TF_GraphOperationByName(g, arg.name.c_str()), 0});
  for (const std::string& tensor : ret) {
    const size_t colon = tensor.rfind(':');
    const std::string node = colon == std::string::npos ? tensor : tensor.substr(0, colon);
    const int index = colon == std::string::npos ? 0 : std::atoi(tensor.c_str() + colon + 1);
    TF_Operation* op = TF_GraphOperationByName(g, node.c_str());
    if (op == nullptr || index < 0 || static_cast<size_t>(index) >= op->output_types.size()) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Function '" + name + "': output tensor '" + tensor + "' does not exist");
      return false;
    }
    rets->push_back(TF_Output{op, index});
  }
  return true;
}

namespace {

std::unique_ptr<Instance> Instantiate(const FunctionLibrary& library, const std::string& name,
                                      const AttrMap& binding, ResourceMgr* resources,
                                      TF_Status* status) {
  auto instance = std::make_unique<Instance>();
  instance->name = name;
  instance->binding_key = BindingKey(binding);
  instance->graph.reset(TF_NewGraph());
  TF_Graph* g = instance->graph.get();
  std::vector<TF_Output> feeds, fetches;
  std::vector<std::string> control;
  if (!BuildFunctionBody(library, name, g, &feeds, &fetches, &control, status, &binding))
    return nullptr;
  std::vector<const TF_Operation*> targets;
  for (const TF_Output& t : feeds) instance->input_types.push_back(t.oper->output_types[0]);
  for (const TF_Output& t : fetches)
    instance->output_types.push_back(t.oper->output_types[t.index]);
  // Control outputs, and every stateful node: they run whenever the function is called.
  for (const std::string& node : control)
    if (TF_Operation* op = TF_GraphOperationByName(g, node.c_str())) targets.push_back(op);
  for (const auto& op : g->ops)
    if (op->op_def->is_stateful || IsFunctionNode(*op)) targets.push_back(op.get());
  instance->kernels = std::make_unique<SessionKernels>(resources);
  instance->plan = ExecutionPlan::Build(g, feeds.data(), static_cast<int>(feeds.size()),
                                        fetches.data(), static_cast<int>(fetches.size()),
                                        targets.data(), static_cast<int>(targets.size()),
                                        instance->kernels.get(), status);
  if (instance->plan == nullptr) {
    status->message = "Function '" + name + "': " + status->message;
    return nullptr;
  }
  return instance;
}

// The state of one call node's kernel: the functions it may call (by attr), the attrs it
// gives each, and their instances, made on first use: one per attr binding (one in all
// for a function without attrs).
struct CallState {
  enum Kind { kCall, kIf, kCase, kWhile } kind = kCall;
  std::string op;
  std::string node;
  FunctionLibrary library;
  std::vector<std::string> functions;
  std::vector<AttrMap> given;  // parallel to `functions`
  std::mutex mu;
  std::vector<std::vector<std::unique_ptr<Instance>>> instances;  // parallel to `functions`
  int loop_vars = -1;  // kWhile: the inputs that loop; the rest pass through (-1: all)
};

bool SameTypes(const std::vector<TF_DataType>& types, const std::vector<TF_Tensor*>& tensors) {
  if (types.size() != tensors.size()) return false;
  for (size_t i = 0; i < types.size(); ++i)
    if (tensors[i]->dtype != types[i]) return false;
  return true;
}

// The instance of function `which` for a call on `inputs`. The node's attrs are fixed, so
// the arguments' types pick the binding: an instance made for these types is the one.
Instance* FindInstance(CallState* state, size_t which, ResourceMgr* resources,
                       const std::vector<TF_Tensor*>& inputs, TF_Status* status) {
  std::lock_guard<std::mutex> lock(state->mu);
  auto& made = state->instances[which];
  for (const auto& instance : made)
    if (SameTypes(instance->input_types, inputs)) return instance.get();
  const std::string& name = state->functions[which];
  AttrMap binding;
  const FunctionDefProto* function = state->library.Find(name);
  if (function != nullptr && IsPolymorphic(*function)) {
    std::vector<TF_DataType> types;
    for (const TF_Tensor* t : inputs) types.push_back(t->dtype);
    if (!BindFunctionAttrs(*function, state->given[which], types, &binding, status)) {
      status->message += " (called from node '" + state->node + "')";
      return nullptr;
    }
  }
  const std::string key = BindingKey(binding);
  for (const auto& instance : made)
    if (instance->binding_key == key) return instance.get();  // a mismatch RunFunction reports
  auto instance = Instantiate(state->library, name, binding, resources, status);
  if (instance == nullptr) return nullptr;
  made.push_back(std::move(instance));
  return made.back().get();
}

// Runs function `which` of the node on `inputs` (borrowed; with `take_inputs` handed
// over, and freed whatever happens, so the body may change a value nothing else holds in
// place); fills `outputs` with new tensors the caller owns.
bool RunFunction(CallState* state, size_t which, ResourceMgr* resources,
                 const std::vector<TF_Tensor*>& inputs, std::vector<TF_Tensor*>* outputs,
                 TF_Status* status, bool take_inputs = false) {
  struct Dropper {  // frees handed-over inputs on the paths that do not run the plan
    const std::vector<TF_Tensor*>* inputs;
    ~Dropper() {
      if (inputs != nullptr)
        for (TF_Tensor* t : *inputs) delete t;
    }
  } drop{take_inputs ? &inputs : nullptr};
  Instance* instance = FindInstance(state, which, resources, inputs, status);
  if (instance == nullptr) return false;
  if (inputs.size() != instance->input_types.size()) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Function '" + instance->name + "' takes " +
                  std::to_string(instance->input_types.size()) + " arguments; node '" +
                  state->node + "' gives " + std::to_string(inputs.size()));
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->dtype == instance->input_types[i]) continue;
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Function '" + instance->name + "' argument " + std::to_string(i) + " is " +
                  DataTypeName(instance->input_types[i]) + "; node '" + state->node +
                  "' gives " + DataTypeName(inputs[i]->dtype));
    return false;
  }
  if (t_call_depth >= g_depth_limit.load(std::memory_order_relaxed)) {
    SetStatus(status, TF_RESOURCE_EXHAUSTED,
              "Function calls nest deeper than " + std::to_string(g_depth_limit.load()) +
                  " (calling '" + instance->name + "' from node '" + state->node +
                  "'): a function that calls itself without end? "
                  "(OPGEN_SetFunctionCallDepthLimit / OPGEN_FUNCTION_CALL_DEPTH_LIMIT)");
    return false;
  }
  outputs->assign(instance->output_types.size(), nullptr);
  ++t_call_depth;
  drop.inputs = nullptr;  // the run frees them
  instance->plan->Run(inputs.data(), outputs->data(), status, take_inputs);
  --t_call_depth;
  if (status->code == TF_OK) return true;
  if (!t_failing) {
    t_failing = true;
    t_first_error = status->message;
  } else {
    status->message = t_first_error;
  }
  if (t_call_depth == 0) {
    t_failing = false;
    t_first_error.clear();
  }
  return false;
}

// A condition's truth as If and While read it: a scalar is true when not zero (a string:
// not empty); any other shape when it has elements.
bool Truth(const TF_Tensor* t, bool* value, TF_Status* status) {
  const int64_t n = NumElements(t->dims);
  if (!t->dims.empty()) {
    *value = n > 0;
    return true;
  }
  const void* p = t->buffer->data();
  switch (t->dtype) {
    case TF_BOOL: *value = *static_cast<const bool*>(p); return true;
    case TF_FLOAT: *value = *static_cast<const float*>(p) != 0; return true;
    case TF_DOUBLE: *value = *static_cast<const double*>(p) != 0; return true;
    case TF_INT32: *value = *static_cast<const int32_t*>(p) != 0; return true;
    case TF_INT64: *value = *static_cast<const int64_t*>(p) != 0; return true;
    case TF_INT8: case TF_UINT8: *value = *static_cast<const uint8_t*>(p) != 0; return true;
    case TF_INT16: case TF_UINT16: *value = *static_cast<const uint16_t*>(p) != 0; return true;
    case TF_UINT32: *value = *static_cast<const uint32_t*>(p) != 0; return true;
    case TF_UINT64: *value = *static_cast<const uint64_t*>(p) != 0; return true;
    default:
      SetStatus(status, TF_INVALID_ARGUMENT,
                std::string("A condition of type ") + DataTypeName(t->dtype) + " has no truth value");
      return false;
  }
}

void DeleteAll(std::vector<TF_Tensor*>* tensors) {
  for (TF_Tensor*& t : *tensors) delete t;
  tensors->clear();
}

// Runs the loop on `vars` (owned; the final values on success, cleared on failure). The
// body takes each iteration's values over: a list it changes (TensorListSetItem) is
// changed in place from the second iteration on, when the loop holds its only reference.
bool RunWhile(CallState* state, ResourceMgr* resources, std::vector<TF_Tensor*>* vars,
              TF_Status* status) {
  const int64_t limit = g_iteration_limit.load(std::memory_order_relaxed);
  std::vector<TF_DataType> types;
  std::vector<size_t> ranks;
  for (const TF_Tensor* t : *vars) {
    types.push_back(t->dtype);
    ranks.push_back(t->dims.size());
  }
  for (int64_t iteration = 0;; ++iteration) {
    std::vector<TF_Tensor*> cond;
    if (!RunFunction(state, 0, resources, *vars, &cond, status)) return false;
    bool more = false;
    const bool ok = cond.size() == 1 ? Truth(cond[0], &more, status) : false;
    if (cond.size() != 1)
      SetStatus(status, TF_INVALID_ARGUMENT,
                "While node '" + state->node + "': cond '" + state->functions[0] +
                    "' returns " + std::to_string(cond.size()) + " tensors, not 1");
    DeleteAll(&cond);
    if (!ok) return false;
    if (!more) return true;
    if (iteration >= limit) {
      SetStatus(status, TF_RESOURCE_EXHAUSTED,
                "While node '" + state->node + "' ran " + std::to_string(limit) +
                    " iterations, its limit (OPGEN_SetWhileIterationLimit / "
                    "OPGEN_WHILE_ITERATION_LIMIT)");
      return false;
    }
    std::vector<TF_Tensor*> next;
    const std::vector<TF_Tensor*> taken = std::move(*vars);
    vars->clear();
    if (!RunFunction(state, 1, resources, taken, &next, status, /*take_inputs=*/true))
      return false;
    std::string bad;
    if (next.size() != types.size()) {
      bad = "returns " + std::to_string(next.size()) + " loop variables, not " +
            std::to_string(types.size());
    } else {
      for (size_t i = 0; i < next.size() && bad.empty(); ++i) {
        if (next[i]->dtype != types[i])
          bad = "changes loop variable " + std::to_string(i) + " from " +
                DataTypeName(types[i]) + " to " + DataTypeName(next[i]->dtype);
        else if (next[i]->dims.size() != ranks[i])
          bad = "changes the rank of loop variable " + std::to_string(i) + " from " +
                std::to_string(ranks[i]) + " to " + std::to_string(next[i]->dims.size());
      }
    }
    if (!bad.empty()) {
      DeleteAll(&next);
      SetStatus(status, TF_INVALID_ARGUMENT,
                "While node '" + state->node + "': body '" + state->functions[1] + "' " + bad +
                    " (iteration " + std::to_string(iteration) + ")");
      return false;
    }
    *vars = std::move(next);
  }
}

std::string FuncName(const AttrMap& attrs, const char* name) {
  auto it = attrs.find(name);
  return it != attrs.end() && it->second.kind == AttrValue::kFunc ? it->second.s : std::string();
}

// The attrs a func attr gives its function (NameAttrList.attr).
AttrMap FuncAttrs(const AttrMap& attrs, const char* name) {
  auto it = attrs.find(name);
  if (it == attrs.end() || it->second.kind != AttrValue::kFunc || !it->second.func_attr)
    return AttrMap();
  return *it->second.func_attr;
}

void* CreateCall(TF_OpKernelConstruction* ctx) {
  const FunctionLibrary* library = ConstructionFunctions(ctx);
  auto state = std::make_unique<CallState>();
  TF_StringView node = TF_OpKernelConstruction_GetName(ctx);
  state->node.assign(node.data, node.len);
  if (library != nullptr) state->library = *library;
  // The op's OpDef: a registered op, or a function's signature for a function node.
  const OpDef* def = ConstructionOpDef(ctx);
  const AttrMap* attrs = ConstructionAttrs(ctx);
  state->op = def->name;
  if (def->name == "PartitionedCall" || def->name == "StatefulPartitionedCall") {
    state->functions = {FuncName(*attrs, "f")};
    state->given = {FuncAttrs(*attrs, "f")};
  } else if (def->name == "If" || def->name == "StatelessIf") {
    state->kind = CallState::kIf;
    state->functions = {FuncName(*attrs, "else_branch"), FuncName(*attrs, "then_branch")};
    state->given = {FuncAttrs(*attrs, "else_branch"), FuncAttrs(*attrs, "then_branch")};
  } else if (def->name == "While" || def->name == "StatelessWhile") {
    state->kind = CallState::kWhile;
    state->functions = {FuncName(*attrs, "cond"), FuncName(*attrs, "body")};
    state->given = {FuncAttrs(*attrs, "cond"), FuncAttrs(*attrs, "body")};
    auto lean = attrs->find(kLeanAttr);
    auto own = attrs->find(kNumOriginalOutputsAttr);
    auto cond = attrs->find(kForwardCondAttr), body = attrs->find(kForwardBodyAttr);
    if (lean != attrs->end() && lean->second.b && own != attrs->end() && cond != attrs->end() &&
        body != attrs->end()) {  // the loop without its accumulators (monomorphic)
      state->functions = {cond->second.s, body->second.s};
      state->given = {AttrMap(), AttrMap()};
      state->loop_vars = static_cast<int>(own->second.i);
    }
  } else if (def->name == "Case" || def->name == "StatelessCase") {
    state->kind = CallState::kCase;
    auto it = attrs->find("branches");
    if (it != attrs->end() && it->second.kind == AttrValue::kListFunc) {
      state->functions = it->second.list_s;
      // Each branch instantiates with its NameAttrList's attrs (a polymorphic branch).
      state->given.resize(state->functions.size());
      for (size_t i = 0; i < it->second.list_func_attr.size() && i < state->given.size(); ++i)
        if (it->second.list_func_attr[i] != nullptr) state->given[i] = *it->second.list_func_attr[i];
    }
  } else {
    state->functions = {def->name};  // a function node: its attrs bind the function's
    state->given = {*attrs};
  }
  state->given.resize(state->functions.size());
  state->instances.resize(state->functions.size());
  return state.release();
}

void DeleteCall(void* state) { delete static_cast<CallState*>(state); }

void ComputeCall(void* raw, TF_OpKernelContext* ctx) {
  CallState* state = static_cast<CallState*>(raw);
  ResourceMgr* resources = ctx->instance->resources();
  TF_Status status;
  std::vector<TF_Tensor*> inputs(ctx->inputs, ctx->inputs + ctx->num_inputs);
  std::vector<TF_Tensor*> outputs;
  bool ok = false;
  switch (state->kind) {
    case CallState::kCall:
      ok = RunFunction(state, 0, resources, inputs, &outputs, &status);
      break;
    case CallState::kIf: {
      bool taken = false;
      if (!Truth(inputs[0], &taken, &status)) break;
      inputs.erase(inputs.begin());
      ok = RunFunction(state, taken ? 1 : 0, resources, inputs, &outputs, &status);
      break;
    }
    case CallState::kCase: {
      if (inputs[0]->dtype != TF_INT32 || !inputs[0]->dims.empty()) {
        SetStatus(&status, TF_INVALID_ARGUMENT, "branch_index must be an int32 scalar");
        break;
      }
      int32_t index = *static_cast<const int32_t*>(inputs[0]->buffer->data());
      const int32_t n = static_cast<int32_t>(state->functions.size());
      if (index < 0 || index >= n) index = n - 1;  // out of range: the last branch
      inputs.erase(inputs.begin());
      ok = RunFunction(state, static_cast<size_t>(index), resources, inputs, &outputs, &status);
      break;
    }
    case CallState::kWhile: {
      for (TF_Tensor* t : inputs) outputs.push_back(t->Share());
      std::vector<TF_Tensor*> passed;
      if (state->loop_vars >= 0 && state->loop_vars <= static_cast<int>(outputs.size())) {
        passed.assign(outputs.begin() + state->loop_vars, outputs.end());
        outputs.resize(state->loop_vars);
      }
      ok = RunWhile(state, resources, &outputs, &status);
      if (ok) outputs.insert(outputs.end(), passed.begin(), passed.end());
      else DeleteAll(&passed);
      break;
    }
  }
  if (ok && static_cast<int>(outputs.size()) != ctx->num_outputs) {
    SetStatus(&status, TF_INVALID_ARGUMENT,
              "Node '" + state->node + "' expects " + std::to_string(ctx->num_outputs) +
                  " results; the function returned " + std::to_string(outputs.size()));
    ok = false;
  }
  for (size_t i = 0; ok && i < outputs.size(); ++i) {
    if (outputs[i]->dtype == ctx->output_types[i]) continue;
    SetStatus(&status, TF_INVALID_ARGUMENT,
              "Node '" + state->node + "' result " + std::to_string(i) + " is " +
                  DataTypeName(outputs[i]->dtype) + "; the node declares " +
                  DataTypeName(ctx->output_types[i]));
    ok = false;
  }
  if (!ok) {
    DeleteAll(&outputs);
    TF_OpKernelContext_Failure(ctx, &status);
    return;
  }
  for (size_t i = 0; i < outputs.size(); ++i) ctx->outputs[i] = outputs[i];
}

KernelDef CallKernelDef(const std::string& op) {
  KernelDef def;
  def.name = "opgen::FunctionCall";
  def.op = op;
  def.device = "CPU";
  def.create_func = CreateCall;
  def.compute_func = ComputeCall;
  def.delete_func = DeleteCall;
  return def;
}

}  // namespace

int OwnLoopVariables(const TF_Operation& op) {
  if (op.type() != "While" && op.type() != "StatelessWhile") return -1;
  auto own = op.attrs.find(kNumOriginalOutputsAttr);
  if (own == op.attrs.end() || own->second.kind != AttrValue::kInt ||
      !op.attrs.count(kForwardBodyAttr) || !op.attrs.count(kForwardCondAttr) ||
      !op.attrs.count(kAccumulatedAttr))
    return -1;
  return static_cast<int>(own->second.i);
}

bool IsFunctionNode(const TF_Operation& op) {
  return OpRegistry::Global().Find(op.type()) == nullptr;
}

bool CallsFunctions(const OpDef& def, const AttrMap& attrs) {
  if (OpRegistry::Global().Find(def.name) == nullptr) return true;
  for (const auto& [name, value] : attrs)
    if (value.kind == AttrValue::kFunc || value.kind == AttrValue::kListFunc) return true;
  return false;
}

bool CallsFunctions(const TF_Operation& op) { return CallsFunctions(*op.op_def, op.attrs); }

const KernelDef& FunctionCallKernel() {
  static const KernelDef* def = new KernelDef(CallKernelDef(""));
  return *def;
}

void RegisterFunctionKernels(TF_Status* status) {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf",
                         "Case", "StatelessCase", "While", "StatelessWhile"}) {
    KernelRegistry::Global().Register(CallKernelDef(op), status);
    if (status->code != TF_OK) return;
  }
}

int64_t FunctionCallDepthLimit() { return g_depth_limit.load(); }
int64_t WhileIterationLimit() { return g_iteration_limit.load(); }

}  // namespace opgen

extern "C" {

int64_t OPGEN_SetFunctionCallDepthLimit(int64_t limit) {
  const int64_t old = opgen::g_depth_limit.load();
  if (limit >= 1) opgen::g_depth_limit.store(limit);
  return old;
}

int64_t OPGEN_SetWhileIterationLimit(int64_t limit) {
  const int64_t old = opgen::g_iteration_limit.load();
  if (limit >= 1) opgen::g_iteration_limit.store(limit);
  return old;
}

}  // extern "C"
