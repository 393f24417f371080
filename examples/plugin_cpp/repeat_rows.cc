// RepeatRows(x: T matrix, times: int) -> y: [rows * times, cols]: each row of x repeated
// `times` times. Shows a shape function reading an attr and building a matrix shape, a
// stateful op with a label-free counter, and matrix<T>() views.
#include <atomic>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/lib/core/errors.h"

using namespace tensorflow;
using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

REGISTER_OP("RepeatRows")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("times: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
      int64_t times;
      TF_RETURN_IF_ERROR(c->GetAttr("times", &times));
      DimensionHandle rows;
      TF_RETURN_IF_ERROR(c->Multiply(c->Dim(x, 0), times, &rows));
      c->set_output(0, c->Matrix(rows, c->Dim(x, 1)));
      return OkStatus();
    });

template <typename T>
class RepeatRowsOp : public OpKernel {
 public:
  explicit RepeatRowsOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("times", &times_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsMatrix(x.shape()),
                errors::InvalidArgument("RepeatRows expects a matrix, got shape ",
                                        x.shape().DebugString()));
    const int64_t rows = x.dim_size(0), cols = x.dim_size(1);
    TensorShape out_shape;
    out_shape.AddDim(rows * times_);
    out_shape.AddDim(cols);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &y));
    auto in = x.matrix<T>();
    auto out = y->matrix<T>();
    for (int64_t r = 0; r < rows * times_; ++r)
      for (int64_t k = 0; k < cols; ++k) out(r, k) = in(r / times_, k);
  }

 private:
  int32 times_;
};

REGISTER_KERNEL_BUILDER(Name("RepeatRows").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        RepeatRowsOp<float>);
REGISTER_KERNEL_BUILDER(Name("RepeatRows").Device(DEVICE_CPU).TypeConstraint<int32>("T"),
                        RepeatRowsOp<int32>);

// CallCounter() -> count: int64 scalar, counting the kernel's runs: stateful, so a graph
// optimizer must neither fold nor merge it.
REGISTER_OP("CallCounter")
    .Output("count: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      return OkStatus();
    })
    .Doc("Counts the runs of its kernel.");

class CallCounterOp : public OpKernel {
 public:
  explicit CallCounterOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &out));
    out->scalar<int64_t>()() = ++count_;
  }

 private:
  std::atomic<int64_t> count_{0};
};

REGISTER_KERNEL_BUILDER(Name("CallCounter").Device(DEVICE_CPU), CallCounterOp);
