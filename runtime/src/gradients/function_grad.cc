// Gradients of function calls and functional control flow: PartitionedCall,
// StatefulPartitionedCall, a node that calls a function by its op type, If, StatelessIf,
// Case, StatelessCase, While and StatelessWhile.
//
// The gradient of a call of F(args) -> outputs is a call of a new function
// dF(args..., output grads...) -> arg grads, made by building F's body in a scratch
// graph, running the backward pass there (the same registry, so calls nested in F get
// their own dF in turn) and turning the result into a FunctionDef of the forward graph's
// library. dF recomputes F's forward values instead of keeping them from the forward
// call. A conditional's gradient is the same conditional (same cond or branch_index) over
// the branches' gradient functions, which all return a gradient for every wanted input
// (zeros where a branch does not use it). A While's gradient makes the forward While node
// keep each iteration's inputs in TensorLists (it is rewritten in place, once), then loops
// back over them calling dBody (see "While" below).
// A polymorphic function is first bound as its forward call binds it and its instance
// added to the library: everything the gradient builds is monomorphic.
//
// Inputs that get no gradient: those of a non floating-point/complex dtype (integers,
// strings, resources: a variable read inside a function gets none through the call) and
// those the ys do not depend on. A While's resource loop variables are taken to be
// loop-invariant; one with a variant loop variable (a TensorList) has no gradient.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "builtin_gradients.h"
#include "context.h"
#include "core_types.h"
#include "function_call.h"
#include "function_instantiate.h"
#include "graph.h"
#include "op_registry.h"
#include "registry.h"
#include "wire_format.h"

