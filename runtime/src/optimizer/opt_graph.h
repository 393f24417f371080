// The optimizer's working copy of a graph: NodeDefs that passes rewrite in place, with
// the helpers every pass needs (inputs as (node, index), consumers, constant values,
// new constants). It becomes a TF_Graph again through the GraphDef importer, which
// checks every rewritten node against its OpDef.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core_types.h"
#include "../wire_format.h"

namespace opgen {

// One tensor a NodeDef input names: "node" (output 0), "node:2"; control inputs
// ("^node") have index -1.
struct TensorRef {
  std::string node;
  int index = 0;
  bool control() const { return index < 0; }
  bool operator==(const TensorRef& o) const { return node == o.node && index == o.index; }
  bool operator<(const TensorRef& o) const {
    return node < o.node || (node == o.node && index < o.index);
  }
};
TensorRef ParseTensorRef(const std::string& input);
std::string TensorRefName(const TensorRef& ref);  // as a NodeDef input: "node", "node:1", "^node"

// A tensor deleted with its owner.
struct TensorDeleter {
  void operator()(TF_Tensor* t) const { delete t; }
};
using TensorPtr = std::unique_ptr<TF_Tensor, TensorDeleter>;

class OptGraph {
 public:
  // `keep`: nodes that must stay as they are named and numbered (fed, fetched,
  // targets); `fed`: the fed outputs; `roots`: what the signature runs (fetched and
  // target nodes), from which dead nodes are swept.
  OptGraph(std::vector<NodeDefProto> nodes, std::set<std::string> keep, std::set<TensorRef> fed,
           std::vector<std::string> roots);

  std::vector<NodeDefProto>& nodes() { return nodes_; }
  NodeDefProto* Find(const std::string& name);
  bool IsKept(const std::string& name) const { return keep_.count(name) > 0; }
  bool IsFed(const TensorRef& ref) const { return fed_.count(ref) > 0; }

  // The readers of each node: (reader position in nodes(), input position), control
  // readers included (their TensorRef index is -1), in (node, input) order. Brought up
  // to date after each rewrite: only the nodes whose inputs changed are re-read, so a
  // pass of N rewrites over a graph of N nodes stays near O(N) (NASNetMobile's 4600
  // nodes took 28 s to optimize when every rewrite re-indexed the whole graph).
  struct Reader {
    int node;
    int input;
  };
  const std::vector<Reader>& Readers(const std::string& name);
  // Data readers of output `index` of `name`.
  std::vector<Reader> DataReaders(const std::string& name, int index);
  // Whether `name`'s only use is one data input of one node (so a pass may absorb it).
  bool HasSingleDataReader(const std::string& name);
  // Call after changing inputs (readers), or after reordering or removing nodes
  // (positions too). Touch names the node whose inputs changed, so that only it is
  // re-read; Invalidate() re-reads every node's inputs. Appending a node (AddConst)
  // needs neither.
  void Touch(int position) { touched_.push_back(position); }
  void Touch(const std::string& name);
  void Invalidate() { readers_stale_ = true; }
  void InvalidatePositions() { readers_valid_ = positions_valid_ = false; }

  // The value of a Const node's output (nullptr for anything else); owned by the node's
  // value attr, valid until the node is rewritten.
  const TF_Tensor* ConstValue(const TensorRef& ref);
  // Adds a Const node holding `value` (named from `base`, made unique) and returns its
  // name; nullptr-safe: false when the dtype cannot be written as a TensorProto.
  bool AddConst(const std::string& base, const TF_Tensor& value, const std::string& device,
                std::string* name);
  // Turns node `name` into a Const holding `value`, keeping its name, device and control
  // inputs. False when the dtype cannot be written.
  bool ReplaceWithConst(const std::string& name, const TF_Tensor& value);
  std::string UniqueName(const std::string& base);
  // Turns node `sink` into one `op` node with `attrs`, `inputs` and `device` that stands
  // for the pattern `absorbed` (sink included): the control inputs of every absorbed
  // node move onto it, and it keeps the sink's name, so readers and fetches are kept.
  void ReplaceWithFused(const std::string& sink, const std::set<std::string>& absorbed,
                        const std::string& op, AttrMap attrs, std::vector<std::string> inputs,
                        const std::string& device);

