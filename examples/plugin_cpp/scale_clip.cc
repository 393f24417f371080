// ScaleClip: a type-polymorphic op with float attrs checked in the kernel's constructor,
// written as TensorFlow's guide teaches ("Polymorphism", "Attrs"):
//   y = min(max(x * scale, -limit), limit)
#include <algorithm>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

REGISTER_OP("ScaleClip")
    .Attr("T: {float, double, int32, int64}")
    .Attr("scale: float = 1.0")
    .Attr("limit: float")
    .Input("x: T")
    .Output("y: T")
    .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);

template <typename T>
class ScaleClipOp : public OpKernel {
 public:
  explicit ScaleClipOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("scale", &scale_));
    OP_REQUIRES_OK(context, context->GetAttr("limit", &limit_));
    OP_REQUIRES(context, limit_ > 0.0f,
                errors::InvalidArgument("ScaleClip needs limit > 0, got ", limit_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    auto in = x.flat<T>();
    auto out = y->flat<T>();
    const double hi = limit_, lo = -static_cast<double>(limit_);
    for (int64_t i = 0; i < in.size(); ++i) {
      const double v = static_cast<double>(in(i)) * static_cast<double>(scale_);
      out(i) = static_cast<T>(std::min(std::max(v, lo), hi));
    }
  }

 private:
  float scale_;
  float limit_;
};

#define REGISTER_CPU(T) \
  REGISTER_KERNEL_BUILDER(Name("ScaleClip").Device(DEVICE_CPU).TypeConstraint<T>("T"), ScaleClipOp<T>);
REGISTER_CPU(float);
REGISTER_CPU(double);
REGISTER_CPU(int32);
REGISTER_CPU(int64_t);
