// The optimizer's working graph: inputs, readers, constants, sweeping.
#include "opt_graph.h"

#include <algorithm>

namespace opgen {

TensorRef ParseTensorRef(const std::string& input) {
  TensorRef ref;
  if (!input.empty() && input[0] == '^') {
    ref.node = input.substr(1);
    ref.index = -1;
    return ref;
  }
  const size_t colon = input.rfind(':');
  if (colon != std::string::npos && colon + 1 < input.size() &&
      input.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    ref.node = input.substr(0, colon);
    ref.index = std::stoi(input.substr(colon + 1));
  } else {
    ref.node = input;
  }
  return ref;
}

std::string TensorRefName(const TensorRef& ref) {
  if (ref.control()) return "^" + ref.node;
  if (ref.index == 0) return ref.node;
  return ref.node + ":" + std::to_string(ref.index);
}

OptGraph::OptGraph(std::vector<NodeDefProto> nodes, std::set<std::string> keep,
                   std::set<TensorRef> fed, std::vector<std::string> roots)
    : nodes_(std::move(nodes)), keep_(std::move(keep)), fed_(std::move(fed)),
      roots_(std::move(roots)) {
  for (NodeDefProto& n : nodes_) {
    names_.insert(n.name);
    for (std::string& in : n.input) in = TensorRefName(ParseTensorRef(in));  // "x:0" -> "x"
  }
}

void OptGraph::RebuildPositions() {
  position_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) position_[nodes_[i].name] = static_cast<int>(i);
  positions_valid_ = true;
}

void OptGraph::Rebuild() {
  if (!positions_valid_) RebuildPositions();
  readers_.clear();
  seen_inputs_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (size_t j = 0; j < nodes_[i].input.size(); ++j)
      readers_[ParseTensorRef(nodes_[i].input[j]).node].push_back(
          Reader{static_cast<int>(i), static_cast<int>(j)});
    seen_inputs_.push_back(nodes_[i].input);
  }
  readers_valid_ = true;
  readers_stale_ = false;
  orphans_.clear();
  orphans_known_ = false;
}

void OptGraph::Touch(const std::string& name) {
  if (!positions_valid_) RebuildPositions();
  auto it = position_.find(name);
  if (it != position_.end()) touched_.push_back(it->second);
}

// Moves node `position`'s reader entries from the inputs readers_ saw to its current
// ones; `changed` collects the readers_ keys whose lists changed.
void OptGraph::Reread(int position, std::set<std::string>* changed) {
  const size_t i = static_cast<size_t>(position);
  if (i < seen_inputs_.size()) {
    if (nodes_[i].input == seen_inputs_[i]) return;
    for (const std::string& in : seen_inputs_[i]) {
      const std::string source = ParseTensorRef(in).node;
      std::vector<Reader>& list = readers_[source];
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const Reader& r) { return r.node == position; }),
                 list.end());
      changed->insert(source);
    }
  } else {
    seen_inputs_.resize(i + 1);
  }
  for (size_t j = 0; j < nodes_[i].input.size(); ++j) {
    const std::string source = ParseTensorRef(nodes_[i].input[j]).node;
    readers_[source].push_back(Reader{position, static_cast<int>(j)});
    changed->insert(source);
  }
  seen_inputs_[i] = nodes_[i].input;
}

void OptGraph::RefreshReaders() {
  if (!readers_valid_) {
    touched_.clear();
    Rebuild();
    return;
  }
  std::set<std::string> changed;
  if (readers_stale_) {  // unknown changes: compare every node with what was seen
    for (size_t i = 0; i < nodes_.size(); ++i) Reread(static_cast<int>(i), &changed);
  } else {
    for (int position : touched_)
      if (position >= 0 && static_cast<size_t>(position) < nodes_.size()) Reread(position, &changed);
    for (size_t i = seen_inputs_.size(); i < nodes_.size(); ++i)  // appended since
      Reread(static_cast<int>(i), &changed);
  }
  for (const std::string& source : changed) {
    std::vector<Reader>& list = readers_[source];
    std::sort(list.begin(), list.end(), [](const Reader& a, const Reader& b) {
      return a.node < b.node || (a.node == b.node && a.input < b.input);
    });
    if (list.empty()) {
      readers_.erase(source);
      orphans_.push_back(source);
    }
  }
  touched_.clear();
  readers_stale_ = false;
}

NodeDefProto* OptGraph::Find(const std::string& name) {
  if (!positions_valid_) RebuildPositions();
  auto it = position_.find(name);
  return it == position_.end() ? nullptr : &nodes_[it->second];
}

const std::vector<OptGraph::Reader>& OptGraph::Readers(const std::string& name) {
  static const std::vector<Reader> kNone;
  RefreshReaders();
  auto it = readers_.find(name);
  return it == readers_.end() ? kNone : it->second;
}

