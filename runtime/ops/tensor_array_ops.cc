// TensorFlow 1's TensorArray (the V3 ops, with TensorFlow's OpDefs): TensorArrayV3 makes
// an array of the run's resource manager and returns its handle and a "flow" scalar; the
// other ops write, read, gather, scatter, concatenate, split, size and close it through
// the handle, threading the flow so that the graph orders them. tf.compat.v1.while_loop
// and dynamic_rnn graphs, and many frozen TF1 models, are made of them. Every op has a
// resource arg, so each is stateful and constant folding leaves it alone.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// TensorFlow gives the handle the shape of its legacy string handle, a 2-vector.
void CreateShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "size");
  c.SetOutput(0, PartialShape::Of({2}));
  c.SetOutput(1, PartialShape::Of({}));
}

void FlowShape(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({})); }

void GradShape(ShapeFnContext& c) {
  c.SetOutput(0, PartialShape::Of({2}));
  c.SetOutput(1, PartialShape::Of({}));
}

void ReadShape(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "index");
  c.SetOutput(0, PartialShape::Unknown());
}

// indices' length followed by the element shape, when that is known.
void GatherShape(ShapeFnContext& c) {
  const PartialShape indices = c.InputWithRank(1, 1, "indices");
  const PartialShape element = c.AttrShape("element_shape");
  if (!element.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::Of({indices.dims[0]});
  out.dims.insert(out.dims.end(), element.dims.begin(), element.dims.end());
  c.SetOutput(0, out);
}

void ConcatShape(ShapeFnContext& c) {
  const PartialShape rest = c.AttrShape("element_shape_except0");
  if (!rest.rank_known) {
    c.SetOutput(0, PartialShape::Unknown());
  } else {
    PartialShape out = PartialShape::Of({kUnknownDim});
    out.dims.insert(out.dims.end(), rest.dims.begin(), rest.dims.end());
    c.SetOutput(0, out);
  }
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
}

void NoOutputs(ShapeFnContext&) {}

OpRegistration Op(const char* name, std::vector<std::string> attrs, std::vector<std::string> inputs,
                  std::vector<std::string> outputs, OpShapeFn shape_fn, const char* summary,
                  const char* description,
                  std::vector<std::pair<std::string, std::string>> docs) {
  docs.insert(docs.end(), {{"handle", "The TensorArray's handle."},
                           {"flow_in", "The flow scalar that orders the array's ops."},
                           {"flow_out", "The flow scalar for the array's next op."}});
  std::vector<std::pair<std::string, std::string>> used;
  auto named = [&](const std::string& arg) {
    for (const auto& spec : {&attrs, &inputs, &outputs})
      for (const std::string& s : *spec)
        if (s.compare(0, arg.size() + 1, arg + ":") == 0) return true;
    return false;
  };
  for (auto& d : docs)
    if (named(d.first)) used.push_back(d);
  return OpRegistration{name, std::move(attrs), std::move(inputs), std::move(outputs), shape_fn,
                        summary, description, std::move(used), false, false, true};
}

}  // namespace

