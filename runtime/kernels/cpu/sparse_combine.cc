// SparseTensor arithmetic on the CPU only: SparseAdd (a sorted merge; sums below the
// threshold dropped) and SparseAddGrad, SparseSlice and SparseSliceGrad, SparseReduceSum
// (into a dense tensor) and SparseConcat. Host index walks, as sparse_tensor.cc's.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

#include "sparse_tensor_util.h"

namespace opgen {
namespace cpu {
namespace {

using sparse::Acc;
using sparse::CompareRows;
using sparse::GatherValues;
using sparse::SetIndices;

std::string Joined(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

template <typename T> double Magnitude(T x) {
  if constexpr (kIsComplex<T>) return std::abs(x);
  else return std::fabs(static_cast<double>(static_cast<ComputeType<T>>(x)));
}

template <typename T> double ToDouble(T x) {
  return static_cast<double>(static_cast<ComputeType<T>>(x));
}

// ---- SparseAdd --------------------------------------------------------------------------

template <typename T, typename R>
struct SparseAdd {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr ai = Input(ctx, 0), av = Input(ctx, 1), as = Input(ctx, 2), bi = Input(ctx, 3),
              bv = Input(ctx, 4), bs = Input(ctx, 5), th = Input(ctx, 6);
    if (!ai || !av || !as || !bi || !bv || !bs || !th) return;
    const auto shape = [](const TensorPtr& t) { return ShapeString(Dims(t.get())); };
    const auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
    if (TF_NumDims(ai.get()) != 2 || TF_NumDims(bi.get()) != 2)
      return bad("Input indices should be matrices but received shapes: " + shape(ai) + " and " +
                 shape(bi));
    if (TF_NumDims(av.get()) != 1 || TF_NumDims(bv.get()) != 1)
      return bad("Input values should be vectors but received shapes: " + shape(av) + " and " +
                 shape(bv));
    const int64_t an = TF_Dim(ai.get(), 0), bn = TF_Dim(bi.get(), 0);
    if (TF_Dim(av.get(), 0) != an || TF_Dim(bv.get(), 0) != bn)
      return bad("Expected " + std::to_string(an) + " and " + std::to_string(bn) +
                 " non-empty input values, got " + std::to_string(TF_Dim(av.get(), 0)) + " and " +
                 std::to_string(TF_Dim(bv.get(), 0)));
    const int64_t rank = TF_Dim(ai.get(), 1);
    if (TF_Dim(bi.get(), 1) != rank)
      return bad("Input indices must have the same dimension, got " + std::to_string(rank) +
                 " and " + std::to_string(TF_Dim(bi.get(), 1)));
    if (TF_NumDims(as.get()) != 1 || TF_NumDims(bs.get()) != 1)
      return bad("Input shapes should be a vector but received shapes " + shape(as) + " and " +
                 shape(bs));
    const std::vector<int64_t> a_shape = IndexValues(as.get()), b_shape = IndexValues(bs.get());
    if (static_cast<int64_t>(a_shape.size()) != rank)
      return bad("Second dimension of a_indices and length of a_shape must match, got " +
                 std::to_string(rank) + " and " + std::to_string(a_shape.size()));
    if (rank == 0) return bad("Tesors must not be empty");  // (TensorFlow's spelling)
    if (a_shape.size() != b_shape.size())
      return bad("Operands do not have the same ranks; got shapes: " + Joined(a_shape, " ") +
                 " and " + Joined(b_shape, " "));
    for (int64_t d = 0; d < rank; ++d)
      if (a_shape[d] != b_shape[d])
        return bad("Operands' shapes do not match: got " + std::to_string(a_shape[d]) + " and " +
                   std::to_string(b_shape[d]) + " for dimension " + std::to_string(d));
    if (TF_NumDims(th.get()) != 0)
      return bad("The magnitude threshold must be a scalar: got shape " + shape(th));
    const double thresh = ToDouble(*Data<R>(th.get()));
    const int64_t *x = Data<int64_t>(ai.get()), *y = Data<int64_t>(bi.get());
    const T *xv = Data<T>(av.get()), *yv = Data<T>(bv.get());
    // A merge of the two (assumed sorted) entry lists; coinciding entries add up and stay
    // when the sum's magnitude reaches the threshold.
    std::vector<int64_t> out_ind;
    std::vector<T> out_val;
    const auto take = [&](const int64_t* row, T v) {
      out_ind.insert(out_ind.end(), row, row + rank);
      out_val.push_back(v);
    };
    int64_t i = 0, j = 0;
    while (i < an && j < bn) {
      const int c = CompareRows(x + i * rank, y + j * rank, rank);
      if (c < 0) { take(x + i * rank, xv[i]); ++i; }
      else if (c > 0) { take(y + j * rank, yv[j]); ++j; }
      else {
        const T s = static_cast<T>(static_cast<Acc<T>>(xv[i]) + static_cast<Acc<T>>(yv[j]));
        if (thresh <= Magnitude(s)) take(x + i * rank, s);
        ++i, ++j;
      }
    }
    for (; i < an; ++i) take(x + i * rank, xv[i]);
    for (; j < bn; ++j) take(y + j * rank, yv[j]);
    const int64_t n = static_cast<int64_t>(out_val.size());
    SetIndices(ctx, 0, {n, rank}, out_ind);
    TensorPtr values = AllocateOutput<T>(ctx, 1, {n});
    if (!values) return;
    std::copy(out_val.begin(), out_val.end(), Data<T>(values));
    SetIndices(ctx, 2, {rank}, a_shape);
  }
};

template <typename T>
struct SparseAddGrad {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr g = Input(ctx, 0), ai = Input(ctx, 1), bi = Input(ctx, 2), si = Input(ctx, 3);
    if (!g || !ai || !bi || !si) return;
    const auto shape = [](const TensorPtr& t) { return ShapeString(Dims(t.get())); };
    const auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
    if (TF_NumDims(ai.get()) != 2 || TF_NumDims(bi.get()) != 2 || TF_NumDims(si.get()) != 2)
      return bad("Input indices should be matrices but received shapes: " + shape(ai) + " and " +
                 shape(bi) + " and " + shape(si));
    if (TF_NumDims(g.get()) != 1)
      return bad("Input backprop_val_grad should be a vector but received shape: " + shape(g));
    const int64_t rank = TF_Dim(ai.get(), 1);
    if (TF_Dim(bi.get(), 1) != rank || TF_Dim(si.get(), 1) != rank)
      return bad("The densified operands should have the same ndims; for A, B, sum got: " +
                 std::to_string(rank) + std::to_string(TF_Dim(bi.get(), 1)) +
                 std::to_string(TF_Dim(si.get(), 1)));
    const int64_t an = TF_Dim(ai.get(), 0), bn = TF_Dim(bi.get(), 0), sn = TF_Dim(si.get(), 0);
    if (TF_Dim(g.get(), 0) != sn)
      return bad("# elements of backprop_val_grad and # rows of sum_indices should match "
                 "(#nnz of sum): got " + std::to_string(TF_Dim(g.get(), 0)) + " and " +
                 std::to_string(sn));
    TensorPtr da = AllocateOutput<T>(ctx, 0, {an}), db = AllocateOutput<T>(ctx, 1, {bn});
    if (!da || !db) return;
    T *ga = Data<T>(da), *gb = Data<T>(db);
    std::fill(ga, ga + an, T{});
    std::fill(gb, gb + bn, T{});
    const int64_t *x = Data<int64_t>(ai.get()), *y = Data<int64_t>(bi.get()),
                  *z = Data<int64_t>(si.get());
    const T* gv = Data<T>(g.get());
    // SparseAdd's merge again: an operand entry gets the gradient of the sum entry it
    // became (none when its sum fell below the threshold).
    int64_t i = 0, j = 0, k = 0;
    const auto is_next = [&](const int64_t* row) {
      return k < sn && CompareRows(row, z + k * rank, rank) == 0;
    };
    while (i < an && j < bn && k < sn) {
      const int c = CompareRows(x + i * rank, y + j * rank, rank);
      if (c < 0) {
        if (is_next(x + i * rank)) ga[i] = gv[k++];
        ++i;
      } else if (c > 0) {
        if (is_next(y + j * rank)) gb[j] = gv[k++];
        ++j;
      } else {
        if (is_next(x + i * rank)) ga[i] = gb[j] = gv[k++];
        ++i, ++j;
      }
    }
    for (; i < an && k < sn; ++i)
      if (is_next(x + i * rank)) ga[i] = gv[k++];
    for (; j < bn && k < sn; ++j)
      if (is_next(y + j * rank)) gb[j] = gv[k++];
  }
};

// ---- SparseSlice ------------------------------------------------------------------------

void SparseSliceCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr ind = Input(ctx, 0), values = Input(ctx, 1), shape_t = Input(ctx, 2),
            start_t = Input(ctx, 3), size_t_ = Input(ctx, 4);
  if (!ind || !values || !shape_t || !start_t || !size_t_) return;
  if (!sparse::CheckSparseTensor(ctx, ind.get(), values.get(), shape_t.get())) return;
  if (TF_NumDims(start_t.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input start should be a vector but received shape " +
                                              ShapeString(Dims(start_t.get())));
  if (TF_NumDims(size_t_.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input size should be a vector but received shape " +
                                              ShapeString(Dims(size_t_.get())));
  const int64_t n = TF_Dim(ind.get(), 0), rank = TF_Dim(ind.get(), 1);
  const std::vector<int64_t> shape = IndexValues(shape_t.get()), start = IndexValues(start_t.get()),
                             size = IndexValues(size_t_.get());
  if (static_cast<int64_t>(start.size()) != rank)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected start to be a vector of length " +
                                              std::to_string(rank) + " but got length " +
                                              std::to_string(start.size()));
  if (static_cast<int64_t>(size.size()) != rank)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected size to be a vector of length " +
                                              std::to_string(rank) + " but got length " +
                                              std::to_string(size.size()));
  std::vector<int64_t> out_shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (size[d] < 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Expected a non-negative size, got " + std::to_string(size[d]));
    // the part of [start, start + size) inside [.., shape): empty when start is past it
    out_shape[d] = start[d] >= shape[d] ? 0 : std::min(start[d] + size[d], shape[d]) - start[d];
  }
  const int64_t* x = Data<int64_t>(ind.get());
  std::vector<int64_t> out_ind, from;
  for (int64_t i = 0; i < n; ++i) {
    bool inside = true;
    for (int64_t d = 0; d < rank && inside; ++d)
      inside = x[i * rank + d] >= start[d] && x[i * rank + d] < start[d] + out_shape[d];
    if (!inside) continue;
    for (int64_t d = 0; d < rank; ++d) out_ind.push_back(x[i * rank + d] - start[d]);
    from.push_back(i);
  }
  SetIndices(ctx, 0, {static_cast<int64_t>(from.size()), rank}, out_ind);
  GatherValues(ctx, 1, values.get(), nullptr, from);
  SetIndices(ctx, 2, {rank}, out_shape);
}

template <typename T>
struct SparseSliceGrad {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr g = Input(ctx, 0), in = Input(ctx, 1), start_t = Input(ctx, 2), out = Input(ctx, 3);
    if (!g || !in || !start_t || !out) return;
    const auto shape = [](const TensorPtr& t) { return ShapeString(Dims(t.get())); };
    const auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
    if (TF_NumDims(in.get()) != 2 || TF_NumDims(out.get()) != 2)
      return bad("Input and output indices should be matrices but received shapes: " +
                 shape(in) + " and " + shape(out));
    if (TF_NumDims(g.get()) != 1)
      return bad("Input backprop_val_grad should be a vector but received shape: " + shape(g));
    const int64_t rank = TF_Dim(in.get(), 1), n = TF_Dim(in.get(), 0), m = TF_Dim(out.get(), 0);
    if (TF_Dim(out.get(), 1) != rank)
      return bad("The input and output should have the same ndims: got: " +
                 std::to_string(rank) + " and " + std::to_string(TF_Dim(out.get(), 1)));
    if (TF_Dim(g.get(), 0) != m)
      return bad("# elements of backprop_val_grad and # rows of output_indices should match "
                 "(#nnz of sum): got " + std::to_string(TF_Dim(g.get(), 0)) + " and " +
                 std::to_string(m));
    if (TF_NumDims(start_t.get()) != 1 || TF_Dim(start_t.get(), 0) != rank)
      return bad("The start tensor should be a vector of length " + std::to_string(rank) +
                 " but received shape: " + shape(start_t));
    TensorPtr dv = AllocateOutput<T>(ctx, 0, {n});
    if (!dv) return;
    T* d = Data<T>(dv);
    std::fill(d, d + n, T{});
    const int64_t *x = Data<int64_t>(in.get()), *y = Data<int64_t>(out.get()),
                  *start = Data<int64_t>(start_t.get());
    const T* gv = Data<T>(g.get());
    // the slice kept the input's order: each output entry is the next input entry that
    // lands on it
    int64_t j = 0;
    for (int64_t i = 0; i < n && j < m; ++i) {
      bool same = true;
      for (int64_t k = 0; k < rank && same; ++k)
        same = x[i * rank + k] - start[k] == y[j * rank + k];
      if (same) d[i] = gv[j++];
    }
    if (j != m)
      // (TensorFlow reports it as Internal; it is bad input, so InvalidArgument here)
      Fail(ctx, TF_INVALID_ARGUMENT, "Elements of backprop_val_grad aren't all propagated. Num elements:" +
                                 std::to_string(m) + ", used: " + std::to_string(j));
  }
};

