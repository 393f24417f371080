// The optimizer's driver: the signature's nodes copied out of the graph (prune), the
// passes in order, and the result imported as a new TF_Graph.
#include "optimizer.h"

#include <unordered_map>
#include <unordered_set>

#include "../function_call.h"
#include "passes.h"
#include "tensorflow/c/c_api.h"

namespace opgen {
namespace {

bool ValidOutput(const TF_Graph* graph, const TF_Output& out) {
  return out.oper != nullptr && out.oper->graph == graph && out.index >= 0 &&
         out.index < static_cast<int>(out.oper->output_types.size());
}

// A fed node that nothing else needs computed stands for its fed output: a Placeholder
// of its dtype (a Placeholder keeps its shape, so feeds are still checked against it).
bool FeedNodeDef(const TF_Operation& op, NodeDefProto* out) {
  if (op.type() == "Placeholder") {
    *out = ToNodeDef(op);
    return true;
  }
  if (op.output_types.size() != 1) return false;
  out->name = op.name;
  out->op = "Placeholder";
  out->device = op.device;
  out->attr["dtype"] = TypeAttr(op.output_types[0]);
  AttrValue shape;
  shape.kind = AttrValue::kShape;  // unknown rank unless a PlaceholderWithDefault says more
  auto given = op.attrs.find("shape");
  if (op.type() == "PlaceholderWithDefault" && given != op.attrs.end()) shape = given->second;
  out->attr["shape"] = shape;
  return true;
}

}  // namespace

std::string OptimizerReport::ToString() const {
  return "opgen graph optimizer: " + std::to_string(nodes_before) + " -> " +
         std::to_string(nodes_after) + " nodes; identities removed " +
         std::to_string(identities_removed) + ", nodes folded to constants " +
         std::to_string(nodes_folded) + ", arithmetic folded into convolutions " +
         std::to_string(arithmetic_folded) + ", pads folded into convolutions " +
         std::to_string(pads_folded) + ", fused " + std::to_string(fused) +
         ", duplicate activations merged " + std::to_string(duplicates_merged);
}

void GraphDeleter::operator()(TF_Graph* graph) const { TF_DeleteGraph(graph); }

GraphPtr OptimizeGraph(TF_Graph* graph, const TF_Output* feeds, int num_feeds,
                       const TF_Output* fetches, int num_fetches,
                       const TF_Operation* const* targets, int num_targets,
                       const OptimizerOptions& options, OptimizerReport* report) {
  // A bad signature is the executor's to report: the original graph runs instead.
  std::set<TensorRef> fed;
  for (int i = 0; i < num_feeds; ++i) {
    if (!ValidOutput(graph, feeds[i])) return nullptr;
    if (!fed.insert(TensorRef{feeds[i].oper->name, feeds[i].index}).second) return nullptr;
  }
  for (int i = 0; i < num_fetches; ++i)
    if (!ValidOutput(graph, fetches[i])) return nullptr;
  for (int i = 0; i < num_targets; ++i)
    if (targets[i] == nullptr || targets[i]->graph != graph) return nullptr;
  auto is_fed = [&](const TF_Output& o) { return fed.count(TensorRef{o.oper->name, o.index}) > 0; };

  // Prune, as the executor does: depth first from the fetched and target nodes, fed
  // outputs cutting the edge to their producer (which stays as the feed's node).
  std::unordered_map<const TF_Operation*, int> state;  // 1: on the stack, 2: done
  std::unordered_set<const TF_Operation*> feed_nodes;
  auto visit = [&](const TF_Operation* root) -> bool {
    if (state.count(root)) return true;
    std::vector<std::pair<const TF_Operation*, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      const TF_Operation* dep = nullptr;
      while (dep == nullptr && next < op->inputs.size() + op->control_inputs.size()) {
        const size_t i = next++;
        if (i < op->inputs.size()) {
          if (is_fed(op->inputs[i])) feed_nodes.insert(op->inputs[i].oper);
          else dep = op->inputs[i].oper;
        } else {
          dep = op->control_inputs[i - op->inputs.size()];
        }
        if (dep != nullptr && state.count(dep)) {
          if (state[dep] == 1) return false;  // a cycle
          dep = nullptr;
        }
      }
      if (dep != nullptr) {
        state[dep] = 1;
        stack.emplace_back(dep, 0);
      } else {
        state[op] = 2;
        stack.pop_back();
      }
    }
    return true;
  };
  std::set<std::string> keep;
  std::vector<std::string> roots;
  for (int i = 0; i < num_fetches; ++i) {
    keep.insert(fetches[i].oper->name);
    roots.push_back(fetches[i].oper->name);
    if (is_fed(fetches[i])) feed_nodes.insert(fetches[i].oper);
    else if (!visit(fetches[i].oper)) return nullptr;
  }
  for (int i = 0; i < num_targets; ++i) {
    keep.insert(targets[i]->name);
    roots.push_back(targets[i]->name);
    if (!visit(targets[i])) return nullptr;
  }
  for (int i = 0; i < num_feeds; ++i) keep.insert(feeds[i].oper->name);

