// Bincount, DenseBincount, RaggedBincount, SparseBincount: the checks, the output shape
// and each value's output row, shared by the CPU kernels and the CUDA plugin. `size`
// (and the ragged splits, the sparse indices and shape) stay in host memory on both.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "host_device.h"

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// The binary_output attr, the kernel state of DenseBincount / RaggedBincount /
// SparseBincount on both devices.
inline void* CreateBinaryOutputState(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool binary = BoolAttr(ctx, "binary_output", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(binary);
}
inline void DeleteBinaryOutputState(void* b) { delete static_cast<bool*>(b); }

// HistogramFixedWidth(values, value_range, nbins): TensorFlow's bin of v is
// (max(v, lo) - lo) / step in double, step = (hi - lo) / nbins, at most nbins - 1,
// truncated. (Integer differences are taken in double, where T's would overflow.)
struct HistogramPlan {
  TensorPtr values;
  int64_t nbins = 0, count = 0;
  double step = 1;
};

template <typename T>
OPGEN_HD inline int64_t HistogramBin(T v, T lo, double step, int64_t nbins) {
  const T above = v < lo ? lo : v;
  const double offset = std::is_floating_point<T>::value ? static_cast<double>(above - lo)
                                                         : static_cast<double>(above) - static_cast<double>(lo);
  const double bin = offset / step, last = static_cast<double>(nbins - 1);
  return static_cast<int64_t>(bin < last ? bin : last);
}

// The checks (TensorFlow's messages); value_range and nbins are host memory. `lo` gets
// value_range[0].
template <typename T>
inline bool PlanHistogram(TF_OpKernelContext* ctx, HistogramPlan* p, T* lo) {
  TensorPtr values = Input(ctx, 0), range = Input(ctx, 1), nbins = Input(ctx, 2);
  if (!values || !range || !nbins) return false;
  if (TF_NumDims(range.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "value_range should be a vector.");
    return false;
  }
  if (TF_TensorElementCount(range.get()) != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "value_range should be a vector of 2 elements.");
    return false;
  }
  if (TF_NumDims(nbins.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "nbins should be a scalar.");
    return false;
  }
  const int32_t n = *static_cast<const int32_t*>(TF_TensorData(nbins.get()));
  if (n <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "nbins should be a positive number, but got '" + std::to_string(n) + "'");
    return false;
  }
  const T* r = static_cast<const T*>(TF_TensorData(range.get()));
  if (!(r[0] < r[1])) {
    std::ostringstream got;
    got << "'[" << r[0] << ", " << r[1] << "]'";
    Fail(ctx, TF_INVALID_ARGUMENT,
         "value_range should satisfy value_range[0] < value_range[1], but got " + got.str());
    return false;
  }
  *lo = r[0];
  const double width = std::is_floating_point<T>::value
                           ? static_cast<double>(r[1] - r[0])
                           : static_cast<double>(r[1]) - static_cast<double>(r[0]);
  p->step = width / static_cast<double>(n);
  p->nbins = n;
  p->count = TF_TensorElementCount(values.get());
  p->values = std::move(values);
  return true;
}

struct BincountPlan {
  TensorPtr values, weights;
  int64_t size = 0;     // bins per row
  int64_t rows = 1;     // 1, or the first dim of a 2-D DenseBincount input
  int64_t per_row = 0;  // values per row
  int64_t count = 0;    // values in all
  bool weighted = false;
  // The output row of each value, for RaggedBincount and SparseBincount (worked out on
  // the host, from host-memory splits / indices); empty: value i is in row i / per_row.
  std::vector<int64_t> row_of;
  std::vector<int64_t> out_dims;
};

// `size` (a scalar) and `weights` (empty, or of the values' shape) into `p`.
template <typename Tidx>
bool PlanSizeAndWeights(TF_OpKernelContext* ctx, const char* op, int size_input,
                        int weights_input, BincountPlan* p) {
  TensorPtr size = Input(ctx, size_input);
  p->weights = Input(ctx, weights_input);
  if (!size || !p->weights) return false;
  if (TF_NumDims(size.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be a scalar, got shape " +
                                       ShapeString(Dims(size.get())));
    return false;
  }
  p->size = static_cast<int64_t>(*static_cast<const Tidx*>(TF_TensorData(size.get())));
  if (p->size < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size (" + std::to_string(p->size) +
                                       ") must be non-negative");
    return false;
  }
  const std::vector<int64_t> dims = Dims(p->values.get()), wdims = Dims(p->weights.get());
  p->count = NumElements(dims);
  p->weighted = NumElements(wdims) > 0;
  if (p->weighted && wdims != dims) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": `weights` must be the same shape as `arr` or a length-0 "
         "`Tensor`, in which case it acts as all weights equal to 1. Received " +
         ShapeString(wdims) + " for values of shape " + ShapeString(dims));
    return false;
  }
  return true;
}