std::vector<OptGraph::Reader> OptGraph::DataReaders(const std::string& name, int index) {
  std::vector<Reader> out;
  for (const Reader& r : Readers(name)) {
    const TensorRef ref = ParseTensorRef(nodes_[r.node].input[r.input]);
    if (ref.index == index) out.push_back(r);
  }
  return out;
}

bool OptGraph::HasSingleDataReader(const std::string& name) {
  const std::vector<Reader>& readers = Readers(name);
  return readers.size() == 1 && !ParseTensorRef(nodes_[readers[0].node].input[readers[0].input]).control() &&
         !IsKept(name);
}

const TF_Tensor* OptGraph::ConstValue(const TensorRef& ref) {
  if (ref.index != 0) return nullptr;
  NodeDefProto* node = Find(ref.node);
  if (node == nullptr || node->op != "Const" || IsFed(ref)) return nullptr;
  const AttrValue* value = GetAttr(*node, "value");
  if (value == nullptr || value->kind != AttrValue::kTensor) return nullptr;
  // Parsed once and shared with the graph the node was copied from (and the kernels
  // made from either).
  std::string error;
  return value->tensor_proto.tensor(&error);
}

std::string OptGraph::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

namespace {

// The new Const shares `value`'s buffer: no bytes are written unless the graph is
// serialized (TF_GraphToGraphDef of the optimized graph).
bool ConstAttrs(const TF_Tensor& value, AttrMap* attrs) {
  AttrValue v;
  v.kind = AttrValue::kTensor;
  if (!TensorAttr::FromTensor(value, &v.tensor_proto)) return false;
  attrs->clear();
  (*attrs)["dtype"] = TypeAttr(value.dtype);
  (*attrs)["value"] = std::move(v);
  return true;
}

}  // namespace

bool OptGraph::AddConst(const std::string& base, const TF_Tensor& value, const std::string& device,
                        std::string* name) {
  NodeDefProto node;
  if (!ConstAttrs(value, &node.attr)) return false;
  node.name = UniqueName(base);
  node.op = "Const";
  node.device = device;
  *name = node.name;
  nodes_.push_back(std::move(node));
  // Appended: the other nodes keep their positions, and RefreshReaders reads the new
  // one's inputs (none).
  if (positions_valid_) position_[*name] = static_cast<int>(nodes_.size() - 1);
  return true;
}

bool OptGraph::ReplaceWithConst(const std::string& name, const TF_Tensor& value) {
  NodeDefProto* node = Find(name);
  AttrMap attrs;
  if (node == nullptr || !ConstAttrs(value, &attrs)) return false;
  node->op = "Const";
  node->attr = std::move(attrs);
  std::vector<std::string> controls;
  for (const std::string& in : node->input)
    if (ParseTensorRef(in).control()) controls.push_back(in);
  node->input = std::move(controls);
  Touch(name);
  return true;
}

int OptGraph::FuseEach(const std::function<bool(const std::string& op)>& is_candidate,
                       const std::function<bool(OptGraph&, const std::string& name)>& fuse) {
  std::vector<std::string> candidates;
  for (const NodeDefProto& node : nodes_)
    if (is_candidate(node.op)) candidates.push_back(node.name);
  int fused = 0;
  for (const std::string& name : candidates) {
    if (Find(name) == nullptr || !fuse(*this, name)) continue;
    ++fused;
    DropUnread();
  }
  return fused;
}

int OptGraph::DropUnread() {
  RefreshReaders();
  if (!orphans_known_) return SweepDead();
  if (!positions_valid_) RebuildPositions();
  int dropped = 0;
  std::vector<std::string> work = std::move(orphans_);
  orphans_.clear();
  while (!work.empty()) {
    const std::string name = std::move(work.back());
    work.pop_back();
    if (IsKept(name) || readers_.count(name)) continue;
    const auto it = position_.find(name);
    if (it == position_.end()) continue;
    const int position = it->second;
    for (const std::string& in : nodes_[position].input) {
      const std::string source = ParseTensorRef(in).node;
      auto list = readers_.find(source);
      if (list == readers_.end()) continue;
      auto& readers = list->second;
      readers.erase(std::remove_if(readers.begin(), readers.end(),
                                   [&](const Reader& r) { return r.node == position; }),
                    readers.end());
      if (readers.empty()) {
        readers_.erase(list);
        work.push_back(source);
      }
    }
    // Left in place without inputs and out of the index: the next SweepDead drops it.
    nodes_[position].input.clear();
    seen_inputs_[position].clear();
    position_.erase(it);
    ++dropped;
  }
  return dropped;
}

