// Identity chains: readers of an Identity (IdentityN, StopGradient, Snapshot) read its
// input instead, and inherit its control inputs so nothing runs earlier than before; a
// NoOp that is neither fetched nor a target hands its control inputs to its readers.
// The identity then has no readers and is swept.
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "passes.h"

namespace opgen {
namespace {

bool IsIdentityOp(const std::string& op) {
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" || op == "Snapshot";
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
    // inputs, as NodeDef wants them, and deduplicated below. (A frozen function's
    // output waits on a NoOp that waits on every variable read: that NoOp reads
    // a thousand identities, so nothing here may be quadratic in a node's inputs.)
    std::unordered_set<int> touched;
    for (const OptGraph::Reader& r : readers) {
      NodeDefProto& reader = g.nodes()[r.node];
      const TensorRef ref = ParseTensorRef(reader.input[r.input]);
      if (ref.control()) {
        reader.input[r.input].clear();  // replaced by the identity's own dependencies
        for (const TensorRef& d : data) reader.input.push_back("^" + d.node);
      } else {
        reader.input[r.input] = TensorRefName(data[ref.index]);
      }
      for (const std::string& c : controls) reader.input.push_back(c);
      touched.insert(r.node);
    }
    for (int t : touched) {
      std::vector<std::string>& in = g.nodes()[t].input;
      // A node cannot wait on itself, nor wait on what it reads (already implied), nor
      // wait twice on one node.
      std::unordered_set<std::string> read{"^" + g.nodes()[t].name};
      for (const std::string& s : in)
        if (!s.empty() && s[0] != '^') read.insert("^" + ParseTensorRef(s).node);
      std::vector<std::string> cleaned;
      cleaned.reserve(in.size());
      for (std::string& s : in) {
        if (s.empty()) continue;
        if (s[0] == '^' && !read.insert(s).second) continue;
        cleaned.push_back(std::move(s));
      }
      in = std::move(cleaned);
      g.Touch(t);
    }
  }
  return true;
}

namespace {

// What an identity stands for once its readers read past it: the tensors its data
// outputs forward, and the control inputs ("^node") its readers must take on, both
// already resolved through the identities they name.
struct Resolved {
  std::vector<TensorRef> data;
  std::vector<std::string> controls;
};

class IdentityResolver {
 public:
  explicit IdentityResolver(OptGraph& g) : g_(g) {}

  // Whether node `name` is an identity the pass removes, resolving it (and the
  // identities it reads) first.
  const Resolved* Get(const std::string& name) {
    auto done = resolved_.find(name);
    if (done != resolved_.end()) return done->second.get();
    // Depth first without recursion: identity chains may be long.
    std::vector<std::string> stack{name};
    while (!stack.empty()) {
      const std::string current = stack.back();
      if (resolved_.count(current)) {
        stack.pop_back();
        continue;
      }
      const NodeDefProto* node = g_.Find(current);
      if (!Removable(node)) {
        resolved_[current] = nullptr;
        stack.pop_back();
        continue;
      }
      bool ready = true;
      for (const std::string& in : node->input) {
        const TensorRef ref = ParseTensorRef(in);
        if (resolved_.count(ref.node) == 0 && entered_.count(ref.node) == 0) {
          stack.push_back(ref.node);
          ready = false;
        }
      }
      if (!ready && entered_.insert(current).second) continue;
      // Every input is resolved (or on the stack: a cycle, which a valid graph has not;
      // its members then stay as they are).
      resolved_[current] = Resolve(*node);
      stack.pop_back();
    }
    return resolved_[name].get();
  }

  // Appends to `inputs` (data) and `controls` what input `in` of a reader becomes.
  void Rewrite(const std::string& in, std::vector<std::string>* inputs,
               std::vector<std::string>* controls) {
    Forward(in, inputs, controls, true);
  }

 private:
  bool Removable(const NodeDefProto* node) const {
    if (node == nullptr || g_.IsKept(node->name)) return false;
    const bool identity = node->op == "Identity" || node->op == "IdentityN" ||
                          node->op == "StopGradient" || node->op == "Snapshot";
    if (identity) return true;
    if (node->op != "NoOp") return false;
    for (const std::string& in : node->input)
      if (in[0] != '^') return false;
    return true;
  }

  // What input `in` forwards to, through the node it names where that is removed:
  // resolving the node first (`resolve`), or, while resolving, as far as resolved yet.
  void Forward(const std::string& in, std::vector<std::string>* inputs,
               std::vector<std::string>* controls, bool resolve) {
    const TensorRef ref = ParseTensorRef(in);
    const Resolved* r = nullptr;
    if (resolve) {
      r = Get(ref.node);
    } else if (auto found = resolved_.find(ref.node); found != resolved_.end()) {
      r = found->second.get();
    }
    if (r == nullptr || (!ref.control() && ref.index >= static_cast<int>(r->data.size()))) {
      (ref.control() ? controls : inputs)->push_back(in);
      return;
    }
    if (ref.control()) {
      for (const TensorRef& d : r->data) controls->push_back("^" + d.node);
    } else {
      inputs->push_back(TensorRefName(r->data[ref.index]));
    }
    controls->insert(controls->end(), r->controls.begin(), r->controls.end());
  }

  std::unique_ptr<Resolved> Resolve(const NodeDefProto& node) {
    auto out = std::make_unique<Resolved>();
    std::vector<std::string> data;
    for (const std::string& in : node.input)
      Forward(in, &data, &out->controls, false);
    for (const std::string& d : data) out->data.push_back(ParseTensorRef(d));
    return out;
  }

  OptGraph& g_;
  std::unordered_map<std::string, std::unique_ptr<Resolved>> resolved_;  // null: not removed
  std::unordered_set<std::string> entered_;
};

// `inputs` then `controls`, without waits on the node itself, on what it reads (already
// implied) or on one node twice.
std::vector<std::string> MergeInputs(const std::string& self, std::vector<std::string> inputs,
                                     const std::vector<std::string>& controls) {
  std::unordered_set<std::string> waited{"^" + self};
  for (const std::string& s : inputs) waited.insert("^" + ParseTensorRef(s).node);
  for (const std::string& c : controls)
    if (waited.insert(c).second) inputs.push_back(c);
  return inputs;
}

}  // namespace

// All identities at once: each reader's inputs are rewritten in one step through the
// resolved identities. (Bypassing them one by one re-read a reader per identity it
// read: a frozen function's final NoOp, which waits on every variable read, made
// NASNetMobile's 1,100 identities quadratic.)
int RemoveIdentities(OptGraph& g) {
  IdentityResolver resolver(g);
  int removed = 0;
  std::vector<char> bypassed(g.nodes().size(), 0);
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const std::string& name = g.nodes()[i].name;
    // Removed only where something reads it: an unread identity is the sweep's.
    if (resolver.Get(name) != nullptr && !g.Readers(name).empty()) {
      bypassed[i] = 1;
      ++removed;
    }
  }
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    NodeDefProto& node = g.nodes()[i];
    if (bypassed[i]) continue;
    std::vector<std::string> inputs, controls;
    for (const std::string& in : node.input) resolver.Rewrite(in, &inputs, &controls);
    std::vector<std::string> merged = MergeInputs(node.name, std::move(inputs), controls);
    if (merged != node.input) {
      node.input = std::move(merged);
      g.Touch(static_cast<int>(i));
    }
  }
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
