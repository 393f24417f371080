// Operand checks of ApproximateEqual, Cross and PopulationCount's bit counting, on the
// host: shared by the CPU kernels and the CUDA plugin's. Messages are TensorFlow's.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// ---- ApproximateEqual ---------------------------------------------------------------

struct ApproximateEqualAttrs { float tolerance = 1e-5f; };
inline void* CreateApproximateEqual(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new ApproximateEqualAttrs;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "tolerance", &attrs->tolerance, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteApproximateEqual(void* p) { delete static_cast<ApproximateEqualAttrs*>(p); }

// x and y of one shape (no broadcasting); false after reporting.
inline bool PlanApproximateEqual(TF_OpKernelContext* ctx, TensorPtr* x, TensorPtr* y,
                                 std::vector<int64_t>* dims) {
  *x = Input(ctx, 0);
  *y = Input(ctx, 1);
  if (!*x || !*y) return false;
  *dims = Dims(x->get());
  if (*dims != Dims(y->get())) {
    Fail(ctx, TF_INVALID_ARGUMENT, "x and y must be of the same shape. x shape: " +
                                       ShapeString(*dims) + ". y shape: " +
                                       ShapeString(Dims(y->get())));
    return false;
  }
  return true;
}

// ---- Cross -------------------------------------------------------------------------------

// a and b as [rows, 3].
struct CrossPlan {
  TensorPtr a, b;
  std::vector<int64_t> dims;
  int64_t rows = 0;
};

inline bool PlanCross(TF_OpKernelContext* ctx, CrossPlan* p) {
  p->a = Input(ctx, 0);
  p->b = Input(ctx, 1);
  if (!p->a || !p->b) return false;
  p->dims = Dims(p->a.get());
  const std::vector<int64_t> b_dims = Dims(p->b.get());
  if (p->dims != b_dims) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Both inputs must be of same shape: " + ShapeString(p->dims) +
                                       " vs. " + ShapeString(b_dims));
    return false;
  }
  if (p->dims.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input must be at least 1D" + ShapeString(p->dims));
    return false;
  }
  if (p->dims.back() != 3) {
    Fail(ctx, TF_FAILED_PRECONDITION, "Cross-products are only defined for 3-element vectors.");
    return false;
  }
  p->rows = NumElements(p->dims) / 3;
  return true;
}

// ---- PopulationCount -----------------------------------------------------------------

// The one bits of an integer of any width (its two's-complement bits for signed ones).
template <typename T>
inline OPGEN_HD uint8_t PopCount(T v) {
  using U = std::make_unsigned_t<T>;
  uint64_t bits = static_cast<uint64_t>(static_cast<U>(v));
  uint8_t n = 0;
  while (bits) {
    bits &= bits - 1;
    ++n;
  }
  return n;
}

}  // namespace kernels
}  // namespace opgen