int OptGraph::SweepDead() {
  RefreshReaders();
  if (!positions_valid_) RebuildPositions();
  orphans_.clear();
  orphans_known_ = true;
  std::vector<char> live(nodes_.size(), 0);
  std::vector<int> stack;
  const auto visit = [&](const std::string& name) {
    auto it = position_.find(name);
    if (it != position_.end() && !live[it->second]) {
      live[it->second] = 1;
      stack.push_back(it->second);
    }
  };
  for (const std::string& name : roots_) visit(name);
  for (const std::string& name : keep_) visit(name);
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (const std::string& in : nodes_[node].input) visit(ParseTensorRef(in).node);
  }
  const size_t before = nodes_.size();
  // Dead nodes go; the index moves with the survivors (positions shift down, readers
  // that were swept leave their sources' lists) instead of being rebuilt: folds and
  // fusions sweep after each rewrite.
  std::vector<int> moved(before, -1);
  size_t kept = 0;
  for (size_t i = 0; i < before; ++i) {
    if (!live[i]) {
      position_.erase(nodes_[i].name);
      continue;
    }
    moved[i] = static_cast<int>(kept);
    if (kept != i) {
      nodes_[kept] = std::move(nodes_[i]);
      seen_inputs_[kept] = std::move(seen_inputs_[i]);
      position_[nodes_[kept].name] = static_cast<int>(kept);
    }
    ++kept;
  }
  if (kept == before) return 0;
  nodes_.resize(kept);
  seen_inputs_.resize(kept);
  for (auto it = readers_.begin(); it != readers_.end();) {
    std::vector<Reader>& list = it->second;
    size_t n = 0;
    for (const Reader& r : list)
      if (moved[r.node] >= 0) list[n++] = Reader{moved[r.node], r.input};
    list.resize(n);
    it = list.empty() ? readers_.erase(it) : std::next(it);
  }
  return static_cast<int>(before - kept);
}

AttrValue TypeAttr(TF_DataType type) {
  AttrValue v;
  v.kind = AttrValue::kType;
  v.type = type;
  return v;
}

AttrValue StringAttr(const std::string& s) {
  AttrValue v;
  v.kind = AttrValue::kString;
  v.s = s;
  return v;
}

AttrValue FloatAttr(float f) {
  AttrValue v;
  v.kind = AttrValue::kFloat;
  v.f = f;
  return v;
}

const AttrValue* GetAttr(const NodeDefProto& node, const char* name) {
  auto it = node.attr.find(name);
  return it == node.attr.end() ? nullptr : &it->second;
}

TF_DataType NodeType(const NodeDefProto& node) {
  const AttrValue* t = GetAttr(node, "T");
  return t != nullptr && t->kind == AttrValue::kType ? t->type : static_cast<TF_DataType>(0);
}

void OptGraph::ReplaceWithFused(const std::string& sink, const std::set<std::string>& absorbed,
                                const std::string& op, AttrMap attrs,
                                std::vector<std::string> inputs, const std::string& device) {
  for (const std::string& name : absorbed)
    for (const std::string& in : Find(name)->input)
      if (in[0] == '^' && std::find(inputs.begin(), inputs.end(), in) == inputs.end())
        inputs.push_back(in);
  NodeDefProto* node = Find(sink);
  node->op = op;
  node->attr = std::move(attrs);
  node->input = std::move(inputs);
  node->device = device;
  Touch(sink);
}

bool OptGraph::StaticShape(const TensorRef& ref, std::vector<int64_t>* dims) const {
  auto it = shapes_.find(ref.node);
  if (ref.control() || it == shapes_.end() || ref.index >= static_cast<int>(it->second.size()))
    return false;
  const Shape& shape = it->second[ref.index];
  if (shape.unknown_rank) return false;
  for (int64_t d : shape.dims)
    if (d < 0) return false;
  *dims = shape.dims;
  return true;
}

bool PerChannel(const TF_Tensor* c, int64_t channels, int out_rank, std::vector<double>* out) {
  if (c == nullptr || c->dtype != TF_FLOAT || static_cast<int>(c->dims.size()) > out_rank)
    return false;
  for (size_t i = 0; i + 1 < c->dims.size(); ++i)
    if (c->dims[i] != 1) return false;
  const int64_t last = c->dims.empty() ? 1 : c->dims.back();
  if (last != 1 && last != channels) return false;
  const float* v = FloatData(c);
  out->resize(channels);
  for (int64_t k = 0; k < channels; ++k) (*out)[k] = v[last == 1 ? 0 : k];
  return true;
}

TensorPtr NewFloatTensor(const std::vector<int64_t>& dims, bool zero) {
  const int64_t n = NumElements(dims);
  TensorBuffer* buffer = TensorBuffer::Allocate(static_cast<size_t>(n) * sizeof(float));
  if (zero) std::fill_n(static_cast<float*>(buffer->data()), n, 0.0f);
  return TensorPtr(new TF_Tensor(TF_FLOAT, dims, buffer));
}

}  // namespace opgen
