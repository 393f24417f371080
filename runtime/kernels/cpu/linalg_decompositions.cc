// The matrix decompositions on the CPU, batched over the leading dims: Svd, Qr and
// SelfAdjointEigV2 through LAPACK (lapack.h: gesdd, geqrf + orgqr, syevd / heevd), Lu
// (linalg_core.h's partial pivoting, TensorFlow's pivot choice: the largest modulus) and
// MatrixSolveLs (fast: the regularized normal equations by Cholesky; otherwise LAPACK's
// complete orthogonal factorization, gelsy). Each matrix is worked on in double or
// complex double and rounded once to T. Checks, messages and degenerate inputs as
// TensorFlow's CPU kernels (Eigen's): a non-finite Svd input gives NaN factors, a NaN in
// the lower triangle fails SelfAdjointEigV2, an output that an attr turns off is a zero
// scalar. Host only: TensorFlow's GPU kernels are cuSOLVER's.
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_util.h"
#include "lapack.h"
#include "linalg_batch.h"
#include "linalg_core.h"

namespace opgen {
namespace cpu {
namespace {

using linalg::Conj;
using linalg::ForEachMatrix;
using linalg::FromWide;
using linalg::LoadMatrix;
using linalg::Wide;

struct DecompositionAttrs {
  bool compute_uv = true, full_matrices = false, compute_v = true, fast = true;
};

void* CreateAttrs(TF_OpKernelConstruction* ctx) {
  auto* a = new DecompositionAttrs();
  for (auto [name, field] : {std::pair<const char*, bool*>{"compute_uv", &a->compute_uv},
                             {"full_matrices", &a->full_matrices},
                             {"compute_v", &a->compute_v},
                             {"fast", &a->fast}}) {
    StatusPtr s = NewStatus();
    unsigned char v = 0;
    TF_OpKernelConstruction_GetAttrBool(ctx, name, &v, s.get());
    if (TF_GetCode(s.get()) == TF_OK) *field = v != 0;
  }
  return a;
}
void DeleteAttrs(void* p) { delete static_cast<DecompositionAttrs*>(p); }
const DecompositionAttrs& AttrsOf(void* state) { return *static_cast<DecompositionAttrs*>(state); }

// [..., m, n] at input `index`: the batch dims, m, n and the number of matrices.
struct Matrices {
  std::vector<int64_t> batch_dims;
  int64_t m = 0, n = 0, batch = 0;
  std::vector<int64_t> With(std::initializer_list<int64_t> inner) const {
    std::vector<int64_t> d = batch_dims;
    d.insert(d.end(), inner);
    return d;
  }
};

bool ReadMatrices(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, const std::string& rank_what,
                  Matrices* out) {
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         rank_what + " must have rank >= 2, got " + std::to_string(dims.size()));
    return false;
  }
  out->batch_dims.assign(dims.begin(), dims.end() - 2);
  out->m = dims[dims.size() - 2];
  out->n = dims.back();
  out->batch = NumElements(out->batch_dims);
  return true;
}

// LAPACK counts in 32-bit ints.
bool FitsLapack(TF_OpKernelContext* ctx, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes)
    if (s > INT_MAX / 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Matrix dimension " + std::to_string(s) + " is too large");
      return false;
    }
  return true;
}

template <typename T>
void SetIdentity(T* p, int64_t n) {
  for (int64_t i = 0; i < n * n; ++i) p[i] = T(0);
  for (int64_t i = 0; i < n; ++i) p[i * n + i] = T(1);
}

template <typename W>
bool AllFinite(const std::vector<W>& a) {
  return std::all_of(a.begin(), a.end(), [](const W& x) { return std::isfinite(std::abs(x)); });
}

