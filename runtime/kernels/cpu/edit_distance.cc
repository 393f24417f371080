// EditDistance on the CPU (TensorFlow registers only CPU kernels for it): the Levenshtein
// distance between the sequences (the last dimension) of two SparseTensors whose indices
// are in row-major order, paired by their other indices. A sequence with no partner
// counts as empty: against an empty truth the distance is the hypothesis length
// (infinity when normalized and not 0); an empty hypothesis gives the truth length (1
// normalized).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct EditDistanceAttrs {
  bool normalize = true;
};

void* CreateEditDistance(TF_OpKernelConstruction* ctx) {
  auto* a = new EditDistanceAttrs();
  StatusPtr s = NewStatus();
  a->normalize = kernels::BoolAttr(ctx, "normalize", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
void DeleteEditDistance(void* p) { delete static_cast<EditDistanceAttrs*>(p); }

// What each value compares as: 16-bit floats as float, strings as their bytes.
template <typename T>
auto Keys(const TF_Tensor* values) {
  const int64_t n = TF_Dim(values, 0);
  if constexpr (std::is_same_v<T, TF_TString>) {
    std::vector<std::string_view> out(n);
    const TF_TString* v = StringElements(values);
    for (int64_t i = 0; i < n; ++i) out[i] = StringElement(&v[i]);
    return out;
  } else {
    // (bools as bytes: vector<bool> has no data())
    using K = std::conditional_t<std::is_same_v<T, bool>, uint8_t, ComputeType<T>>;
    std::vector<K> out(n);
    const T* v = Data<T>(values);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<K>(Widen(v[i]));
    return out;
  }
}

template <typename K>
int64_t Levenshtein(const K* s, int64_t m, const K* t, int64_t n) {
  if (m == 0) return n;
  if (n == 0) return m;
  std::vector<int64_t> row(n + 1);
  for (int64_t j = 0; j <= n; ++j) row[j] = j;
  for (int64_t i = 1; i <= m; ++i) {
    int64_t diag = row[0];
    row[0] = i;
    for (int64_t j = 1; j <= n; ++j) {
      const int64_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (s[i - 1] == t[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[n];
}

std::string ShapeOf(const TF_Tensor* t) { return ShapeString(Dims(t)); }

// TensorFlow's checks of the six operands' ranks and sizes; "" when they pass.
std::string CheckOperands(TF_Tensor* const* in) {
  const char* names[] = {"hypothesis_indices", "hypothesis_values", "hypothesis_shape",
                         "truth_indices", "truth_values", "truth_shape"};
  for (int i : {0, 3})
    if (TF_NumDims(in[i]) != 2)
      return std::string(names[i]) + " should be a matrix, but got shape: " + ShapeOf(in[i]);
  for (int i : {1, 4, 2, 5})
    if (TF_NumDims(in[i]) != 1)
      return std::string(names[i]) + " should be a vector, but got shape: " + ShapeOf(in[i]);
  if (TF_Dim(in[1], 0) != TF_Dim(in[0], 0))
    return "Expected hypothesis_values.NumElements == #rows(hypothesis_indices), their shapes are: " +
           ShapeOf(in[1]) + " and " + ShapeOf(in[0]);
  if (TF_Dim(in[2], 0) != TF_Dim(in[0], 1))
    return "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes are: " +
           ShapeOf(in[2]) + " and " + ShapeOf(in[0]);
  if (TF_Dim(in[5], 0) < 2)
    return "Input SparseTensors must have rank at least 2, but truth_shape rank is: " +
           std::to_string(TF_Dim(in[5], 0));
  if (TF_Dim(in[4], 0) != TF_Dim(in[3], 0))
    return "Expected truth_values.NumElements == #rows(truth_indices), their shapes are: " +
           ShapeOf(in[4]) + " and " + ShapeOf(in[3]);
  if (TF_Dim(in[5], 0) != TF_Dim(in[3], 1))
    return "Expected truth_shape.NumElements == #cols(truth_indices), their shapes are: " +
           ShapeOf(in[5]) + " and " + ShapeOf(in[3]);
  if (TF_Dim(in[5], 0) != TF_Dim(in[2], 0))
    return "Expected truth and hypothesis to have matching ranks, but their shapes are: " +
           ShapeOf(in[5]) + " and " + ShapeOf(in[2]);
  return "";
}

// A dense shape operand as TensorFlow's TensorShape takes it; "" when valid.
std::string CheckShape(const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (d < 0) return "Dimension " + std::to_string(d) + " must be >= 0";
  if (kernels::CheckedNumElements(dims) < 0)
    return "Shape " + ShapeString(dims) + " would have more than 2**63 - 1 elements";
  return "";
}

// One SparseTensor's runs of equal leading indices (its sequences), in order.
struct Run {
  std::vector<int64_t> group;
  int64_t first, size;
};
std::vector<Run> Runs(const TF_Tensor* indices, int64_t rank) {
  const int64_t n = TF_Dim(indices, 0);
  const int64_t* ix = Data<int64_t>(indices);
  std::vector<Run> runs;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> g(ix + i * rank, ix + i * rank + rank - 1);
    if (!runs.empty() && runs.back().group == g) {
      ++runs.back().size;
    } else {
      runs.push_back({std::move(g), i, 1});
    }
  }
  return runs;
}

template <typename T>
void EditDistanceCompute(void* state, TF_OpKernelContext* ctx) {
  const bool normalize = static_cast<EditDistanceAttrs*>(state)->normalize;
  TensorPtr t[6];
  for (int i = 0; i < 6; ++i)
    if (!(t[i] = Input(ctx, i))) return;
  TF_Tensor* in[6];
  for (int i = 0; i < 6; ++i) in[i] = t[i].get();
  std::string error = CheckOperands(in);
  const std::vector<int64_t> h_shape = IndexValues(in[2]), t_shape = IndexValues(in[5]);
  if (error.empty()) error = CheckShape(h_shape);
  if (error.empty()) error = CheckShape(t_shape);
  if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
  const int64_t rank = static_cast<int64_t>(t_shape.size());
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d + 1 < rank; ++d) out_dims.push_back(std::max(h_shape[d], t_shape[d]));
  const int64_t elements = kernels::CheckedNumElements(out_dims);
  if (elements < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Shape " + ShapeString(out_dims) +
                " would have more than 2**63 - 1 elements");
  if (elements == 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Got output shape " + ShapeString(out_dims) + " which has 0 elements");
  TensorPtr out = AllocateOutput<float>(ctx, 0, out_dims);
  if (!out) return;
  float* y = Data<float>(out);
  std::fill(y, y + elements, 0.0f);
  std::vector<uint64_t> strides(out_dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(out_dims.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * static_cast<uint64_t>(out_dims[d + 1]);
  const auto hyp = Keys<T>(in[1]);
  const auto truth = Keys<T>(in[4]);
  const std::vector<Run> hr = Runs(in[0], rank), tr = Runs(in[3], rank);
  // Where a group's distance goes; false after failing as TensorFlow does (its
  // products wrap, so wrapping here finds the same slots).
  auto slot = [&](const std::vector<int64_t>& g, int64_t* loc) {
    uint64_t sum = 0;
    for (size_t d = 0; d < g.size(); ++d) sum += static_cast<uint64_t>(g[d]) * strides[d];
    *loc = static_cast<int64_t>(sum);
    if (*loc >= 0 && *loc < elements) return true;
    Fail(ctx, TF_INTERNAL, "Got an inner product " + std::to_string(*loc) +
         " which would require writing to outside of the buffer for the output tensor "
         "(max elements " + std::to_string(elements) + ")");
    return false;
  };
  auto only_hyp = [&](const Run& h) {
    int64_t loc;
    if (!slot(h.group, &loc)) return false;
    y[loc] = static_cast<float>(h.size);
    if (normalize && y[loc] != 0.0f) y[loc] = std::numeric_limits<float>::infinity();
    return true;
  };
  auto only_truth = [&](const Run& r) {
    int64_t loc;
    if (!slot(r.group, &loc)) return false;
    y[loc] = normalize ? 1.0f : static_cast<float>(r.size);
    return true;
  };
  size_t i = 0, j = 0;
  while (i < hr.size() && j < tr.size()) {
    const Run& h = hr[i];
    const Run& r = tr[j];
    if (h.group == r.group) {
      int64_t loc;
      if (!slot(r.group, &loc)) return;
      y[loc] = static_cast<float>(Levenshtein(truth.data() + r.first, r.size, hyp.data() + h.first, h.size));
      if (normalize) y[loc] /= static_cast<float>(r.size);
      ++i, ++j;
    } else if (r.group > h.group) {
      if (!only_hyp(h)) return;
      ++i;
    } else {
      if (!only_truth(r)) return;
      ++j;
    }
  }
  for (; i < hr.size(); ++i)
    if (!only_hyp(hr[i])) return;
  for (; j < tr.size(); ++j)
    if (!only_truth(tr[j])) return;
}

template <typename... Ts>
void RegisterEditDistance(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"EditDistance", {{"T", DtypeOf<Ts>::value}}, {}, EditDistanceCompute<Ts>,
                            CreateEditDistance, DeleteEditDistance}, status), ...);
}

}  // namespace

void RegisterEditDistanceKernels(TF_Status* status) {
  RegisterEditDistance(Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterKernel(kDevice, {"EditDistance", {{"T", TF_STRING}}, {}, EditDistanceCompute<TF_TString>,
                           CreateEditDistance, DeleteEditDistance}, status);
}

}  // namespace cpu
}  // namespace opgen
