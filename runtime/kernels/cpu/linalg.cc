// The core linear-algebra ops on the CPU, batched over the leading dims: MatrixInverse,
// MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve and
// MatrixTriangularSolve (batch dims broadcast). Each matrix is factored in double or
// complex double (linalg_core.h) and rounded once to T. Checks and messages as
// TensorFlow's: an exactly singular (or NaN) pivot is "not invertible" for the inverse
// and the solve, a zero determinant otherwise; a failed Cholesky gives NaN. Host only:
// TensorFlow's GPU kernels are cuSOLVER's.
#include <algorithm>
#include <complex>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_util.h"
#include "linalg_batch.h"
#include "linalg_core.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using linalg::FromWide;
using linalg::LoadMatrix;
using linalg::ToWide;
using linalg::Wide;
using linalg::ForEachMatrix;

struct LinalgAttrs {
  bool lower = true, adjoint = false;
};

// The bool attrs an op has (adjoint, lower); the others keep their defaults.
void* CreateAttrs(TF_OpKernelConstruction* ctx) {
  auto* a = new LinalgAttrs();
  for (auto [name, field] : {std::pair<const char*, bool*>{"lower", &a->lower}, {"adjoint", &a->adjoint}}) {
    StatusPtr s = NewStatus();
    unsigned char v = 0;
    TF_OpKernelConstruction_GetAttrBool(ctx, name, &v, s.get());
    if (TF_GetCode(s.get()) == TF_OK) *field = v != 0;
  }
  return a;
}
void DeleteAttrs(void* p) { delete static_cast<LinalgAttrs*>(p); }

// Square matrices [..., n, n] at input `index`: n and the batch size, or false (failed).
bool SquareBatch(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, int index,
                 const char* not_square, int64_t* n, int64_t* batch) {
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input tensor " + std::to_string(index) +
                                       " must have rank >= 2, got " + std::to_string(dims.size()));
    return false;
  }
  if (dims[dims.size() - 1] != dims[dims.size() - 2]) {
    Fail(ctx, TF_INVALID_ARGUMENT, not_square);
    return false;
  }
  *n = dims.back();
  *batch = NumElements(std::vector<int64_t>(dims.begin(), dims.end() - 2));
  return true;
}

template <typename T>
void InverseCompute(void* state, TF_OpKernelContext* ctx) {
  const bool adjoint = static_cast<LinalgAttrs*>(state)->adjoint;
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  int64_t n, batch;
  if (!SquareBatch(ctx, dims, 0, "Input matrix must be square.", &n, &batch)) return;
  TensorPtr y = AllocateOutput<T>(ctx, 0, dims);
  if (!y || batch * n == 0) return;
  const T* in = Data<T>(x);
  T* out = Data<T>(y);
  ForEachMatrix(ctx, batch, n * n * n, [&](int64_t m) -> std::string {
    std::vector<Wide<T>> a = LoadMatrix(in + m * n * n, n * n);
    std::vector<int64_t> perm;
    bool odd;
    if (!(linalg::LuDecompose(a.data(), n, &perm, &odd) > 0)) return "Input is not invertible.";
    std::vector<Wide<T>> inv(n * n, Wide<T>(0));
    for (int64_t i = 0; i < n; ++i) inv[i * n + i] = Wide<T>(1);
    linalg::LuSolve(a.data(), perm, n, inv.data(), n);
    T* o = out + m * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        o[i * n + j] = FromWide<T>(adjoint ? linalg::Conj(inv[j * n + i]) : inv[i * n + j]);
    return {};
  });
}

// det = (-1)^swaps * prod(U's diagonal); log|det| and sign = det / |det| from the same
// factors (sign 0 and log -inf for a singular matrix).
template <typename T, bool kLog>
void DeterminantCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  int64_t n, batch;
  if (!SquareBatch(ctx, dims, 0, "Input matrix must be square.", &n, &batch)) return;
  const std::vector<int64_t> out_dims(dims.begin(), dims.end() - 2);
  TensorPtr first = AllocateOutput<T>(ctx, 0, out_dims);
  TensorPtr second = kLog ? AllocateOutput<T>(ctx, 1, out_dims) : TensorPtr();
  if (!first || (kLog && !second) || batch == 0) return;
  const T* in = Data<T>(x);
  T* sign_or_det = Data<T>(first);
  T* log_abs = kLog ? Data<T>(second) : nullptr;
  ForEachMatrix(ctx, batch, n * n * n, [&](int64_t m) -> std::string {
    std::vector<Wide<T>> a = LoadMatrix(in + m * n * n, n * n);
    std::vector<int64_t> perm;
    bool odd;
    linalg::LuDecompose(a.data(), n, &perm, &odd);
    Wide<T> sign(odd ? -1.0 : 1.0), det = sign;
    double log_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const Wide<T> d = a[i * n + i];
      const double mag = std::abs(d);
      det *= d;
      log_sum += std::log(mag);
      sign = mag == 0 ? Wide<T>(0) : sign * (d / mag);
    }
    if constexpr (kLog) {
      sign_or_det[m] = FromWide<T>(sign);
      log_abs[m] = FromWide<T>(Wide<T>(log_sum));
    } else {
      sign_or_det[m] = FromWide<T>(det);
    }
    return {};
  });
}