template <typename T>
void SvdCompute(void* state, TF_OpKernelContext* ctx) {
  const DecompositionAttrs& attrs = AttrsOf(state);
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  Matrices in;
  if (!ReadMatrices(ctx, Dims(x.get()), "Input tensor 0", &in)) return;
  const int64_t m = in.m, n = in.n, p = std::min(m, n);
  const bool uv = attrs.compute_uv, full = attrs.full_matrices;
  const int64_t u_cols = full ? m : p, v_cols = full ? n : p;
  TensorPtr s_t = AllocateOutput<T>(ctx, 0, in.With({p}));
  TensorPtr u_t = AllocateOutput<T>(ctx, 1, uv ? in.With({m, u_cols}) : std::vector<int64_t>{});
  TensorPtr v_t = AllocateOutput<T>(ctx, 2, uv ? in.With({n, v_cols}) : std::vector<int64_t>{});
  if (!s_t || !u_t || !v_t) return;
  if (!uv) Data<T>(u_t)[0] = Data<T>(v_t)[0] = T(0);
  if (in.batch == 0) return;
  T* s_out = Data<T>(s_t);
  T* u_out = uv ? Data<T>(u_t) : nullptr;
  T* v_out = uv ? Data<T>(v_t) : nullptr;
  if (p == 0) {  // the full factors of an empty matrix are identities
    for (int64_t b = 0; uv && full && b < in.batch; ++b) {
      SetIdentity(u_out + b * m * m, m);
      SetIdentity(v_out + b * n * n, n);
    }
    return;
  }
  if (!FitsLapack(ctx, {m, n})) return;
  using W = Wide<T>;
  const T* data = Data<T>(x);
  ForEachMatrix(ctx, in.batch, m * n * p, [&](int64_t b) -> std::string {
    std::vector<W> a = LoadMatrix(data + b * m * n, m * n);
    std::vector<double> s(p);
    std::vector<W> u(uv ? m * u_cols : 1), vt(uv ? v_cols * n : 1);
    const bool ok = AllFinite(a) &&
                    lapack::Gesdd(!uv ? 'N' : full ? 'A' : 'S', static_cast<int>(m), static_cast<int>(n),
                                  a.data(), s.data(), u.data(), uv ? static_cast<int>(u_cols) : 1,
                                  vt.data(), uv ? static_cast<int>(n) : 1) == 0;
    // Eigen returns NaN factors for a non-finite matrix; so does a failed gesdd here.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t i = 0; i < p; ++i) s_out[b * p + i] = FromWide<T>(W(ok ? s[i] : nan));
    if (!uv) return {};
    T* uo = u_out + b * m * u_cols;
    for (int64_t i = 0; i < m * u_cols; ++i) uo[i] = FromWide<T>(ok ? u[i] : W(nan));
    T* vo = v_out + b * n * v_cols;  // v = VT^H
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < v_cols; ++j) vo[i * v_cols + j] = FromWide<T>(ok ? Conj(vt[j * n + i]) : W(nan));
    return {};
  });
}

template <typename T>
void QrCompute(void* state, TF_OpKernelContext* ctx) {
  const bool full = AttrsOf(state).full_matrices;
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  Matrices in;
  if (!ReadMatrices(ctx, Dims(x.get()), "Input tensor 0", &in)) return;
  const int64_t m = in.m, n = in.n, k = std::min(m, n);
  const int64_t q_cols = full ? m : k, r_rows = full ? m : k;
  TensorPtr q_t = AllocateOutput<T>(ctx, 0, in.With({m, q_cols}));
  TensorPtr r_t = AllocateOutput<T>(ctx, 1, in.With({r_rows, n}));
  if (!q_t || !r_t || in.batch == 0) return;
  T* q_out = Data<T>(q_t);
  T* r_out = Data<T>(r_t);
  if (k == 0) {
    for (int64_t b = 0; full && b < in.batch; ++b) SetIdentity(q_out + b * m * m, m);
    for (int64_t i = 0; i < in.batch * r_rows * n; ++i) r_out[i] = T(0);
    return;
  }
  if (!FitsLapack(ctx, {m, n})) return;
  using W = Wide<T>;
  const T* data = Data<T>(x);
  ForEachMatrix(ctx, in.batch, m * n * k, [&](int64_t b) -> std::string {
    std::vector<W> a = LoadMatrix(data + b * m * n, m * n);
    std::vector<W> tau(k);
    lapack::Geqrf(static_cast<int>(m), static_cast<int>(n), a.data(), static_cast<int>(n), tau.data());
    T* ro = r_out + b * r_rows * n;
    for (int64_t i = 0; i < r_rows; ++i)
      for (int64_t j = 0; j < n; ++j) ro[i * n + j] = FromWide<T>(i <= j && i < m ? a[i * n + j] : W(0));
    std::vector<W> q(m * q_cols, W(0));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < std::min(n, q_cols); ++j) q[i * q_cols + j] = a[i * n + j];
    lapack::Orgqr(static_cast<int>(m), static_cast<int>(q_cols), static_cast<int>(k), q.data(),
                  static_cast<int>(q_cols), tau.data());
    T* qo = q_out + b * m * q_cols;
    for (int64_t i = 0; i < m * q_cols; ++i) qo[i] = FromWide<T>(q[i]);
    return {};
  });
}