// RaggedBincount(splits, values, size, weights): row r holds values[splits[r],
// splits[r + 1]); rows are found by walking the splits as TensorFlow does.
template <typename Tidx>
bool PlanRaggedBincount(TF_OpKernelContext* ctx, BincountPlan* p) {
  const char* op = "RaggedBincount";
  TensorPtr splits = Input(ctx, 0);
  p->values = Input(ctx, 1);
  if (!splits || !p->values || !PlanSizeAndWeights<Tidx>(ctx, op, 2, 3, p)) return false;
  if (TF_NumDims(splits.get()) != 1 || TF_NumDims(p->values.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": splits and values must be vectors");
    return false;
  }
  const int64_t n = TF_Dim(splits.get(), 0);
  const int64_t* sp = static_cast<const int64_t*>(TF_TensorData(splits.get()));
  if (n == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Splits must be non-empty");
    return false;
  }
  if (sp[0] != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Splits must start with 0, not with " +
                                       std::to_string(sp[0]));
    return false;
  }
  if (sp[n - 1] != p->count) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Splits must end with the number of "
         "values, got " + std::to_string(sp[n - 1]) + " instead of " + std::to_string(p->count));
    return false;
  }
  p->rows = n - 1;
  p->out_dims = {p->rows, p->size};
  p->row_of.resize(p->count);
  int64_t row = 0;
  for (int64_t i = 0; i < p->count; ++i) {
    while (row < p->rows && i >= sp[row + 1]) ++row;
    if (row >= p->rows) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": splits do not cover value " +
                                         std::to_string(i));
      return false;
    }
    p->row_of[i] = row;
  }
  return true;
}

// SparseBincount(indices, values, dense_shape, size, weights): a rank-1 sparse input
// gives [size] bins, a higher rank [dense_shape[0], size] (row: the first coordinate).
template <typename Tidx>
bool PlanSparseBincount(TF_OpKernelContext* ctx, BincountPlan* p) {
  const char* op = "SparseBincount";
  TensorPtr indices = Input(ctx, 0), shape = Input(ctx, 2);
  p->values = Input(ctx, 1);
  if (!indices || !shape || !p->values || !PlanSizeAndWeights<Tidx>(ctx, op, 3, 4, p))
    return false;
  if (TF_NumDims(indices.get()) != 2 || TF_NumDims(p->values.get()) != 1 ||
      TF_NumDims(shape.get()) != 1 || TF_Dim(indices.get(), 0) != p->count ||
      TF_Dim(indices.get(), 1) != TF_Dim(shape.get(), 0) || TF_Dim(shape.get(), 0) < 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": indices must be [n, rank], values [n] "
         "and dense_shape [rank], got " + ShapeString(Dims(indices.get())) + ", " +
         ShapeString(Dims(p->values.get())) + " and " + ShapeString(Dims(shape.get())));
    return false;
  }
  const int64_t rank = TF_Dim(shape.get(), 0);
  const int64_t* ix = static_cast<const int64_t*>(TF_TensorData(indices.get()));
  const int64_t* dense = static_cast<const int64_t*>(TF_TensorData(shape.get()));
  for (int64_t i = 0; i < p->count; ++i)
    for (int64_t d = 0; d < rank; ++d)
      if (ix[i * rank + d] < 0 || ix[i * rank + d] >= dense[d]) {
        std::string tuple;
        for (int64_t k = 0; k < rank; ++k)
          tuple += (k ? ", " : "") + std::to_string(ix[i * rank + k]);
        Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Sparse index tuple indices[" +
                                           std::to_string(i) + ", :] = [" + tuple +
                                           "] is out of bounds");
        return false;
      }
  p->rows = rank == 1 ? 1 : dense[0];
  p->out_dims = rank == 1 ? std::vector<int64_t>{p->size} : std::vector<int64_t>{p->rows, p->size};
  p->per_row = std::max<int64_t>(p->count, 1);  // rank 1: one row, row_of stays empty
  if (rank > 1) {
    p->row_of.resize(p->count);
    for (int64_t i = 0; i < p->count; ++i) p->row_of[i] = ix[i * rank];
  }
  return true;
}

// `dense`: DenseBincount (inputs input, size, weights; rank <= 2, rows kept) rather than
// Bincount (any rank, one row). `Tidx` is the dtype of `size`.
template <typename Tidx>
bool PlanBincount(TF_OpKernelContext* ctx, bool dense, BincountPlan* p) {
  const char* op = dense ? "DenseBincount" : "Bincount";
  p->values = Input(ctx, 0);
  TensorPtr size = Input(ctx, 1);
  p->weights = Input(ctx, 2);
  if (!p->values || !size || !p->weights) return false;
  if (TF_NumDims(size.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be a scalar, got shape " +
                                       ShapeString(Dims(size.get())));
    return false;
  }
  p->size = static_cast<int64_t>(*static_cast<const Tidx*>(TF_TensorData(size.get())));
  if (p->size < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size (" + std::to_string(p->size) +
                                       ") must be non-negative");
    return false;
  }
  const std::vector<int64_t> dims = Dims(p->values.get());
  const int64_t n = NumElements(dims);
  if (dense && dims.size() > 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Shape must be at most rank 2 but is rank " +
                                       std::to_string(dims.size()));
    return false;
  }
  const std::vector<int64_t> wdims = Dims(p->weights.get());
  p->weighted = NumElements(wdims) > 0;
  if (p->weighted && wdims != dims) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": `weights` must be the same shape as `arr` or a length-0 "
         "`Tensor`, in which case it acts as all weights equal to 1. Received " +
         ShapeString(wdims) + " for values of shape " + ShapeString(dims));
    return false;
  }
  p->count = n;
  if (dense && dims.size() == 2) {
    p->rows = dims[0];
    p->per_row = dims[1];
    p->out_dims = {p->rows, p->size};
  } else {
    p->rows = 1;
    p->per_row = n;
    p->out_dims = {p->size};
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen
