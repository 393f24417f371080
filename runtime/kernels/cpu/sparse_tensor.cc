// The SparseTensor ops on the CPU only: SparseReorder, SparseReshape, SparseFillEmptyRows,
// SparseFillEmptyRowsGrad, SparseTensorDenseMatMul. They walk int64 index rows on the host;
// GPU placements fall back to these kernels (TensorFlow has GPU kernels for some; opgen
// none yet). Values of any type move as bytes (strings element by element).
#include <algorithm>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

#include "sparse_tensor_util.h"

namespace opgen {
namespace cpu {
namespace {

using sparse::Acc;
using sparse::GatherValues;
using sparse::SetIndices;

// ---- SparseReorder --------------------------------------------------------------------

void SparseReorderCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr ind = Input(ctx, 0), values = Input(ctx, 1), shape = Input(ctx, 2);
  if (!ind || !values || !shape) return;
  if (!sparse::CheckSparseTensor(ctx, ind.get(), values.get(), shape.get())) return;
  const int64_t n = TF_Dim(ind.get(), 0), rank = TF_Dim(ind.get(), 1);
  const int64_t* x = Data<int64_t>(ind.get());
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // row-major order; duplicates keep their input order
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(x + a * rank, x + (a + 1) * rank, x + b * rank,
                                        x + (b + 1) * rank);
  });
  std::vector<int64_t> sorted(n * rank);
  for (int64_t j = 0; j < n; ++j) std::copy(x + order[j] * rank, x + (order[j] + 1) * rank,
                                            sorted.begin() + j * rank);
  SetIndices(ctx, 0, {n, rank}, sorted);
  GatherValues(ctx, 1, values.get(), nullptr, order);
}

// ---- SparseReshape --------------------------------------------------------------------

void SparseReshapeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr ind = Input(ctx, 0), in_shape_t = Input(ctx, 1), new_shape_t = Input(ctx, 2);
  if (!ind || !in_shape_t || !new_shape_t) return;
  if (TF_NumDims(ind.get()) != 2) return Fail(ctx, TF_INVALID_ARGUMENT, "Input must be a matrix.");
  if (TF_NumDims(in_shape_t.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input shape must be a vector.");
  if (TF_NumDims(new_shape_t.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Target shape should be a vector but received shape " +
                                              ShapeString(Dims(new_shape_t.get())));
  const int64_t n = TF_Dim(ind.get(), 0), rank = TF_Dim(ind.get(), 1);
  const std::vector<int64_t> in_shape = IndexValues(in_shape_t.get());
  std::vector<int64_t> out_shape = IndexValues(new_shape_t.get());
  if (static_cast<int64_t>(in_shape.size()) != rank)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input tensor rank must match input shape length.");
  int64_t dense = 1;
  for (int64_t d : in_shape) {
    if (d < 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Expected shape dimensions to be non-negative, got " + std::to_string(d));
    if (__builtin_mul_overflow(dense, d, &dense))
      return Fail(ctx, TF_INVALID_ARGUMENT, "Input shape has too many elements");
  }
  int64_t product = 1, unknown = -1;
  for (size_t d = 0; d < out_shape.size(); ++d) {
    if (out_shape[d] == -1) {
      if (unknown != -1)
        return Fail(ctx, TF_INVALID_ARGUMENT, "only one output dimension may be -1, not both " +
                                                  std::to_string(unknown) + " and " +
                                                  std::to_string(d));
      unknown = static_cast<int64_t>(d);
    } else if (out_shape[d] < 0) {
      return Fail(ctx, TF_INVALID_ARGUMENT, "size " + std::to_string(d) +
                                                " must be non-negative, not " +
                                                std::to_string(out_shape[d]));
    } else if (__builtin_mul_overflow(product, out_shape[d], &product)) {
      return Fail(ctx, TF_INVALID_ARGUMENT, "Target shape has too many elements");
    }
  }
  const auto shape_text = [](const std::vector<int64_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
  };
  if (unknown != -1) {
    if (product == 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "reshape cannot infer the missing input size for an empty tensor unless all "
                  "specified input sizes are non-zero");
    out_shape[unknown] = dense / product;
    if (out_shape[unknown] * product != dense)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Input to reshape is a SparseTensor with " + std::to_string(dense) +
                      " dense values, but the requested shape requires a multiple of " +
                      std::to_string(product) + ". input_shape=" + shape_text(in_shape) +
                      " output_shape=" + shape_text(out_shape));
    product = dense;
  }
  if (product != dense)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Input to reshape is a tensor with " + std::to_string(dense) +
                    " dense values, but the requested shape has " + std::to_string(product) +
                    ". input_shape=" + shape_text(in_shape) + " output_shape=" +
                    shape_text(out_shape));
  // Each entry's row-major offset in the old shape, unravelled in the new one (indices
  // are not checked against the shape, as in TensorFlow).
  const int64_t out_rank = static_cast<int64_t>(out_shape.size());
  std::vector<int64_t> in_strides(rank, 1), out_strides(out_rank, 1);
  for (int64_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * in_shape[d];
  for (int64_t d = out_rank - 1; d > 0; --d) out_strides[d - 1] = out_strides[d] * out_shape[d];
  const int64_t* x = Data<int64_t>(ind.get());
  std::vector<int64_t> out(n * out_rank);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) offset += x[i * rank + d] * in_strides[d];
    for (int64_t d = 0; d < out_rank; ++d) {
      out[i * out_rank + d] = out_strides[d] != 0 ? offset / out_strides[d] : 0;
      if (out_strides[d] != 0) offset %= out_strides[d];
    }
  }
  SetIndices(ctx, 0, {n, out_rank}, out);
  SetIndices(ctx, 1, {out_rank}, out_shape);
}

