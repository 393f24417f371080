// PartialShapeDims() -> (dims: int64, rank: int32): the dims of shape attr `shape` read as a
// PartialTensorShape in the kernel's constructor (-1 for an unknown dim; no dims and rank
// -1 for an unknown rank), where a TensorShape would refuse the unknowns.
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor_shape.h"

using namespace tensorflow;

REGISTER_OP("PartialShapeDims")
    .Output("dims: int64")
    .Output("rank: int32")
    .Attr("shape: shape")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->Vector(shape_inference::InferenceContext::kUnknownDim));
      c->set_output(1, c->Scalar());
      return OkStatus();
    });

class PartialShapeDimsOp : public OpKernel {
 public:
  explicit PartialShapeDimsOp(OpKernelConstruction* context) : OpKernel(context) {
    PartialTensorShape shape;
    OP_REQUIRES_OK(context, context->GetAttr("shape", &shape));
    rank_ = shape.unknown_rank() ? -1 : shape.dims();
    for (int i = 0; i < shape.dims(); ++i) dims_.push_back(shape.dim_size(i));
  }

  void Compute(OpKernelContext* context) override {
    Tensor* dims = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({static_cast<int64_t>(dims_.size())}), &dims));
    for (size_t i = 0; i < dims_.size(); ++i) dims->flat<int64_t>()(i) = dims_[i];
    Tensor* rank = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({}), &rank));
    rank->scalar<int32>()() = rank_;
  }

 private:
  std::vector<int64_t> dims_;
  int32 rank_ = -1;
};

REGISTER_KERNEL_BUILDER(Name("PartialShapeDims").Device(DEVICE_CPU), PartialShapeDimsOp);
