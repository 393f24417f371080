// The remapper: a float32 convolution or MatMul, its bias (a BiasAdd, or an Add of a
// per-channel constant) and its activation become one _OpgenFused* node, which computes
// the bias and activation while each output block is still in cache. The fused node
// takes the name of the pattern's last node, so what read (or fetches) it is unchanged.
// Fused only where the fused op has a kernel on the device the convolution runs on.
#include <algorithm>
#include <set>

#include "../kernel_registry.h"
#include "../op_registry.h"
#include "activation_match.h"
#include "passes.h"

namespace opgen {
namespace {

bool AttrIsOr(const NodeDefProto& n, const char* name, const std::string& value) {
  const AttrValue* a = GetAttr(n, name);
  return a == nullptr || (a->kind == AttrValue::kString && a->s == value);
}

// Output channels of a convolution / MatMul with a constant filter (0 when unknown).
int64_t OutputChannels(OptGraph& g, const NodeDefProto& conv) {
  const TF_Tensor* f = g.ConstValue(ParseTensorRef(conv.input[1]));
  if (f == nullptr) return 0;
  const std::vector<int64_t>& d = f->dims;
  if (conv.op == "Conv2D" && d.size() == 4) return d[3];
  if (conv.op == "DepthwiseConv2dNative" && d.size() == 4) return d[2] * d[3];
  if (conv.op == "MatMul" && d.size() == 2) {
    const AttrValue* tb = GetAttr(conv, "transpose_b");
    return tb != nullptr && tb->b ? d[0] : d[1];
  }
  return 0;
}

// The fused node's attrs: the convolution's that the fused OpDef has, its defaults,
// the epilogue, and whether the filter is a Const (its prepared forms are then kept).
AttrMap FusedAttrs(const OpDef& fused, const NodeDefProto& conv, const MatchedActivation& act,
                   bool constant_filter) {
  AttrMap attrs;
  for (const AttrDef& a : fused.attr) {
    auto it = conv.attr.find(a.name);
    if (it != conv.attr.end()) attrs[a.name] = it->second;
    else if (a.has_default) attrs[a.name] = a.default_value;
  }
  attrs["activation"] = StringAttr(act.name);
  attrs["leakyrelu_alpha"] = FloatAttr(act.alpha);
  if (constant_filter && fused.name == "_OpgenFusedConv2D") {
    AttrValue yes;
    yes.kind = AttrValue::kBool;
    yes.b = true;
    attrs["constant_filter"] = yes;
  }
  return attrs;
}

// Whether `fused` with `attrs` runs where `conv` runs (same device, a kernel there).
bool RunsWhereConvRuns(const NodeDefProto& conv, const OpDef& fused, const AttrMap& attrs) {
  const OpDef* def = OpRegistry::Global().Find(conv.op);
  if (def == nullptr) return false;
  TF_Status status;
  const Device* conv_device = nullptr;
  const Device* fused_device = nullptr;
  if (PlaceKernel(conv.device, *def, conv.attr, &conv_device, &status) == nullptr) return false;
  if (PlaceKernel(conv.device, fused, attrs, &fused_device, &status) == nullptr) return false;
  return conv_device == fused_device;
}

bool FuseAt(OptGraph& g, const std::string conv_name) {  // a copy: nodes move
  const NodeDefProto conv = *g.Find(conv_name);
  if (NodeType(conv) != TF_FLOAT || conv.input.size() < 2 ||
      !AttrIsOr(conv, "data_format", "NHWC"))
    return false;
  const OpDef* fused = OpRegistry::Global().Find("_OpgenFused" + conv.op);
  if (fused == nullptr) return false;  // an op a plugin's registry lacks
  std::vector<std::string> absorbed_before_activation;  // the bias node, under a residual Add
  const int64_t channels = OutputChannels(g, conv);

  // The bias: a BiasAdd (any rank-1 bias), or an Add / AddV2 of a per-channel constant.
  std::string head = conv_name, bias_ref;
  std::vector<double> bias_values;
  if (g.HasSingleDataReader(conv_name)) {
    const OptGraph::Reader r = g.Readers(conv_name)[0];
    const NodeDefProto& reader = g.nodes()[r.node];
    if (reader.op == "BiasAdd" && r.input == 0 && NodeType(reader) == TF_FLOAT &&
        AttrIsOr(reader, "data_format", "NHWC")) {
      head = reader.name;
      bias_ref = reader.input[1];
    } else if ((reader.op == "Add" || reader.op == "AddV2") && NodeType(reader) == TF_FLOAT &&
               channels > 0) {
      const TensorRef other = ParseTensorRef(reader.input[1 - r.input]);
      const TF_Tensor* c = other.control() ? nullptr : g.ConstValue(other);
      if (PerChannel(c, channels, conv.op == "MatMul" ? 2 : 4, &bias_values)) head = reader.name;
    }
  }
  // The residual: an Add / AddV2 of another tensor of the same static shape (the end of
  // a ResNet block, conv + bias + shortcut), for Conv2D.
  std::string residual_ref;
  const OpDef* with_residual = OpRegistry::Global().Find("_OpgenFusedConv2DWithResidual");
  if (conv.op == "Conv2D" && with_residual != nullptr && !g.IsKept(head) &&
      g.HasSingleDataReader(head)) {
    const OptGraph::Reader r = g.Readers(head)[0];
    const NodeDefProto& add = g.nodes()[r.node];
    const bool is_add = (add.op == "Add" || add.op == "AddV2") && add.input.size() >= 2 &&
                        r.input < 2 && NodeType(add) == TF_FLOAT;
    const TensorRef other = is_add ? ParseTensorRef(add.input[1 - r.input]) : TensorRef{"", -1};
    std::vector<int64_t> out_dims, other_dims, sum_dims;
    if (is_add && !other.control() && g.ConstValue(other) == nullptr &&
        g.StaticShape(TensorRef{head, 0}, &out_dims) && g.StaticShape(other, &other_dims) &&
        g.StaticShape(TensorRef{add.name, 0}, &sum_dims) && out_dims == other_dims &&
        out_dims == sum_dims) {
      residual_ref = add.input[1 - r.input];
      absorbed_before_activation.push_back(head);
      head = add.name;
      fused = with_residual;
    }
  }
  MatchedActivation act;
  const bool has_activation = MatchActivation(g, head, &act);
  const TensorRef filter = ParseTensorRef(conv.input[1]);
  const bool constant_filter = !filter.control() && g.ConstValue(filter) != nullptr;
  // Nothing to fuse: still worth it for a Conv2D with a constant filter (DenseNet's 3x3
  // convolutions feed a concat), whose fused kernel prepares the filter once.
  if (!has_activation && head == conv_name && !(constant_filter && conv.op == "Conv2D"))
    return false;
  if (bias_ref.empty() && bias_values.empty() && channels <= 0) return false;  // no size for zeros
  // A fetched convolution keeps its name and value only where it is the fused node.
  if (g.IsKept(conv_name) && (has_activation || head != conv_name)) return false;
  if (!has_activation) act.sink = head;

  AttrMap attrs = FusedAttrs(*fused, conv, act, constant_filter);
  if (!RunsWhereConvRuns(conv, *fused, attrs)) return false;
  if (bias_ref.empty()) {
    TensorPtr bias = NewFloatTensor({channels});
    for (size_t i = 0; i < bias_values.size(); ++i)
      FloatData(bias.get())[i] = static_cast<float>(bias_values[i]);
    if (!g.AddConst(conv_name + "/_opgen_fused_bias", *bias, conv.device, &bias_ref)) return false;
  }
  std::set<std::string> absorbed(act.nodes.begin(), act.nodes.end());
  absorbed.insert(conv_name);
  absorbed.insert(head);
  absorbed.insert(absorbed_before_activation.begin(), absorbed_before_activation.end());
  std::vector<std::string> inputs{conv.input[0], conv.input[1], bias_ref};
  if (!residual_ref.empty()) inputs.push_back(residual_ref);
  g.ReplaceWithFused(act.sink, absorbed, fused->name, std::move(attrs), std::move(inputs),
                     conv.device);
  return true;
}

}  // namespace

int FuseConvolutions(OptGraph& g) {
  return g.FuseEach([](const std::string& op) {
    return op == "Conv2D" || op == "MatMul" || op == "DepthwiseConv2dNative";
  }, FuseAt);
}

}  // namespace opgen
