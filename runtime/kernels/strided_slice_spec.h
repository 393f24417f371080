// StridedSlice's begin/end/strides and masks resolved against an input shape, on the
// host: shared by the CPU kernel and the CUDA plugin's, which differ only in the copy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// StridedSlice's five bit masks, read once per kernel (the kernel's state).
struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

inline void* CreateStridedSliceMasks(TF_OpKernelConstruction* ctx) {
  auto* m = new StridedSliceMasks();
  StatusPtr s = NewStatus();
  const std::pair<const char*, int64_t*> attrs[] = {
      {"begin_mask", &m->begin}, {"end_mask", &m->end}, {"ellipsis_mask", &m->ellipsis},
      {"new_axis_mask", &m->new_axis}, {"shrink_axis_mask", &m->shrink_axis}};
  for (const auto& [name, value] : attrs) {
    if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrInt64(ctx, name, value, s.get());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return m;
}
inline void DeleteStridedSliceMasks(void* p) { delete static_cast<StridedSliceMasks*>(p); }

// What a slice reads: per input dimension its first index, step and count (the output's
// elements, in order, are that box), and the output's shape.
struct StridedSliceBox {
  std::vector<int64_t> first, step, count, out_dims;
};

// numpy's basic indexing as TensorFlow spells it: each spec entry slices one input
// dimension, or stands for `...` (ellipsis), a new axis of size 1, or a single index
// whose dimension is dropped (shrink). False with `error` set (no op name); for kernels
// that resolve where no kernel context can report (a variable's update callback).
inline bool ResolveStridedSliceSpec(const StridedSliceMasks& m, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& begin,
                                    const std::vector<int64_t>& end,
                                    const std::vector<int64_t>& strides, StridedSliceBox* box,
                                    std::string* error) {
  const int64_t rank = static_cast<int64_t>(dims.size()), spec = static_cast<int64_t>(begin.size());
  if (end.size() != begin.size() || strides.size() != begin.size()) {
    *error = "begin, end and strides must have the same length";
    return false;
  }
  auto bit = [](int64_t mask, int64_t i) { return (mask >> i) & 1; };
  int64_t consumed = 0;  // input dims named explicitly (not by ellipsis or new axis)
  int64_t ellipses = 0;
  for (int64_t i = 0; i < spec; ++i) {
    if (bit(m.ellipsis, i)) ++ellipses;
    else if (!bit(m.new_axis, i)) ++consumed;
  }
  if (ellipses > 1) {
    *error = "at most one ellipsis is allowed";
    return false;
  }
  if (consumed > rank) {
    *error = std::to_string(consumed) + " indices for a tensor of rank " + std::to_string(rank);
    return false;
  }
  std::vector<int64_t>& first = box->first;
  std::vector<int64_t>& step = box->step;
  std::vector<int64_t>& count = box->count;
  std::vector<int64_t>& out_dims = box->out_dims;
  first.assign(rank, 0);
  step.assign(rank, 1);
  count = dims;
  out_dims.clear();
  int64_t d = 0;
  auto full_dims = [&](int64_t n) {
    for (int64_t k = 0; k < n; ++k, ++d) out_dims.push_back(dims[d]);
  };
  for (int64_t i = 0; i < spec; ++i) {
    if (bit(m.ellipsis, i)) {
      full_dims(rank - consumed);  // `...` covers every dimension not named explicitly
      continue;
    }
    if (bit(m.new_axis, i)) {
      out_dims.push_back(1);
      continue;
    }
    const int64_t size = dims[d], s = strides[i];
    if (s == 0) {
      *error = "strides[" + std::to_string(i) + "] must be non-zero";
      return false;
    }
    if (bit(m.shrink_axis, i)) {
      // TensorFlow refuses a negative stride on an index entry (a positive one is ignored).
      if (s < 0) {
        *error = "only stride 1 allowed on non-range indexing (strides[" + std::to_string(i) +
                 "] is " + std::to_string(s) + ")";
        return false;
      }
      const int64_t index = begin[i] < 0 ? begin[i] + size : begin[i];
      if (index < 0 || index >= size) {
        *error = "index " + std::to_string(begin[i]) + " out of bounds for dimension of size " +
                 std::to_string(size);
        return false;
      }
      first[d] = index;
      count[d] = 1;
      ++d;
      continue;
    }
    // Clamp begin and end into range as numpy does; masks mean "from the edge".
    auto clamp = [&](int64_t v, bool masked, bool is_begin) {
      if (masked) return is_begin ? (s > 0 ? int64_t{0} : size - 1) : (s > 0 ? size : int64_t{-1});
      if (v < 0) v += size;
      return s > 0 ? std::min(std::max(v, int64_t{0}), size) : std::min(std::max(v, int64_t{-1}), size - 1);
    };
    const int64_t b = clamp(begin[i], bit(m.begin, i), true);
    const int64_t e = clamp(end[i], bit(m.end, i), false);
    const int64_t n = s > 0 ? (e > b ? (e - b + s - 1) / s : 0) : (b > e ? (b - e - s - 1) / -s : 0);
    first[d] = b;
    step[d] = s;
    count[d] = n;
    out_dims.push_back(n);
    ++d;
  }
  full_dims(rank - d);  // dimensions after the spec are taken whole
  return true;
}

// The same, reporting a failure as StridedSlice's (the op's name, then the reason).
inline bool ResolveStridedSlice(TF_OpKernelContext* ctx, const StridedSliceMasks& m,
                                const std::vector<int64_t>& dims, const std::vector<int64_t>& begin,
                                const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides, StridedSliceBox* box,
                                const char* op = "StridedSlice") {
  std::string error;
  if (ResolveStridedSliceSpec(m, dims, begin, end, strides, box, &error)) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + error);
  return false;
}