namespace opgen {
namespace gradients {
namespace {

bool FloatLike(TF_DataType t) {
  switch (t) {
    case TF_HALF: case TF_BFLOAT16: case TF_FLOAT: case TF_DOUBLE: case TF_COMPLEX64:
    case TF_COMPLEX128:
      return true;
    default:
      return false;
  }
}

// Gradient functions made inside gradient functions on this thread: a function that
// calls itself (through a conditional) would otherwise make gradients without end.
thread_local int t_grad_depth = 0;
constexpr int kMaxGradDepth = 32;
thread_local std::string t_depth_error;  // the error of the level that hit the limit

struct GraphOwner {
  TF_Graph* g = TF_NewGraph();
  ~GraphOwner() { TF_DeleteGraph(g); }
};

// A function name free in `library` and among the ops, from `base`.
std::string FreeFunctionName(const FunctionLibrary& library, const std::string& base) {
  static std::atomic<int> counter{0};
  for (;;) {
    const std::string name = base + "_" + std::to_string(counter++);
    if (library.Find(name) == nullptr && OpRegistry::Global().Find(name) == nullptr) return name;
  }
}

const AttrValue* FindAttr(const TF_Operation* op, const char* name) {
  auto it = op->attrs.find(name);
  return it != op->attrs.end() ? &it->second : nullptr;
}

// The attrs a func attr of `op` gives its function (NameAttrList.attr), as the forward
// kernel binds them.
AttrMap GivenAttrs(const TF_Operation* op, const char* name) {
  const AttrValue* v = FindAttr(op, name);
  return v != nullptr && v->kind == AttrValue::kFunc && v->func_attr ? *v->func_attr : AttrMap();
}

// The member of library function `fname` that a call with attrs `given` on arguments of
// `types` runs: `fname` itself when it has no attrs, else its instantiation, added to g's
// library (once per binding) under a new name, so that the gradient functions and loops
// built over it are monomorphic like any other.
std::string ConcreteFunction(TF_Graph* g, const std::string& fname, const AttrMap& given,
                             const std::vector<TF_DataType>& types, TF_Status* status) {
  std::lock_guard<std::mutex> lock(g->mu);
  const FunctionDefProto* declared = g->functions.Find(fname);
  if (declared == nullptr || !IsPolymorphic(*declared)) return fname;  // errors come later
  AttrMap binding;
  auto instance = std::make_shared<FunctionDefProto>();
  if (!BindFunctionAttrs(*declared, given, types, &binding, status) ||
      !InstantiateFunctionDef(*declared, binding, g->functions, instance.get(), status)) {
    status->message = "gradient of a call of '" + fname + "': " + status->message;
    return "";
  }
  // An instance made by an earlier gradient for the same binding is reused.
  const std::string base = fname + "_instance", prefix = base + "_";
  const std::string bytes = SerializeFunctionDef(*instance);
  for (const auto& [name, existing] : g->functions.functions()) {
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    FunctionDefProto renamed = *existing;
    renamed.signature.name = instance->signature.name;
    if (SerializeFunctionDef(renamed) == bytes) return name;
  }
  instance->signature.name = FreeFunctionName(g->functions, base);
  const std::string name = instance->signature.name;
  return g->functions.Add(std::move(instance), status) ? name : "";
}

std::vector<TF_DataType> InputTypes(const TF_Operation* op, int first) {
  std::vector<TF_DataType> types;
  for (size_t k = first; k < op->inputs.size(); ++k)
    types.push_back(op->inputs[k].oper->output_types[op->inputs[k].index]);
  return types;
}

// A value of F's body that dF takes as an argument instead of computing it again: an
// output of a stateful node (a random op, a variable read), named "node:index".
struct KeptValue {
  std::string tensor;
  TF_DataType type;
};

// Whether every output of `op` is a value a TensorList can keep (not a handle, not a list).
bool KeepableOutputs(const TF_Operation* op) {
  if (op->output_types.empty()) return false;
  for (TF_DataType t : op->output_types)
    if (t == TF_RESOURCE || t == TF_VARIANT) return false;
  return true;
}

// The nodes of `g` that `outputs` read (through data and control edges), but for the
// nodes of `inputs`, in g's order. A gradient function is made of these alone: F's nodes
// that the gradients do not read (a variable update, a print, a write) stay out of dF,
// so calling dF does not repeat F's side effects. With `stateful` (the nodes of F's body
// that are stateful and whose outputs a list can keep), such a node is not entered
// either: it goes to `cut`, its outputs to be dF's arguments (values kept by the caller).
std::vector<const TF_Operation*> NodesFeeding(
    TF_Graph* g, const std::vector<TF_Output>& outputs, const std::vector<TF_Output>& inputs,
    const std::unordered_set<const TF_Operation*>* stateful = nullptr,
    std::unordered_set<const TF_Operation*>* cut = nullptr) {
  std::unordered_set<const TF_Operation*> seen, args;
  for (const TF_Output& in : inputs) args.insert(in.oper);
  std::vector<const TF_Operation*> pending;
  for (const TF_Output& out : outputs) pending.push_back(out.oper);
  while (!pending.empty()) {
    const TF_Operation* op = pending.back();
    pending.pop_back();
    if (args.count(op)) continue;
    if (stateful != nullptr && stateful->count(op)) {
      cut->insert(op);
      continue;
    }
    if (!seen.insert(op).second) continue;
    for (const TF_Output& in : op->inputs) pending.push_back(in.oper);
    for (const TF_Operation* c : op->control_inputs) pending.push_back(c);
  }
  std::vector<const TF_Operation*> body;
  std::lock_guard<std::mutex> lock(g->mu);
  for (const auto& op : g->ops)
    if (seen.count(op.get())) body.push_back(op.get());
  return body;
}

// Makes dF for function `fname` of g's library: its inputs are F's args, then one grad per
// output listed in `seeded`; its outputs the grads of the args listed in `wanted` (zeros
// where the outputs do not depend on one). Adds dF, and the gradient functions made for
// the calls inside F, to g's library; returns dF's name ("" on failure). With `kept`, the
// outputs of F's stateful nodes that the gradients read are dF's last arguments, listed
// in `kept`, instead of being computed again (a While keeps them from its forward loop).
std::string MakeGradFunction(TF_Graph* g, const std::string& fname, const std::vector<int>& wanted,
                             const std::vector<int>& seeded, TF_Status* status,
                             std::vector<KeptValue>* kept = nullptr,
                             std::string* keep_fn = nullptr) {
  if (t_grad_depth >= kMaxGradDepth) {
    t_depth_error = "gradient of function '" + fname + "': calls nested more than " +
                    std::to_string(kMaxGradDepth) +
                    " deep (a recursive function has no gradient)";
    SetStatus(status, TF_UNIMPLEMENTED, t_depth_error);
    return "";
  }
  struct DepthGuard {
    DepthGuard() { ++t_grad_depth; }
    ~DepthGuard() {
      if (--t_grad_depth == 0) t_depth_error.clear();
    }
  } guard;
  FunctionLibrary library;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    library = g->functions;
  }
  GraphOwner scratch;
  TF_Graph* s = scratch.g;
  std::vector<TF_Output> args, rets;
  std::vector<std::string> control;
  if (!BuildFunctionBody(library, fname, s, &args, &rets, &control, status)) return "";
  std::unordered_set<const TF_Operation*> stateful;
  std::vector<TF_Operation*> effects;  // F's stateful nodes (a keep function runs them all)
  {
    std::lock_guard<std::mutex> lock(s->mu);
    for (const auto& op : s->ops)
      if (op->op_def->is_stateful) effects.push_back(op.get());
    for (const auto& op : s->ops)
      if ((op->op_def->is_stateful && KeepableOutputs(op.get())) ||
          (keep_fn != nullptr && (op->type() == "While" || op->type() == "StatelessWhile")))
        stateful.insert(op.get());  // (a loop, kept whole: its gradient's lists with it)
  }
  std::vector<TF_Output> inputs = args, ys, dys;
  for (int j : seeded) {
    TF_OperationDescription* d = TF_NewOperation(
        s, "Placeholder", UniqueNodeName(s, "grad_ys_" + std::to_string(j)).c_str());
    TF_SetAttrType(d, "dtype", rets[j].oper->output_types[rets[j].index]);
    TF_Operation* ph = TF_FinishOperation(d, status);
    if (status->code != TF_OK) return "";
    ys.push_back(rets[j]);
    dys.push_back(TF_Output{ph, 0});
    inputs.push_back(TF_Output{ph, 0});
  }
  std::vector<TF_Output> xs, grads(wanted.size(), TF_Output{nullptr, -1});
  for (int k : wanted) xs.push_back(args[k]);
  if (!ys.empty() && !xs.empty()) {
    TF_AddGradients(s, ys.data(), static_cast<int>(ys.size()), xs.data(),
                    static_cast<int>(xs.size()), dys.data(), status, grads.data());
    // Reported once, not wrapped in every level's node context.
    if (status->code != TF_OK && !t_depth_error.empty()) status->message = t_depth_error;
    if (status->code != TF_OK) return "";
  }
  for (size_t k = 0; k < grads.size(); ++k) {
    if (grads[k].oper != nullptr) continue;
    TF_OperationDescription* d =
        TF_NewOperation(s, "ZerosLike", UniqueNodeName(s, "gradients/zeros").c_str());
    TF_AddInput(d, xs[k]);
    TF_Operation* zeros = TF_FinishOperation(d, status);
    if (status->code != TF_OK) return "";
    grads[k] = TF_Output{zeros, 0};
  }
  std::string name;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    name = FreeFunctionName(g->functions, fname + "_grad");
  }
  std::unordered_set<const TF_Operation*> cut;
  const std::vector<const TF_Operation*> body =
      NodesFeeding(s, grads, inputs, kept != nullptr ? &stateful : nullptr, &cut);
  if (kept != nullptr) {
    // With `keep_fn`, only the cut nodes' outputs dF reads (a loop's handles stay out).
    std::set<std::pair<const TF_Operation*, int>> read;
    for (const TF_Operation* op : body)
      for (const TF_Output& in : op->inputs) read.emplace(in.oper, in.index);
    for (const TF_Output& out : grads) read.emplace(out.oper, out.index);
    std::lock_guard<std::mutex> lock(s->mu);
    for (const auto& op : s->ops) {
      if (!cut.count(op.get())) continue;
      for (int j = 0; j < static_cast<int>(op->output_types.size()); ++j) {
        if (keep_fn != nullptr && !read.count({op.get(), j})) continue;
        inputs.push_back(TF_Output{op.get(), j});
        kept->push_back(KeptValue{OutputName(TF_Output{op.get(), j}), op->output_types[j]});
      }
    }
  }
  // With `keep_fn`: F again, returning the kept values after its results (made from this
  // graph, where a While inside F was rewritten to keep its own gradient's values).
  TF_Function* kF = nullptr;
  if (keep_fn != nullptr && kept != nullptr && !kept->empty()) {
    std::vector<TF_Output> outs = rets;
    outs.insert(outs.end(), inputs.begin() + static_cast<std::ptrdiff_t>(args.size() + seeded.size()),
                inputs.end());
    // F's side effects that nothing reads stay in it too (and its control outputs).
    std::vector<TF_Output> roots = outs;
    for (TF_Operation* op : effects) roots.push_back(TF_Output{op, 0});
    std::vector<const TF_Operation*> control_ops;
    std::vector<const char*> control_names;
    for (const std::string& c : control) {
      TF_Operation* op = TF_GraphOperationByName(s, c.c_str());
      if (op == nullptr) continue;
      roots.push_back(TF_Output{op, 0});
      control_ops.push_back(op);
      control_names.push_back(c.c_str());
    }
    const std::vector<const TF_Operation*> forward = NodesFeeding(s, roots, args);
    {
      std::lock_guard<std::mutex> lock(g->mu);
      *keep_fn = FreeFunctionName(g->functions, fname + "_keep");
    }
    kF = TF_GraphToFunctionWithControlOutputs(
        s, keep_fn->c_str(), 0, static_cast<int>(forward.size()), forward.data(),
        static_cast<int>(args.size()), args.data(), static_cast<int>(outs.size()), outs.data(),
        nullptr, static_cast<int>(control_ops.size()), control_ops.data(),
        control_names.data(), nullptr, nullptr, status);
    if (kF == nullptr) return "";
  }
  TF_Function* dF = TF_GraphToFunction(s, name.c_str(), 0, static_cast<int>(body.size()),
                                       body.data(), static_cast<int>(inputs.size()), inputs.data(),
                                       static_cast<int>(grads.size()), grads.data(), nullptr,
                                       nullptr, nullptr, status);
  if (dF == nullptr) {
    if (kF != nullptr) TF_DeleteFunction(kF);
    return "";
  }
  {
    std::lock_guard<std::mutex> lock(g->mu);
    FunctionLibrary merged = g->functions;
    bool ok = merged.Merge(s->functions, status) && merged.Add(dF->def, status) &&
              (kF == nullptr || merged.Add(kF->def, status));
    if (ok) g->functions = std::move(merged);
  }
  TF_DeleteFunction(dF);
  if (kF != nullptr) TF_DeleteFunction(kF);
  return status->code == TF_OK ? name : "";
}

// Finishes a gradient call node `d` of `op`: `args` as its input list, Tin / Tout (and
// op's Tcond), and the gradient functions under the attr names of `func_attr` ("f",
// "then_branch" for an If's two, "branches" for a Case's list). Null on failure.
TF_Operation* FinishGradCall(TF_OperationDescription* d, const TF_Operation* op,
                             const char* func_attr, const std::vector<TF_Output>& args,
                             const std::vector<TF_DataType>& tin,
                             const std::vector<TF_DataType>& tout,
                             const std::vector<std::string>& functions, TF_Status* status) {
  TF_AddInputList(d, args.data(), static_cast<int>(args.size()));
  TF_SetAttrTypeList(d, "Tin", tin.data(), static_cast<int>(tin.size()));
  TF_SetAttrTypeList(d, "Tout", tout.data(), static_cast<int>(tout.size()));
  if (const AttrValue* tcond = FindAttr(op, "Tcond")) TF_SetAttrType(d, "Tcond", tcond->type);
  const std::string attr = func_attr;
  if (attr == "branches") {
    AttrValue list;
    list.kind = AttrValue::kListFunc;
    list.list_s = functions;
    const std::string bytes = SerializeAttrValue(list);
    TF_SetAttrValueProto(d, func_attr, bytes.data(), bytes.size(), status);
    if (status->code != TF_OK) return nullptr;
  } else if (attr == "then_branch") {
    TF_SetAttrFuncName(d, "then_branch", functions[0].data(), functions[0].size());
    TF_SetAttrFuncName(d, "else_branch", functions[1].data(), functions[1].size());
  } else {
    TF_SetAttrFuncName(d, func_attr, functions[0].data(), functions[0].size());
  }
  TF_Operation* call = TF_FinishOperation(d, status);
  return status->code == TF_OK ? call : nullptr;
}

// The gradient of a call-like op whose data inputs from `first_arg` on are the called
// functions' args: `functions` are those it may call (one for a call; the branches of a
// conditional, whose selector is input 0). Emits the same op type over the gradient
// functions, attr `func_attr` naming them.
void CallLikeGrad(OPGEN_GradientContext* ctx, const std::vector<std::string>& functions,
                  const std::vector<AttrMap>& given, int first_arg, const char* func_attr,
                  TF_Status* status) {
  TF_Operation* op = ctx->op;
  std::vector<int> wanted, seeded;
  const int num_inputs = static_cast<int>(op->inputs.size());
  for (int k = first_arg; k < num_inputs; ++k)
    if (ctx->input_needs_grad[k] &&
        FloatLike(op->inputs[k].oper->output_types[op->inputs[k].index]))
      wanted.push_back(k - first_arg);
  if (wanted.empty()) return;
  for (int j = 0; j < static_cast<int>(op->output_types.size()); ++j)
    if (FloatLike(op->output_types[j]) && ctx->output_grads[j].oper != nullptr) seeded.push_back(j);
  std::vector<std::string> grad_functions;
  const std::vector<TF_DataType> arg_types = InputTypes(op, first_arg);
  for (size_t i = 0; i < functions.size(); ++i) {
    const std::string f = ConcreteFunction(
        ctx->graph, functions[i], i < given.size() ? given[i] : AttrMap(), arg_types, status);
    if (status->code != TF_OK) return;
    grad_functions.push_back(MakeGradFunction(ctx->graph, f, wanted, seeded, status));
    if (status->code != TF_OK) return;
  }
  const bool function_node = IsFunctionNode(*op);
  TF_OperationDescription* d = OPGEN_GradientContextNewOperation(
      ctx, function_node ? "PartitionedCall" : op->type().c_str(), nullptr);
  if (first_arg == 1) TF_AddInput(d, op->inputs[0]);
  std::vector<TF_Output> args(op->inputs.begin() + first_arg, op->inputs.end());
  std::vector<TF_DataType> tin, tout;
  for (const TF_Output& a : args) tin.push_back(a.oper->output_types[a.index]);
  for (int j : seeded) {
    args.push_back(ctx->output_grads[j]);
    tin.push_back(op->output_types[j]);
  }
  for (int k : wanted) tout.push_back(tin[k]);
  TF_Operation* call = FinishGradCall(d, op, func_attr, args, tin, tout, grad_functions, status);
  if (call == nullptr) return;
  for (size_t k = 0; k < wanted.size(); ++k)
    OPGEN_GradientContextSetInputGrad(ctx, wanted[k] + first_arg,
                                      TF_Output{call, static_cast<int>(k)}, status);
}

std::string FuncAttr(const TF_Operation* op, const char* name) {
  const AttrValue* v = FindAttr(op, name);
  return v != nullptr && v->kind == AttrValue::kFunc ? v->s : std::string();
}

void PartitionedCallGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  CallLikeGrad(ctx, {FuncAttr(ctx->op, "f")}, {GivenAttrs(ctx->op, "f")}, 0, "f", status);
}

