// Constant folding: a node whose data inputs are all constants is computed once, here,
// with its CPU kernel, and becomes a Const (a frozen BatchNorm's Rsqrt(var + eps) * gamma
// stops being recomputed on every run). Nodes are visited in graph order, so a chain of
// such nodes folds in one sweep.
#include "../kernel_registry.h"
#include "../node_attrs.h"
#include "../op_registry.h"
#include "passes.h"

namespace opgen {
namespace {

// A folded result may be larger than its inputs by this factor (or be this small):
// beyond it the constant would cost more memory than the computation saves (Fill,
// Tile, BroadcastTo of a scalar to a big shape).
constexpr size_t kMaxGrowth = 2;
constexpr size_t kAlwaysFoldBytes = 1024;

bool Foldable(const NodeDefProto& node, const OpDef* def) {
  if (def == nullptr || def->is_stateful || node.op == "Const" || node.op == "Placeholder" ||
      node.op == "PlaceholderWithDefault" || node.op == "NoOp" || IsControlFlowOp(node.op) ||
      def->output_arg.empty())
    return false;
  // Internal ops and kernels picked by label are left as they are.
  return node.op[0] != '_' && node.attr.count("_kernel") == 0;
}

}  // namespace

int FoldConstants(OptGraph& g) {
  int folded = 0;
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const NodeDefProto node = g.nodes()[i];
    const OpDef* def = OpRegistry::Global().Find(node.op);
    if (!Foldable(node, def)) continue;
    std::vector<const TF_Tensor*> values;
    size_t input_bytes = 0;
    bool constant = true;
    for (const std::string& in : node.input) {
      const TensorRef ref = ParseTensorRef(in);
      if (ref.control()) continue;
      const TF_Tensor* v = g.ConstValue(ref);
      if (v == nullptr) {
        constant = false;
        break;
      }
      values.push_back(v);
      input_bytes += v->buffer->size();
    }
    if (!constant || values.empty()) continue;

    std::vector<TF_DataType> output_types = OutputDtypes(*def, node.attr);
    const bool single = output_types.size() == 1;
    if (!single && (g.IsKept(node.name) || !g.Readers(node.name).empty())) {
      // Several outputs: each read output becomes its own Const; that needs every reader
      // to be a data reader, and the node to be nobody's fetch.
      bool only_data = !g.IsKept(node.name);
      for (const OptGraph::Reader& r : g.Readers(node.name))
        only_data = only_data && !ParseTensorRef(g.nodes()[r.node].input[r.input]).control();
      if (!only_data) continue;
    }
    if (single && g.IsFed(TensorRef{node.name, 0})) continue;

    TF_Status status;
    const KernelDef* kernel = KernelRegistry::Global().Find(*def, "CPU", node.attr, &status);
    if (kernel == nullptr) continue;
    std::vector<TF_Tensor*> inputs, outputs;
    for (const TF_Tensor* v : values) inputs.push_back(v->Share());  // never written in place
    RunKernel(*kernel, *def, node.name, node.attr, inputs, output_types, &outputs, &status);
    for (TF_Tensor* t : inputs) delete t;
    std::vector<TensorPtr> results;
    for (TF_Tensor* t : outputs) results.emplace_back(t);
    if (status.code != TF_OK || results.size() != output_types.size()) continue;
    size_t output_bytes = 0;
    bool host = true;
    for (const TensorPtr& t : results) {
      output_bytes += t->buffer->size();
      host = host && t->buffer->device() == nullptr;
    }
    if (!host || (output_bytes > kAlwaysFoldBytes && output_bytes > kMaxGrowth * input_bytes))
      continue;

    if (single) {
      if (g.ReplaceWithConst(node.name, *results[0])) ++folded;
      continue;
    }
    // Several outputs: new Consts, readers moved onto them.
    std::vector<std::string> names(results.size());
    bool ok = true;
    for (size_t k = 0; k < results.size() && ok; ++k) {
      if (g.DataReaders(node.name, static_cast<int>(k)).empty()) continue;
      ok = g.AddConst(node.name + "/_opgen_folded_" + std::to_string(k), *results[k], node.device,
                      &names[k]);
    }
    if (!ok) continue;  // the added Consts have no readers and are swept
    for (size_t k = 0; k < results.size(); ++k) {
      if (names[k].empty()) continue;
      for (const OptGraph::Reader& r : g.DataReaders(node.name, static_cast<int>(k))) {
        g.nodes()[r.node].input[r.input] = names[k];
        g.Touch(r.node);
      }
    }
    ++folded;
  }
  return folded;
}

}  // namespace opgen