  std::vector<NodeDefProto> nodes;
  std::unordered_map<std::string, std::vector<Shape>> shapes;
  bool shapes_hold = true;
  {
    std::lock_guard<std::mutex> lock(graph->mu);
    for (const auto& op : graph->ops) {
      if (state.count(op.get())) {
        // Frames and function calls: left to the executor.
        if (IsControlFlowOp(op->type()) || CallsFunctions(*op)) return nullptr;
        nodes.push_back(ToNodeDef(*op));
        shapes[op->name] = op->output_shapes;
      } else if (feed_nodes.count(op.get())) {
        nodes.emplace_back();
        if (!FeedNodeDef(*op, &nodes.back())) return nullptr;
      }
    }
    // Static shapes hold as the graph inferred them only while every feed is a
    // Placeholder, whose value the executor checks against its shape; a fed inner node
    // may carry any shape, and so may everything after it.
    for (const TF_Operation* op : feed_nodes) {
      const std::string& type = op->type();
      if (type != "Placeholder" && type != "PlaceholderWithDefault") shapes_hold = false;
      else shapes[op->name] = op->output_shapes;
    }
  }
  OptGraph g(std::move(nodes), std::move(keep), std::move(fed), std::move(roots));
  if (shapes_hold) g.SetOutputShapes(std::move(shapes));
  report->nodes_before = static_cast<int>(g.size());
  // Each pass sees only live nodes: a reader that is no longer needed (an IdentityN
  // whose readers moved on) must not stop a rewrite.
  g.SweepDead();
  if (options.enabled) {
    if (options.identity_removal) report->identities_removed += RemoveIdentities(g);
    g.SweepDead();
    if (options.arithmetic) report->duplicates_merged += MergeDuplicateActivations(g);
    g.SweepDead();
    if (options.constant_folding) report->nodes_folded += FoldConstants(g);
    g.SweepDead();
    if (options.arithmetic) report->arithmetic_folded += FoldArithmetic(g);
    g.SweepDead();
    if (options.remapping) report->pads_folded += FoldPadsIntoConvolutions(g);
    g.SweepDead();
    if (options.remapping) report->fused += FuseConvolutions(g);
    g.SweepDead();
    if (options.remapping) report->fused += FuseScaleShifts(g);
    g.SweepDead();
    if (options.remapping) report->fused += FuseAffineChains(g);
    g.SweepDead();
    if (options.identity_removal) report->identities_removed += RemoveIdentities(g);
  }
  g.SweepDead();
  report->nodes_after = static_cast<int>(g.size());

  // Imported from the parsed nodes: the importer checks every rewritten node against
  // its OpDef, and the Consts keep sharing their values with the original graph.
  GraphDefProto def;
  def.node = std::move(g.nodes());
  GraphPtr out(TF_NewGraph());
  TF_Status status;
  if (!ImportGraphDefProto(out.get(), def, &status)) {
    if (options.log)
      fprintf(stderr, "opgen graph optimizer: the optimized graph does not import (%s); "
                      "running the graph as given\n", status.message.c_str());
    return nullptr;
  }
  return out;
}

}  // namespace opgen