// StridedSlice(input, begin, end, strides): the spec resolved against the input's shape.
struct StridedSlicePlan {
  TensorPtr input;
  std::vector<int64_t> dims;  // the input's shape
  StridedSliceBox box;
};

// False after reporting the failure.
inline bool PlanStridedSlice(TF_OpKernelContext* ctx, const StridedSliceMasks& m, StridedSlicePlan* plan) {
  TensorPtr input = Input(ctx, 0), begin_t = Input(ctx, 1), end_t = Input(ctx, 2), strides_t = Input(ctx, 3);
  if (!input || !begin_t || !end_t || !strides_t) return false;
  plan->dims = Dims(input.get());
  plan->input = std::move(input);
  return ResolveStridedSlice(ctx, m, plan->dims, IndexValues(begin_t.get()), IndexValues(end_t.get()),
                             IndexValues(strides_t.get()), &plan->box);
}

// TensorStridedSliceUpdate and ResourceStridedSliceAssign: the value is broadcast (numpy's
// rules, aligned at the right) to the slice's shape, box.out_dims. `value_strides[k]` is
// the value's step along out_dims[k], 0 where it is broadcast. False with TensorFlow's
// message in `error`. An empty slice takes any value, as in TensorFlow.
inline bool PlanSliceValue(const StridedSliceBox& box, const std::vector<int64_t>& value,
                           std::vector<int64_t>* value_strides, std::string* error) {
  const std::vector<int64_t>& out = box.out_dims;
  const int64_t r = static_cast<int64_t>(value.size()), R = static_cast<int64_t>(out.size());
  value_strides->assign(R, 0);
  if (NumElements(box.count) == 0) return true;
  bool ok = true;
  for (int64_t j = 0; j < r - R; ++j) ok = ok && value[j] == 1;
  int64_t stride = 1;
  for (int64_t k = R - 1; k >= 0 && ok; --k) {
    const int64_t j = k - (R - r);
    if (j < 0) break;
    if (value[j] == 1) continue;
    if (value[j] != out[k]) ok = false;
    (*value_strides)[k] = stride;
    stride *= value[j];
  }
  if (!ok)
    *error = "Cannot broadcast input shape " + ShapeString(value) + " into final shape " +
             ShapeString(out);
  return ok;
}

}  // namespace kernels
}  // namespace opgen