// A function under construction: a scratch graph with the forward graph's library (for
// the calls it makes), whose Arg() Placeholders become its args.
class FunctionBuilder {
 public:
  FunctionBuilder(TF_Graph* forward, TF_Status* status) : forward_(forward), status_(status) {
    std::lock_guard<std::mutex> lock(forward->mu);
    scratch_.g->functions = forward->functions;
  }
  bool ok() const { return status_->code == TF_OK; }
  TF_OperationDescription* New(const char* type) {
    return TF_NewOperation(scratch_.g, type, UniqueNodeName(scratch_.g, type).c_str());
  }
  TF_Output Finish(TF_OperationDescription* d) {
    TF_Operation* op = TF_FinishOperation(d, status_);
    return ok() ? TF_Output{op, 0} : TF_Output{nullptr, -1};
  }
  TF_Output Arg(TF_DataType type) {
    TF_OperationDescription* d = New("Placeholder");
    TF_SetAttrType(d, "dtype", type);
    TF_Output arg = Finish(d);
    args_.push_back(arg);
    return arg;
  }
  TF_Output Int32(int32_t v) { return Finish(Int32Const(New("Const"), v, status_)); }
  TF_Output Binary(const char* type, TF_Output a, TF_Output b) {
    if (!ok()) return TF_Output{nullptr, -1};
    TF_OperationDescription* d = New(type);
    TF_AddInput(d, a);
    TF_AddInput(d, b);
    return Finish(d);
  }
  // The outputs of a call of library function `fname` on `inputs`.
  std::vector<TF_Output> Call(const std::string& fname, const std::vector<TF_Output>& inputs) {
    std::vector<TF_Output> outs;
    if (!ok()) return outs;
    const FunctionDefProto* f = scratch_.g->functions.Find(fname);
    if (f == nullptr) {
      SetStatus(status_, TF_NOT_FOUND, "Function '" + fname + "' is not in the library");
      return outs;
    }
    TF_OperationDescription* d =
        New(f->signature.is_stateful ? "StatefulPartitionedCall" : "PartitionedCall");
    TF_AddInputList(d, inputs.data(), static_cast<int>(inputs.size()));
    std::vector<TF_DataType> tin, tout;
    for (const ArgDef& a : f->signature.input_arg) tin.push_back(a.type);
    for (const ArgDef& a : f->signature.output_arg) tout.push_back(a.type);
    TF_SetAttrTypeList(d, "Tin", tin.data(), static_cast<int>(tin.size()));
    TF_SetAttrTypeList(d, "Tout", tout.data(), static_cast<int>(tout.size()));
    TF_SetAttrFuncName(d, "f", fname.data(), fname.size());
    TF_Operation* op = TF_FinishOperation(d, status_);
    if (!ok()) return outs;
    for (size_t j = 0; j < tout.size(); ++j) outs.push_back(TF_Output{op, static_cast<int>(j)});
    return outs;
  }
  // Makes the function (args: the Arg()s in order; `outputs`) and adds it to the forward
  // graph's library under a fresh name from `base`; returns the name ("" on failure).
  std::string AddTo(const std::string& base, const std::vector<TF_Output>& outputs) {
    if (!ok()) return "";
    std::string name;
    {
      std::lock_guard<std::mutex> lock(forward_->mu);
      name = FreeFunctionName(forward_->functions, base);
    }
    TF_Function* f = TF_GraphToFunction(scratch_.g, name.c_str(), 0, -1, nullptr,
                                        static_cast<int>(args_.size()), args_.data(),
                                        static_cast<int>(outputs.size()), outputs.data(), nullptr,
                                        nullptr, nullptr, status_);
    if (f == nullptr) return "";
    {
      std::lock_guard<std::mutex> lock(forward_->mu);
      FunctionLibrary merged = forward_->functions;
      if (merged.Add(f->def, status_)) forward_->functions = std::move(merged);
    }
    TF_DeleteFunction(f);
    return ok() ? name : "";
  }

