// The operand checks of Roll, ReverseSequence and LinSpace, shared by the CPU kernels and
// their CUDA twins: each Plan* reads the host-side operands, reports TensorFlow's error
// and returns false when they do not fit, and leaves the work in a plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Roll: the shift of every dimension of the input, in [0, size).
struct RollPlan {
  TensorPtr input;
  std::vector<int64_t> dims, shifts;
};

inline bool PlanRoll(TF_OpKernelContext* ctx, RollPlan* p) {
  p->input = Input(ctx, 0);
  TensorPtr shift = Input(ctx, 1), axis = Input(ctx, 2);
  if (!p->input || !shift || !axis) return false;
  p->dims = Dims(p->input.get());
  if (TF_NumDims(shift.get()) > 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "shift must be a scalar or a 1-D vector. Found: " +
                                       ShapeString(Dims(shift.get())));
    return false;
  }
  if (TF_NumDims(axis.get()) > 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "axis must be a scalar or a 1-D vector. Found: " +
                                       ShapeString(Dims(axis.get())));
    return false;
  }
  const std::vector<int64_t> shifts = IndexValues(shift.get()), axes = IndexValues(axis.get());
  if (shifts.size() != axes.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "shift and axis must have the same size");
    return false;
  }
  const int64_t rank = static_cast<int64_t>(p->dims.size());
  if (rank == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be 1-D or higher");
    return false;
  }
  p->shifts.assign(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "axis " + std::to_string(axes[i]) + " is out of range");
      return false;
    }
    const int64_t size = p->dims[a];
    if (size == 0) continue;
    const int64_t s = shifts[i] % size;
    p->shifts[a] = ((p->shifts[a] + s) % size + size) % size;
  }
  return true;
}

// ReverseSequence: the lengths, checked against the input.
struct ReverseSequencePlan {
  TensorPtr input;
  std::vector<int64_t> dims, lengths;
  int64_t batch_dim = 0, seq_dim = 0;
};

struct ReverseSequenceAttrs {
  int64_t batch_dim = 0, seq_dim = 0;
};

inline void* CreateReverseSequence(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new ReverseSequenceAttrs;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dim", &attrs->batch_dim, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "seq_dim", &attrs->seq_dim, s.get());
  if (TF_GetCode(s.get()) == TF_OK) return attrs;
  TF_OpKernelConstruction_Failure(ctx, s.get());
  delete attrs;
  return nullptr;
}
inline void DeleteReverseSequence(void* p) { delete static_cast<ReverseSequenceAttrs*>(p); }

inline bool PlanReverseSequence(TF_OpKernelContext* ctx, const ReverseSequenceAttrs& attrs,
                                ReverseSequencePlan* p) {
  p->input = Input(ctx, 0);
  TensorPtr lengths = Input(ctx, 1);
  if (!p->input || !lengths) return false;
  p->dims = Dims(p->input.get());
  const int64_t rank = static_cast<int64_t>(p->dims.size());
  p->batch_dim = attrs.batch_dim;
  p->seq_dim = attrs.seq_dim;
  auto fail = [&](const std::string& m) {
    Fail(ctx, TF_INVALID_ARGUMENT, m);
    return false;
  };
  if (p->batch_dim == p->seq_dim)
    return fail("batch_dim == seq_dim == " + std::to_string(p->seq_dim));
  if (p->seq_dim < 0 || p->seq_dim >= rank)
    return fail("seq_dim must be < input rank ( " + std::to_string(p->seq_dim) + " vs. " +
                std::to_string(rank) + ")");
  if (p->batch_dim < 0 || p->batch_dim >= rank)
    return fail("batch_dim must be < input rank ( " + std::to_string(p->batch_dim) + " vs. " +
                std::to_string(rank) + ")");
  if (TF_NumDims(lengths.get()) != 1)
    return fail("seq_lengths must be 1-dim, not " + std::to_string(TF_NumDims(lengths.get())));
  p->lengths = IndexValues(lengths.get());
  const int64_t batch = p->dims[p->batch_dim];
  if (static_cast<int64_t>(p->lengths.size()) != batch)
    return fail("Length of seq_lengths != input.dims(" + std::to_string(p->batch_dim) + "), (" +
                std::to_string(p->lengths.size()) + " vs. " + std::to_string(batch) + ")");
  for (size_t d = 0; d < p->lengths.size(); ++d) {
    if (p->lengths[d] < 0)
      return fail("seq_lens(" + std::to_string(d) + ") < 0");
    if (p->lengths[d] > p->dims[p->seq_dim])
      return fail("seq_lens(" + std::to_string(d) + ") > input.dims(" +
                  std::to_string(p->seq_dim) + ")");
  }
  return true;
}

// LinSpace: `num` (positive), read from the host operand; start and stop must be scalars.
inline bool PlanLinSpace(TF_OpKernelContext* ctx, TensorPtr* start, TensorPtr* stop,
                         int64_t* num) {
  *start = Input(ctx, 0);
  *stop = Input(ctx, 1);
  TensorPtr n = Input(ctx, 2);
  if (!*start || !*stop || !n) return false;
  const char* names[] = {"start", "stop", "num"};
  const TF_Tensor* ts[] = {start->get(), stop->get(), n.get()};
  for (int i = 0; i < 3; ++i)
    if (TF_NumDims(ts[i]) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(names[i]) + " must be a scalar, not shape " +
                                         ShapeString(Dims(ts[i])));
      return false;
    }
  *num = IndexValues(n.get())[0];
  if (*num <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Requires num > 0: " + std::to_string(*num));
    return false;
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