  // The output shapes the original graph inferred, by node name (passes keep a
  // rewritten pattern's name on the node that yields its value, so they stay valid).
  void SetOutputShapes(std::unordered_map<std::string, std::vector<Shape>> shapes) {
    shapes_ = std::move(shapes);
  }
  // `ref`'s shape when fully known (rank and every dimension), else false.
  bool StaticShape(const TensorRef& ref, std::vector<int64_t>* dims) const;

  // Removes nodes that the roots no longer reach (kept nodes stay).
  int SweepDead();
  // Within a pass, after a rewrite: the nodes that lost their last reader since the last
  // sweep, and then those that lost theirs to them, leave the graph's index (Find, the
  // readers) at once, with nothing else moved; they are dropped from nodes() at the
  // next SweepDead. (The graph is acyclic here, so a node the roots no longer reach
  // either has no readers or is read only by such nodes.) Returns how many left.
  int DropUnread();
  // A fusion pass: `fuse` tried at each node whose op `is_candidate` accepts, found by
  // name (a rewrite moves nodes), each success followed by DropUnread so that the nodes
  // it absorbed do not block the next one. Returns how many fused.
  int FuseEach(const std::function<bool(const std::string& op)>& is_candidate,
               const std::function<bool(OptGraph&, const std::string& name)>& fuse);
  // The node count (after SweepDead: the nodes the signature runs).
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<NodeDefProto> nodes_;
  std::set<std::string> keep_;
  std::set<TensorRef> fed_;
  std::vector<std::string> roots_;
  std::set<std::string> names_;  // every name ever used, so new names never collide
  bool readers_valid_ = false;
  bool readers_stale_ = false;  // some nodes' inputs changed since readers_ was built
  bool positions_valid_ = false;
  std::unordered_map<std::string, std::vector<Reader>> readers_;
  // Each node's inputs as readers_ last saw them, by position.
  std::vector<std::vector<std::string>> seen_inputs_;
  std::vector<int> touched_;  // positions whose inputs changed since
  std::vector<std::string> orphans_;  // nodes whose last reader went since the last sweep
  bool orphans_known_ = false;  // false after a full rebuild of the readers
  void Reread(int position, std::set<std::string>* changed);
  std::unordered_map<std::string, int> position_;
  std::unordered_map<std::string, std::vector<Shape>> shapes_;
  void Rebuild();
  void RebuildPositions();
  void RefreshReaders();  // Rebuild, or re-read the nodes whose inputs changed
};

// Helpers for attrs of rewritten nodes.
AttrValue TypeAttr(TF_DataType type);
AttrValue StringAttr(const std::string& s);
AttrValue FloatAttr(float f);
// An attr of `node` (nullptr when absent).
const AttrValue* GetAttr(const NodeDefProto& node, const char* name);
// A node's "T" attr (DT_INVALID when absent).
TF_DataType NodeType(const NodeDefProto& node);

// The values of float32 constant `c` per output channel when c broadcasts along the
// channels only (a scalar, [C], [1, ..., 1, C], or [1, ..., 1]) without growing an
// output of rank `out_rank`; false otherwise.
bool PerChannel(const TF_Tensor* c, int64_t channels, int out_rank, std::vector<double>* out);

// A new float32 tensor of `dims`, zero-filled unless the caller writes every element.
TensorPtr NewFloatTensor(const std::vector<int64_t>& dims, bool zero = true);
inline float* FloatData(TF_Tensor* t) { return static_cast<float*>(t->buffer->data()); }
inline const float* FloatData(const TF_Tensor* t) {
  return static_cast<const float*>(t->buffer->data());
}

}  // namespace opgen
