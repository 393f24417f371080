// InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub},
// DataFormat{VecPermute,DimMap}: operand checks (TensorFlow's messages) and per-element
// rules, shared by the CPU kernels and the CUDA plugin's. Bitcast is complete here: it
// only re-types the input's buffer, on any device.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// ---- InTopK --------------------------------------------------------------------------

struct InTopKPlan {
  TensorPtr predictions, targets;
  int64_t rows = 0, classes = 0, k = 0;
};

// k from the attr (InTopK, `k_attr`) or from host input 2 (InTopKV2, k_attr < 0 unused).
inline bool PlanInTopK(TF_OpKernelContext* ctx, bool k_input, int64_t k_attr, InTopKPlan* p) {
  p->predictions = Input(ctx, 0);
  p->targets = Input(ctx, 1);
  if (!p->predictions || !p->targets) return false;
  p->k = k_attr;
  if (k_input) {
    TensorPtr k = Input(ctx, 2);
    if (!k) return false;
    if (TF_NumDims(k.get()) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "k must be 0-D, got shape " + ShapeString(Dims(k.get())));
      return false;
    }
    p->k = IndexValues(k.get())[0];
  }
  const std::vector<int64_t> pd = Dims(p->predictions.get()), td = Dims(p->targets.get());
  if (pd.size() != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "predictions must be 2-dimensional");
    return false;
  }
  if (td.size() != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "targets must be 1-dimensional");
    return false;
  }
  if (pd[0] != td[0]) {
    Fail(ctx, TF_INVALID_ARGUMENT, "First dimension of predictions " + std::to_string(pd[0]) +
         " must match length of targets " + std::to_string(td[0]));
    return false;
  }
  p->rows = pd[0];
  p->classes = pd[1];
  return true;
}

OPGEN_HD inline bool FiniteFloat(float x) { return x - x == 0.0f; }

// False for a target out of range or any non-finite prediction in the row; otherwise
// whether fewer than k predictions are strictly greater than the target's (ties are in).
template <typename I>
OPGEN_HD inline bool InTopKRow(const float* row, int64_t classes, I target, int64_t k) {
  if (target < 0 || static_cast<int64_t>(target) >= classes) return false;
  const float t = row[target];
  if (!FiniteFloat(t)) return false;
  int64_t above = 0;
  for (int64_t j = 0; j < classes; ++j) {
    if (!FiniteFloat(row[j])) return false;
    if (row[j] > t) ++above;
  }
  return above < k;
}

// ---- UpperBound / LowerBound ---------------------------------------------------------

struct SearchPlan {
  TensorPtr sorted, values;
  int64_t batch = 0, n = 0, m = 0;
};

inline bool PlanSearchSorted(TF_OpKernelContext* ctx, SearchPlan* p) {
  p->sorted = Input(ctx, 0);
  p->values = Input(ctx, 1);
  if (!p->sorted || !p->values) return false;
  const std::vector<int64_t> sd = Dims(p->sorted.get()), vd = Dims(p->values.get());
  for (const auto& [dims, name] : {std::make_pair(sd, "sorted_inputs"), std::make_pair(vd, "values")}) {
    if (dims.size() != 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Shape must be rank 2 but is rank " +
           std::to_string(dims.size()) + " for `" + name + "` argument");
      return false;
    }
  }
  if (sd[0] != vd[0]) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Leading dim_size of both tensors must match.");
    return false;
  }
  if (TF_ExpectedOutputDataType(ctx, 0) == TF_INT32 && sd[1] >= 2147483647) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "trailing dim_size must less than INT_MAX for int32 output type, was " +
         std::to_string(sd[1]));
    return false;
  }
  p->batch = sd[0];
  p->n = sd[1];
  p->m = vd[1];
  return true;
}