  static TF_OperationDescription* Int32Const(TF_OperationDescription* d, int32_t v,
                                             TF_Status* status) {
    TF_Tensor* t = TF_AllocateTensor(TF_INT32, nullptr, 0, 4);
    std::memcpy(TF_TensorData(t), &v, 4);
    TF_SetAttrType(d, "dtype", TF_INT32);
    TF_SetAttrTensor(d, "value", t, status);
    TF_DeleteTensor(t);
    return d;
  }

 private:
  TF_Graph* forward_;
  TF_Status* status_;
  GraphOwner scratch_;
  std::vector<TF_Output> args_;
};

// ---- While ------------------------------------------------------------------------------
//
// While(vars) with cond C and body B is differentiated with a loop back from the last
// iteration to the first: each step reads that iteration's inputs and calls dB (B's
// gradient function) on them and the running gradients. The inputs come from the forward
// loop itself: the gradient rewrites the While node in place so that it carries, after its
// own loop variables, an iteration counter and one TensorList per kept variable, its body
// (B_keep) storing each iteration's inputs at the counter's index. The loop then runs once
// when the ys and their gradients are fetched together, a stateful body's effects
// included, and every later gradient of the same node reads the same lists.
//
// The gradient function dB recomputes the body from each iteration's inputs, all but the
// values of its stateful nodes that the gradients read (a random draw, a variable read):
// those get a list too, filled by the forward loop (its body then calls B with those
// values as extra results), and dB takes them as arguments, so the gradient is the one
// of what the forward loop computed. Nodes the gradients do not read stay out of dB.
//
// Not kept: resource variables (taken to be loop-invariant: a variable the body reads)
// and those B returns unchanged (passed on by name); the loop back takes their value as
// it entered the loop. A node already rewritten says so in its attrs (kNumOriginal ...).
// A plan that reads none of the lists (the forward values alone) runs the plain loop.

// What a rewritten While carries in its attrs (function_call.h).
constexpr const char* kNumOriginal = kNumOriginalOutputsAttr;
constexpr const char* kAccumulated = kAccumulatedAttr;
constexpr const char* kAccumulatedValues = kAccumulatedValuesAttr;
constexpr const char* kForwardCond = kForwardCondAttr;
constexpr const char* kForwardBody = kForwardBodyAttr;

struct WhileLayout {
  std::vector<TF_DataType> t;  // the loop's own variables' dtypes
  std::string cond, body;      // monomorphic
  std::vector<int> floats;     // differentiable variables
  std::vector<int> kept;       // variables with a list, in list order
  std::vector<int> passed;     // the others: the loop back takes the loop's input
  std::vector<KeptValue> values;  // stateful nodes' values dB reads, a list each after those
  bool rewritten = false;      // the node carries the lists already
  // The lists in the loop's variables: kept variables', then values'.
  size_t num_lists() const { return kept.size() + values.size(); }
  TF_DataType list_type(size_t j) const {
    return j < kept.size() ? t[kept[j]] : values[j - kept.size()].type;
  }
};

// Whether body `f` returns argument i unchanged as result i.
bool PassesOn(const FunctionLibrary& library, const std::string& f, int i) {
  const FunctionDefProto* def = library.Find(f);
  if (def == nullptr || i >= static_cast<int>(def->signature.input_arg.size()) ||
      i >= static_cast<int>(def->signature.output_arg.size()))
    return false;
  for (const auto* args : {&def->signature.input_arg, &def->signature.output_arg})
    for (const ArgDef& a : *args)
      if (!a.number_attr.empty() || !a.type_list_attr.empty()) return false;
  auto it = def->ret.find(def->signature.output_arg[i].name);
  return it != def->ret.end() && it->second == def->signature.input_arg[i].name;
}

// The layout of `op`'s gradient: read from the attrs of a node rewritten before, else
// chosen. False with status set, or with nothing set when no input needs a gradient.
bool LayoutOf(OPGEN_GradientContext* ctx, WhileLayout* out, TF_Status* status) {
  TF_Operation* op = ctx->op;
  const AttrValue* types = FindAttr(op, "T");
  if (types == nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT, "a While without T");
    return false;
  }
  const AttrValue* original = FindAttr(op, kNumOriginal);
  const AttrValue* accumulated = FindAttr(op, kAccumulated);
  int k = static_cast<int>(types->list_type.size());
  if (original != nullptr && accumulated != nullptr) {
    k = static_cast<int>(original->i);
    out->rewritten = true;
    out->cond = FindAttr(op, kForwardCond) ? FindAttr(op, kForwardCond)->s : "";
    out->body = FindAttr(op, kForwardBody) ? FindAttr(op, kForwardBody)->s : "";
    for (int64_t i : accumulated->list_i) out->kept.push_back(static_cast<int>(i));
    if (const AttrValue* values = FindAttr(op, kAccumulatedValues))
      for (const std::string& v : values->list_s) out->values.push_back(KeptValue{v, TF_FLOAT});
  }
  out->t.assign(types->list_type.begin(), types->list_type.begin() + k);
  const std::vector<TF_DataType>& t = out->t;
  bool any_wanted = false;
  for (int i = 0; i < k; ++i) {
    if (t[i] == TF_VARIANT) {
      // The loop back of a While's gradient carries the forward values in TensorLists:
      // differentiating it again (TensorFlow's while_v2 can) would need gradients
      // through those lists and into the forward loop's accumulators.
      const bool loop_back = FuncAttr(op, "body").find("_grad_body") != std::string::npos;
      SetStatus(status, TF_UNIMPLEMENTED,
                loop_back
                    ? "second derivatives through a While are not implemented: this While ('" +
                          op->name + "') is the loop back of another While's gradient, and "
                          "its loop variable " + std::to_string(i) +
                          " is a TensorList of that loop's values (a variant loop variable, "
                          "which has no gradient here)"
                    : "gradients through a While with a variant loop variable (a TensorList) "
                      "are not implemented (loop variable " + std::to_string(i) + ")");
      return false;
    }
    if (!FloatLike(t[i])) continue;
    out->floats.push_back(i);
    any_wanted = any_wanted || ctx->input_needs_grad[i];
  }
  if (!any_wanted) return false;
  if (!out->rewritten) {
    out->cond = ConcreteFunction(ctx->graph, FuncAttr(op, "cond"), GivenAttrs(op, "cond"), t,
                                 status);
    if (status->code != TF_OK) return false;
    out->body = ConcreteFunction(ctx->graph, FuncAttr(op, "body"), GivenAttrs(op, "body"), t,
                                 status);
    if (status->code != TF_OK) return false;
    FunctionLibrary library;
    {
      std::lock_guard<std::mutex> lock(ctx->graph->mu);
      library = ctx->graph->functions;
    }
    for (int i = 0; i < k; ++i)
      if (t[i] != TF_RESOURCE && !PassesOn(library, out->body, i)) out->kept.push_back(i);
  }
  for (int i = 0; i < k; ++i)
    if (std::find(out->kept.begin(), out->kept.end(), i) == out->kept.end())
      out->passed.push_back(i);
  return true;
}

