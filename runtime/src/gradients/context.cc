// The C accessors of OPGEN_GradientContext (opgen/gradients.h).
#include "context.h"

#include "core_types.h"
#include "graph.h"

namespace opgen {
namespace gradients {

std::string UniqueNodeName(TF_Graph* graph, const std::string& name) {
  std::lock_guard<std::mutex> lock(graph->mu);
  if (graph->by_name.count(name) == 0) return name;
  for (int suffix = 1;; ++suffix) {
    std::string candidate = name + "_" + std::to_string(suffix);
    if (graph->by_name.count(candidate) == 0) return candidate;
  }
}

namespace {

// The known shape of `t`: rank -1 when unknown.
std::vector<int64_t> KnownShape(TF_Graph* graph, TF_Output t, int* rank) {
  TF_Status status;
  *rank = TF_GraphGetTensorNumDims(graph, t, &status);
  std::vector<int64_t> dims(*rank > 0 ? *rank : 0);
  if (*rank > 0) TF_GraphGetTensorShape(graph, t, dims.data(), *rank, &status);
  if (status.code != TF_OK) *rank = -1;
  return dims;
}

std::string ShapeText(int rank, const std::vector<int64_t>& dims) {
  if (rank < 0) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace

bool ShapesCompatible(TF_Graph* graph, TF_Output a, TF_Output b, std::string* a_str,
                      std::string* b_str) {
  int ra, rb;
  std::vector<int64_t> da = KnownShape(graph, a, &ra), db = KnownShape(graph, b, &rb);
  *a_str = ShapeText(ra, da);
  *b_str = ShapeText(rb, db);
  if (ra < 0 || rb < 0) return true;
  if (ra != rb) return false;
  for (int i = 0; i < ra; ++i)
    if (da[i] >= 0 && db[i] >= 0 && da[i] != db[i]) return false;
  return true;
}

}  // namespace gradients
}  // namespace opgen

extern "C" {

TF_Graph* OPGEN_GradientContextGraph(OPGEN_GradientContext* ctx) { return ctx->graph; }

TF_Operation* OPGEN_GradientContextOperation(OPGEN_GradientContext* ctx) { return ctx->op; }

TF_Output OPGEN_GradientContextOutputGrad(OPGEN_GradientContext* ctx, int i) {
  if (i < 0 || i >= static_cast<int>(ctx->output_grads.size())) return TF_Output{nullptr, -1};
  return ctx->output_grads[i];
}

int OPGEN_GradientContextInputNeedsGrad(OPGEN_GradientContext* ctx, int i) {
  if (i < 0 || i >= static_cast<int>(ctx->input_needs_grad.size())) return 0;
  return ctx->input_needs_grad[i] ? 1 : 0;
}

void OPGEN_GradientContextSetInputGrad(OPGEN_GradientContext* ctx, int i, TF_Output grad,
                                       TF_Status* status) {
  opgen::SetStatus(status, TF_OK, "");
  const int n = static_cast<int>(ctx->input_grads.size());
  const std::string where = "the gradient of input " + std::to_string(i) + " of " +
                            ctx->op->name + " (" + ctx->op->type() + ")";
  if (i < 0 || i >= n) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     where + ": the op has " + std::to_string(n) + " input(s)");
    return;
  }
  if (grad.oper == nullptr) {
    ctx->input_grads[i] = TF_Output{nullptr, -1};
    return;
  }
  if (grad.oper->graph != ctx->graph || grad.index < 0 ||
      grad.index >= static_cast<int>(grad.oper->output_types.size())) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     where + ": not an output of an operation of this graph");
    return;
  }
  const TF_Output input = ctx->op->inputs[i];
  const TF_DataType want = input.oper->output_types[input.index];
  const TF_DataType got = grad.oper->output_types[grad.index];
  if (want != TF_RESOURCE) {  // a resource's gradient has its value's dtype
    if (got != want) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       where + " has dtype " + opgen::DataTypeName(got) + ", the input " +
                           opgen::DataTypeName(want));
      return;
    }
    std::string gs, is;
    if (!opgen::gradients::ShapesCompatible(ctx->graph, grad, input, &gs, &is)) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       where + " has shape " + gs + ", incompatible with the input's " + is);
      return;
    }
  }
  ctx->input_grads[i] = grad;
}

const char* OPGEN_GradientContextNameScope(OPGEN_GradientContext* ctx) {
  return ctx->scope.c_str();
}

TF_OperationDescription* OPGEN_GradientContextNewOperation(OPGEN_GradientContext* ctx,
                                                           const char* op_type,
                                                           const char* name) {
  const std::string base = ctx->scope + (name != nullptr && *name ? name : op_type);
  TF_OperationDescription* desc = TF_NewOperation(
      ctx->graph, op_type, opgen::gradients::UniqueNodeName(ctx->graph, base).c_str());
  if (!ctx->op->device.empty()) TF_SetDevice(desc, ctx->op->device.c_str());
  return desc;
}

}  // extern "C"
