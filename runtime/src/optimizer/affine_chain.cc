// Folding a chain of element-wise Mul / Add / AddV2 / Sub / RealDiv by constants into one
// per-channel x * scale + offset (and the activation after it): Keras' Rescaling and
// Normalization layers at a model's input (EfficientNet: x * 1/255 + 0, - mean, / std)
// are four passes over the image, two of them broadcasting a 3-channel constant, which
// one _OpgenFusedScaleShift does in one. Runs after scale_shift.cc, so it takes only the
// chains that pass left. The composed map is exact in real arithmetic; in float32 it
// differs from the step-by-step result by rounding (a division becomes a multiply).
#include <algorithm>
#include <cmath>
#include <set>

#include "../kernel_registry.h"
#include "../op_registry.h"
#include "activation_match.h"
#include "passes.h"

namespace opgen {
namespace {

// One step of the chain as an affine map of its input, per channel: y = x * s + b.
struct Affine {
  std::vector<double> s, b;  // one value, or one per channel
};

// A float32 constant whose every dimension but the last is 1 (a scalar included): its
// values, rank and last dimension. False for anything else.
bool ChannelConst(const TF_Tensor* t, std::vector<double>* values, size_t* rank, int64_t* last) {
  if (t == nullptr || t->dtype != TF_FLOAT) return false;
  for (size_t i = 0; i + 1 < t->dims.size(); ++i)
    if (t->dims[i] != 1) return false;
  *rank = t->dims.size();
  *last = t->dims.empty() ? 1 : t->dims.back();
  values->assign(FloatData(t), FloatData(t) + *last);
  return *last >= 1;
}

double At(const std::vector<double>& v, size_t c) { return v.size() == 1 ? v[0] : v[c]; }

// The map after applying `node` (reading the chain's value at input `x_input`) with
// constant `k` to `m`; false where the step is not affine in x (k / x) or divides by 0.
bool Compose(const std::string& op, int x_input, const std::vector<double>& k, Affine* m) {
  const size_t n = std::max({m->s.size(), m->b.size(), k.size()});
  Affine out;
  out.s.resize(n);
  out.b.resize(n);
  for (size_t c = 0; c < n; ++c) {
    const double s = At(m->s, c), b = At(m->b, c), v = At(k, c);
    if (!std::isfinite(v)) return false;  // 0 * inf in the composed map would be NaN
    if (op == "Mul") {
      out.s[c] = s * v, out.b[c] = b * v;
    } else if (op == "Add" || op == "AddV2") {
      out.s[c] = s, out.b[c] = b + v;
    } else if (op == "Sub") {
      out.s[c] = x_input == 0 ? s : -s, out.b[c] = x_input == 0 ? b - v : v - b;
    } else if (op == "RealDiv" && x_input == 0 && v != 0.0 && std::isfinite(v)) {
      out.s[c] = s / v, out.b[c] = b / v;
    } else {
      return false;
    }
  }
  *m = std::move(out);
  return true;
}

bool IsAffineOp(const std::string& op) {
  return op == "Mul" || op == "Add" || op == "AddV2" || op == "Sub" || op == "RealDiv";
}

// The chain from `start`: each step a float32 affine op with one constant operand,
// each value before the last read only by the next step and neither fetched nor fed. Its steps' names, the map,
// the constants' largest rank and their channel count (1 where all are single values).
struct Chain {
  std::vector<std::string> steps;
  std::string input;  // the chain's non-constant input, as a NodeDef input
  Affine map{{1.0}, {0.0}};
  size_t rank = 0;
  int64_t channels = 1;
};

// The step at `name`, or false: its non-constant input position and constant values.
bool Step(OptGraph& g, const NodeDefProto& n, int* x_input, std::vector<double>* k, size_t* rank,
          int64_t* last) {
  if (!IsAffineOp(n.op) || NodeType(n) != TF_FLOAT || n.input.size() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    const TensorRef ref = ParseTensorRef(n.input[1 - i]);
    const TensorRef other = ParseTensorRef(n.input[i]);
    if (ref.control() || other.control() || g.ConstValue(other) != nullptr) continue;
    if (ChannelConst(g.ConstValue(ref), k, rank, last)) {
      *x_input = i;
      return true;
    }
  }
  return false;
}

bool Extend(OptGraph& g, const NodeDefProto& n, Chain* chain) {
  int x_input = 0;
  std::vector<double> k;
  size_t rank = 0;
  int64_t last = 1;
  if (!Step(g, n, &x_input, &k, &rank, &last)) return false;
  if (last != 1 && chain->channels != 1 && last != chain->channels) return false;
  Affine m = chain->map;
  if (!Compose(n.op, x_input, k, &m)) return false;
  chain->map = std::move(m);
  chain->rank = std::max(chain->rank, rank);
  chain->channels = std::max(chain->channels, last);
  if (chain->steps.empty()) chain->input = n.input[x_input];
  chain->steps.push_back(n.name);
  return true;
}

bool FuseAt(OptGraph& g, const std::string& start) {
  Chain chain;
  if (!Extend(g, *g.Find(start), &chain)) return false;
  // The chain starts here only if its input is not itself such a step (that one starts it).
  const TensorRef in = ParseTensorRef(chain.input);
  const NodeDefProto* producer = g.Find(in.node);
  Chain probe;
  if (producer != nullptr && in.index == 0 && !g.IsFed(in) && !g.IsKept(in.node) &&
      g.HasSingleDataReader(in.node) && Extend(g, *producer, &probe))
    return false;
  // A fetched (kept) step ends the chain: it keeps its name and value as the fused node.
  while (!g.IsKept(chain.steps.back()) && g.HasSingleDataReader(chain.steps.back()) &&
         !g.IsFed(TensorRef{chain.steps.back(), 0})) {
    const OptGraph::Reader r = g.Readers(chain.steps.back())[0];
    const NodeDefProto& next = g.nodes()[r.node];
    if (ParseTensorRef(next.input[r.input]).index != 0) break;
    Chain longer = chain;
    if (!Extend(g, next, &longer)) break;
    // The step must read the chain's value, not its constant.
    int x_input = 0;
    std::vector<double> k;
    size_t rank = 0;
    int64_t last = 1;
    Step(g, next, &x_input, &k, &rank, &last);
    if (x_input != r.input) break;
    chain = std::move(longer);
  }
  if (chain.steps.size() < 2) return false;
  // Every inner step read only by the next (the loop checked), none fed.
  for (size_t i = 0; i + 1 < chain.steps.size(); ++i)
    if (g.IsFed(TensorRef{chain.steps[i], 0})) return false;
  // The channel count where every constant is one value: the input's static last dim.
  int64_t channels = chain.channels;
  size_t rank = std::max<size_t>(chain.rank, 1);
  if (channels == 1) {
    std::vector<int64_t> dims;
    if (!g.StaticShape(in, &dims) || dims.empty() || dims.size() < chain.rank) return false;
    channels = dims.back();
    rank = 1;  // [C]: broadcasts as the scalars did, over an input of rank >= 1
  }
  if (channels < 1) return false;

  const std::string last = chain.steps.back();
  const std::string device = g.Find(start)->device;  // a copy: AddConst moves the nodes
  MatchedActivation act;
  if (!MatchActivation(g, last, &act)) act.sink = last;
  const OpDef* fused = OpRegistry::Global().Find("_OpgenFusedScaleShift");
  if (fused == nullptr) return false;
  AttrMap attrs;
  attrs["T"] = TypeAttr(TF_FLOAT);
  attrs["activation"] = StringAttr(act.name);
  attrs["leakyrelu_alpha"] = FloatAttr(act.alpha);
  TF_Status status;
  const Device* placed = nullptr;
  if (PlaceKernel(device, *fused, attrs, &placed, &status) == nullptr) return false;

  std::vector<int64_t> dims(rank, 1);
  dims.back() = channels;
  TensorPtr scale = NewFloatTensor(dims), offset = NewFloatTensor(dims);
  for (int64_t c = 0; c < channels; ++c) {
    FloatData(scale.get())[c] = static_cast<float>(At(chain.map.s, c));
    FloatData(offset.get())[c] = static_cast<float>(At(chain.map.b, c));
  }
  std::string scale_name, offset_name;
  if (!g.AddConst(last + "/_opgen_chain_scale", *scale, device, &scale_name) ||
      !g.AddConst(last + "/_opgen_chain_offset", *offset, device, &offset_name))
    return false;
  std::set<std::string> absorbed(act.nodes.begin(), act.nodes.end());
  absorbed.insert(chain.steps.begin(), chain.steps.end());
  g.ReplaceWithFused(act.sink, absorbed, fused->name, std::move(attrs),
                     {chain.input, scale_name, offset_name}, device);
  return true;
}

}  // namespace

int FuseAffineChains(OptGraph& g) {
  return g.FuseEach(IsAffineOp, FuseAt);
}

}  // namespace opgen
