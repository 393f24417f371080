// ResourceScatterNd{Update,Add,Sub,Min,Max} and ResourceGatherNd: scatter_spec.h's index
// rows on a variable, whose shape is known only under its lock (so errors come back as
// strings, for the update callback's status); shared by the CPU kernels and their CUDA
// twin, which both read the indices on the host.
#pragma once

#include <string>
#include <vector>

#include "scatter_spec.h"

namespace opgen {
namespace kernels {

// TensorFlow's checks of updates against indices and the variable, in its order and words
// (ScatterNd's update kernels); "" when they agree.
inline std::string NdUpdatesMismatch(const NdPlan& p, const std::vector<int64_t>& idims,
                                     const std::vector<int64_t>& udims) {
  const int64_t b = static_cast<int64_t>(p.batch.size()), u = static_cast<int64_t>(udims.size());
  const int64_t rank = static_cast<int64_t>(p.dims.size());
  const std::string batch = "Dimensions [0," + std::to_string(b) + ") of indices[shape=" +
                            ShapeString(idims) + "]";
  const std::string batch_u = " must match dimensions [0," + std::to_string(b) +
                              ") of updates[shape=" + ShapeString(udims) + "]";
  const std::string slice = "Dimensions [" + std::to_string(p.depth) + "," + std::to_string(rank) +
                            ") of input[shape=" + ShapeString(p.dims) + "] must match dimensions [" +
                            std::to_string(b) + "," + std::to_string(u) + ") of updates[shape=" +
                            ShapeString(udims) + "]";
  if (u < b) return batch + batch_u;
  if (rank < p.depth + (u - b) || u != b + rank - p.depth) return slice;
  for (int64_t d = 0; d < b; ++d)
    if (udims[d] != idims[d])
      return batch + " = " + std::to_string(idims[d]) + batch_u + " = " + std::to_string(udims[d]);
  for (int64_t d = b; d < u; ++d)
    if (udims[d] != p.dims[p.depth + d - b]) return slice;
  return "";
}

// Every row's slot, or false with TensorFlow's message for the first bad one (IGNORE: -1).
template <typename I>
bool NdSlots(const TF_Tensor* indices, const NdPlan& p, bool ignore, const char* what,
             std::vector<int64_t>* slots, std::string* error) {
  const I* idx = static_cast<const I*>(TF_TensorData(indices));
  slots->resize(p.rows);
  for (int64_t r = 0; r < p.rows; ++r) {
    (*slots)[r] = NdSlot(idx + r * p.depth, p);
    if ((*slots)[r] < 0 && !ignore) {
      *error = NdRowString(idx, r, p) + " does not index into " + what + ShapeString(p.dims);
      return false;
    }
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
