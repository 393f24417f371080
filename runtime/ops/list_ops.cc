// TensorList ops: a DT_VARIANT scalar that holds a list of tensors of one dtype (what
// TensorFlow 2's TensorArrays, and so every lowered RNN loop, are made of). The list
// itself is runtime/kernels/tensor_list.h.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

void Scalar(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({})); }

// The element shape an `element_shape` operand describes: -1 (a scalar) is an unknown
// rank, other dims of -1 are unknown sizes; unknown when the operand's value is.
PartialShape ElementShapeOperand(ShapeFnContext& c, int i) {
  const PartialShape operand = c.Input(i);
  std::optional<std::vector<int64_t>> dims = c.InputInts(i);
  if (!dims || operand.rank() == 0) return PartialShape::Unknown();
  PartialShape shape = PartialShape::Of(*dims);
  for (int64_t& d : shape.dims)
    if (d < 0) d = kUnknownDim;
  return shape;
}

void GetItemShape(ShapeFnContext& c) { c.SetOutput(0, ElementShapeOperand(c, 2)); }

void StackShape(ShapeFnContext& c) {
  const PartialShape element = ElementShapeOperand(c, 1);
  if (!element.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::Of({c.AttrInt("num_elements")});
  if (out.dims[0] < 0) out.dims[0] = kUnknownDim;
  out.dims.insert(out.dims.end(), element.dims.begin(), element.dims.end());
  c.SetOutput(0, out);
}

void ElementShapeShape(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({kUnknownDim})); }

void PopBackShape(ShapeFnContext& c) {
  c.SetOutput(0, PartialShape::Of({}));
  c.SetOutput(1, ElementShapeOperand(c, 1));
}

// indices' length followed by the element shape, when that is known.
void GatherShape(ShapeFnContext& c) {
  const PartialShape indices = c.InputWithRank(1, 1, "indices");
  const PartialShape element = ElementShapeOperand(c, 2);
  if (!element.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::Of({indices.dims[0]});
  out.dims.insert(out.dims.end(), element.dims.begin(), element.dims.end());
  c.SetOutput(0, out);
}

// The elements concatenated: an unknown first dimension, the rest of the element shape.
void ConcatShape(ShapeFnContext& c) {
  const PartialShape element = ElementShapeOperand(c, 1);
  PartialShape out = PartialShape::Unknown();
  if (element.rank_known && element.rank() >= 1) {
    out = PartialShape::Of({kUnknownDim});
    out.dims.insert(out.dims.end(), element.dims.begin() + 1, element.dims.end());
  }
  c.SetOutput(0, out);
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
}

}  // namespace

