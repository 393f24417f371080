// What the CPU and CUDA kernels of CheckNumerics(V2) and EnsureShape share: their attrs,
// read once when the kernel is made, and TensorFlow's messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Bits of what a CheckNumerics scan found.
enum NumericsFound : unsigned { kFoundNaN = 1, kFoundPosInf = 2, kFoundNegInf = 4 };

inline void* CreateMessage(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* message = new std::string(StringAttr(ctx, "message", s.get()));
  if (TF_GetCode(s.get()) == TF_OK) return message;
  TF_OpKernelConstruction_Failure(ctx, s.get());
  delete message;
  return nullptr;
}
inline void DeleteMessage(void* p) { delete static_cast<std::string*>(p); }

// "<message> : Tensor had NaN values" and the like; "" when nothing was found. V1 says
// "Inf" for either sign, V2 lists -Inf, +Inf and NaN in that order.
inline std::string NumericsMessage(unsigned found, bool v2, const std::string& message) {
  if (found == 0) return "";
  std::vector<std::string> kinds;
  if (v2) {
    if (found & kFoundNegInf) kinds.push_back("-Inf");
    if (found & kFoundPosInf) kinds.push_back("+Inf");
  } else if (found & (kFoundNegInf | kFoundPosInf)) {
    kinds.push_back("Inf");
  }
  if (found & kFoundNaN) kinds.push_back("NaN");
  std::string what = kinds[0];
  if (kinds.size() == 2) what += " and " + kinds[1];
  if (kinds.size() == 3) what += ", " + kinds[1] + ", and " + kinds[2];
  return message + " : Tensor had " + what + " values";
}

// EnsureShape's `shape` attr: an unknown rank, or dims with -1 for unknown sizes.
struct ExpectedShape {
  bool unknown_rank = true;
  std::vector<int64_t> dims;
};

inline void* CreateExpectedShape(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int32_t list_size = 0, rank = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "shape", &list_size, &rank, s.get());
  auto* shape = new ExpectedShape;
  if (TF_GetCode(s.get()) == TF_OK && rank >= 0) {
    shape->unknown_rank = false;
    shape->dims.resize(rank);
    TF_OpKernelConstruction_GetAttrTensorShape(ctx, "shape", shape->dims.data(), rank, s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK) return shape;
  TF_OpKernelConstruction_Failure(ctx, s.get());
  delete shape;
  return nullptr;
}
inline void DeleteExpectedShape(void* p) { delete static_cast<ExpectedShape*>(p); }

// Whether `dims` fits `expected`; reports TensorFlow's message when it does not.
inline bool CheckExpectedShape(TF_OpKernelContext* ctx, const ExpectedShape& expected,
                               const std::vector<int64_t>& dims) {
  if (expected.unknown_rank) return true;
  bool fits = expected.dims.size() == dims.size();
  for (size_t i = 0; fits && i < dims.size(); ++i)
    fits = expected.dims[i] < 0 || expected.dims[i] == dims[i];
  if (fits) return true;
  std::string want = "[";
  for (size_t i = 0; i < expected.dims.size(); ++i)
    want += (i ? "," : "") + (expected.dims[i] < 0 ? std::string("?")
                                                   : std::to_string(expected.dims[i]));
  Fail(ctx, TF_INVALID_ARGUMENT, "Shape of tensor input " + ShapeString(dims) +
                                     " is not compatible with expected shape " + want + "].");
  return false;
}

}  // namespace kernels
}  // namespace opgen
