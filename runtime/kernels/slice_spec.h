// Slice's, Pad's, Tile's and ReverseV2's operands checked and their output shapes worked out, on the
// host: shared by the CPU kernels and the CUDA plugin's, which differ only in the copy.
// The begin / size / paddings / multiples / axis operands are host memory on both.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Slice(input, begin, size): output element i_d along dim d is input element
// begin[d] + i_d.
struct SlicePlan {
  TensorPtr input;
  std::vector<int64_t> dims;   // the input's shape
  std::vector<int64_t> begin;  // per dim, the first input index read
  std::vector<int64_t> size;   // the output's shape (a size of -1 resolved: to the end)
};

// False after reporting the failure.
inline bool PlanSlice(TF_OpKernelContext* ctx, SlicePlan* plan) {
  TensorPtr input = Input(ctx, 0), begin_t = Input(ctx, 1), size_t_ = Input(ctx, 2);
  if (!input || !begin_t || !size_t_) return false;
  const std::vector<int64_t> dims = Dims(input.get()), begin = IndexValues(begin_t.get()),
                             requested = IndexValues(size_t_.get());
  if (begin.size() != dims.size() || requested.size() != dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Slice: begin and size must have one entry per dimension of " +
                                       ShapeString(dims));
    return false;
  }
  std::vector<int64_t> size = requested;
  for (size_t d = 0; d < dims.size(); ++d) {
    // begin in [0, dim] first: then dims[d] - begin[d] cannot overflow, where
    // begin[d] + size[d] can.
    const bool begin_ok = begin[d] >= 0 && begin[d] <= dims[d];
    if (begin_ok && size[d] == -1) size[d] = dims[d] - begin[d];
    if (!begin_ok || size[d] < 0 || size[d] > dims[d] - begin[d]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Slice: begin " + ShapeString(begin) + " and size " +
                                         ShapeString(requested) + " exceed shape " + ShapeString(dims));
      return false;
    }
  }
  plan->input = std::move(input);
  plan->dims = dims;
  plan->begin = begin;
  plan->size = std::move(size);
  return true;
}

// Pad(input, paddings) and PadV2(input, paddings, constant_values): output element i_d
// along dim d is input element i_d - pads[2d], or the pad value (zero for Pad) where that
// falls outside the input.
struct PadPlan {
  TensorPtr input;
  TensorPtr value;                // PadV2's constant_values (a scalar); null for Pad
  std::vector<int64_t> dims;      // the input's shape
  std::vector<int64_t> pads;      // per dim: padding before, padding after
  std::vector<int64_t> out_dims;
};

// False after reporting the failure. `op` is "Pad" or "PadV2" (which reads input 2).
inline bool PlanPad(TF_OpKernelContext* ctx, PadPlan* plan, const char* op = "Pad") {
  TensorPtr input = Input(ctx, 0), pad_t = Input(ctx, 1);
  if (!input || !pad_t) return false;
  const std::string name = op;
  if (name == "PadV2") {
    plan->value = Input(ctx, 2);
    if (!plan->value) return false;
    if (TF_NumDims(plan->value.get()) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "constant_values must be a scalar. Got: " +
                                         ShapeString(Dims(plan->value.get())));
      return false;
    }
  }
  const std::vector<int64_t> dims = Dims(input.get()), pads = IndexValues(pad_t.get());
  if (TF_NumDims(pad_t.get()) != 2 || TF_Dim(pad_t.get(), 1) != 2 || pads.size() != 2 * dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, name + ": paddings must have shape [" + std::to_string(dims.size()) +
                                       ", 2] for input of shape " + ShapeString(dims));
    return false;
  }
  std::vector<int64_t> out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, name + ": paddings must be non-negative");
      return false;
    }
    if (__builtin_add_overflow(dims[d], pads[2 * d], &out[d]) ||
        __builtin_add_overflow(out[d], pads[2 * d + 1], &out[d])) {
      Fail(ctx, TF_INVALID_ARGUMENT, name + ": paddings " + ShapeString(pads) + " overflow int64 for shape " +
                                         ShapeString(dims));
      return false;
    }
  }
  if (!CheckShapeSize(ctx, op, out)) return false;
  plan->input = std::move(input);
  plan->dims = dims;
  plan->pads = pads;
  plan->out_dims = std::move(out);
  return true;
}

