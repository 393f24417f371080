// TF_AddGradients: the symbolic backward pass over a graph.
//
// 1. Under the graph's lock, one forward scan (nodes in the order they were added, which
//    is a topological order: a node's inputs exist before it) marks the tensors that
//    depend on an x through differentiable tensors (floating-point, complex, resource,
//    variant: what TensorFlow calls trainable), and one backward scan keeps those the
//    ys depend on. The edges between kept tensors are the ones gradients flow along.
// 2. Without the lock (gradient functions add nodes through the public API), nodes are
//    visited in reverse order: the gradients reaching each output are summed (AddN),
//    missing ones filled with zeros, and the op's gradient function called; what it
//    sets for each input is added to that input tensor's contributions.
// 3. Each x's gradient is the sum of its contributions, or none.
// A failure anywhere removes every node (and library function) the call added, and
// puts back the While nodes it gave accumulators (function_grad.cc).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "builtin_gradients.h"
#include "context.h"
#include "core_types.h"
#include "function_call.h"
#include "graph.h"
#include "registry.h"

namespace opgen {
namespace gradients {
namespace {

bool Differentiable(TF_DataType t) {
  switch (t) {
    case TF_HALF: case TF_BFLOAT16: case TF_FLOAT: case TF_DOUBLE: case TF_COMPLEX64:
    case TF_COMPLEX128: case TF_RESOURCE: case TF_VARIANT:
      return true;
    default:
      return false;
  }
}

// What to do about an op without a gradient. v1 while loops (Enter, Exit, NextIteration)
// have none on purpose: their gradients need the backward pass to rebuild the forward
// frames, which functional control flow (While) does not need.
std::string NoGradientAdvice(const std::string& type) {
  for (const char* v1 : {"Enter", "Exit", "NextIteration"})
    if (type == v1)
      return "gradients through v1 while loops (Enter, Exit, NextIteration) are not supported: "
             "build loops with functional control flow (While) to differentiate them";
  return "register one with OPGEN_RegisterGradient (Python: opgen.RegisterGradient)";
}

struct TensorKey {
  TF_Operation* oper;
  int index;
  bool operator<(const TensorKey& o) const {
    return oper != o.oper ? std::less<TF_Operation*>()(oper, o.oper) : index < o.index;
  }
};

TF_DataType DtypeOf(TF_Output t) { return t.oper->output_types[t.index]; }

bool ScopeTakenLocked(TF_Graph* g, const std::string& scope, std::string* clash) {
  const std::string prefix = scope + "/";
  for (const auto& op : g->ops) {
    if (op->name == scope || op->name.compare(0, prefix.size(), prefix) == 0) {
      *clash = op->name;
      return true;
    }
  }
  return false;
}

class BackwardPass {
 public:
  BackwardPass(TF_Graph* g, std::string scope, TF_Status* status)
      : g_(g), scope_(std::move(scope)), status_(status) {}

  // Steps 1-3; false with status_ set on failure (the caller removes the new nodes).
  bool Run(const TF_Output* y, int ny, const TF_Output* x, int nx, const TF_Output* dx,
           TF_Output* dy);

 private:
  void Analyse(const TF_Output* y, int ny, const TF_Output* x, int nx);
  bool Seed(const TF_Output* y, int ny, const TF_Output* dx);
  bool Visit(TF_Operation* op);
  // The sum of the contributions to `t` (made once), or {nullptr, -1}.
  TF_Output Aggregate(TF_Output t);
  TF_Output AddNode(const char* op_type, const std::string& name,
                    const std::vector<TF_Output>& inputs, bool list, const std::string& device);
  bool Fail(TF_Code code, const std::string& message) {
    SetStatus(status_, code, message);
    return false;
  }