void RegisterTensorArrayOps(TF_Status* status) {
  RegisterOps({
      Op("TensorArrayV3",
         {"dtype: type", "element_shape: shape = { unknown_rank: true }",
          "dynamic_size: bool = false", "clear_after_read: bool = true",
          "identical_element_shapes: bool = false", "tensor_array_name: string = ''"},
         {"size: int32"}, {"handle: resource", "flow: float"}, ShapeFn<CreateShape>,
         "Makes a new TensorArray of `size` unwritten elements.",
         "Each run makes a new array. Reading an unwritten element gives zeros when the "
         "element shape is fully known and fails otherwise.",
         {{"size", "The array's size (its initial size when dynamic_size)."},
          {"flow", "A scalar that orders the array's ops."},
          {"dtype", "The elements' dtype."},
          {"element_shape", "The elements' shape, where known."},
          {"dynamic_size", "Let writes past the end grow the array."},
          {"clear_after_read", "Free an element when it is read; a second read fails."},
          {"identical_element_shapes", "Every element has the shape of the first written."},
          {"tensor_array_name", "A name for the array in error messages."}}),
      Op("TensorArrayWriteV3", {"T: type"},
         {"handle: resource", "index: int32", "value: T", "flow_in: float"}, {"flow_out: float"},
         ShapeFn<FlowShape>, "Writes element `index` of the array.",
         "Each element is written once; its shape must fit the array's element shape.",
         {{"index", "Which element."}, {"value", "The element's value."}, {"T", "Its dtype."}}),
      Op("TensorArrayReadV3", {"dtype: type"}, {"handle: resource", "index: int32", "flow_in: float"},
         {"value: dtype"}, ShapeFn<ReadShape>, "Reads element `index` of the array.", "",
         {{"index", "Which element."}, {"value", "The element."}, {"dtype", "Its dtype."}}),
      Op("TensorArrayGatherV3", {"dtype: type", "element_shape: shape = { unknown_rank: true }"},
         {"handle: resource", "indices: int32", "flow_in: float"}, {"value: dtype"},
         ShapeFn<GatherShape>, "Stacks the elements `indices` name along a new first dimension.",
         "They must have one shape.",
         {{"indices", "Which elements, in order."}, {"value", "The stacked elements."},
          {"dtype", "The elements' dtype."},
          {"element_shape", "The elements' shape, needed for an empty array."}}),
      Op("TensorArrayScatterV3", {"T: type"},
         {"handle: resource", "indices: int32", "value: T", "flow_in: float"}, {"flow_out: float"},
         ShapeFn<FlowShape>, "Writes row i of `value` to element indices[i].", "",
         {{"indices", "Which elements."}, {"value", "One row per index."},
          {"T", "The elements' dtype."}}),
      Op("TensorArrayConcatV3", {"dtype: type", "element_shape_except0: shape = { unknown_rank: true }"},
         {"handle: resource", "flow_in: float"}, {"value: dtype", "lengths: int64"},
         ShapeFn<ConcatShape>, "Concatenates every element along its first dimension.",
         "The elements must be of rank 1 or more and agree past their first dimension.",
         {{"value", "The concatenated elements."},
          {"lengths", "Each element's first dimension."},
          {"dtype", "The elements' dtype."},
          {"element_shape_except0", "The elements' shape past their first dimension."}}),
      Op("TensorArraySplitV3", {"T: type"},
         {"handle: resource", "value: T", "lengths: int64", "flow_in: float"}, {"flow_out: float"},
         ShapeFn<FlowShape>, "Writes consecutive row blocks of `value` to the elements.",
         "Element i gets the next lengths[i] rows; the lengths must sum to value's first "
         "dimension.",
         {{"value", "The tensor to split."}, {"lengths", "Each element's rows."},
          {"T", "The elements' dtype."}}),
      Op("TensorArraySizeV3", {}, {"handle: resource", "flow_in: float"}, {"size: int32"},
         ShapeFn<FlowShape>, "The array's size.", "",
         {{"size", "The number of elements."}}),
      Op("TensorArrayCloseV3", {}, {"handle: resource"}, {}, ShapeFn<NoOutputs>,
         "Deletes the array.", "Later ops on its handle fail.", {}),
      Op("TensorArrayGradV3", {"source: string"}, {"handle: resource", "flow_in: float"},
         {"grad_handle: resource", "flow_out: float"}, ShapeFn<GradShape>,
         "The gradient array of an array, for one gradient computation.",
         "Made by the first call for `source` in a run, with the forward array's size and "
         "dtype; later calls return it. Writes to one element of it sum (partial "
         "gradients), and an element written in the forward array reads as zeros of that "
         "element's shape until written. The forward array can no longer grow.",
         {{"source", "Names the gradient computation (gradients, gradients_1, ...)."},
          {"grad_handle", "The gradient array's handle."}}),
      Op("TensorArrayGradWithShape", {"source: string"},
         {"handle: resource", "flow_in: float", "shape_to_prepend: int32"},
         {"grad_handle: resource", "flow_out: float"}, ShapeFn<GradShape>,
         "TensorArrayGradV3 whose elements have `shape_to_prepend` before the forward shape.",
         "For gradients of many values at once (a batch of Jacobian rows, say).",
         {{"source", "Names the gradient computation."},
          {"shape_to_prepend", "The dims put before each forward element's shape."},
          {"grad_handle", "The gradient array's handle."}}),
  }, status);
}

}  // namespace opgen