// Tile(input, multiples): output element i_d along dim d is input element i_d % dims[d].
struct TilePlan {
  TensorPtr input;
  std::vector<int64_t> dims;  // the input's shape
  std::vector<int64_t> out_dims;
};

// False after reporting the failure.
inline bool PlanTile(TF_OpKernelContext* ctx, TilePlan* plan) {
  TensorPtr input = Input(ctx, 0), mult_t = Input(ctx, 1);
  if (!input || !mult_t) return false;
  const std::vector<int64_t> dims = Dims(input.get()), mult = IndexValues(mult_t.get());
  if (TF_NumDims(mult_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples must be a vector, got shape " +
                                       ShapeString(Dims(mult_t.get())));
    return false;
  }
  if (mult.size() != dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples must have one entry per dimension of " +
                                       ShapeString(dims) + ", got " + ShapeString(mult));
    return false;
  }
  std::vector<int64_t> out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (mult[d] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples must be non-negative, got " + ShapeString(mult));
      return false;
    }
    if (__builtin_mul_overflow(dims[d], mult[d], &out[d])) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples " + ShapeString(mult) + " overflow int64 for shape " +
                                         ShapeString(dims));
      return false;
    }
  }
  if (!CheckShapeSize(ctx, "Tile", out)) return false;
  plan->input = std::move(input);
  plan->dims = dims;
  plan->out_dims = std::move(out);
  return true;
}

// ReverseV2(tensor, axis): as the box that starts at the last element of each reversed
// dim and steps back through it (the other dims from 0, forward): the same walk as a
// StridedSlice with stride -1.
struct ReversePlan {
  TensorPtr input;
  std::vector<int64_t> dims;   // the input's shape, also the output's
  std::vector<int64_t> first;  // per dim, the first input index read
  std::vector<int64_t> step;   // per dim, -1 where reversed, else 1
};

// False after reporting the failure.
inline bool PlanReverse(TF_OpKernelContext* ctx, ReversePlan* plan) {
  TensorPtr input = Input(ctx, 0), axis_t = Input(ctx, 1);
  if (!input || !axis_t) return false;
  const std::vector<int64_t> dims = Dims(input.get());
  if (TF_NumDims(axis_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "ReverseV2: axis must be a vector, got shape " +
                                       ShapeString(Dims(axis_t.get())));
    return false;
  }
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> first(dims.size(), 0), step(dims.size(), 1);
  std::vector<int64_t> axes;
  if (TF_TensorType(axis_t.get()) == TF_BOOL) {  // Reverse (TF1-era): one flag per dim
    const int64_t n = TF_Dim(axis_t.get(), 0);
    if (n != rank) {
      Fail(ctx, TF_INVALID_ARGUMENT, "'dims' must have the same number of values as 'input' has "
                                     "dimensions. 'input' has " + std::to_string(rank) +
                                     "'dims' has " + std::to_string(n) + " values");
      return false;
    }
    const bool* flags = static_cast<const bool*>(TF_TensorData(axis_t.get()));
    for (int64_t d = 0; d < n; ++d)
      if (flags[d]) axes.push_back(d);
  } else {
    axes = IndexValues(axis_t.get());
  }
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      Fail(ctx, TF_INVALID_ARGUMENT, "ReverseV2: axis " + std::to_string(a) +
                                         " is out of range for a tensor of rank " +
                                         std::to_string(rank));
      return false;
    }
    const size_t d = static_cast<size_t>(a < 0 ? a + rank : a);
    if (step[d] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "ReverseV2: axis " + std::to_string(d) +
                                         " is specified more than once");
      return false;
    }
    step[d] = -1;
    first[d] = dims[d] > 0 ? dims[d] - 1 : 0;
  }
  plan->input = std::move(input);
  plan->dims = dims;
  plan->first = std::move(first);
  plan->step = std::move(step);
  return true;
}

}  // namespace kernels
}  // namespace opgen
