// The TF_DataType of each C++ element type, one table for every kernel library of
// opgen (the built-in CPU kernels and the CUDA plugin). 16-bit floats have no standard
// C++ type: each device stores them in a type of its own (CPU: dtypes.h's Half and
// BFloat16 bit structs; CUDA: __half and __nv_bfloat16) and names it here with
// OPGEN_FLOAT16_DTYPES, next to where the type is defined.
#pragma once

#include <complex>
#include <cstdint>

#include "tensorflow/c/tf_datatype.h"

namespace opgen {
namespace kernels {

template <typename T> struct DtypeOf;  // DtypeOf<float>::value == TF_FLOAT

#define OPGEN_DTYPE_OF(type, enum_value) \
  template <> struct DtypeOf<type> { static constexpr TF_DataType value = enum_value; }
OPGEN_DTYPE_OF(float, TF_FLOAT);
OPGEN_DTYPE_OF(double, TF_DOUBLE);
OPGEN_DTYPE_OF(int8_t, TF_INT8);
OPGEN_DTYPE_OF(int16_t, TF_INT16);
OPGEN_DTYPE_OF(int32_t, TF_INT32);
OPGEN_DTYPE_OF(int64_t, TF_INT64);
OPGEN_DTYPE_OF(uint8_t, TF_UINT8);
OPGEN_DTYPE_OF(uint16_t, TF_UINT16);
OPGEN_DTYPE_OF(uint32_t, TF_UINT32);
OPGEN_DTYPE_OF(uint64_t, TF_UINT64);
OPGEN_DTYPE_OF(bool, TF_BOOL);
OPGEN_DTYPE_OF(std::complex<float>, TF_COMPLEX64);
OPGEN_DTYPE_OF(std::complex<double>, TF_COMPLEX128);
#undef OPGEN_DTYPE_OF

}  // namespace kernels
}  // namespace opgen

// Names a device's storage types of half and bfloat16; used once per device, at global
// scope.
#define OPGEN_FLOAT16_DTYPES(half_type, bfloat16_type)                          \
  template <> struct opgen::kernels::DtypeOf<half_type> {                      \
    static constexpr TF_DataType value = TF_HALF;                              \
  };                                                                           \
  template <> struct opgen::kernels::DtypeOf<bfloat16_type> {                  \
    static constexpr TF_DataType value = TF_BFLOAT16;                          \
  }
