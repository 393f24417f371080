// Identity chains: readers of an Identity (IdentityN, StopGradient, Snapshot) read its
// input instead, and inherit its control inputs so nothing runs earlier than before; a
// NoOp that is neither fetched nor a target hands its control inputs to its readers.
// The identity then has no readers and is swept.
#include <algorithm>
#include <unordered_set>

#include "passes.h"

namespace opgen {
namespace {

bool IsIdentityOp(const std::string& op) {
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" || op == "Snapshot";
}

void AddUnique(std::vector<std::string>* inputs, const std::string& control) {
  if (std::find(inputs->begin(), inputs->end(), control) == inputs->end())
    inputs->push_back(control);
}

}  // namespace

bool BypassIdentity(OptGraph& g, const std::string& name) {
  const NodeDefProto* found = g.Find(name);
  if (found == nullptr) return false;
  const NodeDefProto node = *found;  // a copy: readers are rewritten below
  {
    const bool identity = IsIdentityOp(node.op);
    if ((!identity && node.op != "NoOp") || g.IsKept(node.name)) return false;
    std::vector<TensorRef> data;
    std::vector<std::string> controls;
    for (const std::string& in : node.input) {
      const TensorRef ref = ParseTensorRef(in);
      if (ref.control()) controls.push_back(in);
      else data.push_back(ref);
    }
    if (node.op == "NoOp" && !data.empty()) return false;
    const std::vector<OptGraph::Reader> readers = g.Readers(node.name);  // a copy
    if (readers.empty()) return false;
    bool ok = true;
    for (const OptGraph::Reader& r : readers) {
      const TensorRef ref = ParseTensorRef(g.nodes()[r.node].input[r.input]);
      if (!ref.control() && ref.index >= static_cast<int>(data.size())) ok = false;
    }
    if (!ok) return false;
    // Rewrite reader by reader; a reader's control inputs are appended after its data
    // inputs, as NodeDef wants them.
    std::unordered_set<int> touched;
    for (const OptGraph::Reader& r : readers) {
      NodeDefProto& reader = g.nodes()[r.node];
      const TensorRef ref = ParseTensorRef(reader.input[r.input]);
      if (ref.control()) {
        reader.input[r.input].clear();  // replaced by the identity's own dependencies
        for (const TensorRef& d : data) AddUnique(&reader.input, "^" + d.node);
      } else {
        reader.input[r.input] = TensorRefName(data[ref.index]);
      }
      for (const std::string& c : controls) AddUnique(&reader.input, c);
      touched.insert(r.node);
    }
    for (int t : touched) {
      std::vector<std::string>& in = g.nodes()[t].input;
      in.erase(std::remove(in.begin(), in.end(), std::string()), in.end());
      // A node cannot wait on itself, nor wait on what it reads (already implied).
      std::vector<std::string> cleaned;
      std::unordered_set<std::string> read;
      for (const std::string& s : in)
        if (s[0] != '^') read.insert(ParseTensorRef(s).node);
      for (const std::string& s : in) {
        if (s[0] == '^' && (s.substr(1) == g.nodes()[t].name || read.count(s.substr(1)))) continue;
        if (s[0] == '^' && std::find(cleaned.begin(), cleaned.end(), s) != cleaned.end()) continue;
        cleaned.push_back(s);
      }
      in = std::move(cleaned);
      g.Touch(t);
    }
  }
  return true;
}

int RemoveIdentities(OptGraph& g) {
  int removed = 0;
  for (size_t i = 0; i < g.nodes().size(); ++i)
    if (BypassIdentity(g, g.nodes()[i].name)) ++removed;
  // Waiting on a Const that waits on nothing orders nothing (frozen graphs wait on the
  // constants that replaced their variable reads); dropping the edge lets a Const that
  // a fold replaced be swept instead of kept alive.
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    std::vector<std::string>& in = g.nodes()[i].input;
    const size_t before = in.size();
    in.erase(std::remove_if(in.begin(), in.end(),
                            [&](const std::string& s) {
                              if (s[0] != '^') return false;
                              const NodeDefProto* dep = g.Find(s.substr(1));
                              return dep != nullptr && dep->op == "Const" && dep->input.empty();
                            }),
             in.end());
    if (in.size() != before) g.Touch(static_cast<int>(i));
  }
  return removed;
}

}  // namespace opgen
