// MatrixBandPart and Bucketize: checks, attrs and the per-element rule, shared by the CPU
// kernels and the CUDA plugin's.
//
// MatrixBandPart keeps, in each innermost [rows, cols] matrix, element [i, j] where
// (lower < 0 or i - j <= lower) and (upper < 0 or j - i <= upper), and zeroes the rest;
// causal attention masks are built from it. Bucketize gives each value the index of the
// first boundary above it (Keras' Discretization layer).
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct BandPlan {
  TensorPtr input;
  std::vector<int64_t> dims;
  int64_t rows = 0, cols = 0, lower = 0, upper = 0;
};

// num_lower and num_upper are host memory on every device.
inline bool PlanMatrixBand(TF_OpKernelContext* ctx, BandPlan* plan) {
  TensorPtr input = Input(ctx, 0), lower = Input(ctx, 1), upper = Input(ctx, 2);
  if (!input || !lower || !upper) return false;
  const std::vector<int64_t> dims = Dims(input.get());
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "MatrixBandPart: input must be at least 2-D, got " + ShapeString(dims));
    return false;
  }
  if (TF_NumDims(lower.get()) != 0 || TF_NumDims(upper.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "MatrixBandPart: num_lower and num_upper must be scalars");
    return false;
  }
  plan->rows = dims[dims.size() - 2];
  plan->cols = dims.back();
  plan->lower = IndexValues(lower.get())[0];
  plan->upper = IndexValues(upper.get())[0];
  if (plan->lower > plan->rows) {
    Fail(ctx, TF_INVALID_ARGUMENT, "MatrixBandPart: num_lower must be negative or at most the "
         "number of rows (" + std::to_string(plan->rows) + "), got " + std::to_string(plan->lower));
    return false;
  }
  if (plan->upper > plan->cols) {
    Fail(ctx, TF_INVALID_ARGUMENT, "MatrixBandPart: num_upper must be negative or at most the "
         "number of columns (" + std::to_string(plan->cols) + "), got " + std::to_string(plan->upper));
    return false;
  }
  plan->dims = dims;
  plan->input = std::move(input);
  return true;
}

OPGEN_HD inline bool InBand(int64_t i, int64_t j, int64_t lower, int64_t upper) {
  return (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
}

// The sorted boundaries attr.
inline void* CreateBucketize(TF_OpKernelConstruction* ctx) {
  auto* b = new std::vector<float>();
  StatusPtr s = NewStatus();
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "boundaries", &size, &total, s.get());
  if (TF_GetCode(s.get()) == TF_OK && size > 0) {
    b->resize(size);
    TF_OpKernelConstruction_GetAttrFloatList(ctx, "boundaries", b->data(), size, s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK && !std::is_sorted(b->begin(), b->end()))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "Bucketize: boundaries must be sorted");
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return b;
}
inline void DeleteBucketize(void* p) { delete static_cast<std::vector<float>*>(p); }

// The number of boundaries <= x (a binary search). The comparison promotes as C++ does:
// an integer against a float boundary in float, a double against it in double.
template <typename T>
OPGEN_HD inline int32_t BucketOf(T x, const float* bounds, int64_t n) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (x < bounds[mid]) hi = mid;
    else lo = mid + 1;
  }
  return static_cast<int32_t>(lo);
}

}  // namespace kernels
}  // namespace opgen
