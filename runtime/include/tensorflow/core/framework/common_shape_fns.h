// TensorFlow's common shape functions that custom ops pass to SetShapeFn.
#ifndef TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_
#define TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_

#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {
namespace shape_inference {
inline Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return OkStatus();
}
inline Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}
inline Status ScalarShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->Scalar());
  return OkStatus();
}
inline Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->UnknownShape());
  return OkStatus();
}
inline Status NoOutputs(InferenceContext*) { return OkStatus(); }
}  // namespace shape_inference
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_
