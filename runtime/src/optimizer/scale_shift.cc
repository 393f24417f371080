// Fusing a per-channel affine map and its activation into one pass: x * s + b (then
// Relu, ...) with constant s and b, which is what an inference BatchNorm becomes when
// no convolution precedes it to absorb it (DenseNet's BatchNorm + Relu before every
// convolution, a normalised input). Mul, Add and the activation each read and write the
// whole activation; _OpgenFusedScaleShift reads and writes it once. Runs after the
// convolution passes, so only what they could not take is left for it.
#include <algorithm>
#include <set>

#include "../kernel_registry.h"
#include "../op_registry.h"
#include "activation_match.h"
#include "passes.h"

namespace opgen {
namespace {

// A float32 constant of shape [C] or [1, ..., 1, C] with C >= 2 (a [1] would broadcast
// against any last dimension, which the fused op does not).
bool IsPerChannelShape(const TF_Tensor* t) {
  if (t == nullptr || t->dtype != TF_FLOAT || t->dims.empty()) return false;
  for (size_t i = 0; i + 1 < t->dims.size(); ++i)
    if (t->dims[i] != 1) return false;
  return t->dims.back() >= 2;
}

// The constant operand of binary `node` that is per-channel, and the other operand.
bool SplitConstOperand(OptGraph& g, const NodeDefProto& node, const TF_Tensor** c,
                       int* const_index) {
  for (int i = 0; i < 2; ++i) {
    const TensorRef ref = ParseTensorRef(node.input[i]);
    const TensorRef other = ParseTensorRef(node.input[1 - i]);
    if (ref.control() || other.control()) return false;
    const TF_Tensor* value = g.ConstValue(ref);
    if (IsPerChannelShape(value) && g.ConstValue(other) == nullptr) {
      *c = value;
      *const_index = i;
      return true;
    }
  }
  return false;
}

bool FuseAt(OptGraph& g, const std::string mul_name) {  // a copy: nodes move
  const NodeDefProto mul = *g.Find(mul_name);
  if (NodeType(mul) != TF_FLOAT || mul.input.size() != 2 || g.IsKept(mul_name) ||
      !g.HasSingleDataReader(mul_name))
    return false;
  const TF_Tensor* scale = nullptr;
  int scale_index = 0;
  if (!SplitConstOperand(g, mul, &scale, &scale_index)) return false;

  const OptGraph::Reader r = g.Readers(mul_name)[0];
  const NodeDefProto add = g.nodes()[r.node];
  if (NodeType(add) != TF_FLOAT || add.input.size() != 2 || g.IsKept(add.name)) return false;
  const bool sub = add.op == "Sub";
  if (!(add.op == "Add" || add.op == "AddV2" || (sub && r.input == 0))) return false;
  const TensorRef offset_ref = ParseTensorRef(add.input[1 - r.input]);
  if (offset_ref.control()) return false;
  const TF_Tensor* offset = g.ConstValue(offset_ref);
  if (!IsPerChannelShape(offset) || offset->dims != scale->dims) return false;

  MatchedActivation act;
  if (!MatchActivation(g, add.name, &act)) act.sink = add.name;
  const OpDef* fused = OpRegistry::Global().Find("_OpgenFusedScaleShift");
  if (fused == nullptr) return false;
  AttrMap attrs;
  attrs["T"] = TypeAttr(TF_FLOAT);
  attrs["activation"] = StringAttr(act.name);
  attrs["leakyrelu_alpha"] = FloatAttr(act.alpha);
  TF_Status status;
  const Device* device = nullptr;
  if (PlaceKernel(mul.device, *fused, attrs, &device, &status) == nullptr) return false;

  std::string offset_name = add.input[1 - r.input];
  if (sub) {  // x * s - b: the offset is -b
    TensorPtr negated = NewFloatTensor(offset->dims);
    const float* b = FloatData(offset);
    for (int64_t i = 0; i < NumElements(offset->dims); ++i) FloatData(negated.get())[i] = -b[i];
    if (!g.AddConst(add.name + "/_opgen_offset", *negated, mul.device, &offset_name)) return false;
  }
  std::set<std::string> absorbed(act.nodes.begin(), act.nodes.end());
  absorbed.insert(mul_name);
  absorbed.insert(add.name);
  g.ReplaceWithFused(act.sink, absorbed, fused->name, std::move(attrs),
                     {mul.input[1 - scale_index], mul.input[scale_index], offset_name}, mul.device);
  return true;
}

}  // namespace

int FuseScaleShifts(OptGraph& g) {
  return g.FuseEach([](const std::string& op) { return op == "Mul"; }, FuseAt);
}

}  // namespace opgen