// Body `body` with the values `values` of its nodes as extra results, added to g's
// library; its name ("" on failure).
std::string BodyWithValues(TF_Graph* g, const std::string& body,
                           const std::vector<KeptValue>& values, TF_Status* status) {
  FunctionLibrary library;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    library = g->functions;
  }
  GraphOwner scratch;
  std::vector<TF_Output> args, rets;
  if (!BuildFunctionBody(library, body, scratch.g, &args, &rets, nullptr, status)) return "";
  for (const KeptValue& v : values) {
    const size_t colon = v.tensor.rfind(':');
    const std::string node = colon == std::string::npos ? v.tensor : v.tensor.substr(0, colon);
    const int index = colon == std::string::npos ? 0 : std::stoi(v.tensor.substr(colon + 1));
    TF_Operation* op = TF_GraphOperationByName(scratch.g, node.c_str());
    if (op == nullptr) {
      SetStatus(status, TF_INTERNAL, "body '" + body + "' has no node '" + node + "'");
      return "";
    }
    rets.push_back(TF_Output{op, index});
  }
  std::string name;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    name = FreeFunctionName(g->functions, body + "_values");
  }
  TF_Function* f = TF_GraphToFunction(scratch.g, name.c_str(), 0, -1, nullptr,
                                      static_cast<int>(args.size()), args.data(),
                                      static_cast<int>(rets.size()), rets.data(), nullptr,
                                      nullptr, nullptr, status);
  if (f == nullptr) return "";
  {
    std::lock_guard<std::mutex> lock(g->mu);
    FunctionLibrary merged = g->functions;
    if (merged.Add(f->def, status)) g->functions = std::move(merged);
  }
  TF_DeleteFunction(f);
  return status->code == TF_OK ? name : "";
}

// The forward loop that keeps its inputs, on (vars..., n, lists...): cond C(vars); body
// (B(vars)..., n + 1, lists[j] with vars[kept[j]] or the j-th kept value set at n...).
// Adds both to g's library.
bool MakeKeepFunctions(TF_Graph* g, const WhileLayout& l, std::string* cond, std::string* body,
                       TF_Status* status) {
  const int k = static_cast<int>(l.t.size()), nk = static_cast<int>(l.kept.size());
  const int nl = static_cast<int>(l.num_lists());
  {
    FunctionBuilder f(g, status);
    std::vector<TF_Output> vars;
    for (int i = 0; i < k; ++i) vars.push_back(f.Arg(l.t[i]));
    f.Arg(TF_INT32);
    for (int j = 0; j < nl; ++j) f.Arg(TF_VARIANT);
    std::vector<TF_Output> c = f.Call(l.cond, vars);
    if (!c.empty()) *cond = f.AddTo(l.cond + "_keep", {c[0]});
    if (status->code != TF_OK) return false;
  }
  const std::string called = l.values.empty() ? l.body : BodyWithValues(g, l.body, l.values, status);
  if (status->code != TF_OK) return false;
  FunctionBuilder f(g, status);
  std::vector<TF_Output> vars, lists;
  for (int i = 0; i < k; ++i) vars.push_back(f.Arg(l.t[i]));
  TF_Output n = f.Arg(TF_INT32);
  for (int j = 0; j < nl; ++j) lists.push_back(f.Arg(TF_VARIANT));
  std::vector<TF_Output> results = f.Call(called, vars);
  if (!f.ok()) return false;
  std::vector<TF_Output> outs(results.begin(), results.begin() + k);
  outs.push_back(f.Binary("AddV2", n, f.Int32(1)));
  for (int j = 0; j < nl && f.ok(); ++j) {
    TF_OperationDescription* d = f.New("TensorListSetItem");
    TF_AddInput(d, lists[j]);
    TF_AddInput(d, n);
    TF_AddInput(d, j < nk ? vars[l.kept[j]] : results[k + j - nk]);
    TF_SetAttrType(d, "element_dtype", l.list_type(j));
    TF_SetAttrBool(d, "resize_if_index_out_of_bounds", 1);
    outs.push_back(f.Finish(d));
  }
  *body = f.AddTo(l.body + "_keep", outs);
  return status->code == TF_OK;
}

// The loop back over (n, lists..., passed..., gradients of the floats...) while n > 0:
// step n calls dB on iteration n - 1's inputs and the gradients.
bool MakeBackFunctions(TF_Graph* g, const WhileLayout& l, const std::string& d_body,
                       std::string* cond, std::string* body, TF_Status* status) {
  const int k = static_cast<int>(l.t.size());
  const auto args_of = [&](FunctionBuilder& f, TF_Output* n, std::vector<TF_Output>* lists,
                           std::vector<TF_Output>* passed, std::vector<TF_Output>* grads) {
    *n = f.Arg(TF_INT32);
    for (size_t j = 0; j < l.num_lists(); ++j) lists->push_back(f.Arg(TF_VARIANT));
    for (int i : l.passed) passed->push_back(f.Arg(l.t[i]));
    for (int i : l.floats) grads->push_back(f.Arg(l.t[i]));
  };
  TF_Output n;
  std::vector<TF_Output> lists, passed, grads;
  {
    FunctionBuilder f(g, status);
    args_of(f, &n, &lists, &passed, &grads);
    *cond = f.AddTo(l.body + "_grad_cond", {f.Binary("Greater", n, f.Int32(0))});
    if (status->code != TF_OK) return false;
  }
  FunctionBuilder f(g, status);
  lists.clear(), passed.clear(), grads.clear();
  args_of(f, &n, &lists, &passed, &grads);
  std::vector<TF_Output> args(k), values, outs;
  TF_Output prev = f.Binary("Sub", n, f.Int32(1));
  TF_Output unknown_shape = f.Int32(-1);
  for (size_t j = 0; j < l.num_lists() && f.ok(); ++j) {
    TF_OperationDescription* d = f.New("TensorListGetItem");
    TF_AddInput(d, lists[j]);
    TF_AddInput(d, prev);
    TF_AddInput(d, unknown_shape);
    TF_SetAttrType(d, "element_dtype", l.list_type(j));
    (j < l.kept.size() ? args[l.kept[j]] : values.emplace_back()) = f.Finish(d);
  }
  for (size_t j = 0; j < l.passed.size(); ++j) args[l.passed[j]] = passed[j];
  args.insert(args.end(), grads.begin(), grads.end());
  args.insert(args.end(), values.begin(), values.end());  // dB's kept values come last
  outs.push_back(prev);
  outs.insert(outs.end(), lists.begin(), lists.end());
  outs.insert(outs.end(), passed.begin(), passed.end());
  for (const TF_Output& o : f.Call(d_body, args)) outs.push_back(o);
  *body = f.AddTo(l.body + "_grad_body", outs);
  return status->code == TF_OK;
}

