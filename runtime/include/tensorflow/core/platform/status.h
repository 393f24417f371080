// tensorflow::Status for C++ custom ops built against opgen: a code (TF_Code's numbers,
// which are TensorFlow's) and a message, held in the plugin only. It reaches the runtime
// as a TF_Status through the C API, never as a C++ object.
#ifndef TENSORFLOW_CORE_PLATFORM_STATUS_H_
#define TENSORFLOW_CORE_PLATFORM_STATUS_H_

#include <ostream>
#include <string>
#include <utility>

#include "tensorflow/c/tf_status.h"

namespace tensorflow {
namespace error {
enum Code {
  OK = 0, CANCELLED = 1, UNKNOWN = 2, INVALID_ARGUMENT = 3, DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5, ALREADY_EXISTS = 6, PERMISSION_DENIED = 7, RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9, ABORTED = 10, OUT_OF_RANGE = 11, UNIMPLEMENTED = 12,
  INTERNAL = 13, UNAVAILABLE = 14, DATA_LOSS = 15, UNAUTHENTICATED = 16,
};
}  // namespace error

class Status {
 public:
  Status() = default;
  Status(error::Code code, std::string message)
      : code_(code), message_(code == error::OK ? std::string() : std::move(message)) {}
  static Status OK() { return Status(); }

  bool ok() const { return code_ == error::OK; }
  error::Code code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::string& error_message() const { return message_; }
  std::string ToString() const;
  void Update(const Status& other) { if (ok() && !other.ok()) *this = other; }
  void IgnoreError() const {}

  // Copies this status into a C API status.
  void CopyTo(TF_Status* status) const {
    TF_SetStatus(status, static_cast<TF_Code>(code_), message_.c_str());
  }
  static Status FromC(const TF_Status* status) {
    return Status(static_cast<error::Code>(TF_GetCode(status)), TF_Message(status));
  }

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }
  friend bool operator!=(const Status& a, const Status& b) { return !(a == b); }

 private:
  error::Code code_ = error::OK;
  std::string message_;
};

inline Status OkStatus() { return Status(); }

inline const char* ErrorCodeName(error::Code code) {
  switch (code) {
    case error::OK: return "OK";
    case error::CANCELLED: return "CANCELLED";
    case error::UNKNOWN: return "UNKNOWN";
    case error::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case error::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case error::NOT_FOUND: return "NOT_FOUND";
    case error::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case error::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case error::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case error::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case error::ABORTED: return "ABORTED";
    case error::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case error::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case error::INTERNAL: return "INTERNAL";
    case error::UNAVAILABLE: return "UNAVAILABLE";
    case error::DATA_LOSS: return "DATA_LOSS";
    case error::UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

inline std::string Status::ToString() const {
  return ok() ? std::string("OK") : std::string(ErrorCodeName(code_)) + ": " + message_;
}

inline std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

}  // namespace tensorflow

// Ops written for TensorFlow 2.1x spell the type and OK value through Abseil, whose
// tensorflow::Status is absl::Status. Define OPGEN_NO_ABSL_STATUS_ALIAS when the plugin
// includes Abseil itself.
#ifndef OPGEN_NO_ABSL_STATUS_ALIAS
namespace absl {
using Status = ::tensorflow::Status;
using StatusCode = ::tensorflow::error::Code;
inline Status OkStatus() { return Status(); }
}  // namespace absl
#endif

#define TF_RETURN_IF_ERROR(...)                                  \
  do {                                                           \
    ::tensorflow::Status opgen_status_ = (__VA_ARGS__);          \
    if (!opgen_status_.ok()) return opgen_status_;               \
  } while (0)

#define TF_CHECK_OK(...)                                                          \
  do {                                                                            \
    ::tensorflow::Status opgen_status_ = (__VA_ARGS__);                           \
    if (!opgen_status_.ok()) ::tensorflow::opgen_detail_fatal(opgen_status_);     \
  } while (0)

#include <cstdio>
#include <cstdlib>
namespace tensorflow {
[[noreturn]] inline void opgen_detail_fatal(const Status& s) {
  std::fprintf(stderr, "Check failed: %s\n", s.ToString().c_str());
  std::abort();
}
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PLATFORM_STATUS_H_
