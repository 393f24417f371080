// FunctionName() -> (name: uint8, num_attrs: int32): the bytes of func attr `f`'s function
// name and how many attrs it is instantiated with. Shows a func attr read in a kernel's
// constructor as a NameAttrList (what ops calling a function, such as a map over a
// dataset, do before they instantiate it).
#include <string>

#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("FunctionName")
    .Output("name: uint8")
    .Output("num_attrs: int32")
    .Attr("f: func")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->Vector(shape_inference::InferenceContext::kUnknownDim));
      c->set_output(1, c->Scalar());
      return OkStatus();
    });

class FunctionNameOp : public OpKernel {
 public:
  explicit FunctionNameOp(OpKernelConstruction* context) : OpKernel(context) {
    NameAttrList f;
    OP_REQUIRES_OK(context, context->GetAttr("f", &f));
    OP_REQUIRES(context, !f.name().empty(),
                errors::InvalidArgument("FunctionName needs a function, got an empty name"));
    name_ = f.name();
    num_attrs_ = static_cast<int32>(f.attr().size());
  }

  void Compute(OpKernelContext* context) override {
    Tensor* name = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({static_cast<int64_t>(name_.size())}), &name));
    auto bytes = name->flat<uint8>();
    for (size_t i = 0; i < name_.size(); ++i) bytes(i) = static_cast<uint8>(name_[i]);
    Tensor* num_attrs = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({}), &num_attrs));
    num_attrs->scalar<int32>()() = num_attrs_;
  }

 private:
  std::string name_;
  int32 num_attrs_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("FunctionName").Device(DEVICE_CPU), FunctionNameOp);