// Whether g has v1 loops (Enter nodes). A While in a v1 loop's frame could not take the
// counter and lists as inputs made outside that frame, so there (and, not telling
// frames apart, anywhere in such a graph) the gradient runs the loop a second time
// instead of rewriting the node: the one place the forward work is done twice.
bool HasV1Loops(TF_Graph* g) {
  std::lock_guard<std::mutex> lock(g->mu);
  for (const auto& op : g->ops)
    if (op->type() == "Enter") return true;
  return false;
}

// The accumulators' first values (0 and empty lists), then either the forward node
// rewritten to carry them or, in a graph with v1 loops, a second loop that does. Sets the
// outputs the loop back reads: the iteration count and the lists.
bool Accumulate(OPGEN_GradientContext* ctx, const WhileLayout& l, TF_Output* count,
                std::vector<TF_Output>* lists, TF_Status* status) {
  TF_Operation* op = ctx->op;
  const int k = static_cast<int>(l.t.size()), nl = static_cast<int>(l.num_lists());
  if (l.rewritten) {
    *count = TF_Output{op, k};
    for (int j = 0; j < nl; ++j) lists->push_back(TF_Output{op, k + 1 + j});
    return true;
  }
  std::string keep_cond, keep_body;
  if (!MakeKeepFunctions(ctx->graph, l, &keep_cond, &keep_body, status)) return false;
  auto int32_const = [&](int32_t v) {
    TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, "Const", nullptr);
    TF_Operation* o = TF_FinishOperation(FunctionBuilder::Int32Const(d, v, status), status);
    return TF_Output{o, 0};
  };
  const TF_Output zero = int32_const(0), unknown_shape = int32_const(-1);
  if (status->code != TF_OK) return false;
  std::vector<TF_Output> extra{zero};
  std::vector<TF_DataType> extra_t{TF_INT32};
  for (int j = 0; j < nl; ++j) {
    TF_OperationDescription* d =
        OPGEN_GradientContextNewOperation(ctx, "TensorListReserve", nullptr);
    TF_AddInput(d, unknown_shape);
    TF_AddInput(d, zero);
    TF_SetAttrType(d, "element_dtype", l.list_type(j));
    TF_SetAttrType(d, "shape_type", TF_INT32);
    TF_Operation* list = TF_FinishOperation(d, status);
    if (status->code != TF_OK) return false;
    extra.push_back(TF_Output{list, 0});
    extra_t.push_back(TF_VARIANT);
  }
  std::vector<TF_DataType> all_t = l.t;
  all_t.insert(all_t.end(), extra_t.begin(), extra_t.end());
  TF_Operation* loop = op;
  if (HasV1Loops(ctx->graph)) {
    TF_OperationDescription* d =
        OPGEN_GradientContextNewOperation(ctx, op->type().c_str(), nullptr);
    std::vector<TF_Output> in(op->inputs.begin(), op->inputs.begin() + k);
    in.insert(in.end(), extra.begin(), extra.end());
    TF_AddInputList(d, in.data(), static_cast<int>(in.size()));
    TF_SetAttrTypeList(d, "T", all_t.data(), static_cast<int>(all_t.size()));
    TF_SetAttrFuncName(d, "cond", keep_cond.data(), keep_cond.size());
    TF_SetAttrFuncName(d, "body", keep_body.data(), keep_body.size());
    loop = TF_FinishOperation(d, status);
    if (status->code != TF_OK) return false;
  } else {
    std::lock_guard<std::mutex> lock(ctx->graph->mu);
    AttrMap attrs = op->attrs;
    attrs["T"].list_type = all_t;
    for (const auto& [name, fname] : {std::pair<const char*, const std::string*>{"cond", &keep_cond},
                                      {"body", &keep_body}}) {
      AttrValue func;
      func.kind = AttrValue::kFunc;
      func.s = *fname;
      attrs[name] = func;
    }
    auto shapes = attrs.find("output_shapes");
    if (shapes != attrs.end() && !shapes->second.list_shape.empty())  // theirs: scalars
      shapes->second.list_shape.resize(all_t.size(), Shape{false, {}});
    AttrValue v;
    v.kind = AttrValue::kInt;
    v.i = k;
    attrs[kNumOriginal] = v;
    v.kind = AttrValue::kListInt;
    v.list_i.assign(l.kept.begin(), l.kept.end());
    attrs[kAccumulated] = v;
    v = AttrValue();
    v.kind = AttrValue::kListString;
    for (const KeptValue& value : l.values) v.list_s.push_back(value.tensor);
    attrs[kAccumulatedValues] = v;
    v = AttrValue();
    v.kind = AttrValue::kString;
    v.s = l.cond;
    attrs[kForwardCond] = v;
    v.s = l.body;
    attrs[kForwardBody] = v;
    if (!ExtendNodeLocked(op, std::move(attrs), extra, status)) return false;
  }
  *count = TF_Output{loop, k};
  for (int j = 0; j < nl; ++j) lists->push_back(TF_Output{loop, k + 1 + j});
  return true;
}

// ---- If / Case keeping their branches' values --------------------------------------------
//
// Where a branch's gradient reads values of stateful nodes (a random draw, a variable
// update's result, a While that keeps its own gradient's lists), computing them again in
// the gradient would repeat the side effects or draw other numbers. The forward node is
// rewritten instead (as TensorFlow's cond_v2 does): every branch also returns the kept
// values of all branches (its own, and a dummy of each other branch's: a zero, or an empty
// list for a variant), and the gradient's branch i takes branch i's from those outputs.
// The branches' gradients are made for every float input and output (zeros where no
// gradient comes), so a second gradient of the rewritten node reads the same values.

constexpr const char* kForwardBranches = "_opgen_forward_branches";

// Whether function `fname` of g's library is marked stateful (or is not there).
bool MarkedStateful(TF_Graph* g, const std::string& fname) {
  std::lock_guard<std::mutex> lock(g->mu);
  const FunctionDefProto* f = g->functions.Find(fname);
  return f == nullptr || f->signature.is_stateful;
}

// The op type of a gradient node over `functions`: a stateless twin of `type` where none
// of them has state (a forward If is stateful for its branches' sake, not its gradient's),
// so a function holding the gradient is free of state too.
std::string GradientNodeType(TF_Graph* g, const std::string& type,
                             const std::vector<std::string>& functions) {
  static const std::pair<const char*, const char*> kTwins[] = {
      {"If", "StatelessIf"}, {"Case", "StatelessCase"}, {"While", "StatelessWhile"}};
  for (const auto& [stateful, stateless] : kTwins) {
    if (type != stateful) continue;
    for (const std::string& f : functions)
      if (MarkedStateful(g, f)) return type;
    return stateless;
  }
  return type;
}

