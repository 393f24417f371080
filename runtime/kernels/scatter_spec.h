// GatherNd, ScatterNd, the TensorScatter* ops, DynamicStitch and DynamicPartition: operands checked and the index
// geometry worked out on the host, shared by the CPU kernels and a CUDA twin. An index
// row of depth K addresses one slice of a tensor of shape `dims`: the slice
// dims[K:] at position (row[0], ..., row[K-1]).
#pragma once

#include <algorithm>
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

// ---- DynamicStitch / ParallelDynamicStitch / DynamicPartition -----------------------

// DynamicStitch(indices[N], data[N]): merged[indices[m][i...]] = data[m][i...], later
// rows over earlier ones; rows no index names are zeros. `dest[k]` is the merged row of
// the k-th data row, counting through data[0], data[1], ...
struct StitchPlan {
  std::vector<TensorPtr> data;
  std::vector<int64_t> dest;      // per data row, in order
  std::vector<int64_t> counts;    // data rows per data tensor
  std::vector<int64_t> out_dims;  // [max index + 1] + the rows' shape
  int64_t slice = 1;
};

inline bool PlanStitch(TF_OpKernelContext* ctx, const char* op, StitchPlan* p) {
  const int n = TF_NumInputs(ctx) / 2;
  const std::string prefix = std::string(op) + ": ";
  std::vector<int64_t> inner;
  int64_t rows = 0;
  for (int m = 0; m < n; ++m) {
    TensorPtr idx = Input(ctx, m), data = Input(ctx, n + m);
    if (!idx || !data) return false;
    const std::vector<int64_t> id = Dims(idx.get()), dd = Dims(data.get());
    if (dd.size() < id.size() || !std::equal(id.begin(), id.end(), dd.begin())) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "data[" + std::to_string(m) + "].shape = " +
                                         ShapeString(dd) + " does not start with indices[" +
                                         std::to_string(m) + "].shape = " + ShapeString(id));
      return false;
    }
    const std::vector<int64_t> rest(dd.begin() + id.size(), dd.end());
    if (m == 0) {
      inner = rest;
    } else if (rest != inner) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "Need data[0].shape[" +
                                         std::to_string(Dims(Input(ctx, 0).get()).size()) +
                                         ":] = " + ShapeString(inner) + " to match data[" +
                                         std::to_string(m) + "].shape[" + std::to_string(id.size()) +
                                         ":] = " + ShapeString(rest));
      return false;
    }
    p->counts.push_back(TF_TensorElementCount(idx.get()));
    for (int64_t v : IndexValues(idx.get())) {
      if (v < 0) {
        Fail(ctx, TF_INVALID_ARGUMENT, prefix + "indices[" + std::to_string(m) + "] is out of range");
        return false;
      }
      p->dest.push_back(v);
      rows = std::max(rows, v + 1);
    }
    p->data.push_back(std::move(data));
  }
  p->out_dims = {rows};
  p->out_dims.insert(p->out_dims.end(), inner.begin(), inner.end());
  p->slice = NumElements(inner);
  return CheckShapeSize(ctx, op, p->out_dims);
}

// DynamicPartition(data, partitions): output p holds, in order, the rows of data whose
// partition is p. `part[r]` is row r's partition, `place[r]` its place in that output.
struct PartitionPlan {
  TensorPtr data;
  std::vector<int64_t> part, place, counts;
  std::vector<int64_t> inner;  // data's shape after partitions'
  int64_t slice = 1;
};

inline bool PlanPartition(TF_OpKernelContext* ctx, PartitionPlan* p) {
  p->data = Input(ctx, 0);
  TensorPtr parts = Input(ctx, 1);
  if (!p->data || !parts) return false;
  const int64_t num = TF_NumOutputs(ctx);
  const std::vector<int64_t> dd = Dims(p->data.get()), pd = Dims(parts.get());
  if (dd.size() < pd.size() || !std::equal(pd.begin(), pd.end(), dd.begin())) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "DynamicPartition: data.shape must start with partitions.shape, got data.shape = " +
             ShapeString(dd) + ", partitions.shape = " + ShapeString(pd));
    return false;
  }
  const int32_t* v = static_cast<const int32_t*>(TF_TensorData(parts.get()));
  const int64_t n = NumElements(pd);
  p->counts.assign(num, 0);
  p->part.resize(n);
  p->place.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    if (v[r] < 0 || v[r] >= num) {
      Fail(ctx, TF_INVALID_ARGUMENT, "DynamicPartition: partitions[" + std::to_string(r) +
                                         "] = " + std::to_string(v[r]) + " is not in [0, " +
                                         std::to_string(num) + ")");
      return false;
    }
    p->part[r] = v[r];
    p->place[r] = p->counts[v[r]]++;
  }
  p->inner.assign(dd.begin() + pd.size(), dd.end());
  p->slice = NumElements(p->inner);
  return true;
}

}  // namespace kernels
}  // namespace opgen
