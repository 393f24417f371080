// Shape inference for one graph node: runs the shape function its op was registered
// with, and the testing hook that reaches it without a graph.
#include "shape_inference.h"

#include <string>

#include "node_attrs.h"
#include "op_registry.h"
#include "opgen/c_api_ext.h"
#include "shape_inference_context.h"
#include "tensorflow/c/tf_buffer.h"
#include "wire_format.h"

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

extern "C" {

TF_Buffer* OPGEN_InferShapesForTesting(
    const char* op_name, const char* node_name, const char* const* attr_names,
    const void* const* attr_values, const size_t* attr_value_lengths, int num_attrs,
    const int* input_arg_sizes, int num_input_args, const TF_DataType* input_dtypes,
    const int* input_num_dims, const int64_t* input_dims, TF_Tensor* const* input_values,
    TF_Status* status) {
  using namespace opgen;
  try {
    if (!EnsureRuntimeInitialized(status)) return nullptr;
    const OpDef* op = OpRegistry::Global().Find(op_name);
    if (op == nullptr) {
      SetStatus(status, TF_NOT_FOUND, std::string("Op type not registered '") + op_name + "'");
      return nullptr;
    }
    AttrMap attrs;
    for (int k = 0; k < num_attrs; ++k) {
      std::string error;
      std::string bytes(static_cast<const char*>(attr_values[k]), attr_value_lengths[k]);
      if (!ParseAttrValue(bytes, &attrs[attr_names[k]], &error)) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  std::string("attr '") + attr_names[k] + "': " + error);
        return nullptr;
      }
    }
    InputDtypes dtypes;
    std::vector<ShapeInferenceInput> inputs;
    for (int a = 0; a < num_input_args; ++a) {
      dtypes.emplace_back();
      for (int j = 0; j < input_arg_sizes[a]; ++j) {
        const size_t i = inputs.size();
        dtypes.back().push_back(input_dtypes[i]);
        ShapeInferenceInput in;
        in.shape.unknown_rank = input_num_dims[i] < 0;
        if (!in.shape.unknown_rank) {
          in.shape.dims.assign(input_dims, input_dims + input_num_dims[i]);
          input_dims += input_num_dims[i];
        }
        in.value = input_values != nullptr ? input_values[i] : nullptr;
        inputs.push_back(std::move(in));
      }
    }
    CompleteAttrs(*op, dtypes, &attrs, status);
    if (status->code != TF_OK) return nullptr;
    std::vector<Shape> outputs;
    InferOutputShapes(*op, node_name, attrs, inputs, OutputDtypes(*op, attrs).size(), &outputs,
                      status);
    if (status->code != TF_OK) return nullptr;
    AttrValue result;
    result.kind = AttrValue::kListShape;
    result.list_shape = std::move(outputs);
    const std::string bytes = SerializeAttrValue(result);
    return TF_NewBufferFromString(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

}  // extern "C"