  TF_Graph* g_;
  std::string scope_;
  TF_Status* status_;
  std::unordered_set<TF_Operation*> reached_ops_;
  std::set<TensorKey> reached_, needed_;  // tensors depending on an x; and the ys on them
  std::vector<TF_Operation*> order_;      // reached ops, in graph order
  std::map<TensorKey, std::vector<TF_Output>> contributions_;
  std::map<TensorKey, TF_Output> aggregated_;
};

void BackwardPass::Analyse(const TF_Output* y, int ny, const TF_Output* x, int nx) {
  std::lock_guard<std::mutex> lock(g_->mu);
  for (int i = 0; i < nx; ++i)
    if (Differentiable(DtypeOf(x[i]))) reached_.insert({x[i].oper, x[i].index});
  if (reached_.empty()) return;
  for (const auto& holder : g_->ops) {
    TF_Operation* op = holder.get();
    bool reached = false;
    for (const TF_Output& in : op->inputs)
      if (reached_.count({in.oper, in.index}) && Differentiable(DtypeOf(in))) reached = true;
    if (!reached) continue;
    reached_ops_.insert(op);
    order_.push_back(op);
    for (int j = 0; j < static_cast<int>(op->output_types.size()); ++j)
      if (Differentiable(op->output_types[j])) reached_.insert({op, j});
  }
  for (int i = 0; i < ny; ++i)
    if (reached_.count({y[i].oper, y[i].index})) needed_.insert({y[i].oper, y[i].index});
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    TF_Operation* op = *it;
    bool needed = false;
    for (int j = 0; j < static_cast<int>(op->output_types.size()) && !needed; ++j)
      needed = needed_.count({op, j}) > 0;
    if (!needed) continue;
    for (const TF_Output& in : op->inputs)
      if (reached_.count({in.oper, in.index})) needed_.insert({in.oper, in.index});
  }
}

TF_Output BackwardPass::AddNode(const char* op_type, const std::string& name,
                                const std::vector<TF_Output>& inputs, bool list,
                                const std::string& device) {
  TF_OperationDescription* d = TF_NewOperation(g_, op_type, UniqueNodeName(g_, name).c_str());
  if (!device.empty()) TF_SetDevice(d, device.c_str());
  if (list) TF_AddInputList(d, inputs.data(), static_cast<int>(inputs.size()));
  else for (const TF_Output& in : inputs) TF_AddInput(d, in);
  TF_Operation* op = TF_FinishOperation(d, status_);
  if (status_->code != TF_OK) return TF_Output{nullptr, -1};
  return TF_Output{op, 0};
}

TF_Output BackwardPass::Aggregate(TF_Output t) {
  const TensorKey key{t.oper, t.index};
  auto done = aggregated_.find(key);
  if (done != aggregated_.end()) return done->second;
  TF_Output sum{nullptr, -1};
  auto it = contributions_.find(key);
  if (it != contributions_.end() && !it->second.empty()) {
    if (it->second.size() == 1) sum = it->second[0];
    else sum = AddNode("AddN", scope_ + "/AddN", it->second, true, t.oper->device);
  }
  aggregated_[key] = sum;
  return sum;
}

bool BackwardPass::Seed(const TF_Output* y, int ny, const TF_Output* dx) {
  for (int i = 0; i < ny; ++i) {
    if (dx != nullptr) {
      if (dx[i].oper == nullptr || dx[i].oper->graph != g_ || dx[i].index < 0 ||
          dx[i].index >= static_cast<int>(dx[i].oper->output_types.size()))
        return Fail(TF_INVALID_ARGUMENT, "dx[" + std::to_string(i) +
                                             "] is not an output of an operation of this graph");
      if (DtypeOf(dx[i]) != DtypeOf(y[i]))
        return Fail(TF_INVALID_ARGUMENT,
                    "dx[" + std::to_string(i) + "] (" + dx[i].oper->name + ":" +
                        std::to_string(dx[i].index) + ") has dtype " + DataTypeName(DtypeOf(dx[i])) +
                        ", y[" + std::to_string(i) + "] (" + OutputName(y[i]) + ") " +
                        DataTypeName(DtypeOf(y[i])));
      std::string ds, ys;
      if (!ShapesCompatible(g_, dx[i], y[i], &ds, &ys))
        return Fail(TF_INVALID_ARGUMENT,
                    "dx[" + std::to_string(i) + "] (" + dx[i].oper->name + ":" +
                        std::to_string(dx[i].index) + ") has shape " + ds +
                        ", incompatible with the shape " + ys + " of y[" + std::to_string(i) +
                        "] (" + OutputName(y[i]) + ")");
    }
    const TensorKey key{y[i].oper, y[i].index};
    if (!needed_.count(key)) continue;
    TF_Output seed = dx != nullptr ? dx[i]
                                   : AddNode("OnesLike", scope_ + "/OnesLike", {y[i]}, false,
                                             y[i].oper->device);
    if (status_->code != TF_OK) return false;
    contributions_[key].push_back(seed);
  }
  return true;
}

bool BackwardPass::Visit(TF_Operation* op) {
  const int num_inputs = static_cast<int>(op->inputs.size());
  const int num_outputs = static_cast<int>(op->output_types.size());
  OPGEN_GradientContext ctx;
  ctx.input_needs_grad.assign(num_inputs, false);
  bool any_input = false;
  for (int k = 0; k < num_inputs; ++k) {
    const TF_Output in = op->inputs[k];
    ctx.input_needs_grad[k] = needed_.count({in.oper, in.index}) > 0 && Differentiable(DtypeOf(in));
    any_input = any_input || ctx.input_needs_grad[k];
  }
  if (!any_input) return true;  // an x's producer, say: nothing to pass on
  bool any_grad = false;
  ctx.output_grads.resize(num_outputs);
  for (int j = 0; j < num_outputs; ++j) {
    ctx.output_grads[j] = Aggregate(TF_Output{op, j});
    if (status_->code != TF_OK) return false;
    any_grad = any_grad || ctx.output_grads[j].oper != nullptr;
  }
  if (!any_grad) return true;

  GradientEntry entry;
  if (!LookupGradient(op->type(), &entry, status_)) {
    if (status_->code != TF_OK) return false;
    if (IsFunctionNode(*op)) entry.fn = &FunctionNodeGradient;
  }
  if (entry.fn == nullptr && !entry.not_differentiable) {
    return Fail(TF_NOT_FOUND, "No gradient defined for op: " + op->type() + " (node '" +
                                  op->name + "'); " + NoGradientAdvice(op->type()));
  }
  if (entry.not_differentiable) return true;

  ctx.graph = g_;
  ctx.op = op;
  ctx.scope = scope_ + "/" + op->name + "_grad/";
  ctx.input_grads.assign(num_inputs, TF_Output{nullptr, -1});
  for (int j = 0; j < num_outputs; ++j) {
    if (ctx.output_grads[j].oper != nullptr || op->output_types[j] == TF_RESOURCE ||
        op->output_types[j] == TF_VARIANT)
      continue;
    ctx.output_grads[j] = AddNode("ZerosLike", ctx.scope + "ZerosLike", {TF_Output{op, j}},
                                  false, op->device);
    if (status_->code != TF_OK) return false;
  }
  entry.fn(&ctx, entry.user_data, status_);
  if (status_->code != TF_OK) {
    status_->message = "gradient of " + op->name + " (" + op->type() + "): " + status_->message;
    return false;
  }
  for (int k = 0; k < num_inputs; ++k) {
    if (!ctx.input_needs_grad[k] || ctx.input_grads[k].oper == nullptr) continue;
    const TF_Output in = op->inputs[k];
    contributions_[{in.oper, in.index}].push_back(ctx.input_grads[k]);
  }
  return true;
}

bool BackwardPass::Run(const TF_Output* y, int ny, const TF_Output* x, int nx,
                       const TF_Output* dx, TF_Output* dy) {
  Analyse(y, ny, x, nx);
  if (!Seed(y, ny, dx)) return false;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    // Only nodes some y needs pass gradients on.
    TF_Operation* op = *it;
    bool needed = false;
    for (int j = 0; j < static_cast<int>(op->output_types.size()) && !needed; ++j)
      needed = needed_.count({op, j}) > 0;
    if (needed && !Visit(op)) return false;
  }
  for (int i = 0; i < nx; ++i) {
    dy[i] = Differentiable(DtypeOf(x[i])) ? Aggregate(x[i]) : TF_Output{nullptr, -1};
    if (status_->code != TF_OK) return false;
  }
  return true;
}

bool CheckOutputs(TF_Graph* g, const TF_Output* t, int n, const char* what, TF_Status* status) {
  if (n < 0) {
    SetStatus(status, TF_INVALID_ARGUMENT, std::string("the number of ") + what + " is negative");
    return false;
  }
  if (n > 0 && t == nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT, std::string(what) + " is NULL");
    return false;
  }
  for (int i = 0; i < n; ++i) {
    if (t[i].oper == nullptr || t[i].oper->graph != g || t[i].index < 0 ||
        t[i].index >= static_cast<int>(t[i].oper->output_types.size())) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                std::string(what) + "[" + std::to_string(i) +
                    "] is not an output of an operation of this graph");
      return false;
    }
  }
  return true;
}

