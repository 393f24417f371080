// FillShaped() -> y: T of the shape attr `shape`, every element `value`. Shows a shape attr
// read in a kernel's constructor, and a shape function reading a float attr (to refuse a
// value that is not finite before the graph runs) and a shape attr.
#include <cmath>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/lib/core/errors.h"

using namespace tensorflow;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

REGISTER_OP("FillShaped")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("shape: shape")
    .Attr("value: float = 0")
    .SetShapeFn([](InferenceContext* c) {
      float value;
      TF_RETURN_IF_ERROR(c->GetAttr("value", &value));
      if (!std::isfinite(value))
        return errors::InvalidArgument("FillShaped needs a finite value, got ", value);
      TensorShape shape;
      TF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromTensorShape(shape, &out));
      c->set_output(0, out);
      return OkStatus();
    });

template <typename T>
class FillShapedOp : public OpKernel {
 public:
  explicit FillShapedOp(OpKernelConstruction* context) : OpKernel(context) {
    // Fails (and so does the kernel's creation) unless the shape is fully defined.
    OP_REQUIRES_OK(context, context->GetAttr("shape", &shape_));
    float value;
    OP_REQUIRES_OK(context, context->GetAttr("value", &value));
    value_ = static_cast<T>(value);
  }

  void Compute(OpKernelContext* context) override {
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape_, &y));
    auto out = y->flat<T>();
    for (int64_t i = 0; i < out.size(); ++i) out(i) = value_;
  }

 private:
  TensorShape shape_;
  T value_;
};

REGISTER_KERNEL_BUILDER(Name("FillShaped").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FillShapedOp<float>);
REGISTER_KERNEL_BUILDER(Name("FillShaped").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        FillShapedOp<double>);