constexpr char kEigFailed[] =
    "Self-adjoint eigen decomposition was not successful. The input might not be valid.";

template <typename T>
void SelfAdjointEigCompute(void* state, TF_OpKernelContext* ctx) {
  const bool compute_v = AttrsOf(state).compute_v;
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  Matrices in;
  if (!ReadMatrices(ctx, Dims(x.get()), "Input tensor 0", &in)) return;
  if (in.m != in.n) return Fail(ctx, TF_INVALID_ARGUMENT, "Input matrix must be square.");
  const int64_t n = in.n;
  TensorPtr e_t = AllocateOutput<T>(ctx, 0, in.With({n}));
  TensorPtr v_t = AllocateOutput<T>(ctx, 1, compute_v ? in.With({n, n}) : std::vector<int64_t>{});
  if (!e_t || !v_t) return;
  if (!compute_v) Data<T>(v_t)[0] = T(0);
  if (in.batch * n == 0) return;
  if (!FitsLapack(ctx, {n})) return;
  using W = Wide<T>;
  const T* data = Data<T>(x);
  T* e_out = Data<T>(e_t);
  T* v_out = compute_v ? Data<T>(v_t) : nullptr;
  ForEachMatrix(ctx, in.batch, n * n * n, [&](int64_t b) -> std::string {
    std::vector<W> a = LoadMatrix(data + b * n * n, n * n);
    // Only the lower triangle is read. As Eigen's solver: a NaN there, or an infinity
    // below the diagonal, fails; an infinity on the diagonal gives NaN eigenvalues and
    // identity eigenvectors.
    bool inf_diagonal = false;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        const double mag = std::abs(a[i * n + j]);
        if (std::isnan(mag) || (std::isinf(mag) && j < i)) return kEigFailed;
        inf_diagonal = inf_diagonal || std::isinf(mag);
      }
    std::vector<double> w(n, std::numeric_limits<double>::quiet_NaN());
    if (inf_diagonal) {
      for (int64_t i = 0; i < n * n; ++i) a[i] = W(i % (n + 1) == 0 ? 1 : 0);
    } else if (lapack::Syevd(compute_v ? 'V' : 'N', static_cast<int>(n), a.data(), w.data()) != 0) {
      return kEigFailed;
    }
    for (int64_t i = 0; i < n; ++i) e_out[b * n + i] = FromWide<T>(W(w[i]));
    if (compute_v)
      for (int64_t i = 0; i < n * n; ++i) v_out[b * n * n + i] = FromWide<T>(a[i]);
    return {};
  });
}

