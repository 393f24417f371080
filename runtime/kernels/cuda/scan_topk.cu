// Cumsum, Cumprod, CumulativeLogsumexp, TopKV2 and Where on the GPU (twin of ../cpu/scan_topk.cc). Checks, shapes and messages
// are the CPU kernels' (../misc_spec.h); results are theirs: scans
// in the compute type rounded once per element, TopKV2 largest first with NaN largest
// and ties to the lower index, Where's coordinates in row-major order.
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../misc_spec.h"
#include "complex_parts.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "strided_pass.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T> using Wide = typename ComputeType<T>::type;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
// Integer scans wrap: they run on the unsigned type of the width.
template <typename T, typename = void> struct ScanTypeOf { using type = Wide<T>; };
template <typename T> struct ScanTypeOf<T, std::enable_if_t<kIsInteger<T>>> {
  using type = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
};

// The scans: running sums, products, and log-sum-exps (-inf the identity, as the CPU's).
enum class ScanKind { kSum, kProd, kLogSumExp };
constexpr const char* kScanNames[] = {"Cumsum", "Cumprod", "CumulativeLogsumexp"};

template <ScanKind kKind, typename A>
__device__ __forceinline__ A ScanIdentity() {
  if constexpr (kKind == ScanKind::kLogSumExp) return -A(INFINITY);
  else return kKind == ScanKind::kProd ? A(1) : A(0);
}
template <ScanKind kKind, typename A>
__device__ __forceinline__ A ScanCombine(A a, A b) {
  if constexpr (kKind == ScanKind::kLogSumExp) {  // as the CPU's (TensorFlow's NaN rules)
    const A lo = b < a ? b : a, hi = a < b ? b : a;
    if (hi == -A(INFINITY)) return hi;  // below the lowest value: -inf
    return hi + log1p(exp(lo - hi));
  } else {
    return kKind == ScanKind::kProd ? a * b : a + b;
  }
}

// A thread per (outer, inner) line, scanning along len.
template <ScanKind kKind, typename T>
__global__ void ScanKernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t len,
                           int64_t inner, bool exclusive, bool reverse) {
  using A = typename ScanTypeOf<T>::type;
  const int64_t lines = outer * inner;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lines;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, i = t - o * inner;
    A acc = ScanIdentity<kKind, A>();
    for (int64_t step = 0; step < len; ++step) {
      const int64_t l = reverse ? len - 1 - step : step;
      const int64_t at = (o * len + l) * inner + i;
      const A v = static_cast<A>(Widen(x[at]));
      const A next = ScanCombine<kKind, A>(acc, v);
      y[at] = Narrow<T>(static_cast<Wide<T>>(exclusive ? acc : next));
      acc = next;
    }
  }
}

template <ScanKind kKind>
struct Cumulative {
  template <typename T>
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto& attrs = *static_cast<const kernels::CumulativeAttrs*>(state);
    kernels::CumulativePlan p;
    const char* name = kScanNames[static_cast<int>(kKind)];
    if (!kernels::PlanCumulative(ctx, name, &p)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
    if (!out || NumElements(p.dims) == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    ScanKernel<kKind, T><<<BlocksFor(p.outer * p.inner), kThreads, 0, stream>>>(
        Data<T>(p.x), Data<T>(out), p.outer, p.len, p.inner, attrs.exclusive, attrs.reverse);
    CheckLaunch(ctx, name);
  }
};

// Whether (va, a) comes before (vb, b) in TopKV2's order.
template <typename C>
__device__ __forceinline__ bool Before(C va, int64_t a, C vb, int64_t b) {
  const bool na = va != va, nb = vb != vb;
  if (na || nb) return na && (!nb || a < b);
  return va > vb || (va == vb && a < b);
}

// A thread per row: k selection passes, each taking the first element after the one
// the previous pass took (no scratch memory; fine for the small k of models).
template <typename T, typename Index>
__global__ void TopKKernel(const T* __restrict__ in, int64_t rows, int64_t cols, int64_t k,
                           T* __restrict__ values, Index* __restrict__ indices) {
  using C = Wide<T>;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* row = in + r * cols;
    int64_t prev = -1;
    C prev_value = C(0);
    for (int64_t j = 0; j < k; ++j) {
      int64_t best = -1;
      C best_value = C(0);
      for (int64_t c = 0; c < cols; ++c) {
        const C v = Widen(row[c]);
        if (prev >= 0 && !Before(prev_value, prev, v, c)) continue;  // taken already
        if (best < 0 || Before(v, c, best_value, best)) {
          best = c;
          best_value = v;
        }
      }
      values[r * k + j] = row[best];
      indices[r * k + j] = static_cast<Index>(best);
      prev = best;
      prev_value = best_value;
    }
  }
}

