// The axes of the reductions (Sum, Mean, Prod, Max, Min) and of ArgMax / ArgMin checked
// and their output shapes worked out, on the host: shared by the CPU kernels and the
// CUDA plugin's, which differ only in the arithmetic.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Normalises axes against `rank` (negative counts from the end); false if out of range.
inline bool NormalizeAxes(std::vector<int64_t>* axes, int64_t rank) {
  for (int64_t& a : *axes) {
    if (a < -rank || a >= rank) return false;
    if (a < 0) a += rank;
  }
  return true;
}

// The reductions' keep_dims attr (the kernel's state).
struct ReduceAttrs { bool keep_dims = false; };

inline void* CreateReduce(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool keep_dims = BoolAttr(ctx, "keep_dims", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return new ReduceAttrs{keep_dims};
}
inline void DeleteReduce(void* p) { delete static_cast<ReduceAttrs*>(p); }

// A reduction(input, axes): the output keeps the dims not reduced; reduced ones become 1
// (dropped unless keep_dims).
struct ReductionSpec {
  TensorPtr input;
  std::vector<int64_t> dims;  // the input's shape
  std::vector<int64_t> axes;  // as given, made non-negative
  std::vector<bool> reduced;  // per input dim
  int64_t reduce_count = 1;   // input values per output value
  std::vector<int64_t> out_dims;
};

// False after reporting the failure.
inline bool ResolveReduction(TF_OpKernelContext* ctx, const ReduceAttrs& attrs, ReductionSpec* spec) {
  TensorPtr input = Input(ctx, 0), axes_t = Input(ctx, 1);
  if (!input || !axes_t) return false;
  const std::vector<int64_t> dims = Dims(input.get());
  std::vector<int64_t> axes = IndexValues(axes_t.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (!NormalizeAxes(&axes, rank)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction dimension for input of rank " +
                                       std::to_string(rank) + ": " +
                                       ShapeString(IndexValues(axes_t.get())));
    return false;
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (reduced[a]) {  // [1, -1] names one axis twice: TensorFlow refuses it
      Fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction arguments: Axes contains duplicate "
                                     "dimension: " + std::to_string(a));
      return false;
    }
    reduced[a] = true;
  }
  std::vector<int64_t> out_dims;
  int64_t reduce_count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) reduce_count *= dims[d];
    if (!reduced[d] || attrs.keep_dims) out_dims.push_back(reduced[d] ? 1 : dims[d]);
  }
  spec->input = std::move(input);
  spec->dims = dims;
  spec->axes = std::move(axes);
  spec->reduced = std::move(reduced);
  spec->reduce_count = reduce_count;
  spec->out_dims = std::move(out_dims);
  return true;
}

// ArgMax / ArgMin(input, dimension): the input seen as [outer, len, inner], reduced
// along len; the output is the input's shape without `axis`.
struct ArgReductionSpec {
  TensorPtr input;
  std::vector<int64_t> dims;  // the input's shape
  int64_t axis = 0;           // non-negative
  int64_t outer = 1, len = 1, inner = 1;
  std::vector<int64_t> out_dims;
};

// False after reporting the failure.
inline bool ResolveArgReduction(TF_OpKernelContext* ctx, ArgReductionSpec* spec) {
  TensorPtr input = Input(ctx, 0), axis_t = Input(ctx, 1);
  if (!input || !axis_t) return false;
  const std::vector<int64_t> dims = Dims(input.get());
  std::vector<int64_t> axis = IndexValues(axis_t.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axis.size() != 1 || !NormalizeAxes(&axis, rank)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Expected a dimension in [-" + std::to_string(rank) + ", " +
                                       std::to_string(rank) + ")");
    return false;
  }
  const int64_t a = axis[0];
  if (dims[a] == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Reduction axis " + std::to_string(a) + " is empty in shape " +
                                       ShapeString(dims));
    return false;
  }
  OuterInner(dims, a, &spec->outer, &spec->inner);
  spec->len = dims[a];
  spec->out_dims.clear();
  for (int64_t d = 0; d < rank; ++d)
    if (d != a) spec->out_dims.push_back(dims[d]);
  spec->input = std::move(input);
  spec->dims = dims;
  spec->axis = a;
  return true;
}

}  // namespace kernels
}  // namespace opgen
