// AsyncAddOne(x: int64) -> (y: int64): x + 1, computed on a thread of the kernel's own that
// calls `done` when the output is written. Shows an AsyncOpKernel with ComputeAsync and
// OP_REQUIRES_ASYNC / OP_REQUIRES_OK_ASYNC, which call `done` on failure.
#include <thread>
#include <utility>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("AsyncAddOne")
    .Input("x: int64")
    .Output("y: int64")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return OkStatus();
    });

class AsyncAddOneOp : public AsyncOpKernel {
 public:
  explicit AsyncAddOneOp(OpKernelConstruction* context) : AsyncOpKernel(context) {}

  void ComputeAsync(OpKernelContext* context, DoneCallback done) override {
    const Tensor& x = context->input(0);
    OP_REQUIRES_ASYNC(context, x.NumElements() > 0,
                      errors::InvalidArgument("AsyncAddOne needs a non-empty input"), done);
    Tensor* y = nullptr;
    OP_REQUIRES_OK_ASYNC(context, context->allocate_output(0, x.shape(), &y), done);
    std::thread([x, y, done = std::move(done)] {
      auto in = x.flat<int64_t>();
      auto out = y->flat<int64_t>();
      for (int64_t i = 0; i < in.size(); ++i) out(i) = in(i) + 1;
      done();
    }).detach();
  }
};

REGISTER_KERNEL_BUILDER(Name("AsyncAddOne").Device(DEVICE_CPU), AsyncAddOneOp);