// The first index of row[0, n) where `v < row[i]` (upper) or `!(row[i] < v)` (lower)
// holds: std::upper_bound / std::lower_bound with `less` as the order.
template <bool kUpper, typename T, typename Less>
OPGEN_HD inline int64_t SearchRow(const T* row, int64_t n, T v, Less less) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const bool right = kUpper ? !less(v, row[mid]) : less(row[mid], v);
    if (right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- Diag / DiagPart -----------------------------------------------------------------

// Diag: the input's element count n; the output is [dims..., dims...], an n x n matrix.
inline bool PlanDiag(TF_OpKernelContext* ctx, TensorPtr* in, std::vector<int64_t>* out_dims) {
  *in = Input(ctx, 0);
  if (!*in) return false;
  const std::vector<int64_t> dims = Dims(in->get());
  if (dims.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input must be at least rank 1, got 0");
    return false;
  }
  *out_dims = dims;
  out_dims->insert(out_dims->end(), dims.begin(), dims.end());
  return true;
}

inline bool PlanDiagPart(TF_OpKernelContext* ctx, TensorPtr* in, std::vector<int64_t>* out_dims) {
  *in = Input(ctx, 0);
  if (!*in) return false;
  const std::vector<int64_t> dims = Dims(in->get());
  if (dims.size() % 2 != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The rank of the tensor should be" + std::string(42, ' ') +
         "even and positive, got shape " + ShapeString(dims));
    return false;
  }
  const size_t half = dims.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    if (dims[i] != dims[i + half]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Invalid shape " + ShapeString(dims) + ": dimensions " +
           std::to_string(i) + " and " + std::to_string(i + half) + " do not match.");
      return false;
    }
  }
  out_dims->assign(dims.begin(), dims.begin() + half);
  return true;
}

// ---- Bitcast -------------------------------------------------------------------------


inline void BitcastCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  const TF_DataType from = TF_TensorType(input.get()), to = TF_ExpectedOutputDataType(ctx, 0);
  const size_t in_size = TF_DataTypeSize(from), out_size = TF_DataTypeSize(to);
  std::vector<int64_t> dims = Dims(input.get());
  const std::string cannot =
      "Cannot bitcast from " + std::to_string(from) + " to " + std::to_string(to);
  if (in_size == 0 || out_size == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, cannot);
    return;
  }
  if (in_size > out_size) {
    dims.push_back(static_cast<int64_t>(in_size / out_size));
  } else if (in_size < out_size) {
    if (dims.empty() || dims.back() != static_cast<int64_t>(out_size / in_size)) {
      Fail(ctx, TF_INVALID_ARGUMENT, cannot);
      return;
    }
    dims.pop_back();
  }
  TF_Status* s = ThreadStatus();
  TF_Tensor* view = nullptr;
  TF_GetInput(ctx, 0, &view, s);  // a second handle on the input's buffer, re-typed
  if (TF_GetCode(s) == TF_OK)
    TF_TensorBitcastFrom(input.get(), to, view, dims.data(), static_cast<int>(dims.size()), s);
  if (TF_GetCode(s) == TF_OK) TF_SetOutput(ctx, 0, view, s);
  if (view != nullptr) TF_DeleteTensor(view);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

// ---- InplaceUpdate / InplaceAdd / InplaceSub -----------------------------------------

enum class InplaceMode { kUpdate, kAdd, kSub };

struct InplacePlan {
  TensorPtr x, i, v;
  std::vector<int64_t> dims;  // x's
  int64_t rows = 0, row_size = 0, count = 0;  // x's rows, elements per row, len(i)
};

inline bool PlanInplace(TF_OpKernelContext* ctx, InplacePlan* p) {
  p->x = Input(ctx, 0);
  p->i = Input(ctx, 1);
  p->v = Input(ctx, 2);
  if (!p->x || !p->i || !p->v) return false;
  const std::vector<int64_t> xd = Dims(p->x.get()), id = Dims(p->i.get()), vd = Dims(p->v.get());
  if (id.size() != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "i must be a vector. " + ShapeString(id));
    return false;
  }
  if (xd.size() != vd.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "x and v shape doesn't match (ranks differ): " +
         ShapeString(xd) + " vs. " + ShapeString(vd));
    return false;
  }
  for (size_t d = 1; d < xd.size(); ++d) {
    if (xd[d] != vd[d]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "x and v shape doesn't match at index " + std::to_string(d) +
           " : " + ShapeString(xd) + " vs. " + ShapeString(vd));
      return false;
    }
  }
  // (TensorFlow reads v's first dim even for a scalar x; a scalar has no rows to index.)
  if (vd.empty() || id[0] != vd[0]) {
    Fail(ctx, TF_INVALID_ARGUMENT, "i and x shape doesn't match at index 0: " + ShapeString(id) +
         " vs. " + ShapeString(vd));
    return false;
  }
  p->dims = xd;
  p->rows = xd[0];
  p->count = id[0];
  // Row indices wrap modulo the rows, as TensorFlow's; with no rows there is nothing to
  // wrap into (TensorFlow divides by zero there).
  if (p->rows == 0 && p->count > 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "x has no rows, but i has " + std::to_string(p->count) +
         " indices: " + ShapeString(xd));
    return false;
  }
  p->row_size = p->rows == 0 ? 0 : NumElements(xd) / p->rows;
  return true;
}

