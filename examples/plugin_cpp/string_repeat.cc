// StringRepeat(input: string) -> (output: string, lengths: int32): each string repeated
// `times` times, joined by `separator`, and the byte length of each result. Shows string
// tensors in a kernel: reading flat<tstring>() of an input, allocating a DT_STRING output
// and assigning its elements, and a string temporary.
#include <string>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("StringRepeat")
    .Input("input: string")
    .Output("output: string")
    .Output("lengths: int32")
    .Attr("times: int >= 0")
    .Attr("separator: string = ''")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      c->set_output(1, c->input(0));
      return OkStatus();
    });

class StringRepeatOp : public OpKernel {
 public:
  explicit StringRepeatOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("times", &times_));
    OP_REQUIRES_OK(context, context->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    auto in = input.flat<tstring>();
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, input.shape(), &output));
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, input.shape(), &lengths));
    // The joined strings are made in a temporary first, then moved out: both kinds of
    // element assignment.
    Tensor joined;
    OP_REQUIRES_OK(context, context->allocate_temp(DT_STRING, input.shape(), &joined));
    auto staged = joined.flat<tstring>();
    for (int64_t i = 0; i < in.size(); ++i) {
      OP_REQUIRES(context, in(i).size() * static_cast<size_t>(times_) <= (1u << 20),
                  errors::InvalidArgument("StringRepeat of a ", in(i).size(),
                                          "-byte string ", times_, " times is over 1 MiB"));
      for (int64 k = 0; k < times_; ++k) {
        if (k > 0) staged(i).append(separator_);
        staged(i).append(in(i).data(), in(i).size());
      }
    }
    auto out = output->flat<tstring>();
    auto n = lengths->flat<int32>();
    for (int64_t i = 0; i < in.size(); ++i) {
      out(i) = std::move(staged(i));
      n(i) = static_cast<int32>(out(i).size());
    }
  }

 private:
  int64 times_ = 0;
  std::string separator_;
};

REGISTER_KERNEL_BUILDER(Name("StringRepeat").Device(DEVICE_CPU), StringRepeatOp);
