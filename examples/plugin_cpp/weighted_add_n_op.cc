// WeightedAddN(values: N * T, weights: list(float)) -> sum: T: every value must have one
// shape, merged by the shape function.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

REGISTER_OP("WeightedAddN")
    .Input("values: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double}")
    .Attr("weights: list(float)")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle merged = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        TF_RETURN_IF_ERROR(c->Merge(merged, c->input(i), &merged));
      }
      c->set_output(0, merged);
      return absl::OkStatus();
    });

}  // namespace tensorflow