// ---- SparseReduceSum --------------------------------------------------------------------

template <typename T>
struct SparseReduceSum {
  static void Compute(void* attrs, TF_OpKernelContext* ctx) {
    const bool keep_dims = *static_cast<bool*>(attrs);
    TensorPtr ind = Input(ctx, 0), values = Input(ctx, 1), shape_t = Input(ctx, 2),
              axes_t = Input(ctx, 3);
    if (!ind || !values || !shape_t || !axes_t) return;
    const auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
    if (TF_NumDims(ind.get()) != 2)
      return bad("indices must be a matrix, but got: " + ShapeString(Dims(ind.get())));
    if (TF_NumDims(values.get()) != 1)
      return bad("vals must be a vec, but got: " + ShapeString(Dims(values.get())));
    if (TF_NumDims(shape_t.get()) != 1)
      return bad("Expected input_shape to be a vector; got shape: " +
                 ShapeString(Dims(shape_t.get())));
    if (TF_NumDims(axes_t.get()) > 1)
      return bad("Expected reduction_axes to be a scalar or a vector; got shape: " +
                 ShapeString(Dims(axes_t.get())));
    const int64_t n = TF_Dim(ind.get(), 0), rank = TF_Dim(ind.get(), 1);
    if (TF_Dim(values.get(), 0) != n)
      return bad("indices and values rows (indexing dimension) must match. (indices = " +
                 std::to_string(n) + ", values = " + std::to_string(TF_Dim(values.get(), 0)) + ")");
    const std::vector<int64_t> shape = IndexValues(shape_t.get());
    if (static_cast<int64_t>(shape.size()) != rank)
      return bad("Order length must be SparseTensor rank.");
    std::vector<bool> reduced(rank, false);
    for (int64_t a : IndexValues(axes_t.get())) {
      if (a < -rank || a >= rank)
        return bad("Invalid reduction dimension " + std::to_string(a) + ", for input with " +
                   std::to_string(rank) + " dimensions.");
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int64_t> out_dims, kept;  // kept: the dims that stay, in order
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) kept.push_back(d), out_dims.push_back(shape[d]);
      else if (keep_dims) out_dims.push_back(1);
    }
    if (!kernels::CheckShapeSize(ctx, "SparseReduceSum", out_dims)) return;
    int64_t total = 1;
    for (int64_t d : kept) total *= shape[d];
    std::vector<Acc<T>> acc(total, Acc<T>{});
    const int64_t* x = Data<int64_t>(ind.get());
    const T* v = Data<T>(values.get());
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int64_t d : kept) offset = offset * shape[d] + x[i * rank + d];
      // (as TensorFlow, only the flat output position is checked; TensorFlow reports it as
      // Internal, InvalidArgument here: it is bad input)
      if (offset < 0 || offset >= total)
        return Fail(ctx, TF_INVALID_ARGUMENT, "Obtained a write index of " + std::to_string(offset) +
                                          " which is outside of bounds of [0, " +
                                          std::to_string(total) + ")");
      acc[offset] += static_cast<Acc<T>>(v[i]);
    }
    TensorPtr out = AllocateOutput<T>(ctx, 0, out_dims);
    if (!out) return;
    T* o = Data<T>(out);
    for (int64_t j = 0; j < total; ++j) o[j] = static_cast<T>(acc[j]);
  }
};