void AddGradients(TF_Graph* g, const char* prefix, TF_Output* y, int ny, TF_Output* x, int nx,
                  TF_Output* dx, TF_Status* status, TF_Output* dy) {
  SetStatus(status, TF_OK, "");
  if (g == nullptr) return SetStatus(status, TF_INVALID_ARGUMENT, "the graph is NULL");
  if (!CheckOutputs(g, y, ny, "y", status) || !CheckOutputs(g, x, nx, "x", status)) return;
  if (nx > 0 && dy == nullptr) return SetStatus(status, TF_INVALID_ARGUMENT, "dy is NULL");
  for (int i = 0; i < nx; ++i) dy[i] = TF_Output{nullptr, -1};
  if (!EnsureBuiltinGradients(status)) return;

  std::string scope;
  GraphMark keep;
  FunctionLibrary library;  // gradient functions of calls and loops are added to it
  {
    std::lock_guard<std::mutex> lock(g->mu);
    keep = MarkGraphLocked(g);
    library = g->functions;
    std::string clash;
    if (prefix != nullptr) {
      scope = prefix;
      if (scope.empty() || scope.back() == '/')
        return SetStatus(status, TF_INVALID_ARGUMENT,
                         "the gradients' prefix must be a non-empty name not ending with '/'");
      if (ScopeTakenLocked(g, scope, &clash))
        return SetStatus(status, TF_INVALID_ARGUMENT,
                         "prefix [" + scope + "] conflicts with existing node in the graph "
                         "named [" + clash + "]");
    } else {
      scope = "gradients";
      for (int suffix = 1; ScopeTakenLocked(g, scope, &clash); ++suffix)
        scope = "gradients_" + std::to_string(suffix);
    }
  }
  BackwardPass pass(g, scope, status);
  if (pass.Run(y, ny, x, nx, dx, dy)) return;
  for (int i = 0; i < nx; ++i) dy[i] = TF_Output{nullptr, -1};
  std::lock_guard<std::mutex> lock(g->mu);
  RollBackGraphLocked(g, keep);
  g->functions = std::move(library);
}

}  // namespace
}  // namespace gradients
}  // namespace opgen

extern "C" {

void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x, int nx, TF_Output* dx,
                     TF_Status* status, TF_Output* dy) {
  opgen::gradients::AddGradients(g, nullptr, y, ny, x, nx, dx, status, dy);
}

void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix, TF_Output* y, int ny,
                               TF_Output* x, int nx, TF_Output* dx, TF_Status* status,
                               TF_Output* dy) {
  if (prefix == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "the gradients' prefix is NULL");
    return;
  }
  opgen::gradients::AddGradients(g, prefix, y, ny, x, nx, dx, status, dy);
}

}  // extern "C"
