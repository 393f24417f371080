// Cumsum, Cumprod, CumulativeLogsumexp, TopKV2 and Where on the CPU: operands checked by ../misc_spec.h
// (shared with the CUDA plugin), here the arithmetic.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "../misc_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

struct SumScan {
  static constexpr const char* kName = "Cumsum";
  template <typename A> static A Identity() { return A(0); }
  template <typename A> static A Combine(A a, A b) { return WrappingAdd(a, b); }
};
struct ProdScan {
  static constexpr const char* kName = "Cumprod";
  template <typename A> static A Identity() { return A(1); }
  template <typename A> static A Combine(A a, A b) { return WrappingMul(a, b); }
};
// log(exp(acc) + exp(b)) without overflow, as TensorFlow forms it (its NaN and infinity
// results included): min and max as std::min/max pick them (a NaN b loses to acc), a
// maximum of -inf is the result; -inf is the identity (an exclusive scan's first).
struct LogSumExpScan {
  static constexpr const char* kName = "CumulativeLogsumexp";
  template <typename A> static A Identity() { return -std::numeric_limits<A>::infinity(); }
  template <typename A> static A Combine(A acc, A b) {
    const A lo = b < acc ? b : acc, hi = acc < b ? b : acc;
    if (hi < std::numeric_limits<A>::lowest()) return hi;
    return hi + std::log1p(std::exp(lo - hi));
  }
};

// x as [outer, len, inner]: each (outer, inner) line is scanned along len, in the
// compute type (float for half and bfloat16), each result rounded once.
template <typename Scan>
struct Cumulative {
  template <typename T>
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto& attrs = *static_cast<const kernels::CumulativeAttrs*>(state);
    kernels::CumulativePlan p;
    if (!kernels::PlanCumulative(ctx, Scan::kName, &p)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
    if (!out) return;
    const T* x = Data<T>(p.x);
    T* y = Data<T>(out);
    const int64_t len = p.len, inner = p.inner;
    using A = ComputeType<T>;
    ParallelFor(p.outer, [&](int64_t begin, int64_t end) {
      std::vector<A> acc(static_cast<size_t>(inner));
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), Scan::template Identity<A>());
        for (int64_t step = 0; step < len; ++step) {
          const int64_t l = attrs.reverse ? len - 1 - step : step;
          const T* xr = x + (o * len + l) * inner;
          T* yr = y + (o * len + l) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const A next = Scan::Combine(acc[i], A(Widen(xr[i])));
            yr[i] = Narrow<T>(attrs.exclusive ? acc[i] : next);
            acc[i] = next;
          }
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(1, len * inner)));
  }
};

// Larger first; NaN counts as the largest; ties by the lower index.
template <typename T, typename Index>
void TopKCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TopKPlan p;
  if (!kernels::PlanTopK(ctx, &p)) return;
  TensorPtr values = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!values) return;
  TensorPtr indices = AllocateOutput<Index>(ctx, 1, p.out_dims);
  if (!indices) return;
  const int64_t cols = p.cols, k = p.k;
  if (k == 0) return;
  const T* in = Data<T>(p.input);
  T* vo = Data<T>(values);
  Index* io = Data<Index>(indices);
  ParallelFor(p.rows, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(static_cast<size_t>(cols));
    for (int64_t r = begin; r < end; ++r) {
      const T* row = in + r * cols;
      std::iota(order.begin(), order.end(), 0);
      auto before = [row](int64_t a, int64_t b) {
        const auto va = Widen(row[a]), vb = Widen(row[b]);
        const bool na = va != va, nb = vb != vb;
        if (na || nb) return na && (!nb || a < b);
        return va > vb || (va == vb && a < b);
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        vo[r * k + j] = row[order[j]];
        io[r * k + j] = static_cast<Index>(order[j]);
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(1, cols)));
}

template <typename T>
bool NonZero(T v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return v.real() != 0 || v.imag() != 0;
  else return Widen(v) != ComputeType<T>(0);  // -0.0 is zero, NaN is not
}

// Where: the coordinates of the non-zero elements, in row-major order.
template <typename T>
void WhereCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  const std::vector<int64_t> dims = Dims(input.get());
  const int64_t n = NumElements(dims), rank = static_cast<int64_t>(dims.size());
  if (rank == 0) {  // as TensorFlow's kernel
    Fail(ctx, TF_INVALID_ARGUMENT, "Where: the input must have rank >= 1, got a scalar");
    return;
  }
  const T* x = Data<T>(input);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += NonZero(x[i]);
  TensorPtr out = AllocateOutput<int64_t>(ctx, 0, {count, rank});
  if (!out) return;
  int64_t* o = Data<int64_t>(out);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (NonZero(x[i])) {
      std::copy(index.begin(), index.end(), o);
      o += rank;
    }
    for (int64_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

template <typename Scan, typename... Ts>
void RegisterCumulative(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}}, {},
         &Cumulative<Scan>::template Compute<Ts>, kernels::CreateCumulative,
         kernels::DeleteCumulative}, status),
     ...);
}

template <typename... Ts>
void RegisterTopK(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT16}}, {},
       &TopKCompute<Ts, int16_t>}, status), ...);
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT32}}, {},
       &TopKCompute<Ts, int32_t>}, status), ...);
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT64}}, {},
       &TopKCompute<Ts, int64_t>}, status), ...);
}

template <typename... Ts>
void RegisterWhere(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Where", {{"T", DtypeOf<Ts>::value}}, {}, &WhereCompute<Ts>}, status), ...);
}

}  // namespace

void RegisterScanTopKKernels(TF_Status* status) {
  // TensorFlow's CPU types; TopKV2 has no complex (no order).
  RegisterCumulative<SumScan>("Cumsum", Concat<RealTypes, ComplexTypes>(), status);
  RegisterCumulative<ProdScan>("Cumprod", Concat<RealTypes, ComplexTypes>(), status);
  RegisterCumulative<LogSumExpScan>("CumulativeLogsumexp", FloatTypes(), status);
  RegisterTopK(RealTypes(), status);
  RegisterWhere(Concat<RealAndBoolTypes, Types<std::complex<float>, std::complex<double>>>(), status);
}

}  // namespace cpu
}  // namespace opgen
