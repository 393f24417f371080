// Transpose's permutation checked and its output shape worked out, on the host: shared
// by the CPU kernel and the CUDA plugin's, which differ only in the copy.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Transpose(input, perm): output dim d is input dim perm[d].
struct TransposePlan {
  TensorPtr input;
  std::vector<int64_t> dims;  // the input's shape
  std::vector<int64_t> perm;
  std::vector<int64_t> out_dims;
};

// False after reporting the failure.
inline bool PlanTranspose(TF_OpKernelContext* ctx, TransposePlan* plan) {
  TensorPtr input = Input(ctx, 0), perm_t = Input(ctx, 1);
  if (!input || !perm_t) return false;
  const std::vector<int64_t> dims = Dims(input.get());
  std::vector<int64_t> perm = IndexValues(perm_t.get());
  const size_t rank = dims.size();
  std::vector<bool> seen(rank, false);
  bool valid = perm.size() == rank;
  for (int64_t& p : perm) {
    // Entries in [-rank, 0) count from the end, as TensorFlow's kernel takes them.
    if (p < 0 && p >= -static_cast<int64_t>(rank)) p += static_cast<int64_t>(rank);
    if (!valid || p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Transpose: " + ShapeString(IndexValues(perm_t.get())) + " is not a permutation of the " +
                                       std::to_string(rank) + " dimensions");
    return false;
  }
  std::vector<int64_t> out_dims(rank);
  for (size_t d = 0; d < rank; ++d) out_dims[d] = dims[perm[d]];
  plan->input = std::move(input);
  plan->dims = dims;
  plan->perm = perm;
  plan->out_dims = std::move(out_dims);
  return true;
}

}  // namespace kernels
}  // namespace opgen
