// Bincount and DenseBincount: the checks and the output shape, shared by the CPU kernels
// and the CUDA plugin. `size` stays in host memory on both devices.
#pragma once

#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct BincountPlan {
  TensorPtr values, weights;
  int64_t size = 0;     // bins per row
  int64_t rows = 1;     // 1, or the first dim of a 2-D DenseBincount input
  int64_t per_row = 0;  // values per row
  bool weighted = false;
  std::vector<int64_t> out_dims;
};

// `dense`: DenseBincount (inputs input, size, weights; rank <= 2, rows kept) rather than
// Bincount (any rank, one row). `Tidx` is the dtype of `size`.
template <typename Tidx>
bool PlanBincount(TF_OpKernelContext* ctx, bool dense, BincountPlan* p) {
  const char* op = dense ? "DenseBincount" : "Bincount";
  p->values = Input(ctx, 0);
  TensorPtr size = Input(ctx, 1);
  p->weights = Input(ctx, 2);
  if (!p->values || !size || !p->weights) return false;
  if (TF_NumDims(size.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be a scalar, got shape " +
                                       ShapeString(Dims(size.get())));
    return false;
  }
  p->size = static_cast<int64_t>(*static_cast<const Tidx*>(TF_TensorData(size.get())));
  if (p->size < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size (" + std::to_string(p->size) +
                                       ") must be non-negative");
    return false;
  }
  const std::vector<int64_t> dims = Dims(p->values.get());
  const int64_t n = NumElements(dims);
  if (dense && dims.size() > 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Shape must be at most rank 2 but is rank " +
                                       std::to_string(dims.size()));
    return false;
  }
  const std::vector<int64_t> wdims = Dims(p->weights.get());
  p->weighted = NumElements(wdims) > 0;
  if (p->weighted && wdims != dims) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": `weights` must be the same shape as `arr` or a length-0 "
         "`Tensor`, in which case it acts as all weights equal to 1. Received " +
         ShapeString(wdims) + " for values of shape " + ShapeString(dims));
    return false;
  }
  if (dense && dims.size() == 2) {
    p->rows = dims[0];
    p->per_row = dims[1];
    p->out_dims = {p->rows, p->size};
  } else {
    p->rows = 1;
    p->per_row = n;
    p->out_dims = {p->size};
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
