// errors::InvalidArgument(...) and friends: a Status whose message is the arguments
// concatenated as TensorFlow's StrCat does (integers in decimal, floating point with six
// significant digits, anything else through operator<<).
#ifndef TENSORFLOW_CORE_PLATFORM_ERRORS_H_
#define TENSORFLOW_CORE_PLATFORM_ERRORS_H_

#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>

#include "tensorflow/core/platform/status.h"

namespace tensorflow {
namespace strings {
namespace opgen_detail {
template <typename T>
void Append(std::string* out, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    *out += value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    *out += value;
  } else if constexpr (std::is_integral_v<T>) {
    *out += std::to_string(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(value));
    *out += buffer;
  } else if constexpr (std::is_enum_v<T>) {
    *out += std::to_string(static_cast<long long>(value));
  } else if constexpr (std::is_convertible_v<const T&, std::string>) {
    *out += std::string(value);
  } else {
    std::ostringstream stream;
    stream << value;
    *out += stream.str();
  }
}
}  // namespace opgen_detail

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (opgen_detail::Append(&out, args), ...);
  return out;
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (opgen_detail::Append(out, args), ...);
}
}  // namespace strings

namespace errors {
#define OPGEN_DECLARE_ERROR(FUNC, CODE)                                          \
  template <typename... Args>                                                    \
  ::tensorflow::Status FUNC(const Args&... args) {                               \
    return ::tensorflow::Status(::tensorflow::error::CODE,                       \
                                ::tensorflow::strings::StrCat(args...));         \
  }                                                                              \
  inline bool Is##FUNC(const ::tensorflow::Status& status) {                     \
    return status.code() == ::tensorflow::error::CODE;                           \
  }
OPGEN_DECLARE_ERROR(Cancelled, CANCELLED)
OPGEN_DECLARE_ERROR(InvalidArgument, INVALID_ARGUMENT)
OPGEN_DECLARE_ERROR(NotFound, NOT_FOUND)
OPGEN_DECLARE_ERROR(AlreadyExists, ALREADY_EXISTS)
OPGEN_DECLARE_ERROR(ResourceExhausted, RESOURCE_EXHAUSTED)
OPGEN_DECLARE_ERROR(Unavailable, UNAVAILABLE)
OPGEN_DECLARE_ERROR(FailedPrecondition, FAILED_PRECONDITION)
OPGEN_DECLARE_ERROR(OutOfRange, OUT_OF_RANGE)
OPGEN_DECLARE_ERROR(Unimplemented, UNIMPLEMENTED)
OPGEN_DECLARE_ERROR(Internal, INTERNAL)
OPGEN_DECLARE_ERROR(Aborted, ABORTED)
OPGEN_DECLARE_ERROR(DeadlineExceeded, DEADLINE_EXCEEDED)
OPGEN_DECLARE_ERROR(DataLoss, DATA_LOSS)
OPGEN_DECLARE_ERROR(Unknown, UNKNOWN)
OPGEN_DECLARE_ERROR(PermissionDenied, PERMISSION_DENIED)
OPGEN_DECLARE_ERROR(Unauthenticated, UNAUTHENTICATED)
#undef OPGEN_DECLARE_ERROR
}  // namespace errors
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PLATFORM_ERRORS_H_
