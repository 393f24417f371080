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
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (size_t j = 0; j < nodes_[i].input.size(); ++j)
      readers_[ParseTensorRef(nodes_[i].input[j]).node].push_back(
          Reader{static_cast<int>(i), static_cast<int>(j)});
  readers_valid_ = true;
}

NodeDefProto* OptGraph::Find(const std::string& name) {
  if (!positions_valid_) RebuildPositions();
  auto it = position_.find(name);
  return it == position_.end() ? nullptr : &nodes_[it->second];
}

const std::vector<OptGraph::Reader>& OptGraph::Readers(const std::string& name) {
  static const std::vector<Reader> kNone;
  if (!readers_valid_) Rebuild();
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
  auto cached = const_cache_.find(ref.node);
  if (cached != const_cache_.end()) return cached->second.get();
  const AttrValue* value = GetAttr(*node, "value");
  if (value == nullptr || value->kind != AttrValue::kTensor) return nullptr;
  std::string error;
  TF_Tensor* t = ParseTensorProto(value->tensor_proto, &error);
  if (t == nullptr) return nullptr;
  return const_cache_.emplace(ref.node, TensorPtr(t)).first->second.get();
}

std::string OptGraph::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

namespace {

bool ConstAttrs(const TF_Tensor& value, AttrMap* attrs) {
  std::string proto;
  if (!SerializeTensorProto(&value, &proto)) return false;
  AttrValue v;
  v.kind = AttrValue::kTensor;
  v.tensor_proto = std::move(proto);
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
  InvalidatePositions();
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
  const_cache_.erase(name);
  Invalidate();
  return true;
}

int OptGraph::SweepDead() {
  if (!readers_valid_) Rebuild();
  std::set<std::string> live;
  std::vector<std::string> stack(roots_.begin(), roots_.end());
  stack.insert(stack.end(), keep_.begin(), keep_.end());
  while (!stack.empty()) {
    std::string name = std::move(stack.back());
    stack.pop_back();
    if (!live.insert(name).second) continue;
    const NodeDefProto* node = Find(name);
    if (node == nullptr) continue;
    for (const std::string& in : node->input) {
      const TensorRef ref = ParseTensorRef(in);
      if (!live.count(ref.node)) stack.push_back(ref.node);
    }
  }
  const size_t before = nodes_.size();
  nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(),
                              [&](const NodeDefProto& n) { return !live.count(n.name); }),
               nodes_.end());
  if (nodes_.size() != before) InvalidatePositions();
  return static_cast<int>(before - nodes_.size());
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
  Invalidate();
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

TensorPtr NewFloatTensor(const std::vector<int64_t>& dims) {
  const int64_t n = NumElements(dims);
  TensorBuffer* buffer = TensorBuffer::Allocate(static_cast<size_t>(n) * sizeof(float));
  std::fill_n(static_cast<float*>(buffer->data()), n, 0.0f);
  return TensorPtr(new TF_Tensor(TF_FLOAT, dims, buffer));
}

}  // namespace opgen
