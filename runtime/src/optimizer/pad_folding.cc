// Folding a zero Pad into the convolution that reads it: Keras' ZeroPadding2D before a
// VALID, strided convolution (MobileNet, EfficientNet, ResNet's stem) is a Pad over the
// whole activation followed by a convolution that could have padded as it read. The
// convolution takes the Pad's input and EXPLICIT padding instead, and the Pad's copy of
// the activation is gone; the result is the same to the bit (padding is zeros either
// way).
#include "passes.h"

namespace opgen {
namespace {

bool IsConvolution(const NodeDefProto& n) {
  return n.op == "Conv2D" || n.op == "DepthwiseConv2dNative";
}

// The [4, 2] paddings of constant `t` (int32 or int64), or false.
bool ConstPaddings(const TF_Tensor* t, std::vector<int64_t>* pads) {
  if (t == nullptr || t->dims != std::vector<int64_t>{4, 2}) return false;
  const void* data = t->buffer->data();
  pads->resize(8);
  for (int i = 0; i < 8; ++i) {
    if (t->dtype == TF_INT32) (*pads)[i] = static_cast<const int32_t*>(data)[i];
    else if (t->dtype == TF_INT64) (*pads)[i] = static_cast<const int64_t*>(data)[i];
    else return false;
  }
  return true;
}

bool FoldAt(OptGraph& g, const std::string pad_name) {  // a copy: nodes move
  const NodeDefProto pad = *g.Find(pad_name);
  if (g.IsKept(pad_name) || g.IsFed(TensorRef{pad_name, 0}) || NodeType(pad) != TF_FLOAT ||
      pad.input.size() < 2 || !g.HasSingleDataReader(pad_name))
    return false;
  std::vector<int64_t> pads;
  const TensorRef paddings = ParseTensorRef(pad.input[1]);
  if (paddings.control() || !ConstPaddings(g.ConstValue(paddings), &pads)) return false;
  // Only the spatial dimensions (NHWC: 1 and 2), and only by adding zeros.
  for (int i = 0; i < 8; ++i)
    if (pads[i] < 0 || ((i < 2 || i >= 6) && pads[i] != 0)) return false;

  const OptGraph::Reader r = g.Readers(pad_name)[0];
  NodeDefProto& conv = g.nodes()[r.node];
  if (r.input != 0 || !IsConvolution(conv) || NodeType(conv) != TF_FLOAT) return false;
  const AttrValue* format = GetAttr(conv, "data_format");
  if (format != nullptr && !(format->kind == AttrValue::kString && format->s == "NHWC")) return false;
  const AttrValue* padding = GetAttr(conv, "padding");
  if (padding == nullptr || padding->kind != AttrValue::kString) return false;
  std::vector<int64_t> explicit_paddings(8, 0);
  if (padding->s == "EXPLICIT") {
    const AttrValue* given = GetAttr(conv, "explicit_paddings");
    if (given == nullptr || given->list_i.size() != 8) return false;
    explicit_paddings = given->list_i;
  } else if (padding->s != "VALID") {
    return false;  // SAME's amounts depend on the padded size: not the same as adding
  }
  for (int i = 0; i < 8; ++i) explicit_paddings[i] += pads[i];

  conv.input[0] = pad.input[0];
  for (const std::string& in : pad.input)
    if (in[0] == '^') conv.input.push_back(in);
  conv.attr["padding"] = StringAttr("EXPLICIT");
  AttrValue list;
  list.kind = AttrValue::kListInt;
  list.list_i = explicit_paddings;
  conv.attr["explicit_paddings"] = list;
  g.Touch(r.node);
  return true;
}

}  // namespace

int FoldPadsIntoConvolutions(OptGraph& g) {
  std::vector<std::string> candidates;
  for (const NodeDefProto& node : g.nodes())
    if (node.op == "Pad") candidates.push_back(node.name);
  int folded = 0;
  for (const std::string& name : candidates)
    if (g.Find(name) != nullptr && FoldAt(g, name)) ++folded;
  return folded;
}

}  // namespace opgen