template <typename T, typename Idx>
void LuCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  Matrices in;
  if (!ReadMatrices(ctx, Dims(x.get()), "Input tensor", &in)) return;
  if (in.m != in.n) return Fail(ctx, TF_INVALID_ARGUMENT, "Input matrix must be square.");
  const int64_t n = in.n;
  TensorPtr lu_t = AllocateOutput<T>(ctx, 0, in.With({n, n}));
  TensorPtr p_t = AllocateOutput<Idx>(ctx, 1, in.With({n}));
  if (!lu_t || !p_t || in.batch * n == 0) return;
  const T* data = Data<T>(x);
  T* lu_out = Data<T>(lu_t);
  Idx* p_out = Data<Idx>(p_t);
  ForEachMatrix(ctx, in.batch, n * n * n, [&](int64_t b) -> std::string {
    std::vector<Wide<T>> a = LoadMatrix(data + b * n * n, n * n);
    std::vector<int64_t> perm;
    bool odd;
    // Only an exactly zero (or NaN) pivot is refused, as TensorFlow's.
    if (!(linalg::LuDecompose(a.data(), n, &perm, &odd) > 0)) return "Input is not invertible.";
    for (int64_t i = 0; i < n * n; ++i) lu_out[b * n * n + i] = FromWide<T>(a[i]);
    for (int64_t i = 0; i < n; ++i) p_out[b * n + i] = static_cast<Idx>(perm[i]);
    return {};
  });
}

constexpr char kRankDeficient[] =
    "Input matrix was rank deficient or ill-conditioned. Try setting fast=False or provide a "
    "larger l2_regularizer > 0.";

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> using Real = typename RealOf<T>::type;

template <typename T>
void SolveLsCompute(void* state, TF_OpKernelContext* ctx) {
  const bool fast = AttrsOf(state).fast;
  TensorPtr a_t = Input(ctx, 0), b_t = Input(ctx, 1), l2_t = Input(ctx, 2);
  if (!a_t || !b_t || !l2_t) return;
  Matrices a_in, b_in;
  if (!ReadMatrices(ctx, Dims(a_t.get()), "Input tensor 0", &a_in) ||
      !ReadMatrices(ctx, Dims(b_t.get()), "Input tensor 1", &b_in))
    return;
  if (a_in.batch_dims != b_in.batch_dims)
    return Fail(ctx, TF_INVALID_ARGUMENT, "All input tensors must have the same outer dimensions.");
  if (a_in.m != b_in.m) return Fail(ctx, TF_INVALID_ARGUMENT, "Input matrix and rhs are incompatible.");
  const int64_t m = a_in.m, n = a_in.n, k = b_in.n;
  TensorPtr y = AllocateOutput<T>(ctx, 0, a_in.With({n, k}));
  if (!y || a_in.batch == 0) return;
  // Checked per matrix in TensorFlow: only when there is one.
  const std::vector<int64_t> l2_dims = Dims(l2_t.get());
  if (!l2_dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "l2_regularizer must be scalar, got shape " + ShapeString(l2_dims));
  const double l2 = Data<double>(l2_t)[0];
  if (!(l2 >= 0)) return Fail(ctx, TF_INVALID_ARGUMENT, "l2_regularizer must be >= 0.");
  T* out = Data<T>(y);
  if (m == 0 || n == 0 || k == 0) {  // the minimum-norm solution is 0
    for (int64_t i = 0; i < a_in.batch * n * k; ++i) out[i] = T(0);
    return;
  }
  if (!FitsLapack(ctx, {m, n, k})) return;
  using W = Wide<T>;
  const T* a_data = Data<T>(a_t);
  const T* b_data = Data<T>(b_t);
  // Eigen's rank threshold: T's epsilon times the smaller dim (relative to the largest pivot).
  constexpr bool kDouble = std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>;
  const double eps = kDouble ? std::numeric_limits<double>::epsilon()
                             : static_cast<double>(std::numeric_limits<float>::epsilon());
  ForEachMatrix(ctx, a_in.batch, m * n * std::max(m, n) + m * n * k, [&](int64_t bi) -> std::string {
    T* o = out + bi * n * k;
    if (!fast) {
      const std::vector<W> a = LoadMatrix(a_data + bi * m * n, m * n);
      const std::vector<W> rhs = LoadMatrix(b_data + bi * m * k, m * k);
      if (!std::all_of(a.begin(), a.end(), [](const W& v) { return !std::isnan(std::abs(v)); })) {
        for (int64_t i = 0; i < n * k; ++i) o[i] = T(0);  // Eigen finds rank 0
        return {};
      }
      std::vector<W> f = a, x(std::max(m, n) * k, W(0));
      std::copy(rhs.begin(), rhs.end(), x.begin());
      lapack::Gelsy(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), f.data(), x.data(),
                    eps * static_cast<double>(std::min(m, n)));
      for (int64_t i = 0; i < n * k; ++i) o[i] = FromWide<T>(x[i]);
      return {};
    }
    // m >= n: (A^H A + l2 I) x = A^H b.  m < n: x = A^H (A A^H + l2 I)^-1 b. In T's own
    // precision, as TensorFlow's: whether the Cholesky factor exists (the rank-deficiency
    // error) depends on it.
    const bool over = m >= n;
    const int64_t g = over ? n : m;
    const T* ap = a_data + bi * m * n;
    const T* bp = b_data + bi * m * k;
    std::vector<T> gram(g * g, T(0));
    for (int64_t i = 0; i < g; ++i)
      for (int64_t j = 0; j < g; ++j) {
        T s(0);
        if (over) for (int64_t r = 0; r < m; ++r) s += Conj(ap[r * n + i]) * ap[r * n + j];
        else for (int64_t c = 0; c < n; ++c) s += ap[i * n + c] * Conj(ap[j * n + c]);
        gram[i * g + j] = s + (i == j && l2 > 0 ? T(static_cast<Real<T>>(l2)) : T(0));
      }
    // Eigen's LLT, in T's own precision: only a pivot <= 0 fails.
    if (!linalg::CholeskyLower<T, Real<T>, true>(gram.data(), g)) return kRankDeficient;
    std::vector<T> z(g * k, T(0));
    if (over) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < k; ++c) z[i * k + c] += Conj(ap[r * n + i]) * bp[r * k + c];
    } else {
      z.assign(bp, bp + m * k);
    }
    linalg::TriangularSolve(gram.data(), g, true, false, z.data(), k);
    linalg::TriangularSolve(gram.data(), g, true, true, z.data(), k);
    if (over) {
      std::copy(z.begin(), z.end(), o);
    } else {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < k; ++c) {
          T s(0);
          for (int64_t r = 0; r < m; ++r) s += Conj(ap[r * n + i]) * z[r * k + c];
          o[i * k + c] = s;
        }
    }
    return {};
  });
}

