// Duplicate activations: Keras' NASNet applies its own Relu to a cell's input in every
// branch that reads it, so the graph holds several Relus of one tensor (60 of its 192).
// Readers of each duplicate read the first instead and the duplicate is swept. Only
// the element-wise activations below (deterministic, one input, attrs T alone) are
// merged, and only between nodes with the same input, device and T and no control
// inputs of their own; none that is fed or fetched.
#include <string>
#include <unordered_map>

#include "passes.h"

namespace opgen {
namespace {

bool IsMergeableActivation(const std::string& op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "Selu" || op == "Sigmoid" ||
         op == "Tanh" || op == "Softplus";
}

// The node's identity for merging, or "" when it is not to be merged.
std::string MergeKey(const OptGraph& g, const NodeDefProto& n) {
  if (!IsMergeableActivation(n.op) || g.IsKept(n.name) || g.IsFed(TensorRef{n.name, 0}) ||
      n.input.size() != 1 ||
      n.input[0].empty() || n.input[0][0] == '^')
    return "";
  for (const auto& [name, value] : n.attr)
    if (name != "T" && name[0] != '_') return "";
  const TensorRef in = ParseTensorRef(n.input[0]);
  return n.op + '\n' + TensorRefName(in) + '\n' + n.device + '\n' +
         std::to_string(static_cast<int>(NodeType(n)));
}

}  // namespace

int MergeDuplicateActivations(OptGraph& g) {
  std::unordered_map<std::string, std::string> first;  // key -> the node that stays
  std::vector<std::pair<std::string, std::string>> merges;  // (duplicate, kept)
  for (const NodeDefProto& n : g.nodes()) {
    const std::string key = MergeKey(g, n);
    if (key.empty()) continue;
    auto [it, added] = first.emplace(key, n.name);
    if (!added) merges.emplace_back(n.name, it->second);
  }
  int merged = 0;
  for (const auto& [duplicate, kept] : merges) {
    const std::vector<OptGraph::Reader> readers = g.Readers(duplicate);  // a copy
    for (const OptGraph::Reader& r : readers) {
      std::string& input = g.nodes()[r.node].input[r.input];
      TensorRef ref = ParseTensorRef(input);
      ref.node = kept;
      input = TensorRefName(ref);
      g.Touch(r.node);
    }
    g.DropUnread();
    ++merged;
  }
  return merged;
}

}  // namespace opgen