template <typename T>
void CholeskyCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  int64_t n, batch;
  if (!SquareBatch(ctx, dims, 0, "Input matrix must be square.", &n, &batch)) return;
  TensorPtr y = AllocateOutput<T>(ctx, 0, dims);
  if (!y || batch * n == 0) return;
  const T* in = Data<T>(x);
  T* out = Data<T>(y);
  ForEachMatrix(ctx, batch, n * n * n, [&](int64_t m) -> std::string {
    std::vector<Wide<T>> a = LoadMatrix(in + m * n * n, n * n);
    const bool ok = linalg::CholeskyLower(a.data(), n);
    const Wide<T> nan(std::numeric_limits<double>::quiet_NaN());
    for (int64_t i = 0; i < n * n; ++i) out[m * n * n + i] = FromWide<T>(ok ? a[i] : nan);
    return {};
  });
}

template <typename T>
void SolveCompute(void* state, TF_OpKernelContext* ctx) {
  const bool adjoint = static_cast<LinalgAttrs*>(state)->adjoint;
  TensorPtr a_t = Input(ctx, 0), b_t = Input(ctx, 1);
  if (!a_t || !b_t) return;
  const std::vector<int64_t> a_dims = Dims(a_t.get()), b_dims = Dims(b_t.get());
  int64_t n, batch;
  if (b_dims.size() < 2)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Input tensor 1 must have rank >= 2, got " + std::to_string(b_dims.size()));
  if (!SquareBatch(ctx, a_dims, 0, "First input (lhs) must be a square matrix.", &n, &batch)) return;
  if (a_dims.size() != b_dims.size() || !std::equal(a_dims.begin(), a_dims.end() - 2, b_dims.begin()))
    return Fail(ctx, TF_INVALID_ARGUMENT, "All input tensors must have the same outer dimensions.");
  if (b_dims[b_dims.size() - 2] != n)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input matrix and rhs are incompatible.");
  const int64_t k = b_dims.back();
  TensorPtr y = AllocateOutput<T>(ctx, 0, b_dims);
  if (!y || batch * n * k == 0) return;
  const T* a_in = Data<T>(a_t);
  const T* b_in = Data<T>(b_t);
  T* out = Data<T>(y);
  ForEachMatrix(ctx, batch, n * n * (n + k), [&](int64_t m) -> std::string {
    std::vector<Wide<T>> a = LoadMatrix(a_in + m * n * n, n * n);
    if (adjoint) {
      std::vector<Wide<T>> t(n * n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) t[i * n + j] = linalg::Conj(a[j * n + i]);
      a.swap(t);
    }
    std::vector<int64_t> perm;
    bool odd;
    if (!(linalg::LuDecompose(a.data(), n, &perm, &odd) > 0)) return "Input matrix is not invertible.";
    std::vector<Wide<T>> b = LoadMatrix(b_in + m * n * k, n * k);
    linalg::LuSolve(a.data(), perm, n, b.data(), k);
    for (int64_t i = 0; i < n * k; ++i) out[m * n * k + i] = FromWide<T>(b[i]);
    return {};
  });
}

// The batch dims of `a` and `b` broadcast (numpy's rule), or false.
bool BroadcastBatch(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                    std::vector<int64_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    (*out)[i] = x == 1 ? y : x;
  }
  return true;
}

// The offset (in matrices) of broadcast batch index `flat` in an operand of batch `dims`.
int64_t BatchOffset(int64_t flat, const std::vector<int64_t>& full, const std::vector<int64_t>& dims) {
  int64_t offset = 0, stride = 1;
  for (size_t i = full.size(); i-- > 0;) {
    const int64_t idx = flat % full[i];
    flat /= full[i];
    const size_t lead = full.size() - dims.size();
    if (i < lead) continue;
    const int64_t d = dims[i - lead];
    offset += (d == 1 ? 0 : idx) * stride;
    stride *= d;
  }
  return offset;
}

