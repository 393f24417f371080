// Gradients of function calls and functional conditionals: PartitionedCall,
// StatefulPartitionedCall, a node that calls a function by its op type, If, StatelessIf
// and Case.
//
// The gradient of a call of F(args) -> outputs is a call of a new function
// dF(args..., output grads...) -> arg grads, made by building F's body into a scratch
// graph, running the backward pass there (the same registry, so calls nested in F get
// their own dF in turn) and turning the result into a FunctionDef of the forward graph's
// library. dF recomputes F's forward values instead of keeping them from the forward
// call. A conditional's gradient is the same conditional (same cond or branch_index) over
// the branches' gradient functions, which all return a gradient for every wanted input
// (zeros where a branch does not use it).
//
// Inputs that get no gradient: those of a non floating-point/complex dtype (integers,
// strings, resources: a variable read inside a function gets none through the call) and
// those the ys do not depend on. While and StatelessWhile have no gradient yet.
#include <atomic>
#include <string>
#include <vector>

#include "builtin_gradients.h"
#include "context.h"
#include "core_types.h"
#include "function_call.h"
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

// Makes dF for function `fname` of g's library: its inputs are F's args, then one grad per
// output listed in `seeded`; its outputs the grads of the args listed in `wanted` (zeros
// where the outputs do not depend on one). Adds dF, and the gradient functions made for
// the calls inside F, to g's library; returns dF's name ("" on failure).
std::string MakeGradFunction(TF_Graph* g, const std::string& fname, const std::vector<int>& wanted,
                             const std::vector<int>& seeded, TF_Status* status) {
  if (t_grad_depth >= kMaxGradDepth) {
    SetStatus(status, TF_UNIMPLEMENTED,
              "gradient of function '" + fname + "': calls nested more than " +
                  std::to_string(kMaxGradDepth) +
                  " deep (a recursive function has no gradient)");
    return "";
  }
  struct DepthGuard {
    DepthGuard() { ++t_grad_depth; }
    ~DepthGuard() { --t_grad_depth; }
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

const AttrValue* FindAttr(const TF_Operation* op, const char* name) {
  auto it = op->attrs.find(name);
  return it != op->attrs.end() ? &it->second : nullptr;
}

// The gradient of a call-like op whose data inputs from `first_arg` on are the called
// functions' args: `functions` are those it may call (one for a call; the branches of a
// conditional, whose selector is input 0). Emits the same op type over the gradient
// functions, attr `func_attr` naming them.
void CallLikeGrad(OPGEN_GradientContext* ctx, const std::vector<std::string>& functions,
                  int first_arg, const char* func_attr, TF_Status* status) {
  TF_Operation* op = ctx->op;
  std::vector<int> wanted, seeded;
  const int num_inputs = static_cast<int>(op->inputs.size());
  for (int k = first_arg; k < num_inputs; ++k)
    if (ctx->input_needs_grad[k] && FloatLike(op->inputs[k].oper->output_types[op->inputs[k].index]))
      wanted.push_back(k - first_arg);
  if (wanted.empty()) return;
  for (int j = 0; j < static_cast<int>(op->output_types.size()); ++j)
    if (FloatLike(op->output_types[j]) && ctx->output_grads[j].oper != nullptr) seeded.push_back(j);
  std::vector<std::string> grad_functions;
  for (const std::string& f : functions) {
    grad_functions.push_back(MakeGradFunction(ctx->graph, f, wanted, seeded, status));
    if (status->code != TF_OK) return;
  }
  const bool function_node = IsFunctionNode(*op);
  TF_OperationDescription* d =
      OPGEN_GradientContextNewOperation(ctx, function_node ? "PartitionedCall" : op->type().c_str(), nullptr);
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
  CallLikeGrad(ctx, {FuncAttr(ctx->op, "f")}, 0, "f", status);
}

void IfGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  CallLikeGrad(ctx, {FuncAttr(ctx->op, "then_branch"), FuncAttr(ctx->op, "else_branch")}, 1,
               "then_branch", status);
}

void CaseGrad(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  const AttrValue* branches = FindAttr(ctx->op, "branches");
  CallLikeGrad(ctx, branches != nullptr ? branches->list_s : std::vector<std::string>{}, 1,
               "branches", status);
}

}  // namespace

void FunctionNodeGradient(OPGEN_GradientContext* ctx, void*, TF_Status* status) {
  CallLikeGrad(ctx, {ctx->op->type()}, 0, "f", status);
}

void RegisterFunctionGradients() {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"})
    RegisterBuiltinGradient(op, &PartitionedCallGrad, nullptr);
  for (const char* op : {"If", "StatelessIf"}) RegisterBuiltinGradient(op, &IfGrad, nullptr);
  RegisterBuiltinGradient("Case", &CaseGrad, nullptr);
}

}  // namespace gradients
}  // namespace opgen