void* CreateKeepDims(TF_OpKernelConstruction* c) {
  return new bool(kernels::BoolAttr(c, "keep_dims", ThreadStatus()));
}
void DeleteKeepDims(void* p) { delete static_cast<bool*>(p); }

// ---- SparseConcat -----------------------------------------------------------------------

void* CreateConcat(TF_OpKernelConstruction* c) {
  int64_t* dim = new int64_t(0);
  TF_Status* s = ThreadStatus();
  TF_OpKernelConstruction_GetAttrInt64(c, "concat_dim", dim, s);
  return dim;
}
void DeleteConcat(void* p) { delete static_cast<int64_t*>(p); }

void SparseConcatCompute(void* attrs, TF_OpKernelContext* ctx) {
  const int64_t concat_attr = *static_cast<int64_t*>(attrs);
  const int num = TF_NumInputs(ctx) / 3;
  std::vector<TensorPtr> ind(num), values(num), shapes(num);
  for (int i = 0; i < num; ++i) {
    ind[i] = Input(ctx, i), values[i] = Input(ctx, num + i), shapes[i] = Input(ctx, 2 * num + i);
    if (!ind[i] || !values[i] || !shapes[i]) return;
  }
  const auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
  const auto at = [](int i) { return " at position " + std::to_string(i); };
  for (int i = 0; i < num; ++i)
    if (TF_NumDims(ind[i].get()) != 2)
      return bad("Input indices should be a matrix but received shape " +
                 ShapeString(Dims(ind[i].get())) + at(i));
  for (int i = 0; i < num; ++i)
    if (TF_NumDims(values[i].get()) != 1)
      return bad("Input values should be a vector but received shape " +
                 ShapeString(Dims(values[i].get())) + at(i));
  for (int i = 0; i < num; ++i)
    if (TF_NumDims(shapes[i].get()) != 1)
      return bad("Input shapes should be a vector but received shape " +
                 ShapeString(Dims(shapes[i].get())) + at(i));
  std::vector<int64_t> out_shape = IndexValues(shapes[0].get());
  const int64_t rank = static_cast<int64_t>(out_shape.size());
  const int64_t dim = concat_attr < 0 ? concat_attr + rank : concat_attr;
  if (dim < 0 || dim >= rank)
    return bad("Concat dimension must be in range [" + std::to_string(-rank) + ", " +
               std::to_string(rank) + "), got " + std::to_string(concat_attr));
  std::vector<int64_t> offsets(num, 0);
  for (int i = 1; i < num; ++i) {
    const std::vector<int64_t> s = IndexValues(shapes[i].get());
    if (static_cast<int64_t>(s.size()) != rank)
      return bad("Ranks of all input tensors must match: expected " + std::to_string(rank) +
                 " but got " + std::to_string(s.size()) + at(i));
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && s[d] != out_shape[d])
        return bad("Input shapes must match: expected " + std::to_string(out_shape[d]) +
                   " for dimension " + std::to_string(d) + " but got " + std::to_string(s[d]) +
                   at(i));
    offsets[i] = out_shape[dim];
    out_shape[dim] += s[dim];
  }
  for (int i = 0; i < num; ++i) {
    const int64_t n = TF_Dim(ind[i].get(), 0);
    if (TF_Dim(values[i].get(), 0) != n)
      return bad("indices and values rows (indexing dimension) must match. (indices = " +
                 std::to_string(n) + ", values = " + std::to_string(TF_Dim(values[i].get(), 0)) +
                 ")");
    if (TF_Dim(ind[i].get(), 1) != rank)
      return bad("Index rank (" + std::to_string(TF_Dim(ind[i].get(), 1)) +
                 ") and shape rank (" + std::to_string(rank) + ") do not match" + at(i));
  }
  // Every entry, shifted along the concat dim, then all in row-major order (stable:
  // duplicates keep their order). The values are gathered from one flat list.
  std::vector<int64_t> all, from_input, from_row;
  for (int i = 0; i < num; ++i) {
    const int64_t* x = Data<int64_t>(ind[i].get());
    for (int64_t r = 0; r < TF_Dim(ind[i].get(), 0); ++r) {
      for (int64_t d = 0; d < rank; ++d)
        all.push_back(x[r * rank + d] + (d == dim ? offsets[i] : 0));
      from_input.push_back(i), from_row.push_back(r);
    }
  }
  const int64_t total = static_cast<int64_t>(from_row.size());
  std::vector<int64_t> order(total);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return CompareRows(&all[a * rank], &all[b * rank], rank) < 0;
  });
  std::vector<int64_t> out_ind(total * rank);
  for (int64_t j = 0; j < total; ++j)
    std::copy(&all[order[j] * rank], &all[order[j] * rank] + rank, out_ind.begin() + j * rank);
  SetIndices(ctx, 0, {total, rank}, out_ind);
  // one flat values tensor, so that GatherValues handles strings and bytes alike
  const TF_DataType type = TF_TensorType(values[0].get());
  TensorPtr flat;
  if (type == TF_STRING) {
    flat.reset(NewStringTensor(std::vector<int64_t>{total}));
    if (!flat) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for strings");
    TF_TString* y = MutableStringElements(flat.get());
    for (int64_t j = 0; j < total; ++j) {
      const TF_TString* x = StringElements(values[from_input[j]].get());
      if (!AssignString(&y[j], StringElement(&x[from_row[j]])))
        return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for strings");
    }
  } else {
    const size_t width = TF_DataTypeSize(type);
    const int64_t dims[1] = {total};
    flat.reset(TF_AllocateTensor(type, dims, 1, total * width));
    char* y = static_cast<char*>(TF_TensorData(flat.get()));
    for (int64_t j = 0; j < total; ++j)
      std::memcpy(y + j * width,
                  static_cast<const char*>(TF_TensorData(values[from_input[j]].get())) +
                      from_row[j] * width, width);
  }
  GatherValues(ctx, 1, flat.get(), nullptr, order);
  SetIndices(ctx, 2, {rank}, out_shape);
}