OPGEN_HD inline int64_t WrapRow(int64_t i, int64_t rows) { return ((i % rows) + rows) % rows; }

// ---- DataFormatVecPermute / DataFormatDimMap -----------------------------------------

struct DataFormatAttrs {
  std::string src, dst;
};

// Checks the formats as TensorFlow's kernels do when they are built.
inline void* CreateDataFormat(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new DataFormatAttrs{StringAttr(ctx, "src_format", s.get()), ""};
  if (TF_GetCode(s.get()) == TF_OK) a->dst = StringAttr(ctx, "dst_format", s.get());
  auto bad = [&](const std::string& message) {
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, message.c_str());
  };
  if (TF_GetCode(s.get()) == TF_OK) {
    if (a->src.size() != 4 && a->src.size() != 5) {
      bad("Source format must be of length 4 or 5, received src_format = " + a->src);
    } else if (a->dst.size() != 4 && a->dst.size() != 5) {
      bad("Destination format must be of length 4 or 5, received dst_format = " + a->dst);
    } else {
      std::string x = a->src, y = a->dst;
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      if (x != y || std::adjacent_find(x.begin(), x.end()) != x.end())
        bad("Destination and source format must determine a permutation, got " + a->src +
            " and " + a->dst);
    }
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteDataFormat(void* p) { delete static_cast<DataFormatAttrs*>(p); }

// DimMap's table: map[j] = dst.find(src[j]).
inline std::vector<int64_t> DimMapTable(const DataFormatAttrs& a) {
  std::vector<int64_t> map(a.src.size());
  for (size_t j = 0; j < a.src.size(); ++j) map[j] = static_cast<int64_t>(a.dst.find(a.src[j]));
  return map;
}

// The source slot of index x, as TensorFlow computes it: (x + n) % n in x's own type
// (wrapping, truncating), a negative remainder (x < -n) taking the last slot.
template <typename T>
OPGEN_HD inline int64_t DimMapIndex(T x, int64_t n) {
  using U = std::make_unsigned_t<T>;
  const T shifted = static_cast<T>(static_cast<U>(x) + static_cast<U>(n));
  const int64_t m = static_cast<int64_t>(shifted % static_cast<T>(n));
  return m < 0 ? n - 1 : m;
}

// VecPermute: checks x ([n] or [n, 2], n the format's length or its spatial dims) and
// gives the source row of each output row: y[r] = x[from[r]].
inline bool PlanVecPermute(TF_OpKernelContext* ctx, const DataFormatAttrs& a, const TF_Tensor* x,
                           std::vector<int64_t>* from) {
  const std::vector<int64_t> dims = Dims(x);
  const int64_t full = static_cast<int64_t>(a.src.size()), spatial = full - 2;
  if (dims.size() != 1 && dims.size() != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "input must be a vector or 2D tensor, but got shape " + ShapeString(dims));
    return false;
  }
  const std::string sizes = std::to_string(spatial) + " or " + std::to_string(full);
  if (dims[0] != spatial && dims[0] != full) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         (dims.size() == 1 ? "1D input must be of size " : "First dimension of 2D input must be of size ") +
         sizes + ", but got shape " + ShapeString(dims));
    return false;
  }
  if (dims.size() == 2 && dims[1] != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Second dimension of 2D input must be of size 2, but got shape " + ShapeString(dims));
    return false;
  }
  std::string src = a.src, dst = a.dst;
  if (dims[0] == spatial) {  // only the spatial letters (H, W, and D in 5-letter formats)
    auto keep = [full](const std::string& f) {
      std::string out;
      for (char c : f)
        if (c == 'H' || c == 'W' || (full == 5 && c == 'D')) out += c;
      return out;
    };
    src = keep(src);
    dst = keep(dst);
    if (static_cast<int64_t>(src.size()) != spatial || static_cast<int64_t>(dst.size()) != spatial) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Formats " + a.src + " and " + a.dst +
           " have no spatial dimensions H, W (and D) to permute a vector of size " +
           std::to_string(spatial));
      return false;
    }
  }
  from->resize(dst.size());
  for (size_t r = 0; r < dst.size(); ++r) (*from)[r] = static_cast<int64_t>(src.find(dst[r]));
  return true;
}

}  // namespace kernels
}  // namespace opgen
