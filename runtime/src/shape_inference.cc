// Shape inference for one graph node: runs the shape function its op was registered with.
#include "shape_inference.h"

#include <string>

#include "op_registry.h"
#include "shape_inference_context.h"

namespace opgen {

void InferOutputShapes(const OpDef& op, const std::string& node_name, const AttrMap& attrs,
                       const std::vector<ShapeInferenceInput>& inputs, size_t num_outputs,
                       std::vector<Shape>* outputs, TF_Status* status) {
  outputs->assign(num_outputs, Shape());
  ClearStatus(status);
  ShapeInferenceFn shape_fn = OpRegistry::Global().FindShapeFn(op.name);
  if (shape_fn == nullptr) return;
  TF_ShapeInferenceContext ctx{&op, &attrs, &inputs, std::vector<Shape>(num_outputs)};
  TF_Status fn_status;
  try {
    shape_fn(&ctx, &fn_status);
  } catch (const std::exception& e) {  // a C++ plugin's exception stops here
    SetStatus(&fn_status, TF_INTERNAL, std::string("the shape function threw: ") + e.what());
  }
  if (fn_status.code != TF_OK) {
    SetStatus(status, fn_status.code, op.name + " node '" + node_name + "': " + fn_status.message);
    return;
  }
  *outputs = std::move(ctx.outputs);
}

}  // namespace opgen