// ---- registration -----------------------------------------------------------------------

template <typename T, typename... Rs>
void RegisterAdd(Types<Rs...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SparseAdd", {{"T", DtypeOf<T>::value}, {"Treal", DtypeOf<Rs>::value}},
                            {}, &SparseAdd<T, Rs>::Compute}, status), ...);
}

template <typename... Ts>
void RegisterAddFamily(Types<Ts...>, TF_Status* status) {
  (RegisterAdd<Ts>(RealTypes(), status), ...);
  (RegisterKernel(kDevice, {"SparseAddGrad", {{"T", DtypeOf<Ts>::value}}, {},
                            &SparseAddGrad<Ts>::Compute}, status), ...);
}

template <typename... Ts>
void RegisterNumberKernels(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SparseSliceGrad", {{"T", DtypeOf<Ts>::value}}, {},
                            &SparseSliceGrad<Ts>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"SparseReduceSum", {{"T", DtypeOf<Ts>::value}}, {},
                            &sparse::Guarded<&SparseReduceSum<Ts>::Compute>, CreateKeepDims,
                            DeleteKeepDims},
                  status), ...);
}

}  // namespace

void RegisterSparseCombineKernels(TF_Status* status) {
  // TensorFlow's SparseAdd types; any real threshold type
  RegisterAddFamily(Types<float, double, int64_t, int32_t, int16_t, int8_t, std::complex<float>,
                          std::complex<double>>(), status);
  RegisterNumberKernels(Concat<RealTypes, ComplexTypes>(), status);
  std::vector<TF_DataType> types(std::begin(kAllFixedSizeTypes), std::end(kAllFixedSizeTypes));
  types.push_back(TF_STRING);
  for (TF_DataType t : types) {
    RegisterKernel(kDevice, {"SparseSlice", {{"T", t}}, {}, SparseSliceCompute}, status);
    RegisterKernel(kDevice, {"SparseConcat", {{"T", t}}, {}, SparseConcatCompute, CreateConcat,
                             DeleteConcat}, status);
  }
}

}  // namespace cpu
}  // namespace opgen
