// Range's operands checked and its length worked out, on the host: shared by the CPU
// kernel and the CUDA plugin's (start, limit and delta are host-memory scalars there).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Reads the operands start, limit and delta, and sets `*n`, the number of values; false
// after reporting the failure.
template <typename T>
bool PlanRange(TF_OpKernelContext* ctx, T* start, T* delta, int64_t* n) {
  TensorPtr start_t = Input(ctx, 0), limit_t = Input(ctx, 1), delta_t = Input(ctx, 2);
  if (!start_t || !limit_t || !delta_t) return false;
  for (const TensorPtr* t : {&start_t, &limit_t, &delta_t}) {
    if (TF_NumDims(t->get()) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Range: start, limit and delta must be scalars");
      return false;
    }
  }
  *start = *Data<T>(start_t);
  *delta = *Data<T>(delta_t);
  const T limit = *Data<T>(limit_t);
  if (*delta == T(0) || (*delta > T(0) && *start > limit) || (*delta < T(0) && *start < limit)) {
    Fail(ctx, TF_INVALID_ARGUMENT, *delta == T(0) ? "Range: delta must not be 0"
                                                  : "Range: delta moves start away from limit");
    return false;
  }
  if constexpr (std::is_integral_v<T>) {
    *n = (std::abs(static_cast<int64_t>(limit - *start)) + std::abs(static_cast<int64_t>(*delta)) - 1) /
         std::abs(static_cast<int64_t>(*delta));
  } else {
    *n = static_cast<int64_t>(std::ceil(std::abs((limit - *start) / *delta)));
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