// ---- SparseFillEmptyRows --------------------------------------------------------------

void SparseFillEmptyRowsCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr ind = Input(ctx, 0), values = Input(ctx, 1), shape_t = Input(ctx, 2),
            fill = Input(ctx, 3);
  if (!ind || !values || !shape_t || !fill) return;
  const auto saw = [](const TF_Tensor* t) { return ShapeString(Dims(t)); };
  if (TF_NumDims(ind.get()) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "indices must be a matrix, saw: " + saw(ind.get()));
  if (TF_NumDims(values.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "values must be a vector, saw: " + saw(values.get()));
  if (TF_NumDims(shape_t.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "dense_shape must be a vector, saw: " + saw(shape_t.get()));
  if (TF_NumDims(fill.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "default_value must be a scalar, saw: " + saw(fill.get()));
  const int64_t n = TF_Dim(ind.get(), 0), rank = TF_Dim(ind.get(), 1);
  if (TF_Dim(values.get(), 0) != n)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The length of `values` (" +
                                              std::to_string(TF_Dim(values.get(), 0)) +
                                              ") must match the first dimension of `indices` (" +
                                              std::to_string(n) + ").");
  if (TF_Dim(shape_t.get(), 0) != rank)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The length of `dense_shape` (" +
                                              std::to_string(TF_Dim(shape_t.get(), 0)) +
                                              ") must match the second dimension of `indices` (" +
                                              std::to_string(rank) + ").");
  const std::vector<int64_t> shape = IndexValues(shape_t.get());
  if (shape.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, "Dense shape cannot be empty.");
  for (int64_t d : shape)
    if (d < 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Expected shape dimensions to be non-negative, got " + std::to_string(d));
  const int64_t rows = shape[0];
  // (the rows become outputs: a count no tensor holds fails here, not in an allocation)
  if (!kernels::CheckShapeSize(ctx, "SparseFillEmptyRows", {rows, std::max<int64_t>(rank, 1)}))
    return;
  const int64_t* x = Data<int64_t>(ind.get());
  std::vector<int64_t> count(rows, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = x[i * rank];
    if (r < 0 || r >= rows)
      return Fail(ctx, TF_INVALID_ARGUMENT, "indices(" + std::to_string(i) + ", 0) is invalid: " +
                                                std::to_string(r) + " >= " + std::to_string(rows));
    ++count[r];
  }
  // Each row's first output slot: its entries (in input order), or one default entry.
  std::vector<int64_t> start(rows + 1, 0);
  for (int64_t r = 0; r < rows; ++r) start[r + 1] = start[r] + std::max<int64_t>(count[r], 1);
  const int64_t total = start[rows];
  std::vector<int64_t> out_ind(total * rank, 0), from(total, -1), reverse(n), next(start);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t slot = next[x[i * rank]]++;
    reverse[i] = slot;
    from[slot] = i;
    std::copy(x + i * rank, x + (i + 1) * rank, out_ind.begin() + slot * rank);
  }
  TensorPtr empty = AllocateOutput<bool>(ctx, 2, {rows});
  if (!empty) return;
  for (int64_t r = 0; r < rows; ++r) {
    Data<bool>(empty)[r] = count[r] == 0;
    if (count[r] == 0) out_ind[start[r] * rank] = r;
  }
  SetIndices(ctx, 0, {total, rank}, out_ind);
  GatherValues(ctx, 1, values.get(), fill.get(), from);
  SetIndices(ctx, 3, {n}, reverse);
}

template <typename T>
struct FillEmptyRowsGrad {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr map = Input(ctx, 0), grad = Input(ctx, 1);
    if (!map || !grad) return;
    if (TF_NumDims(map.get()) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "reverse_index_map must be a vector, saw: " +
                                                ShapeString(Dims(map.get())));
    if (TF_NumDims(grad.get()) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "grad_values must be a vector, saw: " +
                                                ShapeString(Dims(grad.get())));
    const int64_t n = TF_Dim(map.get(), 0), m = TF_Dim(grad.get(), 0);
    const int64_t* idx = Data<int64_t>(map.get());
    const T* g = Data<T>(grad.get());
    for (int64_t i = 0; i < n; ++i)
      if (idx[i] < 0 || idx[i] >= m)
        return Fail(ctx, TF_INVALID_ARGUMENT, "Elements in reverse index must be in [0, " +
                                                  std::to_string(m) + ") but got " +
                                                  std::to_string(idx[i]));
    TensorPtr d_values = AllocateOutput<T>(ctx, 0, {n}), d_default = AllocateOutput<T>(ctx, 1, {});
    if (!d_values || !d_default) return;
    std::vector<bool> taken(m, false);
    for (int64_t i = 0; i < n; ++i) {
      Data<T>(d_values)[i] = g[idx[i]];
      taken[idx[i]] = true;
    }
    // the default value's gradient: the entries SparseFillEmptyRows added
    Acc<T> sum{};
    for (int64_t j = 0; j < m; ++j)
      if (!taken[j]) sum += static_cast<Acc<T>>(g[j]);
    *Data<T>(d_default) = static_cast<T>(sum);
  }
};

// ---- SparseTensorDenseMatMul ----------------------------------------------------------

template <typename T> T Conj(T x) { return x; }
template <typename R> std::complex<R> Conj(std::complex<R> x) { return std::conj(x); }

template <typename T, typename I>
struct SparseDenseMatMul {
  static void Compute(void* attrs, TF_OpKernelContext* ctx) {
    const bool adj_a = static_cast<bool*>(attrs)[0], adj_b = static_cast<bool*>(attrs)[1];
    TensorPtr ind = Input(ctx, 0), values = Input(ctx, 1), shape_t = Input(ctx, 2),
              b = Input(ctx, 3);
    if (!ind || !values || !shape_t || !b) return;
    if (TF_NumDims(b.get()) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor 'b' is not a matrix");
    if (TF_NumDims(shape_t.get()) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor 'a_shape' is not a vector");
    if (TF_TensorElementCount(shape_t.get()) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor 'a_shape' must have 2 elements");
    if (TF_NumDims(values.get()) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor 'a_values' is not a vector");
    if (TF_NumDims(ind.get()) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor 'a_indices' is not a matrix");
    const int64_t nnz = TF_Dim(ind.get(), 0);
    if (nnz != TF_Dim(values.get(), 0))
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Number of rows of a_indices does not match number of entries in a_values");
    if (TF_Dim(ind.get(), 1) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Number of columns of a_indices does not match number of entries in a_shape");
    const int64_t* shape = Data<int64_t>(shape_t.get());
    const int64_t out_rows = shape[adj_a ? 1 : 0], inner_a = shape[adj_a ? 0 : 1];
    const int64_t b_rows = TF_Dim(b.get(), 0), b_cols = TF_Dim(b.get(), 1);
    const int64_t inner_b = adj_b ? b_cols : b_rows, out_cols = adj_b ? b_rows : b_cols;
    if (inner_a != inner_b)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Cannot multiply A and B because inner dimension does not match: " +
                      std::to_string(inner_a) + " vs. " + std::to_string(inner_b) +
                      ".  Did you forget a transpose?  Dimensions of A: [" +
                      std::to_string(shape[0]) + ", " + std::to_string(shape[1]) +
                      ").  Dimensions of B: " + ShapeString(Dims(b.get())));
    if (out_rows < 0 || out_cols < 0)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Dimensions of A must be non-negative");
    TensorPtr out = AllocateOutput<T>(ctx, 0, {out_rows, out_cols});
    if (!out || out_rows * out_cols == 0) return;
    std::vector<Acc<T>> acc(out_rows * out_cols, Acc<T>{});
    const I* x = Data<I>(ind.get());
    const T* v = Data<T>(values.get());
    const T* y = Data<T>(b.get());
    const int lhs = adj_a ? 1 : 0;
    for (int64_t i = 0; i < nnz; ++i) {
      const int64_t m = x[i * 2 + lhs], k = x[i * 2 + 1 - lhs];
      // TensorFlow's messages: which of the two is out of bounds, at which index entry
      const auto outside = [&](const char* what, int64_t value, int column, int64_t bound) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             std::string(what) + " (" + std::to_string(value) + ") from index[" +
                 std::to_string(i) + "," + std::to_string(column) + "] out of bounds (>=" +
                 std::to_string(bound) + ")");
      };
      if (k < 0 || k >= inner_a) return outside("k", k, 1 - lhs, inner_a);
      if (m < 0 || m >= out_rows) return outside("m", m, lhs, out_rows);
      const Acc<T> a = static_cast<Acc<T>>(adj_a ? Conj(v[i]) : v[i]);
      Acc<T>* row = &acc[m * out_cols];
      if (adj_b)
        for (int64_t j = 0; j < out_cols; ++j)
          row[j] += a * static_cast<Acc<T>>(Conj(y[j * b_cols + k]));
      else
        for (int64_t j = 0; j < out_cols; ++j)
          row[j] += a * static_cast<Acc<T>>(y[k * b_cols + j]);
    }
    T* o = Data<T>(out);
    for (size_t j = 0; j < acc.size(); ++j) o[j] = static_cast<T>(acc[j]);
  }
};

void* CreateAdjoints(TF_OpKernelConstruction* c) {
  TF_Status* s = ThreadStatus();
  return new bool[2]{kernels::BoolAttr(c, "adjoint_a", s), kernels::BoolAttr(c, "adjoint_b", s)};
}
void DeleteAdjoints(void* p) { delete[] static_cast<bool*>(p); }

template <typename... Ts>
void RegisterMatMul(Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {"SparseTensorDenseMatMul",
                              {{"T", DtypeOf<Ts>::value}, {"Tindices", i}},
                              {}, i == TF_INT32 ? &SparseDenseMatMul<Ts, int32_t>::Compute
                                                : &SparseDenseMatMul<Ts, int64_t>::Compute,
                              CreateAdjoints, DeleteAdjoints}, status), ...);
  }
}

template <typename... Ts>
void RegisterFillGrad(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SparseFillEmptyRowsGrad", {{"T", DtypeOf<Ts>::value}}, {},
                            &FillEmptyRowsGrad<Ts>::Compute}, status), ...);
}

}  // namespace

void RegisterSparseTensorKernels(TF_Status* status) {
  std::vector<TF_DataType> types(std::begin(kAllFixedSizeTypes), std::end(kAllFixedSizeTypes));
  types.push_back(TF_STRING);
  for (TF_DataType t : types) {
    RegisterKernel(kDevice, {"SparseReorder", {{"T", t}}, {}, SparseReorderCompute}, status);
    RegisterKernel(kDevice, {"SparseFillEmptyRows", {{"T", t}}, {},
                             sparse::Guarded<SparseFillEmptyRowsCompute>}, status);
  }
  RegisterKernel(kDevice, {"SparseReshape", {}, {}, SparseReshapeCompute}, status);
  RegisterFillGrad(Concat<RealTypes, ComplexTypes>(), status);
  RegisterMatMul(Types<float, double, int32_t, Half, BFloat16, std::complex<float>,
                       std::complex<double>>(), status);
}

}  // namespace cpu
}  // namespace opgen
