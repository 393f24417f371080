// The sorted segment reductions (Segment*: ids sorted, one per data row) and the sparse
// ones (SparseSegment*: rows picked by `indices`, then segmented): operands checked and
// each contribution listed as a (data row, segment) pair on the host, shared by the CPU
// kernels and a CUDA twin. The unsorted reductions plan with PlanUnsortedSegment
// (nn_array_grad_spec.h).
#pragma once

#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct SortedSegmentPlan {
  TensorPtr data;
  std::vector<int64_t> rows;      // the data row of each contribution
  std::vector<int64_t> segments;  // its segment, non-decreasing
  std::vector<int64_t> out_dims;  // [last segment + 1] + data's shape after dim 0
  int64_t inner = 1, data_rows = 0;
};

// Segment*(data, segment_ids) when `sparse` is false, SparseSegment*(data, indices,
// segment_ids) when true, SparseSegment*WithNumSegments(..., num_segments) when
// `num_segments` is true too (the output has num_segments rows), and Segment*V2(data,
// segment_ids, num_segments) with `num_segments` alone. False after reporting the failure.
inline bool PlanSortedSegment(TF_OpKernelContext* ctx, const char* op, bool sparse,
                              SortedSegmentPlan* p, bool num_segments = false) {
  p->data = Input(ctx, 0);
  TensorPtr indices = sparse ? Input(ctx, 1) : nullptr, ids = Input(ctx, sparse ? 2 : 1);
  if (!p->data || !ids || (sparse && !indices)) return false;
  const std::string prefix = std::string(op) + ": ";
  const std::vector<int64_t> dd = Dims(p->data.get());
  if (dd.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, prefix + "input must be at least rank 1");
    return false;
  }
  if (TF_NumDims(ids.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, prefix + "segment_ids should be a vector.");
    return false;
  }
  const std::vector<int64_t> seg = IndexValues(ids.get());
  const int64_t n = static_cast<int64_t>(seg.size());
  if (sparse) {
    if (TF_NumDims(indices.get()) != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "indices should be a vector.");
      return false;
    }
    p->rows = IndexValues(indices.get());
    if (static_cast<int64_t>(p->rows.size()) != n) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "segment_ids and indices should have same size.");
      return false;
    }
  } else {
    if (n != dd[0]) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           prefix + "segment_ids should be the same size as dimension 0 of input.");
      return false;
    }
    p->rows.resize(n);
    for (int64_t i = 0; i < n; ++i) p->rows[i] = i;
  }
  int64_t out_rows = n == 0 ? 0 : seg.back() + 1;
  if (num_segments) {
    TensorPtr count = Input(ctx, sparse ? 3 : 2);
    if (!count) return false;
    if (TF_NumDims(count.get()) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "num_segments should be a scalar, not shape " +
                                         ShapeString(Dims(count.get())));
      return false;
    }
    const int64_t rows = IndexValues(count.get())[0];
    // (as TensorFlow, both checks speak of segment ids)
    if (rows < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "segment ids must be >= 0");
      return false;
    }
    if (n > 0 && seg.back() >= rows) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "segment ids must be < num_segments");
      return false;
    }
    out_rows = rows;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0 && seg[i] < seg[i - 1]) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "segment ids are not increasing");
      return false;
    }
    if (seg[i] < 0 || seg[i] >= out_rows) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "Segment id " + std::to_string(seg[i]) +
                                         " out of range [0, " + std::to_string(out_rows) +
                                         "), possibly because 'segment_ids' input is not sorted.");
      return false;
    }
    if (p->rows[i] < 0 || p->rows[i] >= dd[0]) {
      Fail(ctx, TF_INVALID_ARGUMENT, prefix + "Bad: indices[" + std::to_string(i) + "] == " +
                                         std::to_string(p->rows[i]) + " out of range [0, " +
                                         std::to_string(dd[0]) + ")");
      return false;
    }
  }
  p->segments = seg;
  p->data_rows = dd[0];
  p->out_dims = dd;
  p->out_dims[0] = out_rows;
  p->inner = NumElements(std::vector<int64_t>(dd.begin() + 1, dd.end()));
  return CheckShapeSize(ctx, op, p->out_dims);
}

}  // namespace kernels
}  // namespace opgen
