// GatherNd, ScatterNd and the TensorScatter* ops: operands checked and the index
// geometry worked out on the host, shared by the CPU kernels and a CUDA twin. An index
// row of depth K addresses one slice of a tensor of shape `dims`: the slice
// dims[K:] at position (row[0], ..., row[K-1]).
#pragma once

#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// bad_indices_policy: "" and "DEFAULT" are "ERROR" on the CPU; "IGNORE" skips (scatter)
// or zero-fills (gather) a bad row.
struct NdAttrs {
  bool ignore_bad = false;
};

inline void* CreateNdAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string policy = StringAttr(ctx, "bad_indices_policy", s.get());
  if (TF_GetCode(s.get()) == TF_OK && !policy.empty() && policy != "DEFAULT" &&
      policy != "ERROR" && policy != "IGNORE")
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("Invalid bad indices policy: " + policy).c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new NdAttrs{policy == "IGNORE"};
}

inline void DeleteNdAttrs(void* state) { delete static_cast<NdAttrs*>(state); }

inline bool IgnoreBadIndices(void* state) {
  return state != nullptr && static_cast<NdAttrs*>(state)->ignore_bad;
}

struct NdPlan {
  std::vector<int64_t> dims;     // the addressed tensor's shape
  std::vector<int64_t> batch;    // indices' shape less its last dim
  int64_t depth = 0;             // K
  int64_t rows = 0;              // index rows
  int64_t slice = 1;             // elements per addressed slice
  std::vector<int64_t> strides;  // of dims[:K], in slices
};

// Fills `plan` for `indices` of shape `idims` into `dims`; false with `error` set.
inline bool PlanNd(const std::vector<int64_t>& dims, const std::vector<int64_t>& idims,
                   NdPlan* plan, std::string* error) {
  if (idims.empty()) {
    *error = "indices must be at least a vector, got shape " + ShapeString(idims);
    return false;
  }
  const int64_t k = idims.back();
  if (k > static_cast<int64_t>(dims.size())) {
    *error = "index innermost dimension length must be <= params rank; saw: " +
             std::to_string(k) + " vs. " + std::to_string(dims.size());
    return false;
  }
  plan->dims = dims;
  plan->batch.assign(idims.begin(), idims.end() - 1);
  plan->depth = k;
  plan->rows = NumElements(plan->batch);
  plan->slice = NumElements(std::vector<int64_t>(dims.begin() + k, dims.end()));
  plan->strides.assign(k, 1);
  for (int64_t d = k - 1; d > 0; --d) plan->strides[d - 1] = plan->strides[d] * dims[d];
  return true;
}

// The slice an index row addresses, or -1 where it is out of range.
template <typename I>
int64_t NdSlot(const I* row, const NdPlan& p) {
  int64_t at = 0;
  for (int64_t d = 0; d < p.depth; ++d) {
    const int64_t v = static_cast<int64_t>(row[d]);
    if (v < 0 || v >= p.dims[d]) return -1;
    at += v * p.strides[d];
  }
  return at;
}

// "indices[1,0] = [3, 0]": the bad row named by its position in the batch dims, as
// TensorFlow's messages name it.
template <typename I>
std::string NdRowString(const I* indices, int64_t r, const NdPlan& p) {
  std::string s = "indices[";
  std::vector<int64_t> pos(p.batch.size());
  for (size_t d = pos.size(), rest = static_cast<size_t>(r); d-- > 0;) {
    pos[d] = static_cast<int64_t>(rest % static_cast<size_t>(p.batch[d]));
    rest /= static_cast<size_t>(p.batch[d]);
  }
  for (size_t d = 0; d < pos.size(); ++d) s += (d ? "," : "") + std::to_string(pos[d]);
  s += "] = [";
  for (int64_t d = 0; d < p.depth; ++d)
    s += (d ? ", " : "") + std::to_string(static_cast<int64_t>(indices[r * p.depth + d]));
  return s + "]";
}

// ScatterNd(indices, updates, shape) and TensorScatter*(tensor, indices, updates):
// updates must be indices.shape[:-1] + dims[K:].
inline bool CheckScatterUpdates(TF_OpKernelContext* ctx, const char* op, const NdPlan& p,
                                const std::vector<int64_t>& idims,
                                const std::vector<int64_t>& udims) {
  const size_t b = p.batch.size();
  std::vector<int64_t> want = p.batch;
  want.insert(want.end(), p.dims.begin() + p.depth, p.dims.end());
  if (udims == want) return true;
  std::string m;
  if (udims.size() < b || !std::equal(p.batch.begin(), p.batch.end(), udims.begin()))
    m = "Dimensions [0," + std::to_string(b) + ") of indices[shape=" + ShapeString(idims) +
        "] must match dimensions [0," + std::to_string(b) + ") of updates[shape=" +
        ShapeString(udims) + "]";
  else
    m = "Dimensions [" + std::to_string(p.depth) + "," + std::to_string(p.dims.size()) +
        ") of input[shape=" + ShapeString(p.dims) + "] = " +
        ShapeString(std::vector<int64_t>(p.dims.begin() + p.depth, p.dims.end())) +
        " must match dimensions [" + std::to_string(b) + "," + std::to_string(udims.size()) +
        ") of updates[shape=" + ShapeString(udims) + "] = " +
        ShapeString(std::vector<int64_t>(udims.begin() + b, udims.end()));
  Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + m);
  return false;
}

}  // namespace kernels
}  // namespace opgen
