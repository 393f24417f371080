// TensorFlow's TF_CALL_* macros, which custom ops use to register one kernel per dtype.
#ifndef TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_
#define TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_

#include "tensorflow/core/framework/types.h"

#define TF_CALL_float(m) m(float)
#define TF_CALL_double(m) m(double)
#define TF_CALL_int32(m) m(::tensorflow::int32)
#define TF_CALL_uint32(m) m(::tensorflow::uint32)
#define TF_CALL_int64(m) m(::tensorflow::int64)
#define TF_CALL_uint64(m) m(::tensorflow::uint64)
#define TF_CALL_int16(m) m(::tensorflow::int16)
#define TF_CALL_uint16(m) m(::tensorflow::uint16)
#define TF_CALL_int8(m) m(::tensorflow::int8)
#define TF_CALL_uint8(m) m(::tensorflow::uint8)
#define TF_CALL_bool(m) m(bool)
#define TF_CALL_half(m) m(Eigen::half)
#define TF_CALL_bfloat16(m) m(::tensorflow::bfloat16)
#define TF_CALL_complex64(m) m(::tensorflow::complex64)
#define TF_CALL_complex128(m) m(::tensorflow::complex128)

#define TF_CALL_INTEGRAL_TYPES_NO_INT32(m) \
  TF_CALL_uint64(m) TF_CALL_int64(m) TF_CALL_uint32(m) TF_CALL_uint16(m) TF_CALL_int16(m) \
  TF_CALL_uint8(m) TF_CALL_int8(m)
#define TF_CALL_INTEGRAL_TYPES(m) TF_CALL_INTEGRAL_TYPES_NO_INT32(m) TF_CALL_int32(m)
#define TF_CALL_FLOAT_TYPES(m) TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_REAL_NUMBER_TYPES(m) TF_CALL_INTEGRAL_TYPES(m) TF_CALL_FLOAT_TYPES(m)
#define TF_CALL_COMPLEX_TYPES(m) TF_CALL_complex64(m) TF_CALL_complex128(m)
#define TF_CALL_NUMBER_TYPES(m) TF_CALL_REAL_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m)
#define TF_CALL_GPU_NUMBER_TYPES(m) TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)

#endif  // TENSORFLOW_CORE_FRAMEWORK_REGISTER_TYPES_H_
