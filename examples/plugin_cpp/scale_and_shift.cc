// The op, its kernel class and its CPU functor (scale_and_shift.h says how the files fit).
#define EIGEN_USE_THREADS

#include "scale_and_shift.h"

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

using CPUDevice = Eigen::ThreadPoolDevice;
using GPUDevice = Eigen::GpuDevice;

REGISTER_OP("ScaleAndShift")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double, int32}")
    .Attr("scale: float = 2.0")
    .Attr("shift: float = 0.0")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return OkStatus();
    });

// The CPU functor: a plain loop on the thread running the kernel.
template <typename T>
struct ScaleAndShiftFunctor<CPUDevice, T> {
  void operator()(const CPUDevice&, int size, T scale, T shift, const T* in, T* out) {
    for (int i = 0; i < size; ++i) out[i] = in[i] * scale + shift;
  }
};

// One kernel class for both devices; the device picks the functor.
template <typename Device, typename T>
class ScaleAndShiftOp : public OpKernel {
 public:
  explicit ScaleAndShiftOp(OpKernelConstruction* context) : OpKernel(context) {
    float scale, shift;
    OP_REQUIRES_OK(context, context->GetAttr("scale", &scale));
    OP_REQUIRES_OK(context, context->GetAttr("shift", &shift));
    scale_ = static_cast<T>(scale);
    shift_ = static_cast<T>(shift);
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    OP_REQUIRES(context, x.NumElements() <= tensorflow::kint32max,
                errors::InvalidArgument("ScaleAndShift takes at most 2^31 - 1 elements, got ",
                                        x.NumElements()));
    ScaleAndShiftFunctor<Device, T>()(context->eigen_device<Device>(),
                                      static_cast<int>(x.NumElements()), scale_, shift_,
                                      x.flat<T>().data(), y->flat<T>().data());
  }

 private:
  T scale_;
  T shift_;
};

#define REGISTER_CPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ScaleAndShift").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ScaleAndShiftOp<CPUDevice, T>);
REGISTER_CPU(float);
REGISTER_CPU(double);
REGISTER_CPU(int32);

#if GOOGLE_CUDA
// The GPU functors are instantiated in scale_and_shift.cu.cc.
#define REGISTER_GPU(T)                                                       \
  extern template struct ScaleAndShiftFunctor<GPUDevice, T>;                  \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ScaleAndShift").Device(DEVICE_GPU).TypeConstraint<T>("T"),        \
      ScaleAndShiftOp<GPUDevice, T>);
REGISTER_GPU(float);
REGISTER_GPU(double);
REGISTER_GPU(int32);
#endif  // GOOGLE_CUDA