void RegisterListOps(TF_Status* status) {
  RegisterOps({
      {"TensorListReserve", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"element_shape: shape_type", "num_elements: int32"}, {"handle: variant"}, ShapeFn<Scalar>,
       "A list of `num_elements` unset elements.",
       "An unset element reads as zeros of the element shape once that is fully known.",
       {{"element_shape", "The elements' shape; -1 entries (or a scalar -1) are unknown."},
        {"num_elements", "The list's length."}, {"handle", "The list."},
        {"element_dtype", "The elements' dtype."}, {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListFromTensor", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"tensor: element_dtype", "element_shape: shape_type"}, {"output_handle: variant"},
       ShapeFn<Scalar>, "A list of the slices of `tensor` along its first dimension.", "",
       {{"tensor", "The tensor to split, of rank 1 or more."},
        {"element_shape", "The elements' shape, which the slices must fit."},
        {"output_handle", "The list."}, {"element_dtype", "The elements' dtype."},
        {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListGetItem", {"element_dtype: type", "Tshape: {int32, int64} = DT_INT32"},
       {"input_handle: variant", "index: int32", "element_shape: Tshape"}, {"item: element_dtype"},
       ShapeFn<GetItemShape>, "Element `index` of the list.",
       "An unset element reads as zeros of the element shape.",
       {{"input_handle", "The list."}, {"index", "Which element, in [0, length)."},
        {"element_shape", "The shape an unset element takes, merged with the list's."},
        {"item", "The element."}, {"element_dtype", "The elements' dtype."},
        {"Tshape", "The dtype of `element_shape`."}}},
      {"TensorListSetItem", {"element_dtype: type", "resize_if_index_out_of_bounds: bool = false"},
       {"input_handle: variant", "index: int32", "item: element_dtype"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list like the input with element `index` replaced by `item`.",
       "The input list is unchanged.",
       {{"input_handle", "The list."}, {"index", "Which element."}, {"item", "The new element."},
        {"output_handle", "The new list."}, {"element_dtype", "The elements' dtype."},
        {"resize_if_index_out_of_bounds", "Grow the list to index + 1 instead of failing."}}},
      {"TensorListStack", {"element_dtype: type", "num_elements: int = -1"},
       {"input_handle: variant", "element_shape: int32"}, {"tensor: element_dtype"},
       ShapeFn<StackShape>, "The list's elements stacked along a new first dimension.",
       "Every element must have the same shape; unset ones are zeros of it.",
       {{"input_handle", "The list."}, {"element_shape", "The elements' expected shape."},
        {"tensor", "The stacked elements."}, {"element_dtype", "The elements' dtype."},
        {"num_elements", "The list's expected length, or -1."}}},
      {"TensorListLength", {}, {"input_handle: variant"}, {"length: int32"}, ShapeFn<Scalar>,
       "The number of elements in the list.", "",
       {{"input_handle", "The list."}, {"length", "Its length."}}},
      {"TensorListElementShape", {"shape_type: {int32, int64}"}, {"input_handle: variant"},
       {"element_shape: shape_type"}, ShapeFn<ElementShapeShape>,
       "The list's element shape.", "-1 for unknown dims, or a scalar -1 for an unknown rank.",
       {{"input_handle", "The list."}, {"element_shape", "The shape."},
        {"shape_type", "The dtype of the result."}}},
      {"TensorListPushBack", {"element_dtype: type"},
       {"input_handle: variant", "tensor: element_dtype"}, {"output_handle: variant"},
       ShapeFn<Scalar>, "A list like the input with `tensor` appended.",
       "The input list is unchanged.",
       {{"input_handle", "The list."}, {"tensor", "The new last element."},
        {"output_handle", "The longer list."}, {"element_dtype", "The elements' dtype."}}},
      {"TensorListPopBack", {"element_dtype: type"},
       {"input_handle: variant", "element_shape: int32"},
       {"output_handle: variant", "tensor: element_dtype"}, ShapeFn<PopBackShape>,
       "The list without its last element, and that element.",
       "An unset last element reads as zeros of the element shape.",
       {{"input_handle", "The list, not empty."},
        {"element_shape", "The shape an unset element takes, merged with the list's."},
        {"output_handle", "The shorter list."}, {"tensor", "The last element."},
        {"element_dtype", "The elements' dtype."}}},
      {"TensorListGather", {"element_dtype: type"},
       {"input_handle: variant", "indices: int32", "element_shape: int32"},
       {"values: element_dtype"}, ShapeFn<GatherShape>,
       "The elements `indices` names, stacked along a new first dimension.",
       "They must have one shape; unset ones are zeros of it.",
       {{"input_handle", "The list."}, {"indices", "Which elements, in order."},
        {"element_shape", "The elements' expected shape."}, {"values", "The stacked elements."},
        {"element_dtype", "The elements' dtype."}}},
      {"TensorListResize", {}, {"input_handle: variant", "size: int32"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list like the input, cut or grown with unset elements to `size`.", "",
       {{"input_handle", "The list."}, {"size", "The new length."},
        {"output_handle", "The resized list."}}},
      {"TensorListConcatV2", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"input_handle: variant", "element_shape: shape_type", "leading_dims: int64"},
       {"tensor: element_dtype", "lengths: int64"}, ShapeFn<ConcatShape>,
       "The list's elements concatenated along their first dimension.",
       "Elements must be of rank 1 or more and agree past their first dimension; an unset "
       "element i is zeros of leading_dims[i] rows.",
       {{"input_handle", "The list."}, {"element_shape", "The elements' expected shape."},
        {"leading_dims", "The row counts of unset elements."},
        {"tensor", "The concatenated elements."}, {"lengths", "Each element's row count."},
        {"element_dtype", "The elements' dtype."}, {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListSplit", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"tensor: element_dtype", "element_shape: shape_type", "lengths: int64"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list of consecutive row blocks of `tensor`.",
       "Element i holds the next lengths[i] rows; the lengths must sum to the first dimension.",
       {{"tensor", "The tensor to split, of rank 1 or more."},
        {"element_shape", "The elements' shape, which the blocks must fit."},
        {"lengths", "Each element's rows."}, {"output_handle", "The list."},
        {"element_dtype", "The elements' dtype."}, {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListScatter", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"tensor: element_dtype", "indices: int32", "element_shape: shape_type"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list whose element indices[i] is row i of `tensor`.",
       "The list is as long as the largest index + 1; elements no index names are unset.",
       {{"tensor", "One row per index."}, {"indices", "Which elements."},
        {"element_shape", "The elements' shape, which the rows must fit."},
        {"output_handle", "The list."}, {"element_dtype", "The elements' dtype."},
        {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListScatterV2", {"element_dtype: type", "shape_type: {int32, int64}"},
       {"tensor: element_dtype", "indices: int32", "element_shape: shape_type",
        "num_elements: int32"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list of `num_elements` whose element indices[i] is row i of `tensor`.",
       "num_elements -1: as long as the largest index + 1.",
       {{"tensor", "One row per index."}, {"indices", "Which elements."},
        {"element_shape", "The elements' shape, which the rows must fit."},
        {"num_elements", "The list's length, or -1."},
        {"output_handle", "The list."}, {"element_dtype", "The elements' dtype."},
        {"shape_type", "The dtype of `element_shape`."}}},
      {"TensorListScatterIntoExistingList", {"element_dtype: type"},
       {"input_handle: variant", "tensor: element_dtype", "indices: int32"},
       {"output_handle: variant"}, ShapeFn<Scalar>,
       "A list like the input with element indices[i] replaced by row i of `tensor`.",
       "The list grows to the largest index + 1 where needed; the input is unchanged.",
       {{"input_handle", "The list."}, {"tensor", "One row per index."},
        {"indices", "Which elements."}, {"output_handle", "The new list."},
        {"element_dtype", "The elements' dtype."}}},
  }, status);
}

}  // namespace opgen
