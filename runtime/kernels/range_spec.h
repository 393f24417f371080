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

// The number of values of Range(start, limit, delta), or the reason there is none (null
// when `*n` is set). Shared with Range's shape function, so graphs and kernels agree.
// Integers are measured as unsigned 64-bit magnitudes, exact for every integer type
// (limit - start in T itself overflows for spans past T's range); floats must be finite.
template <typename T>
const char* RangeCount(T start, T limit, T delta, int64_t* n) {
  if constexpr (std::is_integral_v<T>) {
    if (delta == T(0)) return "delta must not be 0";
    if ((delta > T(0) && start > limit) || (delta < T(0) && start < limit))
      return "delta moves start away from limit";
    const uint64_t span = start < limit ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                        : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step = delta < T(0) ? uint64_t(0) - static_cast<uint64_t>(delta)
                                       : static_cast<uint64_t>(delta);
    const uint64_t count = span / step + (span % step != 0);
    if (count > static_cast<uint64_t>(INT64_MAX)) return "more values than int64 counts";
    *n = static_cast<int64_t>(count);
  } else {
    const double s = static_cast<double>(start), l = static_cast<double>(limit),
                 d = static_cast<double>(delta);
    if (!std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
      return "start, limit and delta must be finite";
    if (d == 0) return "delta must not be 0";
    if ((d > 0 && s > l) || (d < 0 && s < l)) return "delta moves start away from limit";
    const double count = std::ceil(std::abs((l - s) / d));
    if (!(count < 9.2e18)) return "more values than int64 counts";  // also NaN, inf
    *n = static_cast<int64_t>(count);
  }
  return nullptr;
}

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
  if (const char* error = RangeCount(*start, *Data<T>(limit_t), *delta, n)) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string("Range: ") + error);
    return false;
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