template <typename... Ts>
void RegisterAll(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Svd", {{"T", DtypeOf<Ts>::value}}, {}, &SvdCompute<Ts>, CreateAttrs,
                            DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"Qr", {{"T", DtypeOf<Ts>::value}}, {}, &QrCompute<Ts>, CreateAttrs,
                            DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"SelfAdjointEigV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &SelfAdjointEigCompute<Ts>, CreateAttrs, DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"MatrixSolveLs", {{"T", DtypeOf<Ts>::value}}, {}, &SolveLsCompute<Ts>,
                            CreateAttrs, DeleteAttrs}, status), ...);
  (RegisterKernel(kDevice, {"Lu", {{"T", DtypeOf<Ts>::value}, {"output_idx_type", TF_INT32}}, {},
                            &LuCompute<Ts, int32_t>}, status), ...);
  (RegisterKernel(kDevice, {"Lu", {{"T", DtypeOf<Ts>::value}, {"output_idx_type", TF_INT64}}, {},
                            &LuCompute<Ts, int64_t>}, status), ...);
}

}  // namespace

// TensorFlow's CPU kernels: float, double, complex64, complex128; Qr also half.
void RegisterLinalgDecompositionsKernels(TF_Status* status) {
  RegisterAll(Types<float, double, std::complex<float>, std::complex<double>>(), status);
  RegisterKernel(kDevice, {"Qr", {{"T", TF_HALF}}, {}, &QrCompute<Half>, CreateAttrs, DeleteAttrs},
                 status);
}

}  // namespace cpu
}  // namespace opgen
