// ResourceGather and ResourceScatter{Add,Sub,Update}: the rows of a variable (its dim 0)
// that indices name, checked on the host (indices are host memory on every device) with
// TensorFlow's messages; shared by the CPU kernels and their CUDA twin.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct ResourceRowsPlan {
  std::vector<int64_t> rows;   // each index, checked
  std::vector<int64_t> batch;  // indices' shape
  int64_t slice = 1;           // elements per row of the variable
  bool scalar_updates = false;
};

// `var` is the variable's shape; `udims` the updates' shape (null for ResourceGather).
// False with `error` set.
inline bool PlanResourceRows(const std::vector<int64_t>& var, const TF_Tensor* indices,
                             const std::vector<int64_t>* udims, ResourceRowsPlan* p,
                             std::string* error) {
  if (var.empty()) {
    *error = "params must be at least 1 dimensional";
    return false;
  }
  p->batch = Dims(indices);
  p->slice = NumElements(std::vector<int64_t>(var.begin() + 1, var.end()));
  if (udims != nullptr) {
    std::vector<int64_t> want = p->batch;
    want.insert(want.end(), var.begin() + 1, var.end());
    p->scalar_updates = udims->empty();
    const std::string must = "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = "
                             "[], got updates.shape " + ShapeString(*udims) + ", indices.shape " +
                             ShapeString(p->batch) + ", params.shape " + ShapeString(var);
    const bool prefixed = udims->size() >= p->batch.size() &&
                          std::equal(p->batch.begin(), p->batch.end(), udims->begin());
    // TensorFlow's two checks in its order and words (rank, then the indices' prefix);
    if (!p->scalar_updates && udims->size() != want.size()) {
      *error = must;
      return false;
    }
    if (!p->scalar_updates && !prefixed) {
      *error = "The shape of indices (" + ShapeString(p->batch) +
               ") must be a prefix of the shape of updates (" + ShapeString(*udims) + ")";
      return false;
    }
    // then rows of the variable's width, which TensorFlow does not check (it reads past
    // the updates' end).
    if (!p->scalar_updates && *udims != want) {
      *error = must;
      return false;
    }
  }
  p->rows = IndexValues(indices);
  for (size_t i = 0; i < p->rows.size(); ++i) {
    if (p->rows[i] < 0 || p->rows[i] >= var[0]) {
      *error = "indices[" + std::to_string(i) + "] = " + std::to_string(p->rows[i]) +
               " is not in [0, " + std::to_string(var[0]) + ")";
      return false;
    }
  }
  return true;
}

// ResourceGather's batch_dims: only 0, refused at construction otherwise.
inline void* CreateResourceGather(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int64_t batch_dims = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dims", &batch_dims, s.get());
  if (TF_GetCode(s.get()) == TF_OK && batch_dims != 0)
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                 "ResourceGather with batch_dims != 0 is not implemented yet");
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return nullptr;
}

}  // namespace kernels
}  // namespace opgen