// A dummy value of `type` in a branch that does not compute the kept value.
TF_Output DummyOf(FunctionBuilder& f, TF_DataType type, TF_Status* status) {
  if (type == TF_VARIANT) {
    TF_OperationDescription* d = f.New("TensorListReserve");
    TF_AddInput(d, f.Int32(-1));
    TF_AddInput(d, f.Int32(0));
    TF_SetAttrType(d, "element_dtype", TF_FLOAT);
    TF_SetAttrType(d, "shape_type", TF_INT32);
    return f.Finish(d);
  }
  if (type == TF_STRING || type == TF_RESOURCE) {
    SetStatus(status, TF_UNIMPLEMENTED, "no dummy value of this type");
    return TF_Output{nullptr, -1};
  }
  TF_OperationDescription* d = f.New("Cast");
  TF_AddInput(d, f.Int32(0));
  TF_SetAttrType(d, "DstT", type);
  return f.Finish(d);
}

// Returns false (nothing changed) where no branch keeps a value: the plain gradient then.
bool BranchKeepGrad(OPGEN_GradientContext* ctx, const std::vector<std::string>& functions,
                    const std::vector<AttrMap>& given, const char* func_attr, TF_Status* status) {
  TF_Operation* op = ctx->op;
  if (IsFunctionNode(*op) || HasV1Loops(ctx->graph)) return false;
  const AttrValue* num_original = FindAttr(op, kNumOriginal);
  const AttrValue* originals = FindAttr(op, kForwardBranches);
  const bool rewritten = num_original != nullptr && originals != nullptr;
  const int n_out = rewritten ? static_cast<int>(num_original->i)
                              : static_cast<int>(op->output_types.size());
  const int num_inputs = static_cast<int>(op->inputs.size());
  std::vector<int> wanted, seeded;
  for (int k = 1; k < num_inputs; ++k)
    if (FloatLike(op->inputs[k].oper->output_types[op->inputs[k].index])) wanted.push_back(k - 1);
  bool needed = false;
  for (int k : wanted) needed = needed || ctx->input_needs_grad[k + 1];
  if (!needed) return rewritten;  // (a rewritten node: nothing else to do either)
  for (int j = 0; j < n_out; ++j)
    if (FloatLike(op->output_types[j])) seeded.push_back(j);
  const std::vector<TF_DataType> arg_types = InputTypes(op, 1);
  std::vector<std::string> branches = rewritten ? originals->list_s : functions;
  if (!rewritten) {
    for (size_t i = 0; i < branches.size(); ++i) {
      branches[i] = ConcreteFunction(ctx->graph, branches[i],
                                     i < given.size() ? given[i] : AttrMap(), arg_types, status);
      if (status->code != TF_OK) return true;
    }
  }
  std::vector<std::string> grads, keeps;
  std::vector<std::vector<KeptValue>> kept;
  std::vector<TF_DataType> extra_t;
  std::vector<size_t> first;
  // Each branch's gradient function (and keep function, where it keeps values).
  const auto make = [&](const std::vector<int>& w, const std::vector<int>& sd) {
    grads.clear();
    keeps.clear();
    kept.assign(branches.size(), {});
    extra_t.clear();
    first.assign(branches.size(), 0);
    for (size_t i = 0; i < branches.size(); ++i) {
      std::string keep;
      grads.push_back(MakeGradFunction(ctx->graph, branches[i], w, sd, status, &kept[i], &keep));
      if (status->code != TF_OK) return false;
      keeps.push_back(keep.empty() ? branches[i] : keep);
      first[i] = extra_t.size();
      for (const KeptValue& v : kept[i]) extra_t.push_back(v.type);
    }
    return true;
  };
  // A node not rewritten yet: first the gradient of what is asked (as a plain conditional's
  // gradient is made); only where that keeps values, all of them for the rewrite.
  bool plain = false;
  if (!rewritten) {
    std::vector<int> asked_w, asked_sd;
    for (int k : wanted)
      if (ctx->input_needs_grad[k + 1]) asked_w.push_back(k);
    for (int j : seeded)
      if (ctx->output_grads[j].oper != nullptr) asked_sd.push_back(j);
    if (!make(asked_w, asked_sd)) return true;
    plain = extra_t.empty();
    if (plain) {
      wanted = asked_w;
      seeded = asked_sd;
    }
  }
  if (!plain && !make(wanted, seeded)) return true;
  if (!plain && extra_t.empty() && !rewritten) return false;  // (not reached: kept above)
  if (rewritten &&
      static_cast<int>(op->output_types.size()) != n_out + static_cast<int>(extra_t.size())) {
    SetStatus(status, TF_INTERNAL, "node '" + op->name + "': its branches' gradients read other "
                                   "values than the node keeps");
    return true;
  }
  std::vector<TF_DataType> out_t(op->output_types.begin(), op->output_types.begin() + n_out);
  std::vector<TF_DataType> dy_t;
  for (int j : seeded) dy_t.push_back(op->output_types[j]);
  // The gradient's branches: (args, dys, every branch's kept values) -> dF_i(args, dys, own);
  // with nothing kept, the dF_i themselves.
  std::vector<std::string> grad_branches = plain ? grads : std::vector<std::string>();
  for (size_t i = 0; !plain && i < branches.size(); ++i) {
    FunctionBuilder f(ctx->graph, status);
    std::vector<TF_Output> in;
    for (TF_DataType t : arg_types) in.push_back(f.Arg(t));
    for (TF_DataType t : dy_t) in.push_back(f.Arg(t));
    std::vector<TF_Output> extras;
    for (TF_DataType t : extra_t) extras.push_back(f.Arg(t));
    in.insert(in.end(), extras.begin() + static_cast<std::ptrdiff_t>(first[i]),
              extras.begin() + static_cast<std::ptrdiff_t>(first[i] + kept[i].size()));
    grad_branches.push_back(f.AddTo(branches[i] + "_grad_branch", f.Call(grads[i], in)));
    if (status->code != TF_OK) return true;
  }
  if (!rewritten && !plain) {
    // The forward's branches: F_i's results, then each branch's kept values (a dummy for
    // the others'), all with the same types.
    std::vector<std::string> forward;
    for (size_t i = 0; i < branches.size(); ++i) {
      FunctionBuilder f(ctx->graph, status);
      std::vector<TF_Output> in;
      for (TF_DataType t : arg_types) in.push_back(f.Arg(t));
      std::vector<TF_Output> results = f.Call(keeps[i], in);
      if (status->code != TF_OK) return true;
      std::vector<TF_Output> outs(results.begin(), results.begin() + n_out);
      for (size_t b = 0; b < branches.size(); ++b)
        for (size_t m = 0; m < kept[b].size(); ++m)
          outs.push_back(b == i ? results[n_out + m] : DummyOf(f, kept[b][m].type, status));
      if (status->code != TF_OK) {
        status->code = TF_OK;  // a value no dummy stands for: the plain gradient
        status->message.clear();
        return false;
      }
      forward.push_back(f.AddTo(branches[i] + "_keep_branch", outs));
      if (status->code != TF_OK) return true;
    }
    std::lock_guard<std::mutex> lock(ctx->graph->mu);
    AttrMap attrs = op->attrs;
    std::vector<TF_DataType> all_t = out_t;
    all_t.insert(all_t.end(), extra_t.begin(), extra_t.end());
    attrs["Tout"].list_type = all_t;
    auto shapes = attrs.find("output_shapes");
    if (shapes != attrs.end() && !shapes->second.list_shape.empty())
      shapes->second.list_shape.resize(all_t.size(), Shape{true, {}});
    if (std::string(func_attr) == "branches") {
      AttrValue& list = attrs["branches"];
      list.list_s = forward;
      list.list_func_attr.clear();
    } else {
      for (const auto& [name, fname] : {std::pair<const char*, const std::string*>{
                                            "then_branch", &forward[0]},
                                        {"else_branch", &forward[1]}}) {
        AttrValue func;
        func.kind = AttrValue::kFunc;
        func.s = *fname;
        attrs[name] = func;
      }
    }
    AttrValue v;
    v.kind = AttrValue::kInt;
    v.i = n_out;
    attrs[kNumOriginal] = v;
    v = AttrValue();
    v.kind = AttrValue::kListString;
    v.list_s = branches;
    attrs[kForwardBranches] = v;
    if (!ExtendNodeLocked(op, std::move(attrs), {}, status)) return true;
  }
  // The gradient node: (selector, args, dys, kept values) -> the args' gradients.
  const std::string grad_type = GradientNodeType(ctx->graph, op->type(), grad_branches);
  TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, grad_type.c_str(), nullptr);
  TF_AddInput(d, op->inputs[0]);
  std::vector<TF_Output> args(op->inputs.begin() + 1, op->inputs.end());
  std::vector<TF_DataType> tin = arg_types, tout;
  for (int j : seeded) {
    TF_Output dy = ctx->output_grads[j];
    if (dy.oper == nullptr) {
      TF_OperationDescription* z = OPGEN_GradientContextNewOperation(ctx, "ZerosLike", nullptr);
      TF_AddInput(z, TF_Output{op, j});
      dy = TF_Output{TF_FinishOperation(z, status), 0};
      if (status->code != TF_OK) return true;
    }
    args.push_back(dy);
    tin.push_back(op->output_types[j]);
  }
  for (size_t m = 0; m < extra_t.size(); ++m) {
    args.push_back(TF_Output{op, n_out + static_cast<int>(m)});
    tin.push_back(extra_t[m]);
  }
  for (int k : wanted) tout.push_back(arg_types[k]);
  TF_Operation* call = FinishGradCall(d, op, func_attr, args, tin, tout, grad_branches, status);
  if (call == nullptr) return true;
  for (size_t k = 0; k < wanted.size(); ++k)
    if (ctx->input_needs_grad[wanted[k] + 1])
      OPGEN_GradientContextSetInputGrad(ctx, wanted[k] + 1, TF_Output{call, static_cast<int>(k)},
                                        status);
  return true;
}

void IfGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  if (BranchKeepGrad(ctx, {FuncAttr(ctx->op, "then_branch"), FuncAttr(ctx->op, "else_branch")},
                     {GivenAttrs(ctx->op, "then_branch"), GivenAttrs(ctx->op, "else_branch")},
                     "then_branch", status))
    return;
  CallLikeGrad(ctx, {FuncAttr(ctx->op, "then_branch"), FuncAttr(ctx->op, "else_branch")},
               {GivenAttrs(ctx->op, "then_branch"), GivenAttrs(ctx->op, "else_branch")}, 1,
               "then_branch", status);
}

// Case and StatelessCase: each branch bound by the attrs of its NameAttrList.
void CaseGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  const AttrValue* branches = FindAttr(ctx->op, "branches");
  std::vector<std::string> names;
  std::vector<AttrMap> given;
  if (branches != nullptr && branches->kind == AttrValue::kListFunc) {
    names = branches->list_s;
    given.resize(names.size());
    for (size_t i = 0; i < names.size() && i < branches->list_func_attr.size(); ++i)
      if (branches->list_func_attr[i] != nullptr) given[i] = *branches->list_func_attr[i];
  }
  if (BranchKeepGrad(ctx, names, given, "branches", status)) return;
  CallLikeGrad(ctx, names, given, 1, "branches", status);
}

void WhileGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  TF_Operation* op = ctx->op;
  WhileLayout l;
  if (!LayoutOf(ctx, &l, status)) return;
  std::vector<KeptValue> values;
  const std::string d_body =
      MakeGradFunction(ctx->graph, l.body, l.floats, l.floats, status, &values);
  if (status->code != TF_OK) return;
  if (l.rewritten) {  // the same body gives the same gradient function, reading the same
    bool same = values.size() == l.values.size();
    for (size_t j = 0; same && j < values.size(); ++j) same = values[j].tensor == l.values[j].tensor;
    if (!same)
      return SetStatus(status, TF_INTERNAL,
                       "While node '" + op->name + "': its body's gradient reads other values "
                       "than the loop keeps");
  }
  l.values = std::move(values);
  std::string back_cond, back_body;
  if (!MakeBackFunctions(ctx->graph, l, d_body, &back_cond, &back_body, status)) return;
  TF_Output count;
  std::vector<TF_Output> lists;
  if (!Accumulate(ctx, l, &count, &lists, status)) return;

  std::vector<TF_Output> in{count};
  std::vector<TF_DataType> types{TF_INT32};
  for (const TF_Output& list : lists) {
    in.push_back(list);
    types.push_back(TF_VARIANT);
  }
  for (int i : l.passed) {
    in.push_back(op->inputs[i]);
    types.push_back(l.t[i]);
  }
  for (int i : l.floats) {
    in.push_back(ctx->output_grads[i]);
    types.push_back(l.t[i]);
  }
  const std::string back_type = GradientNodeType(ctx->graph, op->type(), {back_cond, back_body});
  TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, back_type.c_str(), nullptr);
  TF_AddInputList(d, in.data(), static_cast<int>(in.size()));
  TF_SetAttrTypeList(d, "T", types.data(), static_cast<int>(types.size()));
  TF_SetAttrFuncName(d, "cond", back_cond.data(), back_cond.size());
  TF_SetAttrFuncName(d, "body", back_body.data(), back_body.size());
  TF_Operation* back = TF_FinishOperation(d, status);
  if (status->code != TF_OK) return;
  const int first_grad = 1 + static_cast<int>(lists.size() + l.passed.size());
  for (size_t j = 0; j < l.floats.size(); ++j)
    if (ctx->input_needs_grad[l.floats[j]])
      OPGEN_GradientContextSetInputGrad(ctx, l.floats[j],
                                        TF_Output{back, first_grad + static_cast<int>(j)},
                                        status);
}

}  // namespace

void FunctionNodeGradient(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  CallLikeGrad(ctx, {ctx->op->type()}, {ctx->op->attrs}, 0, "f", status);
}

void RegisterFunctionGradients() {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"})
    RegisterBuiltinGradient(op, &PartitionedCallGrad, nullptr);
  for (const char* op : {"If", "StatelessIf"}) RegisterBuiltinGradient(op, &IfGrad, nullptr);
  for (const char* op : {"Case", "StatelessCase"}) RegisterBuiltinGradient(op, &CaseGrad, nullptr);
  for (const char* op : {"While", "StatelessWhile"})
    RegisterBuiltinGradient(op, &WhileGrad, nullptr);
}

}  // namespace gradients
}  // namespace opgen
