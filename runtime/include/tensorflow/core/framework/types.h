// DataType, DataTypeToEnum<T> and device names for C++ custom ops built against opgen.
// DataType's numbers are TF_DataType's, which are TensorFlow's DataType enum.
#ifndef TENSORFLOW_CORE_FRAMEWORK_TYPES_H_
#define TENSORFLOW_CORE_FRAMEWORK_TYPES_H_

#include <string>

#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {

enum DataType {
  DT_INVALID = 0, DT_FLOAT = 1, DT_DOUBLE = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 5,
  DT_INT8 = 6, DT_STRING = 7, DT_COMPLEX64 = 8, DT_INT64 = 9, DT_BOOL = 10, DT_QINT8 = 11,
  DT_QUINT8 = 12, DT_QINT32 = 13, DT_BFLOAT16 = 14, DT_QINT16 = 15, DT_QUINT16 = 16,
  DT_UINT16 = 17, DT_COMPLEX128 = 18, DT_HALF = 19, DT_RESOURCE = 20, DT_VARIANT = 21,
  DT_UINT32 = 22, DT_UINT64 = 23,
};

// Device types as kernels are registered for them. Not inline: one copy per translation
// unit, rather than one object per process that every plugin would share.
constexpr char DEVICE_CPU[] = "CPU";
constexpr char DEVICE_GPU[] = "GPU";
constexpr char DEVICE_DEFAULT[] = "DEFAULT";

inline std::string DataTypeString(DataType dtype) {
  switch (dtype) {
    case DT_INVALID: return "invalid";
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_INT32: return "int32";
    case DT_UINT8: return "uint8";
    case DT_INT16: return "int16";
    case DT_INT8: return "int8";
    case DT_STRING: return "string";
    case DT_COMPLEX64: return "complex64";
    case DT_INT64: return "int64";
    case DT_BOOL: return "bool";
    case DT_QINT8: return "qint8";
    case DT_QUINT8: return "quint8";
    case DT_QINT32: return "qint32";
    case DT_BFLOAT16: return "bfloat16";
    case DT_QINT16: return "qint16";
    case DT_QUINT16: return "quint16";
    case DT_UINT16: return "uint16";
    case DT_COMPLEX128: return "complex128";
    case DT_HALF: return "half";
    case DT_RESOURCE: return "resource";
    case DT_VARIANT: return "variant";
    case DT_UINT32: return "uint32";
    case DT_UINT64: return "uint64";
  }
  return "unknown dtype " + std::to_string(static_cast<int>(dtype));
}

// Bytes of one element (0 for string, resource, variant).
inline int DataTypeSize(DataType dtype) {
  return static_cast<int>(TF_DataTypeSize(static_cast<TF_DataType>(dtype)));
}

namespace opgen_detail {
// Bytes of one element of a tensor's buffer: DataTypeSize, or a tstring for strings.
inline size_t ElementBytes(DataType dtype) {
  return dtype == DT_STRING ? sizeof(tstring) : static_cast<size_t>(DataTypeSize(dtype));
}
}  // namespace opgen_detail

template <typename T> struct DataTypeToEnum;  // undefined for unsupported types
template <DataType D> struct EnumToDataType;

#define OPGEN_MATCH_TYPE_AND_ENUM(TYPE, ENUM)                          \
  template <> struct DataTypeToEnum<TYPE> {                            \
    static constexpr DataType v() { return ENUM; }                     \
    static constexpr DataType value = ENUM;                            \
  };                                                                   \
  template <> struct EnumToDataType<ENUM> { typedef TYPE Type; };
OPGEN_MATCH_TYPE_AND_ENUM(float, DT_FLOAT)
OPGEN_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE)
OPGEN_MATCH_TYPE_AND_ENUM(int32, DT_INT32)
OPGEN_MATCH_TYPE_AND_ENUM(uint32, DT_UINT32)
OPGEN_MATCH_TYPE_AND_ENUM(uint16, DT_UINT16)
OPGEN_MATCH_TYPE_AND_ENUM(uint8, DT_UINT8)
OPGEN_MATCH_TYPE_AND_ENUM(int16, DT_INT16)
OPGEN_MATCH_TYPE_AND_ENUM(int8, DT_INT8)
OPGEN_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64)
OPGEN_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128)
OPGEN_MATCH_TYPE_AND_ENUM(int64, DT_INT64)
OPGEN_MATCH_TYPE_AND_ENUM(uint64, DT_UINT64)
OPGEN_MATCH_TYPE_AND_ENUM(bool, DT_BOOL)
OPGEN_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16)
OPGEN_MATCH_TYPE_AND_ENUM(Eigen::half, DT_HALF)
OPGEN_MATCH_TYPE_AND_ENUM(tstring, DT_STRING)
#undef OPGEN_MATCH_TYPE_AND_ENUM

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TYPES_H_
