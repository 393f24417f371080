// Gradients of the TensorList ops, with TensorFlow's formulas (its list_ops.py): a list's
// gradient is a list of its elements' gradients, built and read with the same ops.
// Length, ElementShape and Reserve are not differentiable (builtin_gradients.cc).
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// t's shape without its first dim, int32: the element shape of t's slices.
TF_Output ElementShapeOf(GradBuilder& b, TF_Output t) {
  return b.Op("Slice", {b.ShapeOf(t), b.Int32s({1}), b.Int32s({-1})});
}

// FromTensor(tensor, element_shape): the tensor's gradient is the gradient list stacked.
void FromTensorGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output tensor = b.input(0);
  std::vector<int64_t> dims;
  const int64_t n = b.StaticShape(tensor, &dims) && !dims.empty() ? dims[0] : -1;
  b.Set(0, b.Op("TensorListStack", {b.grad(0), ElementShapeOf(b, tensor)},
                {{"element_dtype", b.dtype(tensor)}, {"num_elements", n}}));
}

// Stack(list, element_shape): the list's gradient is the tensor's gradient, split.
void StackGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output g = b.grad(0);
  b.Set(0, b.Op("TensorListFromTensor", {g, ElementShapeOf(b, g)},
                {{"element_dtype", b.dtype(g)}, {"shape_type", TF_INT32}}));
}

// GetItem(list, index, element_shape): a list of the input's length and element shape,
// unset (zeros) but for the item's gradient at `index`.
void GetItemGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output list = b.input(0), g = b.grad(0);
  const TF_Output shape = b.Op("TensorListElementShape", {list}, {{"shape_type", TF_INT32}});
  const TF_Output zeros = b.Op("TensorListReserve", {shape, b.Op("TensorListLength", {list})},
                               {{"element_dtype", b.dtype(g)}});
  b.Set(0, b.Op("TensorListSetItem", {zeros, b.input(1), g}));
}

// SetItem(list, index, item): the list gets the gradient list with `index` zeroed, the
// item that element of it.
void SetItemGrad(GradBuilder& b) {
  const TF_Output index = b.input(1), item = b.input(2), dlist = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("TensorListSetItem", {dlist, index, b.Op("ZerosLike", {item})}));
  if (b.needs(2))
    b.Set(2, b.Op("TensorListGetItem", {dlist, index, b.ShapeOf(item)},
                  {{"element_dtype", b.dtype(item)}}));
}

// PushBack(list, tensor): popping the gradient list's last element gives the tensor's
// gradient, and what is left the list's.
void PushBackGrad(GradBuilder& b) {
  const TF_Output tensor = b.input(1);
  TF_Operation* pop = b.Node("TensorListPopBack", {b.grad(0), b.ShapeOf(tensor)},
                             {{"element_dtype", b.dtype(tensor)}});
  if (!b.ok()) return;
  if (b.needs(0)) b.Set(0, TF_Output{pop, 0});
  if (b.needs(1)) b.Set(1, TF_Output{pop, 1});
}

// Resize(list, size): the gradient list resized back to the input's length.
void ResizeGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  b.Set(0, b.Op("TensorListResize", {b.grad(0), b.Op("TensorListLength", {b.input(0)})}));
}

// Split(tensor, element_shape, lengths): the gradient list concatenated, unset elements
// counting their `lengths` rows of zeros.
void SplitGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output tensor = b.input(0);
  TF_Operation* concat = b.Node("TensorListConcatV2", {b.grad(0), b.Int32(-1), b.input(2)},
                                {{"element_dtype", b.dtype(tensor)}, {"shape_type", TF_INT32}});
  if (b.ok()) b.Set(0, TF_Output{concat, 0});
}

// ConcatV2(list, element_shape, leading_dims): the tensor's gradient split back into the
// elements' row counts.
void ConcatGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output g = b.grad(0);
  b.Set(0, b.Op("TensorListSplit", {g, b.Int32(-1), b.output(1)},
                {{"element_dtype", b.dtype(g)}, {"shape_type", TF_INT32}}));
}

// PopBack(list, element_shape) -> (shorter list, element): the list's gradient is the
// shorter list's with the element's pushed back.
// No gradient reaching the shorter list stands for a list of its length of unset
// elements (zeros), none reaching the element for zeros.
void PopBackGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output shorter = b.output(0), item = b.output(1);
  const TF_DataType t = b.dtype(item);
  TF_Output dlist = b.grad(0), ditem = b.grad(1);
  if (dlist.oper == nullptr)
    dlist = b.Op("TensorListReserve",
                 {b.Op("TensorListElementShape", {shorter}, {{"shape_type", TF_INT32}}),
                  b.Op("TensorListLength", {shorter})},
                 {{"element_dtype", t}, {"shape_type", TF_INT32}});
  if (ditem.oper == nullptr) ditem = b.Op("ZerosLike", {item});
  b.Set(0, b.Op("TensorListPushBack", {dlist, ditem}, {{"element_dtype", t}}));
}

// Gather(list, indices, element_shape): each element's gradient is the sum of the rows
// gathered from it (TensorFlow scatters the rows, which keeps one of a repeated index's:
// summing them first is right for repeats too), as a list of the input's length.
void GatherGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output list = b.input(0), g = b.grad(0);
  const TF_Output sums = b.Op("UnsortedSegmentSum", {g, b.input(1), b.Op("TensorListLength", {list})});
  b.Set(0, b.Op("TensorListFromTensor", {sums, ElementShapeOf(b, g)},
                {{"element_dtype", b.dtype(g)}, {"shape_type", TF_INT32}}));
}

// Scatter*(tensor, indices, ...): the tensor's gradient gathers the rows back.
void ScatterGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output tensor = b.input(0);
  b.Set(0, b.Op("TensorListGather", {b.grad(0), b.input(1), ElementShapeOf(b, tensor)},
                {{"element_dtype", b.dtype(tensor)}}));
}

// TensorFlow differentiates these list ops too (list_ops.py); opgen has not built their
// gradients yet: refuse, naming the op.
void ListGradNotBuilt(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "this TensorList op's gradient (TensorFlow's) is not built in opgen yet");
}

}  // namespace

void RegisterListGradients() {
  RegisterGrad("TensorListPopBack", PopBackGrad);
  RegisterGrad("TensorListScatterIntoExistingList", ListGradNotBuilt);
  RegisterGrad("TensorListGather", GatherGrad);
  RegisterGrad("TensorListScatter", ScatterGrad);
  RegisterGrad("TensorListScatterV2", ScatterGrad);
  RegisterGrad("TensorListPushBack", PushBackGrad);
  RegisterGrad("TensorListResize", ResizeGrad);
  RegisterGrad("TensorListSplit", SplitGrad);
  RegisterGrad("TensorListConcatV2", ConcatGrad);
  RegisterGrad("TensorListFromTensor", FromTensorGrad);
  RegisterGrad("TensorListStack", StackGrad);
  RegisterGrad("TensorListGetItem", GetItemGrad);
  RegisterGrad("TensorListSetItem", SetItemGrad);
}

}  // namespace gradients
}  // namespace opgen
