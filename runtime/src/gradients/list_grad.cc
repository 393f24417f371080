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

// TensorFlow differentiates its TensorArray ops through gradient arrays
// (TensorArrayGradV3), which opgen has not built yet: refuse, naming the op.
void TensorArrayGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "TensorArray gradients (TensorFlow's, through TensorArrayGradV3) are not built "
               "in opgen yet");
}

// TensorFlow differentiates these list ops too (list_ops.py); opgen has not built their
// gradients yet: refuse, naming the op.
void ListGradNotBuilt(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "this TensorList op's gradient (TensorFlow's) is not built in opgen yet");
}

}  // namespace

void RegisterListGradients() {
  for (const char* op : {"TensorListPushBack", "TensorListPopBack", "TensorListGather",
                         "TensorListConcatV2", "TensorListSplit", "TensorListResize"})
    RegisterGrad(op, ListGradNotBuilt);
  for (const char* op : {"TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
                         "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3"})
    RegisterGrad(op, TensorArrayGrad);
  RegisterGrad("TensorListFromTensor", FromTensorGrad);
  RegisterGrad("TensorListStack", StackGrad);
  RegisterGrad("TensorListGetItem", GetItemGrad);
  RegisterGrad("TensorListSetItem", SetItemGrad);
}

}  // namespace gradients
}  // namespace opgen
