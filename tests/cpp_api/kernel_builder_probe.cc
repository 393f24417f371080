// Two kernels of one op for the same device and type, told apart by what they output:
// REGISTER_KERNEL_BUILDER's Priority must pick the second; Label and HostMemory must reach
// the registry. Also TypeConstraint with a list of types (one kernel per type).
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

using namespace tensorflow;

REGISTER_OP("CppKernelBuilderProbe")
    .Input("x: T")
    .Output("which: int32")
    .Attr("T: {float, double, int32}")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

template <int kWhich>
class WhichKernel : public OpKernel {
 public:
  explicit WhichKernel(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &out));
    out->scalar<int32>()() = kWhich;
  }
};

REGISTER_KERNEL_BUILDER(Name("CppKernelBuilderProbe").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        WhichKernel<1>);
REGISTER_KERNEL_BUILDER(Name("CppKernelBuilderProbe").Device(DEVICE_CPU).TypeConstraint<float>("T")
                            .Priority(5).HostMemory("x"),
                        WhichKernel<2>);
REGISTER_KERNEL_BUILDER(Name("CppKernelBuilderProbe").Device(DEVICE_CPU).TypeConstraint<float>("T")
                            .Label("third"),
                        WhichKernel<3>);
REGISTER_KERNEL_BUILDER(Name("CppKernelBuilderProbe").Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_DOUBLE, DT_INT32}),
                        WhichKernel<4>);
