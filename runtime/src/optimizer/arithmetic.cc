// Folding a constant affine map that follows a convolution or MatMul into its filter and
// bias: conv(x, F) * s + b == conv(x, F * s) + b per output channel, so a following Mul
// by a per-channel (or scalar) constant scales the filter, an Add / AddV2 / BiasAdd / Sub
// of one becomes (part of) a BiasAdd, and an inference FusedBatchNorm is both:
// s = scale / sqrt(variance + epsilon), b = offset - mean * s. float32, NHWC, constant
// filters only; the arithmetic is done in double.
#include <cmath>

#include "passes.h"

namespace opgen {
namespace {

// Where a convolution's output channels lie in its constant filter.
struct ConvLike {
  NodeDefProto* node = nullptr;
  const TF_Tensor* filter = nullptr;
  int64_t channels = 0;  // output channels
  int out_rank = 4;
  // Filter element e belongs to output channel (e / stride) % channels.
  int64_t stride = 1;
};

bool AttrIs(const NodeDefProto& n, const char* name, const std::string& value, bool absent_ok) {
  const AttrValue* a = GetAttr(n, name);
  if (a == nullptr) return absent_ok;
  return a->kind == AttrValue::kString && a->s == value;
}

bool AttrBool(const NodeDefProto& n, const char* name) {
  const AttrValue* a = GetAttr(n, name);
  return a != nullptr && a->kind == AttrValue::kBool && a->b;
}

// `node` as a float32 convolution / MatMul with a constant filter, or false.
bool AsConvLike(OptGraph& g, NodeDefProto* node, ConvLike* out) {
  if (NodeType(*node) != TF_FLOAT || node->input.size() < 2) return false;
  const TensorRef filter_ref = ParseTensorRef(node->input[1]);
  if (filter_ref.control()) return false;
  const TF_Tensor* f = g.ConstValue(filter_ref);
  if (f == nullptr || f->dtype != TF_FLOAT) return false;
  const std::vector<int64_t>& d = f->dims;
  out->node = node;
  out->filter = f;
  if ((node->op == "Conv2D" || node->op == "DepthwiseConv2dNative") && d.size() == 4 &&
      AttrIs(*node, "data_format", "NHWC", true)) {
    out->channels = node->op == "Conv2D" ? d[3] : d[2] * d[3];
    out->out_rank = 4;
    out->stride = 1;
    return out->channels > 0;
  }
  if (node->op == "MatMul" && d.size() == 2) {
    const bool tb = AttrBool(*node, "transpose_b");
    out->channels = tb ? d[0] : d[1];
    out->stride = tb ? d[1] : 1;
    out->out_rank = 2;
    return out->channels > 0 && out->stride > 0;
  }
  return false;
}

// The constant operand of binary node `k` whose other operand is `head` (either order
// for commutative ops, second only otherwise), or nullptr.
const TF_Tensor* OtherConstant(OptGraph& g, const NodeDefProto& k, const std::string& head,
                               bool commutative) {
  if (k.input.size() < 2) return nullptr;
  const TensorRef a = ParseTensorRef(k.input[0]), b = ParseTensorRef(k.input[1]);
  if (a == TensorRef{head, 0} && !b.control()) return g.ConstValue(b);
  if (commutative && b == TensorRef{head, 0} && !a.control()) return g.ConstValue(a);
  return nullptr;
}

std::vector<std::string> ControlInputs(const NodeDefProto& n) {
  std::vector<std::string> out;
  for (const std::string& in : n.input)
    if (in[0] == '^') out.push_back(in);
  return out;
}

// One fold at the reader of `conv` (or of its constant BiasAdd). True when it rewrote.
bool FoldOnce(OptGraph& g, const std::string& conv_name) {
  ConvLike conv;
  NodeDefProto* conv_node = g.Find(conv_name);
  if (conv_node == nullptr || !AsConvLike(g, conv_node, &conv) || !g.HasSingleDataReader(conv_name))
    return false;
  const int64_t n = conv.channels;
  // The head: the convolution, or a BiasAdd of a constant right after it.
  std::string head = conv_name;
  std::vector<double> bias;
  const OptGraph::Reader first = g.Readers(conv_name)[0];
  NodeDefProto* reader = &g.nodes()[first.node];
  if (reader->op == "BiasAdd" && first.input == 0 && NodeType(*reader) == TF_FLOAT &&
      AttrIs(*reader, "data_format", "NHWC", true)) {
    const TF_Tensor* b = g.ConstValue(ParseTensorRef(reader->input[1]));
    if (b != nullptr && b->dims.size() == 1 && PerChannel(b, n, conv.out_rank, &bias)) {
      head = reader->name;
      if (!g.HasSingleDataReader(head)) return false;
    }
  }
  const OptGraph::Reader next = g.Readers(head)[0];
  NodeDefProto k = g.nodes()[next.node];  // a copy: nodes are added below
  if (NodeType(k) != TF_FLOAT && k.op.rfind("FusedBatchNorm", 0) != 0) return false;
  std::vector<double> scale(n, 1.0), shift(n, 0.0), c;
  if (k.op == "Mul" && PerChannel(OtherConstant(g, k, head, true), n, conv.out_rank, &c)) {
    scale = c;
  } else if (k.op == "RealDiv" && PerChannel(OtherConstant(g, k, head, false), n, conv.out_rank, &c)) {
    for (int64_t i = 0; i < n; ++i) scale[i] = 1.0 / c[i];
  } else if ((k.op == "Add" || k.op == "AddV2") &&
             PerChannel(OtherConstant(g, k, head, true), n, conv.out_rank, &c)) {
    shift = c;
  } else if (k.op == "Sub" && PerChannel(OtherConstant(g, k, head, false), n, conv.out_rank, &c)) {
    for (int64_t i = 0; i < n; ++i) shift[i] = -c[i];
  } else if (k.op == "BiasAdd" && AttrIs(k, "data_format", "NHWC", true) &&
             PerChannel(OtherConstant(g, k, head, false), n, conv.out_rank, &c)) {
    shift = c;
  } else if ((k.op == "FusedBatchNorm" || k.op == "FusedBatchNormV2" ||
              k.op == "FusedBatchNormV3") && next.input == 0 && !g.IsKept(k.name) &&
             !AttrBool(k, "is_training") && AttrIs(k, "data_format", "NHWC", true) &&
             NodeType(k) == TF_FLOAT && conv.out_rank == 4 && k.input.size() >= 5) {
    std::vector<double> stats[4];  // scale, offset, mean, variance
    for (int s = 0; s < 4; ++s) {
      const TF_Tensor* t = g.ConstValue(ParseTensorRef(k.input[1 + s]));
      if (t == nullptr || t->dims.size() != 1 || !PerChannel(t, n, 1, &stats[s])) return false;
    }
    for (const OptGraph::Reader& r : g.Readers(k.name))
      if (ParseTensorRef(g.nodes()[r.node].input[r.input]).index != 0) return false;
    const AttrValue* eps = GetAttr(k, "epsilon");
    const double epsilon = eps != nullptr && eps->kind == AttrValue::kFloat ? eps->f : 1e-4;
    for (int64_t i = 0; i < n; ++i) {
      scale[i] = stats[0][i] / std::sqrt(stats[3][i] + epsilon);
      shift[i] = stats[1][i] - stats[2][i] * scale[i];
    }
  } else {
    return false;
  }

  // The new filter and bias: (conv * scale + bias * scale) + shift.
  TensorPtr filter = NewFloatTensor(conv.filter->dims, /*zero=*/false);  // all written below
  const float* src = FloatData(conv.filter);
  float* dst = FloatData(filter.get());
  const int64_t count = NumElements(conv.filter->dims);
  // Runs of `stride` elements share a channel, the channels cycling: no division per
  // element (a ResNet50 has 25M filter elements to scale).
  for (int64_t e = 0; e < count;)
    for (int64_t c = 0; c < n && e < count; ++c)
      for (int64_t k = 0; k < conv.stride && e < count; ++k, ++e)
        dst[e] = static_cast<float>(src[e] * scale[c]);
  const bool had_bias = !bias.empty();
  bias.resize(n, 0.0);
  bool has_bias = had_bias;
  for (int64_t i = 0; i < n; ++i) {
    bias[i] = bias[i] * scale[i] + shift[i];
    has_bias = has_bias || shift[i] != 0.0;
  }
  std::string filter_name;
  if (!g.AddConst(conv_name + "/_opgen_folded_filter", *filter, conv_node->device, &filter_name))
    return false;
  std::vector<std::string> controls = ControlInputs(k);
  if (head != conv_name)
    for (const std::string& ctl : ControlInputs(*g.Find(head))) controls.push_back(ctl);
  std::string bias_name;
  if (has_bias) {
    TensorPtr b = NewFloatTensor({n});
    for (int64_t i = 0; i < n; ++i) FloatData(b.get())[i] = static_cast<float>(bias[i]);
    if (!g.AddConst(k.name + "/_opgen_folded_bias", *b, k.device, &bias_name)) return false;
  }
  g.Find(conv_name)->input[1] = filter_name;
  // The reader keeps its name (it may be fetched, and others read it): it becomes the
  // BiasAdd, or an Identity of the convolution that identity removal then drops.
  NodeDefProto* out = g.Find(k.name);
  out->attr.clear();
  out->attr["T"] = TypeAttr(TF_FLOAT);
  if (has_bias) {
    out->op = "BiasAdd";
    out->attr["data_format"] = StringAttr("NHWC");
    out->input = {conv_name, bias_name};
  } else {
    out->op = "Identity";
    out->input = {conv_name};
  }
  out->input.insert(out->input.end(), controls.begin(), controls.end());
  g.Touch(conv_name);
  g.Touch(k.name);
  if (!has_bias) BypassIdentity(g, k.name);  // so the next fold sees the convolution again
  return true;
}

}  // namespace

int FoldArithmetic(OptGraph& g) {
  // By name: sweeping moves the nodes.
  std::vector<std::string> candidates;
  for (const NodeDefProto& node : g.nodes())
    if (node.op == "Conv2D" || node.op == "DepthwiseConv2dNative" || node.op == "MatMul")
      candidates.push_back(node.name);
  int folded = 0;
  for (const std::string& name : candidates) {
    while (g.Find(name) != nullptr && FoldOnce(g, name)) {
      ++folded;
      g.DropUnread();  // the absorbed nodes still read the convolution until dropped
    }
  }
  return folded;
}

}  // namespace opgen
