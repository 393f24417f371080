// Gradients of function calls and functional control flow: PartitionedCall,
// StatefulPartitionedCall, a node that calls a function by its op type, If, StatelessIf,
// Case, While and StatelessWhile.
//
// The gradient of a call of F(args) -> outputs is a call of a new function
// dF(args..., output grads...) -> arg grads, made by building F's body in a scratch
// graph, running the backward pass there (the same registry, so calls nested in F get
// their own dF in turn) and turning the result into a FunctionDef of the forward graph's
// library. dF recomputes F's forward values instead of keeping them from the forward
// call. A conditional's gradient is the same conditional (same cond or branch_index) over
// the branches' gradient functions, which all return a gradient for every wanted input
// (zeros where a branch does not use it). A While's gradient runs the loop again keeping
// each iteration's inputs in TensorLists, then a loop back over them calling dBody.
// A polymorphic function is first bound as its forward call binds it and its instance
// added to the library: everything the gradient builds is monomorphic.
//
// Inputs that get no gradient: those of a non floating-point/complex dtype (integers,
// strings, resources: a variable read inside a function gets none through the call) and
// those the ys do not depend on. A While's resource loop variables are taken to be
// loop-invariant; one with a variant loop variable (a TensorList) has no gradient.
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
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

// Makes dF for function `fname` of g's library: its inputs are F's args, then one grad per
// output listed in `seeded`; its outputs the grads of the args listed in `wanted` (zeros
// where the outputs do not depend on one). Adds dF, and the gradient functions made for
// the calls inside F, to g's library; returns dF's name ("" on failure).
std::string MakeGradFunction(TF_Graph* g, const std::string& fname, const std::vector<int>& wanted,
                             const std::vector<int>& seeded, TF_Status* status) {
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
  if (!BuildFunctionBody(library, fname, s, &args, &rets, nullptr, status)) return "";
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
  TF_Function* dF = TF_GraphToFunction(s, name.c_str(), 0, -1, nullptr,
                                       static_cast<int>(inputs.size()), inputs.data(),
                                       static_cast<int>(grads.size()), grads.data(), nullptr,
                                       nullptr, nullptr, status);
  if (dF == nullptr) return "";
  {
    std::lock_guard<std::mutex> lock(g->mu);
    FunctionLibrary merged = g->functions;
    bool ok = merged.Merge(s->functions, status) && merged.Add(dF->def, status);
    if (ok) g->functions = std::move(merged);
  }
  TF_DeleteFunction(dF);
  return status->code == TF_OK ? name : "";
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
  TF_AddInputList(d, args.data(), static_cast<int>(args.size()));
  TF_SetAttrTypeList(d, "Tin", tin.data(), static_cast<int>(tin.size()));
  TF_SetAttrTypeList(d, "Tout", tout.data(), static_cast<int>(tout.size()));
  if (const AttrValue* tcond = FindAttr(op, "Tcond")) TF_SetAttrType(d, "Tcond", tcond->type);
  if (std::string(func_attr) == "branches") {
    AttrValue list;
    list.kind = AttrValue::kListFunc;
    list.list_s = grad_functions;
    const std::string bytes = SerializeAttrValue(list);
    TF_SetAttrValueProto(d, func_attr, bytes.data(), bytes.size(), status);
    if (status->code != TF_OK) return;
  } else if (std::string(func_attr) == "then_branch") {
    TF_SetAttrFuncName(d, "then_branch", grad_functions[0].data(), grad_functions[0].size());
    TF_SetAttrFuncName(d, "else_branch", grad_functions[1].data(), grad_functions[1].size());
  } else {
    TF_SetAttrFuncName(d, func_attr, grad_functions[0].data(), grad_functions[0].size());
  }
  TF_Operation* call = TF_FinishOperation(d, status);
  if (status->code != TF_OK) return;
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

void IfGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  CallLikeGrad(ctx, {FuncAttr(ctx->op, "then_branch"), FuncAttr(ctx->op, "else_branch")},
               {GivenAttrs(ctx->op, "then_branch"), GivenAttrs(ctx->op, "else_branch")}, 1,
               "then_branch", status);
}

void CaseGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  const AttrValue* branches = FindAttr(ctx->op, "branches");
  CallLikeGrad(ctx, branches != nullptr ? branches->list_s : std::vector<std::string>{}, {},
               1, "branches", status);
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

