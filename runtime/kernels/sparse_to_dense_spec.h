// SparseToDense's operand checks, shared by the CPU kernel and its CUDA twin: the indices
// and the shape are read on the host (host memory on every device), checked with
// TensorFlow's messages, and turned into row-major offsets into the output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

inline void* CreateValidateIndices(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool v = BoolAttr(ctx, "validate_indices", s.get());
  if (TF_GetCode(s.get()) == TF_OK) return new bool(v);
  TF_OpKernelConstruction_Failure(ctx, s.get());
  return nullptr;
}
inline void DeleteValidateIndices(void* p) { delete static_cast<bool*>(p); }

struct SparseToDensePlan {
  TensorPtr values, fill;            // sparse_values, default_value
  std::vector<int64_t> dims;         // the output's
  std::vector<int64_t> offsets;      // one per index, into the output
  bool one_value = false;            // a scalar sparse_values for every index
};

inline std::string IndexListText(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

inline bool PlanSparseToDense(TF_OpKernelContext* ctx, bool validate, SparseToDensePlan* p) {
  TensorPtr indices = Input(ctx, 0), shape = Input(ctx, 1);
  p->values = Input(ctx, 2);
  p->fill = Input(ctx, 3);
  if (!indices || !shape || !p->values || !p->fill) return false;
  auto fail = [&](const std::string& m) {
    Fail(ctx, TF_INVALID_ARGUMENT, m);
    return false;
  };
  const int index_rank = TF_NumDims(indices.get());
  if (index_rank > 2)
    return fail("sparse_indices should be a scalar, vector, or matrix, got shape " +
                ShapeString(Dims(indices.get())));
  if (TF_NumDims(shape.get()) != 1)
    return fail("output_shape should be a vector, got shape " + ShapeString(Dims(shape.get())));
  const int64_t n = index_rank > 0 ? TF_Dim(indices.get(), 0) : 1;
  const int64_t rank = index_rank > 1 ? TF_Dim(indices.get(), 1) : 1;
  p->dims = IndexValues(shape.get());
  if (static_cast<int64_t>(p->dims.size()) != rank)
    return fail("output_shape has incorrect number of elements: " +
                std::to_string(p->dims.size()) + " should be: " + std::to_string(rank));
  const int values_rank = TF_NumDims(p->values.get());
  p->one_value = values_rank == 0;
  if (!(p->one_value || (values_rank == 1 && TF_Dim(p->values.get(), 0) == n)))
    return fail("sparse_values has incorrect shape " + ShapeString(Dims(p->values.get())) +
                ", should be [] or [" + std::to_string(n) + "]");
  if (TF_NumDims(p->fill.get()) != 0) return fail("default_value should be a scalar.");
  if (!CheckShapeSize(ctx, "SparseToDense", p->dims)) return false;
  const std::vector<int64_t> coords = IndexValues(indices.get());
  p->offsets.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int64_t> at(coords.begin() + i * rank, coords.begin() + (i + 1) * rank);
    int64_t offset = 0;
    bool in_bounds = true;
    for (int64_t d = 0; d < rank; ++d) {
      in_bounds = in_bounds && at[d] >= 0 && at[d] < p->dims[d];
      offset = offset * p->dims[d] + at[d];
    }
    if (!in_bounds && !validate)
      return fail("Indices are not valid (out of bounds).  Shape: " + IndexListText(p->dims));
    if (!in_bounds)
      return fail("indices[" + std::to_string(i) + "] = " + IndexListText(at) +
                  " is out of bounds: need 0 <= index < " + IndexListText(p->dims));
    if (validate && i > 0 && offset <= p->offsets[i - 1])
      return fail("indices[" + std::to_string(i) + "] = " + IndexListText(at) + " is " +
                  (offset == p->offsets[i - 1]
                       ? std::string("repeated")
                       : std::string("out of order. Many sparse ops require sorted indices.\n"
                                     "    Use `tf.sparse.reorder` to create a correctly "
                                     "ordered copy.\n\n")));
    p->offsets[i] = offset;
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
