// ScaleAndShift(x: T) -> y: T, y = x * scale + shift, laid out as TensorFlow's custom-op
// guide lays out a kernel with CPU and GPU variants: a functor templated on the Eigen
// device, its CPU specialisation in scale_and_shift.cc, its GPU one in
// scale_and_shift.cu.cc (built with GOOGLE_CUDA defined, as TensorFlow's builds define it).
// The same three files build against TensorFlow and against opgen, whose
// unsupported/Eigen/CXX11/Tensor offers the devices (not Eigen's expressions).
#ifndef CPP_OPS_SCALE_AND_SHIFT_H_
#define CPP_OPS_SCALE_AND_SHIFT_H_

#include "unsupported/Eigen/CXX11/Tensor"

template <typename Device, typename T>
struct ScaleAndShiftFunctor {
  void operator()(const Device& d, int size, T scale, T shift, const T* in, T* out);
};

#if GOOGLE_CUDA
template <typename T>
struct ScaleAndShiftFunctor<Eigen::GpuDevice, T> {
  void operator()(const Eigen::GpuDevice& d, int size, T scale, T shift, const T* in, T* out);
};
#endif

#endif  // CPP_OPS_SCALE_AND_SHIFT_H_