template <typename T>
void TriangularSolveCompute(void* state, TF_OpKernelContext* ctx) {
  const LinalgAttrs attrs = *static_cast<LinalgAttrs*>(state);
  TensorPtr a_t = Input(ctx, 0), b_t = Input(ctx, 1);
  if (!a_t || !b_t) return;
  const std::vector<int64_t> a_dims = Dims(a_t.get()), b_dims = Dims(b_t.get());
  for (const auto& [i, d] : {std::pair<int, const std::vector<int64_t>*>{0, &a_dims}, {1, &b_dims}})
    if (d->size() < 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Input tensor " + std::to_string(i) +
                                                " must have rank >= 2, got " + std::to_string(d->size()));
  const int64_t n = a_dims.back();
  if (a_dims[a_dims.size() - 2] != n)
    return Fail(ctx, TF_INVALID_ARGUMENT, "In[0] matrices in the last dimensions must be square (" +
                                              std::to_string(n) + " =/= " +
                                              std::to_string(a_dims[a_dims.size() - 2]) + ")");
  const std::vector<int64_t> a_batch(a_dims.begin(), a_dims.end() - 2);
  const std::vector<int64_t> b_batch(b_dims.begin(), b_dims.end() - 2);
  std::vector<int64_t> batch_dims;
  if (!BroadcastBatch(a_batch, b_batch, &batch_dims))
    return Fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] must have compatible batch dimensions: " +
                                              ShapeString(a_dims) + " vs. " + ShapeString(b_dims));
  if (b_dims[b_dims.size() - 2] != n)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "In[0] mismatch In[1] shape: " + std::to_string(n) + " vs. " +
                    std::to_string(b_dims[b_dims.size() - 2]) + ": " + ShapeString(a_dims) + " " +
                    ShapeString(b_dims) + " " + std::to_string(attrs.lower) + " " +
                    std::to_string(attrs.adjoint));
  const int64_t k = b_dims.back();
  std::vector<int64_t> out_dims = batch_dims;
  out_dims.push_back(n);
  out_dims.push_back(k);
  TensorPtr y = AllocateOutput<T>(ctx, 0, out_dims);
  const int64_t batch = NumElements(batch_dims);
  if (!y || batch * n * k == 0) return;
  const T* a_in = Data<T>(a_t);
  const T* b_in = Data<T>(b_t);
  T* out = Data<T>(y);
  ForEachMatrix(ctx, batch, n * n * k, [&](int64_t m) -> std::string {
    const std::vector<Wide<T>> a = LoadMatrix(a_in + BatchOffset(m, batch_dims, a_batch) * n * n, n * n);
    std::vector<Wide<T>> b = LoadMatrix(b_in + BatchOffset(m, batch_dims, b_batch) * n * k, n * k);
    linalg::TriangularSolve(a.data(), n, attrs.lower, attrs.adjoint, b.data(), k);
    for (int64_t i = 0; i < n * k; ++i) out[m * n * k + i] = FromWide<T>(b[i]);
    return {};
  });
}

template <typename... Ts>
void RegisterAll(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MatrixInverse", {{"T", DtypeOf<Ts>::value}}, {},
       &InverseCompute<Ts>, CreateAttrs, DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"MatrixDeterminant", {{"T", DtypeOf<Ts>::value}}, {},
       &DeterminantCompute<Ts, false>}, status), ...);
  (RegisterKernel(kDevice, {"LogMatrixDeterminant", {{"T", DtypeOf<Ts>::value}}, {},
       &DeterminantCompute<Ts, true>}, status), ...);
  (RegisterKernel(kDevice, {"Cholesky", {{"T", DtypeOf<Ts>::value}}, {}, &CholeskyCompute<Ts>},
                  status), ...);
  (RegisterKernel(kDevice, {"MatrixSolve", {{"T", DtypeOf<Ts>::value}}, {}, &SolveCompute<Ts>,
       CreateAttrs, DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"MatrixTriangularSolve", {{"T", DtypeOf<Ts>::value}}, {},
       &TriangularSolveCompute<Ts>, CreateAttrs, DeleteAttrs}, status), ...);
}

}  // namespace

// TensorFlow's CPU kernels: float, double, complex64, complex128; MatrixInverse also half.
void RegisterLinalgKernels(TF_Status* status) {
  RegisterAll(Types<float, double, std::complex<float>, std::complex<double>>(), status);
  RegisterKernel(kDevice, {"MatrixInverse", {{"T", TF_HALF}}, {}, &InverseCompute<Half>,
                           CreateAttrs, DeleteAttrs}, status);
}

}  // namespace cpu
}  // namespace opgen
