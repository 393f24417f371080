// The kernel of WeightedAddN (registered in weighted_add_n_op.cc, which this library may
// load after this file): a list input `values: N * T`, read with input_list.
#include <vector>

#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

template <typename T>
class WeightedAddNOp : public OpKernel {
 public:
  explicit WeightedAddNOp(OpKernelConstruction* context) : OpKernel(context) {
    int n = 0;
    OP_REQUIRES_OK(context, context->GetAttr("N", &n));
    OP_REQUIRES_OK(context, context->GetAttr("weights", &weights_));
    OP_REQUIRES(context, static_cast<int>(weights_.size()) == n,
                errors::InvalidArgument("WeightedAddN got ", weights_.size(), " weights for ", n,
                                        " values"));
  }

  void Compute(OpKernelContext* context) override {
    OpInputList values;
    OP_REQUIRES_OK(context, context->input_list("values", &values));
    const TensorShape& shape = values[0].shape();
    for (int i = 1; i < values.size(); ++i) {
      OP_REQUIRES(context, values[i].shape() == shape,
                  errors::InvalidArgument("WeightedAddN needs values of one shape: value ", i,
                                          " has shape ", values[i].shape().DebugString(),
                                          ", value 0 ", shape.DebugString()));
    }
    Tensor* sum = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &sum));
    auto out = sum->flat<T>();
    out.setZero();
    for (int i = 0; i < values.size(); ++i) {
      auto x = values[i].flat<T>();
      for (int64_t j = 0; j < out.size(); ++j) out(j) += static_cast<T>(weights_[i]) * x(j);
    }
  }

 private:
  std::vector<float> weights_;
};

REGISTER_KERNEL_BUILDER(Name("WeightedAddN").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        WeightedAddNOp<float>);
REGISTER_KERNEL_BUILDER(Name("WeightedAddN").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        WeightedAddNOp<double>);
