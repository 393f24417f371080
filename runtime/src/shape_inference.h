// Output shapes of one graph node, computed when the node is added to a graph
// (TF_FinishOperation) and when a GraphDef is imported. The graph calls only this
// function; shape functions themselves are registered per op through the op-definition
// builder, as a plugin registers them.
#pragma once

#include <string>
#include <vector>

#include "core_types.h"
#include "op_def.h"

namespace opgen {

// What shape inference knows of one input tensor of a node.
struct ShapeInferenceInput {
  Shape shape;                     // unknown rank when nothing is known
  const TF_Tensor* value = nullptr;  // the value when the input is a constant, else null
};

// Computes the shape of every output tensor of a node of `op` (flattened over output
// args, `num_outputs` in all) from its complete `attrs` and its inputs (flattened over
// input args). Ops without a shape function give unknown shapes. Inputs whose shapes
// cannot go together set TF_INVALID_ARGUMENT with a message naming `node_name` and the op.
void InferOutputShapes(const OpDef& op, const std::string& node_name, const AttrMap& attrs,
                       const std::vector<ShapeInferenceInput>& inputs, size_t num_outputs,
                       std::vector<Shape>* outputs, TF_Status* status);

}  // namespace opgen