// While(vars) with cond C and body B, differentiated by running the loop again with each
// iteration's inputs kept in TensorLists (one per loop variable, index = iteration), then
// a loop back from the last iteration to the first: each step reads that iteration's
// inputs and calls dB (B's gradient function) on them and the running gradients. A
// resource loop variable is taken to be loop-invariant (a variable the body reads): the
// loop back passes its handle on instead of keeping a list of it.
void WhileGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  TF_Operation* op = ctx->op;
  const AttrValue* types = FindAttr(op, "T");
  if (types == nullptr) return SetStatus(status, TF_INVALID_ARGUMENT, "a While without T");
  const std::vector<TF_DataType> t = types->list_type;
  const int k = static_cast<int>(t.size());
  std::vector<int> floats, kept, invariant;
  bool any_wanted = false;
  for (int i = 0; i < k; ++i) {
    if (t[i] == TF_VARIANT)
      return SetStatus(status, TF_UNIMPLEMENTED,
                       "gradients through a While with a variant loop variable (a "
                       "TensorList) are not implemented (loop variable " +
                           std::to_string(i) + ")");
    (t[i] == TF_RESOURCE ? invariant : kept).push_back(i);
    if (!FloatLike(t[i])) continue;
    floats.push_back(i);
    any_wanted = any_wanted || ctx->input_needs_grad[i];
  }
  if (!any_wanted) return;
  const int m = static_cast<int>(floats.size());
  const int nk = static_cast<int>(kept.size()), nr = static_cast<int>(invariant.size());
  const std::string cond = ConcreteFunction(ctx->graph, FuncAttr(op, "cond"),
                                            GivenAttrs(op, "cond"), t, status);
  if (status->code != TF_OK) return;
  const std::string body = ConcreteFunction(ctx->graph, FuncAttr(op, "body"),
                                            GivenAttrs(op, "body"), t, status);
  if (status->code != TF_OK) return;
  const std::string d_body = MakeGradFunction(ctx->graph, body, floats, floats, status);
  if (status->code != TF_OK) return;

  // The forward loop again, keeping each iteration's inputs: (n, lists..., vars...).
  std::string acc_cond, acc_body, back_cond, back_body;
  {
    FunctionBuilder f(ctx->graph, status);
    f.Arg(TF_INT32);
    std::vector<TF_Output> vars;
    for (int i = 0; i < nk; ++i) f.Arg(TF_VARIANT);
    for (int i = 0; i < k; ++i) vars.push_back(f.Arg(t[i]));
    std::vector<TF_Output> c = f.Call(cond, vars);
    if (!c.empty()) acc_cond = f.AddTo(cond + "_keep", {c[0]});
    if (status->code != TF_OK) return;
  }
  {
    FunctionBuilder f(ctx->graph, status);
    TF_Output n = f.Arg(TF_INT32);
    std::vector<TF_Output> lists, vars, outs;
    for (int i = 0; i < nk; ++i) lists.push_back(f.Arg(TF_VARIANT));
    for (int i = 0; i < k; ++i) vars.push_back(f.Arg(t[i]));
    outs.push_back(f.Binary("AddV2", n, f.Int32(1)));
    for (int i = 0; i < nk && f.ok(); ++i) {
      TF_OperationDescription* d = f.New("TensorListSetItem");
      TF_AddInput(d, lists[i]);
      TF_AddInput(d, n);
      TF_AddInput(d, vars[kept[i]]);
      TF_SetAttrType(d, "element_dtype", t[kept[i]]);
      TF_SetAttrBool(d, "resize_if_index_out_of_bounds", 1);
      outs.push_back(f.Finish(d));
    }
    for (const TF_Output& o : f.Call(body, vars)) outs.push_back(o);
    acc_body = f.AddTo(body + "_keep", outs);
    if (status->code != TF_OK) return;
  }
  // Backward: (n, lists..., resources..., gradients of the float vars...) while n > 0.
  {
    FunctionBuilder f(ctx->graph, status);
    TF_Output n = f.Arg(TF_INT32);
    for (int i = 0; i < nk; ++i) f.Arg(TF_VARIANT);
    for (int i = 0; i < nr; ++i) f.Arg(TF_RESOURCE);
    for (int j = 0; j < m; ++j) f.Arg(t[floats[j]]);
    back_cond = f.AddTo(body + "_grad_cond", {f.Binary("Greater", n, f.Int32(0))});
    if (status->code != TF_OK) return;
  }
  {
    FunctionBuilder f(ctx->graph, status);
    TF_Output n = f.Arg(TF_INT32);
    std::vector<TF_Output> lists, resources, grads, args(k), outs;
    for (int i = 0; i < nk; ++i) lists.push_back(f.Arg(TF_VARIANT));
    for (int i = 0; i < nr; ++i) resources.push_back(f.Arg(TF_RESOURCE));
    for (int j = 0; j < m; ++j) grads.push_back(f.Arg(t[floats[j]]));
    TF_Output prev = f.Binary("Sub", n, f.Int32(1));
    TF_Output unknown_shape = f.Int32(-1);
    for (int i = 0; i < nk && f.ok(); ++i) {
      TF_OperationDescription* d = f.New("TensorListGetItem");
      TF_AddInput(d, lists[i]);
      TF_AddInput(d, prev);
      TF_AddInput(d, unknown_shape);
      TF_SetAttrType(d, "element_dtype", t[kept[i]]);
      args[kept[i]] = f.Finish(d);
    }
    for (int i = 0; i < nr; ++i) args[invariant[i]] = resources[i];
    args.insert(args.end(), grads.begin(), grads.end());
    outs.push_back(prev);
    outs.insert(outs.end(), lists.begin(), lists.end());
    outs.insert(outs.end(), resources.begin(), resources.end());
    for (const TF_Output& o : f.Call(d_body, args)) outs.push_back(o);
    back_body = f.AddTo(body + "_grad_body", outs);
    if (status->code != TF_OK) return;
  }

  // In the forward graph: empty lists, the keeping loop, the loop back.
  auto int32_const = [&](int32_t v) {
    TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, "Const", nullptr);
    TF_Operation* o = TF_FinishOperation(FunctionBuilder::Int32Const(d, v, status), status);
    return TF_Output{o, 0};
  };
  const TF_Output zero = int32_const(0), unknown_shape = int32_const(-1);
  if (status->code != TF_OK) return;
  std::vector<TF_Output> acc_in{zero};
  std::vector<TF_DataType> acc_t{TF_INT32};
  for (int i : kept) {
    TF_OperationDescription* d =
        OPGEN_GradientContextNewOperation(ctx, "TensorListReserve", nullptr);
    TF_AddInput(d, unknown_shape);
    TF_AddInput(d, zero);
    TF_SetAttrType(d, "element_dtype", t[i]);
    TF_SetAttrType(d, "shape_type", TF_INT32);
    TF_Operation* list = TF_FinishOperation(d, status);
    if (status->code != TF_OK) return;
    acc_in.push_back(TF_Output{list, 0});
    acc_t.push_back(TF_VARIANT);
  }
  for (int i = 0; i < k; ++i) {
    acc_in.push_back(op->inputs[i]);
    acc_t.push_back(t[i]);
  }
  auto loop = [&](const std::vector<TF_Output>& in, const std::vector<TF_DataType>& types,
                  const std::string& c, const std::string& b) -> TF_Operation* {
    TF_OperationDescription* d =
        OPGEN_GradientContextNewOperation(ctx, op->type().c_str(), nullptr);
    TF_AddInputList(d, in.data(), static_cast<int>(in.size()));
    TF_SetAttrTypeList(d, "T", types.data(), static_cast<int>(types.size()));
    TF_SetAttrFuncName(d, "cond", c.data(), c.size());
    TF_SetAttrFuncName(d, "body", b.data(), b.size());
    return TF_FinishOperation(d, status);
  };
  TF_Operation* keep = loop(acc_in, acc_t, acc_cond, acc_body);
  if (status->code != TF_OK) return;
  std::vector<TF_Output> back_in;
  std::vector<TF_DataType> back_t;
  for (int i = 0; i <= nk; ++i) {
    back_in.push_back(TF_Output{keep, i});
    back_t.push_back(acc_t[i]);
  }
  for (int i : invariant) {
    back_in.push_back(op->inputs[i]);
    back_t.push_back(TF_RESOURCE);
  }
  for (int i : floats) {
    back_in.push_back(ctx->output_grads[i]);
    back_t.push_back(t[i]);
  }
  TF_Operation* back = loop(back_in, back_t, back_cond, back_body);
  if (status->code != TF_OK) return;
  for (int j = 0; j < m; ++j)
    if (ctx->input_needs_grad[floats[j]])
      OPGEN_GradientContextSetInputGrad(ctx, floats[j], TF_Output{back, 1 + nk + nr + j},
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
  RegisterBuiltinGradient("Case", &CaseGrad, nullptr);
  for (const char* op : {"While", "StatelessWhile"})
    RegisterBuiltinGradient(op, &WhileGrad, nullptr);
}

}  // namespace gradients
}  // namespace opgen