template <typename T, typename Index>
void TopKCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TopKPlan p;
  if (!kernels::PlanTopK(ctx, &p)) return;
  TensorPtr values = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!values) return;
  TensorPtr indices = AllocateOutput(ctx, 1, DtypeOf<Index>::value, p.out_dims);
  if (!indices || p.k == 0 || p.rows == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TopKKernel<T, Index><<<BlocksFor(p.rows), kThreads, 0, stream>>>(
      Data<T>(p.input), p.rows, p.cols, p.k, Data<T>(values), Data<Index>(indices));
  CheckLaunch(ctx, "TopKV2");
}

// Where: the output's size depends on the values, so they come to the host (as
// TensorFlow's GPU kernel also waits for the count), and the coordinates go back.
template <typename T>
bool NonZeroBits(const unsigned char* p) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return (bits & 0x7fff) != 0;  // -0.0 is zero; NaN is not
  } else if constexpr (std::is_same_v<T, float2> || std::is_same_v<T, double2>) {
    using F = std::conditional_t<std::is_same_v<T, float2>, float, double>;
    F parts[2];
    std::memcpy(parts, p, sizeof parts);
    return parts[0] != 0 || parts[1] != 0;
  } else {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v != T(0);
  }
}

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
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  std::vector<unsigned char> host(TF_TensorByteSize(input.get()));
  if (!host.empty() &&
      (!CheckCuda(ctx, cudaMemcpyAsync(host.data(), TF_TensorData(input.get()), host.size(),
                                       cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync") ||
       !CheckCuda(ctx, cudaStreamSynchronize(stream), "cudaStreamSynchronize")))
    return;
  std::vector<int64_t> coords, index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (NonZeroBits<T>(host.data() + i * sizeof(T))) coords.insert(coords.end(), index.begin(), index.end());
    for (int64_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  const int64_t count = rank ? static_cast<int64_t>(coords.size()) / rank
                             : (n == 1 && NonZeroBits<T>(host.data()) ? 1 : 0);
  TensorPtr out = AllocateOutput(ctx, 0, TF_INT64, {count, rank});
  if (!out || coords.empty()) return;
  if (CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(out.get()), coords.data(),
                                     coords.size() * sizeof(int64_t), cudaMemcpyHostToDevice, stream),
                "cudaMemcpyAsync"))
    CheckCuda(ctx, cudaStreamSynchronize(stream), "cudaStreamSynchronize");  // `coords` is freed next
}

using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

template <ScanKind kKind, typename... Ts>
void RegisterCumulative(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}}, {"axis"},
                         &Cumulative<kKind>::template Compute<Ts>, kernels::CreateCumulative,
                         kernels::DeleteCumulative},
              status),
     ...);
}

template <typename... Ts>
void RegisterTopK(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT16}}, {"k"},
                       &TopKCompute<Ts, int16_t>},
            status),
   ...);
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT32}}, {"k"},
                       &TopKCompute<Ts, int32_t>},
            status),
   ...);
  (RegisterKernel(kDevice, {"TopKV2", {{"T", DtypeOf<Ts>::value}, {"index_type", TF_INT64}}, {"k"},
                       &TopKCompute<Ts, int64_t>},
            status),
   ...);
}

template <typename... Ts>
void RegisterWhere(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Where", {{"T", DtypeOf<Ts>::value}}, {}, &WhereCompute<Ts>}, status), ...);
}

}  // namespace

void RegisterScanTopKKernels(TF_Status* status) {
  using Complexes = Types<ComplexParts<float>, ComplexParts<double>>;
  RegisterCumulative<ScanKind::kSum>("Cumsum", kernels::Concat<RealTypes, Complexes>(), status);
  RegisterCumulative<ScanKind::kProd>("Cumprod", kernels::Concat<RealTypes, Complexes>(), status);
  RegisterCumulative<ScanKind::kLogSumExp>("CumulativeLogsumexp",
                                           Types<float, double, __half, __nv_bfloat16>(), status);
  RegisterTopK(RealTypes(), status);
  RegisterWhere(RealTypes(), status);
  RegisterWhere(Types<bool>(), status);
  // complex: compared as two parts (float2 / double2 stand in for the element type).
  RegisterKernel(kDevice, {"Where", {{"T", TF_COMPLEX64}}, {}, &WhereCompute<float2>}, status);
  RegisterKernel(kDevice, {"Where", {{"T", TF_COMPLEX128}}, {}, &WhereCompute<double2>}, status);
}

}  // namespace cuda
}  // namespace opgen
