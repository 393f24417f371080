// Shape inference entry point. Until ops carry shape functions, every output's shape is
// unknown; graph construction treats unknown shapes as "check at run time".
#include "shape_inference.h"

namespace opgen {

void InferOutputShapes(const OpDef& op, const std::string& node_name, const AttrMap& attrs,
                       const std::vector<ShapeInferenceInput>& inputs, size_t num_outputs,
                       std::vector<Shape>* outputs, TF_Status* status) {
  outputs->assign(num_outputs, Shape());
  ClearStatus(status);
}

}  // namespace opgen
