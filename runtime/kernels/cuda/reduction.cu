// Reductions on the GPU: Sum, Mean, Max, Min, Prod, EuclideanNorm over a set of axes, ArgMax / ArgMin
// along one axis, Softmax / LogSoftmax over the last axis. Dtypes and results mirror the
// CPU kernels (runtime/kernels/cpu/reduction.cc and nn.cc): 16-bit floats accumulate in
// float, integer sums and products wrap, Max/Min propagate NaN, integer means sum in 64
// bits and truncate, an empty reduction gives the reducer's identity.
//
// The input is first seen as merged [outer, reduced, inner] blocks. Three kernels cover
// the common layouts, each one pass over the input where the output alone has enough
// parallelism, else two (partial results in a temp, then a small second kernel; no host
// synchronisation):
//   rows     inner == 1: a part of a warp (short rows), a warp or a block per contiguous
//            row, 16-byte loads; a long row (or the whole tensor) is split into
//            segments across blocks;
//   columns  inner > 1: a thread per output column, looping over the reduced rows;
//            few columns with many rows split the rows into chunks;
//   general  any other pattern: a group of threads per output walking the innermost
//            reduced dim; few outputs split their inputs into chunks.
// The host works out the layout once for every dtype (PlanReduce); only the launches
// are templates, which keeps the file's compile time down.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../nn_spec.h"
#include "../reduction_spec.h"
#include "cuda_kernel_util.h"
#include "complex_parts.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

template <typename T>
constexpr bool kIsFloat16 = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsFloat16<T>;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T> using Compute = typename ComputeType<T>::type;

// Integer + and * on the unsigned type of the same width (at least `unsigned`, so that
// nothing promotes back to a signed int): they wrap modulo 2^bits, as on the CPU.
template <typename A>
__host__ __device__ __forceinline__ A WrappingAdd(A a, A b) {
  if constexpr (kIsInteger<A>) {
    using U = std::common_type_t<std::make_unsigned_t<A>, unsigned>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename A>
__host__ __device__ __forceinline__ A WrappingMul(A a, A b) {
  if constexpr (kIsInteger<A>) {
    using U = std::common_type_t<std::make_unsigned_t<A>, unsigned>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// ---- reducers --------------------------------------------------------------------------

// Each combines accumulator values A; Combine is symmetric in how it treats NaN, so the
// order a tree of threads combines in does not change whether a NaN survives.
struct SumReducer {
  static constexpr bool kMean = false;
  template <typename A> __host__ __device__ static A Init() { return A(0); }
  template <typename A> __device__ static A Combine(A a, A b) { return WrappingAdd(a, b); }
};
struct MeanReducer : SumReducer {
  static constexpr bool kMean = true;
};
struct ProdReducer {
  static constexpr bool kMean = false;
  template <typename A> __host__ __device__ static A Init() { return A(1); }
  template <typename A> __device__ static A Combine(A a, A b) { return WrappingMul(a, b); }
};
struct MaxReducer {
  static constexpr bool kMean = false;
  template <typename A> __host__ __device__ static A Init() {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <typename A> __device__ static A Combine(A a, A b) { return b > a || b != b ? b : a; }
};
struct MinReducer {
  static constexpr bool kMean = false;
  template <typename A> __host__ __device__ static A Init() {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <typename A> __device__ static A Combine(A a, A b) { return b < a || b != b ? b : a; }
};

// What T is reduced in (as on the CPU): float for 16-bit floats, a 64-bit sum for
// integer means, T otherwise.
template <typename T, typename R>
using Accumulator =
    std::conditional_t<R::kMean && kIsInteger<T>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, Compute<T>>;

template <typename A, typename In>
__device__ __forceinline__ A Load(In v) {
  return static_cast<A>(Widen(v));
}

// The result written for accumulator `acc`: a mean divides by `divisor` (0 for partial
// results, which stay sums), then the value is rounded to Out once.
template <typename R, typename A, typename Out>
__device__ __forceinline__ Out Finish(A acc, int64_t divisor) {
  if constexpr (R::kMean) {
    if (divisor > 0) acc = acc / static_cast<A>(divisor);
  }
  if constexpr (std::is_same_v<Out, A>) return acc;
  else return Narrow<Out>(acc);
}

// ---- warp and block combining -------------------------------------------------------

template <typename V>
__device__ __forceinline__ V ShuffleDown(V v, int delta) {
  static_assert(sizeof(V) <= 8 || sizeof(V) == 16, "one to four 32-bit words");
  if constexpr (sizeof(V) == 16) {  // complex128: its two 8-byte parts one by one
    unsigned long long u[2];
    memcpy(u, &v, 16);
    u[0] = __shfl_down_sync(0xffffffffu, u[0], delta);
    u[1] = __shfl_down_sync(0xffffffffu, u[1], delta);
    memcpy(&v, u, 16);
  } else if constexpr (sizeof(V) == 8) {
    unsigned long long u;
    memcpy(&u, &v, 8);
    u = __shfl_down_sync(0xffffffffu, u, delta);
    memcpy(&v, &u, 8);
  } else {
    unsigned u = 0;
    memcpy(&u, &v, sizeof(V));
    u = __shfl_down_sync(0xffffffffu, u, delta);
    memcpy(&v, &u, sizeof(V));
  }
  return v;
}

// Combines `v` across a group of `group` threads: a power of two up to 32 (aligned
// parts of a warp) or kThreads (the block). The result is valid in the group's first
// thread. Every thread of the warp (of the block, for a block-wide group) must call
// this; `shared` holds kThreads / 32 values.
template <typename V, typename F>
__device__ __forceinline__ V GroupReduce(V v, F combine, int group, V* shared) {
  for (int d = (group < 32 ? group : 32) / 2; d > 0; d >>= 1) v = combine(v, ShuffleDown(v, d));
  if (group > 32) {
    constexpr int kWarps = kThreads / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    if (warp == 0) v = shared[lane < kWarps ? lane : 0];
    __syncthreads();  // `shared` may be written again by the caller's next round
    if (warp == 0) {
      // Lanes past kWarps hold a copy of value 0; the shuffles below only bring lanes
      // below kWarps into lane 0, so the copies are never combined into the result.
      for (int d = kWarps / 2; d > 0; d >>= 1) v = combine(v, ShuffleDown(v, d));
    }
  }
  return v;
}

// ---- the rows kernel: reduce contiguous runs ----------------------------------------

template <typename In>
struct alignas(16) Pack {
  static constexpr int kSize = 16 / sizeof(In);
  In e[kSize];
};

// Reduces p[0..len) over the G threads of a group (this one is `lane`), 16 bytes per load
// once p is aligned; the caller combines the group's results.
template <typename R, typename A, typename In>
__device__ __forceinline__ A ReduceSpan(const In* __restrict__ p, int64_t len, int lane, int G) {
  constexpr int kVec = Pack<In>::kSize;
  A acc = R::template Init<A>();
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(p) % 16;
  int64_t head = misalign == 0 ? 0 : static_cast<int64_t>((16 - misalign) / sizeof(In));
  if (head > len) head = len;
  for (int64_t t = lane; t < head; t += G) acc = R::Combine(acc, Load<A>(p[t]));
  const Pack<In>* __restrict__ v = reinterpret_cast<const Pack<In>*>(p + head);
  const int64_t packs = (len - head) / kVec;
  int64_t i = lane;
  for (; i + 3 * G < packs; i += 4 * G) {
    const Pack<In> q0 = v[i], q1 = v[i + G], q2 = v[i + 2 * G], q3 = v[i + 3 * G];
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc = R::Combine(acc, Load<A>(q0.e[k]));
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc = R::Combine(acc, Load<A>(q1.e[k]));
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc = R::Combine(acc, Load<A>(q2.e[k]));
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc = R::Combine(acc, Load<A>(q3.e[k]));
  }
  for (; i < packs; i += G) {
    const Pack<In> q = v[i];
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc = R::Combine(acc, Load<A>(q.e[k]));
  }
  for (int64_t t = head + packs * kVec + lane; t < len; t += G) acc = R::Combine(acc, Load<A>(p[t]));
  return acc;
}

// Row `row` of the input is in[row * row_len .. +row_len); it is cut into `splits`
// segments of `chunk` elements. out[g] is the reduction of segment g (row g / splits,
// segment g % splits) for g < segments = rows * splits. One group of `group` threads
// per segment (a power of two up to 32, or kThreads); the loop runs alike for the whole
// block, so that every thread takes part in the group's shuffles.
template <typename R, typename In, typename A, typename Out>
__global__ void __launch_bounds__(kThreads)
ReduceRowsKernel(const In* __restrict__ in, int64_t segments, int64_t splits, int64_t chunk,
                 int64_t row_len, Out* __restrict__ out, int64_t divisor, int group) {
  __shared__ A shared[kThreads / 32];
  const int groups = kThreads / group;
  const int lane = threadIdx.x % group;
  const auto combine = [](A a, A b) { return R::Combine(a, b); };
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * groups; first < segments;
       first += static_cast<int64_t>(gridDim.x) * groups) {
    const int64_t g = first + threadIdx.x / group;
    const In* p = in;
    int64_t len = 0;  // past the last segment: nothing to read
    if (g < segments) {
      const int64_t row = splits == 1 ? g : g / splits;  // a 64-bit division costs
      const int64_t begin = (g - row * splits) * chunk;
      len = row_len - begin < chunk ? row_len - begin : chunk;
      p = in + row * row_len + begin;
    }
    A acc = ReduceSpan<R, A>(p, len, lane, group);
    acc = GroupReduce(acc, combine, group, shared);
    if (lane == 0 && g < segments) out[g] = Finish<R, A, Out>(acc, divisor);
  }
}

// ---- the columns kernel: reduce across rows of a contiguous inner block -------------

// The input is [outer, rows, inner]; the rows are cut into `splits` chunks of `chunk`.
// One thread per (o, chunk s, j): with one chunk it writes out[o * inner + j], else the
// partial out[(o * inner + j) * splits + s], a row that ReduceRowsKernel finishes.
template <typename R, typename In, typename A, typename Out>
__global__ void __launch_bounds__(kThreads)
ReduceColumnsKernel(const In* __restrict__ in, int64_t outer, int64_t rows, int64_t inner,
                    int64_t splits, int64_t chunk, Out* __restrict__ out, int64_t divisor) {
  const int64_t total = outer * splits * inner;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = t % inner, rest = t / inner;
    const int64_t s = rest % splits, o = rest / splits;
    const int64_t r0 = s * chunk, r1 = rows - r0 < chunk ? rows : r0 + chunk;
    const In* __restrict__ p = in + (o * rows + r0) * inner + j;
    A acc = R::template Init<A>();
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4, p += 4 * inner) {
      const In x0 = p[0], x1 = p[inner], x2 = p[2 * inner], x3 = p[3 * inner];
      acc = R::Combine(acc, Load<A>(x0));
      acc = R::Combine(acc, Load<A>(x1));
      acc = R::Combine(acc, Load<A>(x2));
      acc = R::Combine(acc, Load<A>(x3));
    }
    for (; r < r1; ++r, p += inner) acc = R::Combine(acc, Load<A>(p[0]));
    out[splits == 1 ? t : (o * inner + j) * splits + s] = Finish<R, A, Out>(acc, divisor);
  }
}

// ---- the general kernel: any pattern of reduced axes --------------------------------

constexpr int kMaxGroups = 8;  // merged kept (or reduced) dims; a rank-16 input at most

// Merged dims as (size, input stride) lists, outermost first.
struct StridedDims {
  int rank = 0;
  int64_t size[kMaxGroups];
  int64_t stride[kMaxGroups];
};

__device__ __forceinline__ int64_t OffsetOf(int64_t index, const StridedDims& d) {
  int64_t offset = 0;
  for (int k = d.rank - 1; k >= 0; --k) {
    const int64_t q = index / d.size[k];
    offset += (index - q * d.size[k]) * d.stride[k];
    index = q;
  }
  return offset;
}

// Output o reduces the inputs at kept offset(o) + reduced offset(q, r), where q indexes
// the reduced dims but the innermost (`outer_reduced`) and r the innermost (`last`
// values `last_stride` apart), over the flat index q * last + r in [0, count). That range
// is cut into `splits` chunks of `chunk`: out[o * splits + s] reduces chunk s (with one
// chunk, out[o] is the finished result). A group of `group` threads (a power of two up to
// 32, or kThreads) per chunk; r is walked by the group's threads, q one at a time, so
// divisions stay out of the inner loop.
template <typename R, typename T, typename A, typename Out>
__global__ void __launch_bounds__(kThreads)
ReduceGeneralKernel(const T* __restrict__ in, StridedDims kept, StridedDims outer_reduced,
                    int64_t last, int64_t last_stride, int64_t count, int64_t segments,
                    int64_t splits, int64_t chunk, Out* __restrict__ out, int64_t divisor,
                    int group) {
  __shared__ A shared[kThreads / 32];
  const int groups = kThreads / group;
  const int lane = threadIdx.x % group;
  const auto combine = [](A a, A b) { return R::Combine(a, b); };
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * groups; first < segments;
       first += static_cast<int64_t>(gridDim.x) * groups) {
    const int64_t g = first + threadIdx.x / group;
    A acc = R::template Init<A>();
    if (g < segments) {
      const int64_t o = g / splits;
      const int64_t begin = (g - o * splits) * chunk;
      const int64_t end = count - begin < chunk ? count : begin + chunk;
      const T* base = in + OffsetOf(o, kept);
      for (int64_t q = begin / last; q * last < end; ++q) {
        const T* p = base + OffsetOf(q, outer_reduced);
        const int64_t r0 = begin > q * last ? begin - q * last : 0;
        const int64_t r1 = end - q * last < last ? end - q * last : last;
        for (int64_t r = r0 + lane; r < r1; r += group) acc = R::Combine(acc, Load<A>(p[r * last_stride]));
      }
    }
    acc = GroupReduce(acc, combine, group, shared);
    if (lane == 0 && g < segments) out[g] = Finish<R, A, Out>(acc, divisor);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) FillKernel(T* __restrict__ out, int64_t n, T value) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

// ---- host side: layouts and launches ------------------------------------------------

// Multiprocessors of the current device (cached; the plugin's devices never change).
int MultiprocessorCount() {
  static std::atomic<int> cache[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) dev = 0;
  if (dev >= 0 && dev < 64) {
    const int cached = cache[dev].load(std::memory_order_relaxed);
    if (cached > 0) return cached;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) {
    cudaGetLastError();
    n = 132;
  }
  if (dev >= 0 && dev < 64) cache[dev].store(n, std::memory_order_relaxed);
  return n;
}

unsigned GridFor(int64_t work_items, int64_t per_block, int sms) {
  int64_t blocks = (work_items + per_block - 1) / per_block;
  const int64_t cap = static_cast<int64_t>(sms) * 32;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks);
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Threads for a row of `len` values read `per_load` at a time: a power of two up to a
// warp, about two loads each, so that short rows do not leave most of a warp idle.
int SubWarpGroup(int64_t len, int per_load) {
  int group = 1;
  while (group < 32 && static_cast<int64_t>(group) * per_load * 2 < len) group *= 2;
  return group;
}

// Threads a device keeps busy at full occupancy (2048 per multiprocessor).
int64_t ResidentThreads(int sms) { return static_cast<int64_t>(sms) * 2048; }

// Launches the rows kernel for `rows` runs of `row_len` (> 0) elements.
template <typename R, typename T>
bool ReduceRows(TF_OpKernelContext* ctx, cudaStream_t stream, const T* in, int64_t rows,
                int64_t row_len, T* out, int64_t divisor) {
  using A = Accumulator<T, R>;
  const int sms = MultiprocessorCount();
  // A warp per short row; a block per long one, and too few long rows to fill the device
  // are cut into segments, each a block's.
  const int64_t want_blocks = static_cast<int64_t>(sms) * (2048 / kThreads);
  int64_t splits = 1;
  if (row_len > 2048 && rows < want_blocks / 2) {
    const int64_t min_chunk = static_cast<int64_t>(kThreads) * Pack<T>::kSize * 2;
    splits = CeilDiv(want_blocks, rows);
    const int64_t max_splits = CeilDiv(row_len, min_chunk);
    if (splits > max_splits) splits = max_splits;
    if (splits > 1024) splits = 1024;
  }
  if (splits <= 1) {
    const int group = row_len <= 2048 ? SubWarpGroup(row_len, Pack<T>::kSize) : kThreads;
    ReduceRowsKernel<R, T, A, T><<<GridFor(rows, kThreads / group, sms), kThreads, 0, stream>>>(
        in, rows, 1, row_len, row_len, out, divisor, group);
    return CheckLaunch(ctx, "ReduceRowsKernel");
  }
  // Chunks a multiple of 16 elements keep every segment's 16-byte loads aligned alike.
  const int64_t chunk = CeilDiv(CeilDiv(row_len, splits), 16) * 16;
  splits = CeilDiv(row_len, chunk);
  TensorPtr partial = AllocateTemp(ctx, DtypeOf<A>::value, {rows * splits});
  if (!partial) return false;
  A* part = Data<A>(partial);
  ReduceRowsKernel<R, T, A, A><<<GridFor(rows * splits, 1, sms), kThreads, 0, stream>>>(
      in, rows * splits, splits, chunk, row_len, part, 0, kThreads);
  if (!CheckLaunch(ctx, "ReduceRowsKernel (segments)")) return false;
  ReduceRowsKernel<R, A, A, T><<<GridFor(rows, 1, sms), kThreads, 0, stream>>>(
      part, rows, 1, splits, splits, out, divisor, kThreads);
  return CheckLaunch(ctx, "ReduceRowsKernel (partials)");
}

// Launches the columns kernel for an [outer, rows, inner] input.
template <typename R, typename T>
bool ReduceColumns(TF_OpKernelContext* ctx, cudaStream_t stream, const T* in, int64_t outer,
                   int64_t rows, int64_t inner, T* out, int64_t divisor) {
  using A = Accumulator<T, R>;
  const int sms = MultiprocessorCount();
  const int64_t columns = outer * inner, want = ResidentThreads(sms);
  int64_t splits = 1;
  if (columns < want / 2 && rows >= 64) {
    splits = CeilDiv(want, columns);
    const int64_t max_splits = CeilDiv(rows, 16);
    if (splits > max_splits) splits = max_splits;
  }
  if (splits <= 1) {
    ReduceColumnsKernel<R, T, A, T><<<GridFor(columns, kThreads, sms), kThreads, 0, stream>>>(
        in, outer, rows, inner, 1, rows, out, divisor);
    return CheckLaunch(ctx, "ReduceColumnsKernel");
  }
  const int64_t chunk = CeilDiv(rows, splits);
  splits = CeilDiv(rows, chunk);
  TensorPtr partial = AllocateTemp(ctx, DtypeOf<A>::value, {columns * splits});
  if (!partial) return false;
  A* part = Data<A>(partial);
  ReduceColumnsKernel<R, T, A, A><<<GridFor(columns * splits, kThreads, sms), kThreads, 0, stream>>>(
      in, outer, rows, inner, splits, chunk, part, 0);
  if (!CheckLaunch(ctx, "ReduceColumnsKernel (chunks)")) return false;
  // The partials are [columns, splits]: a contiguous row per column.
  const int group = splits <= 2048 ? SubWarpGroup(splits, Pack<A>::kSize) : kThreads;
  ReduceRowsKernel<R, A, A, T><<<GridFor(columns, kThreads / group, sms), kThreads, 0, stream>>>(
      part, columns, 1, splits, splits, out, divisor, group);
  return CheckLaunch(ctx, "ReduceRowsKernel (partials)");
}

// The attrs, axes checks and output shapes of the reductions and of ArgMax / ArgMin are
// the CPU kernels' own code (../reduction_spec.h); here the layouts and launches.
using kernels::CreateReduce;
using kernels::DeleteReduce;
using kernels::ReduceAttrs;

// What a reduction kernel launches, worked out on the host once for every dtype.
struct ReducePlan {
  enum Kind { kFill, kRows, kColumns, kGeneral } kind = kFill;
  cudaStream_t stream = nullptr;
  const void* in = nullptr;
  void* out = nullptr;
  int64_t outer = 1, rows = 1, inner = 1;  // kRows: outer rows of `rows`; kColumns: all three
  int64_t out_n = 0, count = 0;            // outputs; inputs per output
  int64_t divisor = 1;                     // what a mean divides by
  StridedDims kept, reduced;               // kGeneral: reduced less its innermost dim,
  int64_t last = 1, last_stride = 1;       // which is `last` values `last_stride` apart
};

// Validates the axes, allocates the output and chooses the kernel. False when there is
// nothing to launch (an empty output) or after reporting a failure.
bool PlanReduce(TF_OpKernelContext* ctx, void* state, TF_DataType dtype, ReducePlan* plan) {
  kernels::ReductionSpec spec;
  if (!kernels::ResolveReduction(ctx, *static_cast<ReduceAttrs*>(state), &spec)) return false;
  const TF_Tensor* input = spec.input.get();
  const std::vector<int64_t>& dims = spec.dims;
  const std::vector<int64_t>& axes = spec.axes;
  const std::vector<bool>& reduced = spec.reduced;
  const int64_t rank = static_cast<int64_t>(dims.size());
  TensorPtr output = AllocateOutput(ctx, 0, dtype, spec.out_dims);
  if (!output) return false;
  plan->out_n = NumElements(spec.out_dims);
  if (plan->out_n == 0) return false;
  plan->stream = GetStream(ctx);
  if (!plan->stream) return false;
  // The context keeps the output alive after this reference goes.
  plan->in = TF_TensorData(input);
  plan->out = TF_TensorData(output.get());
  plan->divisor = spec.reduce_count;
  const int64_t n = NumElements(dims);
  if (n == 0) {
    plan->kind = ReducePlan::kFill;
    return true;
  }
  plan->count = n / plan->out_n;
  // Neighbouring dims both reduced or both kept merge; size-1 dims drop out.
  std::vector<int64_t> sizes;
  std::vector<bool> is_reduced;
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d] == 1) continue;
    if (!sizes.empty() && is_reduced.back() == reduced[d]) {
      sizes.back() *= dims[d];
    } else {
      sizes.push_back(dims[d]);
      is_reduced.push_back(reduced[d]);
    }
  }
  const size_t k = sizes.size();
  if (k == 0 || (k == 1 && !is_reduced[0])) {  // nothing reduced: each value finished alone
    plan->kind = ReducePlan::kColumns;
    plan->outer = 1;
    plan->rows = 1;
    plan->inner = n;
  } else if (k == 1) {  // everything
    plan->kind = ReducePlan::kRows;
    plan->outer = 1;
    plan->rows = n;
  } else if (k == 2 && is_reduced[1]) {  // [kept, reduced]
    plan->kind = ReducePlan::kRows;
    plan->outer = sizes[0];
    plan->rows = sizes[1];
  } else if (k == 2) {  // [reduced, kept]
    plan->kind = ReducePlan::kColumns;
    plan->outer = 1;
    plan->rows = sizes[0];
    plan->inner = sizes[1];
  } else if (k == 3 && !is_reduced[0]) {  // [kept, reduced, kept]
    plan->kind = ReducePlan::kColumns;
    plan->outer = sizes[0];
    plan->rows = sizes[1];
    plan->inner = sizes[2];
  } else {
    plan->kind = ReducePlan::kGeneral;
    int64_t stride = 1;
    for (size_t g = k; g-- > 0;) {  // innermost first; reversed below
      StridedDims& d = is_reduced[g] ? plan->reduced : plan->kept;
      if (d.rank == kMaxGroups) {
        Fail(ctx, TF_UNIMPLEMENTED, "GPU reduction of input shape " + ShapeString(dims) +
                                        " over axes " + ShapeString(axes) +
                                        ": too many alternating reduced and kept dimensions");
        return false;
      }
      d.size[d.rank] = sizes[g];
      d.stride[d.rank] = stride;
      ++d.rank;
      stride *= sizes[g];
    }
    for (StridedDims* d : {&plan->kept, &plan->reduced}) {
      for (int i = 0, j = d->rank - 1; i < j; ++i, --j) {
        std::swap(d->size[i], d->size[j]);
        std::swap(d->stride[i], d->stride[j]);
      }
    }
    StridedDims& r = plan->reduced;  // at least two reduced dims in this layout
    --r.rank;
    plan->last = r.size[r.rank];
    plan->last_stride = r.stride[r.rank];
  }
  return true;
}

// Launches the general kernel; too few outputs to fill the device cut their inputs into
// chunks, a block's each, finished by the rows kernel.
template <typename R, typename T>
bool ReduceGeneral(TF_OpKernelContext* ctx, const ReducePlan& p, const T* in, T* out) {
  using A = Accumulator<T, R>;
  const int sms = MultiprocessorCount();
  const int64_t want_blocks = static_cast<int64_t>(sms) * (2048 / kThreads);
  const int64_t min_chunk = 4 * kThreads;
  int64_t splits = 1;
  if (p.out_n < want_blocks / 2 && p.count >= 2 * min_chunk) {
    splits = CeilDiv(want_blocks, p.out_n);
    if (splits > CeilDiv(p.count, min_chunk)) splits = CeilDiv(p.count, min_chunk);
  }
  const int64_t chunk = CeilDiv(p.count, splits);
  splits = CeilDiv(p.count, chunk);
  const int group = chunk >= 2048 ? kThreads : SubWarpGroup(chunk, 2);
  const unsigned grid = GridFor(p.out_n * splits, kThreads / group, sms);
  if (splits == 1) {
    ReduceGeneralKernel<R, T, A, T><<<grid, kThreads, 0, p.stream>>>(
        in, p.kept, p.reduced, p.last, p.last_stride, p.count, p.out_n, 1, chunk, out, p.divisor,
        group);
    return CheckLaunch(ctx, "ReduceGeneralKernel");
  }
  TensorPtr partial = AllocateTemp(ctx, DtypeOf<A>::value, {p.out_n * splits});
  if (!partial) return false;
  A* part = Data<A>(partial);
  ReduceGeneralKernel<R, T, A, A><<<grid, kThreads, 0, p.stream>>>(
      in, p.kept, p.reduced, p.last, p.last_stride, p.count, p.out_n * splits, splits, chunk, part,
      0, group);
  if (!CheckLaunch(ctx, "ReduceGeneralKernel (chunks)")) return false;
  const int rows_group = splits <= 2048 ? SubWarpGroup(splits, Pack<A>::kSize) : kThreads;
  ReduceRowsKernel<R, A, A, T><<<GridFor(p.out_n, kThreads / rows_group, sms), kThreads, 0, p.stream>>>(
      part, p.out_n, 1, splits, splits, out, p.divisor, rows_group);
  return CheckLaunch(ctx, "ReduceRowsKernel (partials)");
}

// The output of an empty reduction: the identity, through the mean's division by 0 for
// floats (NaN); an empty integer mean stays 0, as on the CPU.
template <typename R, typename T>
T EmptyValue() {
  using A = Accumulator<T, R>;
  A v = R::template Init<A>();
  if constexpr (R::kMean && kIsFloating<T>) v = std::numeric_limits<A>::quiet_NaN();
  if constexpr (std::is_same_v<T, A>) return v;
  else return Narrow<T>(v);
}

template <typename R>
struct Reduce {
  template <typename T>
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    ReducePlan p;
    if (!PlanReduce(ctx, state, DtypeOf<T>::value, &p)) return;
    const T* in = static_cast<const T*>(p.in);
    T* out = static_cast<T*>(p.out);
    const int sms = MultiprocessorCount();
    switch (p.kind) {
      case ReducePlan::kFill:
        FillKernel<T><<<GridFor(p.out_n, kThreads, sms), kThreads, 0, p.stream>>>(
            out, p.out_n, EmptyValue<R, T>());
        CheckLaunch(ctx, "FillKernel");
        break;
      case ReducePlan::kRows:
        ReduceRows<R, T>(ctx, p.stream, in, p.outer, p.rows, out, p.divisor);
        break;
      case ReducePlan::kColumns:
        ReduceColumns<R, T>(ctx, p.stream, in, p.outer, p.rows, p.inner, out, p.divisor);
        break;
      case ReducePlan::kGeneral:
        ReduceGeneral<R, T>(ctx, p, in, out);
        break;
    }
  }
};

// ---- EuclideanNorm ---------------------------------------------------------------------

// As the CPU computes it: |x|^2 rounded to T (integers wrap; for complex the real square
// of the magnitude), summed by Sum's kernels in S, then the root rounded to T (integer
// roots truncate; complex squares are the textbook x * conj(x), the root complex).
template <typename T> struct SquareOf { using type = Compute<T>; };

template <typename T, typename S>
__global__ void SquaresKernel(const T* __restrict__ x, S* __restrict__ sq, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if constexpr (kIsInteger<T>) sq[i] = WrappingMul(x[i], x[i]);
    else if constexpr (kIsFloat16<T>) sq[i] = Widen(Narrow<T>(Widen(x[i]) * Widen(x[i])));
    else if constexpr (kIsFloating<T>) sq[i] = x[i] * x[i];
    else sq[i] = S(x[i].re * x[i].re - x[i].im * -x[i].im, x[i].re * -x[i].im + x[i].im * x[i].re);
  }
}

template <typename T, typename S>
__global__ void RootsKernel(const S* __restrict__ sums, T* __restrict__ out, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if constexpr (kIsInteger<T>) out[i] = static_cast<T>(sqrt(static_cast<double>(sums[i])));
    else if constexpr (std::is_same_v<S, T> && !kIsFloating<T>) out[i] = Sqrt(sums[i]);
    else out[i] = Narrow<T>(sqrt(sums[i]));
  }
}

template <typename T>
void EuclideanNormCompute(void* state, TF_OpKernelContext* ctx) {
  using S = typename SquareOf<T>::type;
  ReducePlan p;
  if (!PlanReduce(ctx, state, DtypeOf<T>::value, &p)) return;
  const int sms = MultiprocessorCount();
  T* out = static_cast<T*>(p.out);
  if (p.kind == ReducePlan::kFill) {
    FillKernel<T><<<GridFor(p.out_n, kThreads, sms), kThreads, 0, p.stream>>>(out, p.out_n, T(0));
    CheckLaunch(ctx, "FillKernel");
    return;
  }
  const int64_t n = p.count * p.out_n;
  TensorPtr squares = AllocateTemp(ctx, DtypeOf<S>::value, {n});
  TensorPtr sums = AllocateTemp(ctx, DtypeOf<S>::value, {p.out_n});
  if (!squares || !sums) return;
  SquaresKernel<T, S><<<BlocksFor(n), kThreads, 0, p.stream>>>(static_cast<const T*>(p.in),
                                                                Data<S>(squares), n);
  if (!CheckLaunch(ctx, "EuclideanNorm squares")) return;
  const S* in = Data<S>(squares);
  S* sum = Data<S>(sums);
  bool ok = false;
  switch (p.kind) {
    case ReducePlan::kRows:
      ok = ReduceRows<SumReducer, S>(ctx, p.stream, in, p.outer, p.rows, sum, p.divisor);
      break;
    case ReducePlan::kColumns:
      ok = ReduceColumns<SumReducer, S>(ctx, p.stream, in, p.outer, p.rows, p.inner, sum, p.divisor);
      break;
    default:
      ok = ReduceGeneral<SumReducer, S>(ctx, p, in, sum);
      break;
  }
  if (!ok) return;
  RootsKernel<T, S><<<BlocksFor(p.out_n), kThreads, 0, p.stream>>>(sum, out, p.out_n);
  CheckLaunch(ctx, "EuclideanNorm roots");
}

template <typename... Ts>
void RegisterEuclideanNorm(Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {"EuclideanNorm", {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}},
                              {"reduction_indices"}, &EuclideanNormCompute<Ts>, CreateReduce,
                              DeleteReduce}, status),
     ...);
}

// ---- ArgMax / ArgMin ----------------------------------------------------------------

template <typename C>
struct ArgCandidate {
  C value;
  int64_t index;  // -1: none yet
};

template <typename C>
__device__ __forceinline__ bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

template <typename C>
__device__ __forceinline__ ArgCandidate<C> ShuffleDown(ArgCandidate<C> c, int delta) {
  return {ShuffleDown(c.value, delta), ShuffleDown(c.index, delta)};
}

// As TensorFlow (and the CPU kernel): NaN is never chosen, the best non-NaN value wins,
// the first of equals; an all-NaN row gives 0.
template <bool kMax, typename C>
__device__ __forceinline__ ArgCandidate<C> Better(ArgCandidate<C> a, ArgCandidate<C> b) {
  if (b.index < 0) return a;
  if (a.index < 0) return b;
  const bool a_nan = IsNan(a.value), b_nan = IsNan(b.value);
  if (a_nan != b_nan) return a_nan ? b : a;
  if (!a_nan) {
    if (kMax ? b.value > a.value : b.value < a.value) return b;
    if (kMax ? a.value > b.value : a.value < b.value) return a;
  }
  return b.index < a.index ? b : a;
}

// `out_type`: the output's TF_DataType (int64, int32, or ArgMax's int16 / uint16).
template <typename Index>
__device__ __forceinline__ void StoreIndex(void* out, int64_t i, Index value, int out_type) {
  switch (out_type) {
    case TF_INT64: static_cast<int64_t*>(out)[i] = static_cast<int64_t>(value); break;
    case TF_INT16: static_cast<int16_t*>(out)[i] = static_cast<int16_t>(value); break;
    case TF_UINT16: static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(value); break;
    default: static_cast<int32_t*>(out)[i] = static_cast<int32_t>(value);
  }
}

// inner == 1: a warp per row of `len` values.
template <bool kMax, typename T>
__global__ void __launch_bounds__(kThreads)
ArgReduceRowsKernel(const T* __restrict__ in, int64_t rows, int64_t len, void* out, int out_type_code) {
  using C = Compute<T>;
  const int lane = threadIdx.x % 32;
  const auto better = [](ArgCandidate<C> a, ArgCandidate<C> b) { return Better<kMax>(a, b); };
  for (int64_t row = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32; row < rows;
       row += static_cast<int64_t>(gridDim.x) * (kThreads / 32)) {
    const T* x = in + row * len;
    ArgCandidate<C> best{C(), -1};
    for (int64_t k = lane; k < len; k += 32) best = better(best, ArgCandidate<C>{Widen(x[k]), k});
    best = GroupReduce(best, better, 32, static_cast<ArgCandidate<C>*>(nullptr));
    if (lane == 0) StoreIndex(out, row, best.index, out_type_code);
  }
}

// inner > 1: a thread per (outer, inner) column, scanning as the CPU does.
template <bool kMax, typename T>
__global__ void __launch_bounds__(kThreads)
ArgReduceColumnsKernel(const T* __restrict__ in, int64_t outer, int64_t len, int64_t inner,
                       void* out, int out_type_code) {
  using C = Compute<T>;
  const int64_t total = outer * inner;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, j = t - o * inner;
    const T* base = in + o * len * inner + j;
    int64_t best = 0;
    C best_value = Widen(base[0]);
    for (int64_t k = 1; k < len; ++k) {
      const C v = Widen(base[k * inner]);
      if ((kMax ? v > best_value : v < best_value) || (IsNan(best_value) && !IsNan(v))) {
        best = k;
        best_value = v;
      }
    }
    StoreIndex(out, t, best, out_type_code);
  }
}

// An ArgMax / ArgMin worked out on the host: the input as [outer, len, inner].
struct ArgPlan {
  cudaStream_t stream = nullptr;
  const void* in = nullptr;
  void* out = nullptr;
  int out_type_code = TF_INT32;  // the output dtype
  int64_t outer = 1, len = 1, inner = 1;
};

// Validates the axis and allocates the output. False when there is nothing to launch
// or after reporting a failure.
bool PlanArgReduce(TF_OpKernelContext* ctx, TF_DataType out_type, ArgPlan* plan) {
  kernels::ArgReductionSpec spec;
  if (!kernels::ResolveArgReduction(ctx, &spec)) return false;
  plan->outer = spec.outer;
  plan->len = spec.len;
  plan->inner = spec.inner;
  TensorPtr output = AllocateOutput(ctx, 0, out_type, spec.out_dims);
  if (!output) return false;
  if (plan->outer * plan->inner == 0) return false;
  plan->stream = GetStream(ctx);
  if (!plan->stream) return false;
  plan->in = TF_TensorData(spec.input.get());
  plan->out = TF_TensorData(output.get());  // the context keeps the output alive
  plan->out_type_code = static_cast<int>(out_type);
  return true;
}

template <bool kMax, typename T, TF_DataType kOut>
void ArgReduceCompute(void*, TF_OpKernelContext* ctx) {
  ArgPlan p;
  if (!PlanArgReduce(ctx, kOut, &p)) return;
  const int sms = MultiprocessorCount();
  const T* in = static_cast<const T*>(p.in);
  if (p.inner == 1) {
    ArgReduceRowsKernel<kMax, T><<<GridFor(p.outer, kThreads / 32, sms), kThreads, 0, p.stream>>>(
        in, p.outer, p.len, p.out, p.out_type_code);
  } else {
    ArgReduceColumnsKernel<kMax, T>
        <<<GridFor(p.outer * p.inner, kThreads, sms), kThreads, 0, p.stream>>>(
            in, p.outer, p.len, p.inner, p.out, p.out_type_code);
  }
  CheckLaunch(ctx, kMax ? "ArgMax" : "ArgMin");
}

// ---- Softmax / LogSoftmax -----------------------------------------------------------

__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }

// A running maximum and the sum of exp(x - max) over the values seen so far.
template <typename C>
struct SoftmaxState {
  C max;
  C sum;
};

template <typename C>
__device__ __forceinline__ SoftmaxState<C> ShuffleDown(SoftmaxState<C> s, int delta) {
  return {ShuffleDown(s.max, delta), ShuffleDown(s.sum, delta)};
}

// Scales a sum kept relative to `from` to be relative to `to` (>= from). Equal maxima
// (both -inf, or both +inf) keep the sum as it is; the CPU's NaN for a +inf maximum comes
// from the +inf value's own term, exp(inf - inf).
template <typename C>
__device__ __forceinline__ C Rescale(C sum, C from, C to) {
  return from == to ? sum : sum * Exp(from - to);
}

template <typename C>
__device__ __forceinline__ SoftmaxState<C> SoftmaxAdd(SoftmaxState<C> s, C v) {
  const C max = v > s.max ? v : s.max;  // NaN does not move the maximum (as the CPU's)...
  // ...but makes the sum NaN, and with it the whole row; -inf adds nothing.
  const C term = v == -std::numeric_limits<C>::infinity() ? C(0) : Exp(v - max);
  return {max, Rescale(s.sum, s.max, max) + term};
}

template <typename C>
__device__ __forceinline__ SoftmaxState<C> SoftmaxMerge(SoftmaxState<C> a, SoftmaxState<C> b) {
  const C max = b.max > a.max ? b.max : a.max;
  return {max, Rescale(a.sum, a.max, max) + Rescale(b.sum, b.max, max)};
}

// One group of G threads per row of `depth` values: one read of the input for the
// maximum and the sum together, then the write. With `cached`, each thread keeps the
// values it read in dynamic shared memory (a row per group; each thread reads back only
// its own, so no barrier) instead of reading the input a second time.
template <bool kLog, typename T>
__global__ void __launch_bounds__(kThreads)
SoftmaxKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int64_t depth, int G,
              bool cached) {
  using C = Compute<T>;
  __shared__ SoftmaxState<C> shared[kThreads / 32];
  extern __shared__ __align__(16) unsigned char row_cache[];
  const int groups = kThreads / G;
  const int lane = threadIdx.x % G;
  C* cache = reinterpret_cast<C*>(row_cache) + (cached ? (threadIdx.x / G) * depth : 0);
  const auto merge = [](SoftmaxState<C> a, SoftmaxState<C> b) { return SoftmaxMerge(a, b); };
  // The loop runs alike for the whole block: every thread takes part in the shuffles.
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * groups; first < rows;
       first += static_cast<int64_t>(gridDim.x) * groups) {
    const int64_t row = first + threadIdx.x / G;
    const int64_t len = row < rows ? depth : 0;  // past the last row: nothing to do
    const T* x = in + (row < rows ? row : 0) * depth;
    T* y = out + (row < rows ? row : 0) * depth;
    SoftmaxState<C> s{-std::numeric_limits<C>::infinity(), C(0)};
    if (cached) {
      for (int64_t k = lane; k < len; k += G) {
        const C v = Widen(x[k]);
        cache[k] = v;
        s = SoftmaxAdd(s, v);
      }
    } else {
      for (int64_t k = lane; k < len; k += G) s = SoftmaxAdd(s, Widen(x[k]));
    }
    s = GroupReduce(s, merge, G, shared);
    // Every thread of the group needs the row's result.
    if (G <= 32) {
      const int leader = threadIdx.x % 32 / G * G;
      s.max = __shfl_sync(0xffffffffu, s.max, leader);
      s.sum = __shfl_sync(0xffffffffu, s.sum, leader);
    } else {
      if (threadIdx.x == 0) shared[0] = s;
      __syncthreads();
      s = shared[0];
      __syncthreads();
    }
    if constexpr (kLog) {
      const C log_sum = Log(s.sum);
      for (int64_t k = lane; k < len; k += G)
        y[k] = Narrow<T>((cached ? cache[k] : Widen(x[k])) - s.max - log_sum);
    } else {
      const C scale = C(1) / s.sum;  // one division per row: within an ulp of the CPU's
      for (int64_t k = lane; k < len; k += G)
        y[k] = Narrow<T>(Exp((cached ? cache[k] : Widen(x[k])) - s.max) * scale);
    }
  }
}

template <bool kLog>
struct Softmax {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      kernels::SoftmaxPlan p;  // the CPU kernel's checks (../nn_spec.h)
      if (!kernels::PlanSoftmax(ctx, &p)) return;
      const TensorPtr& logits = p.logits;
      TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
      if (!output) return;
      const int64_t depth = p.depth, rows = p.rows;
      if (rows == 0) return;
      cudaStream_t stream = GetStream(ctx);
      if (!stream) return;
      const int sms = MultiprocessorCount();
      const int group = depth <= 1024 ? SubWarpGroup(depth, 2) : kThreads;
      // The block's rows kept in shared memory where they fit the default 48 KiB.
      const int64_t cache_bytes =
          static_cast<int64_t>(kThreads / group) * depth * sizeof(typename ComputeType<T>::type);
      const bool cached = cache_bytes <= 48 * 1024;
      SoftmaxKernel<kLog, T><<<GridFor(rows, kThreads / group, sms), kThreads,
                               cached ? static_cast<size_t>(cache_bytes) : 0, stream>>>(
          Data<T>(logits), Data<T>(output), rows, depth, group, cached);
      CheckLaunch(ctx, kLog ? "LogSoftmax" : "Softmax");
    }
  };
};

// ---- registration -------------------------------------------------------------------

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;
using RealAndBoolTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t,
                               int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool>;

template <typename R, typename... Ts>
void RegisterReduce(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}}, {"reduction_indices"},
                         &Reduce<R>::template Compute<Ts>, CreateReduce, DeleteReduce},
              status),
     ...);
  }
}

template <bool kMax, typename... Ts>
void RegisterArgReduce(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}, {"output_type", TF_INT64}},
                         {"dimension"}, &ArgReduceCompute<kMax, Ts, TF_INT64>},
              status),
     ...);
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}, {"output_type", TF_INT32}},
                         {"dimension"}, &ArgReduceCompute<kMax, Ts, TF_INT32>},
              status),
     ...);
    if constexpr (kMax) {  // ArgMax's OpDef also allows int16 and uint16 indices
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}, {"output_type", TF_INT16}},
                           {"dimension"}, &ArgReduceCompute<kMax, Ts, TF_INT16>},
                status),
       ...);
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}, {"output_type", TF_UINT16}},
                           {"dimension"}, &ArgReduceCompute<kMax, Ts, TF_UINT16>},
                status),
       ...);
    }
  }
}

}  // namespace

void RegisterReductionKernels(TF_Status* status) {
  using Complexes = Types<ComplexParts<float>, ComplexParts<double>>;
  using kernels::Concat;
  RegisterReduce<SumReducer>("Sum", Concat<RealTypes, Complexes>(), status);
  RegisterReduce<MeanReducer>("Mean", Concat<RealTypes, Complexes>(), status);
  RegisterReduce<ProdReducer>("Prod", Concat<RealTypes, Complexes>(), status);
  RegisterReduce<MaxReducer>("Max", RealTypes(), status);
  RegisterReduce<MinReducer>("Min", RealTypes(), status);
  RegisterEuclideanNorm(Concat<RealTypes, Complexes>(), status);
  RegisterArgReduce<true>("ArgMax", RealAndBoolTypes(), status);
  RegisterArgReduce<false>("ArgMin", RealAndBoolTypes(), status);
  RegisterForTypes<Softmax<false>::Kernel>(kDevice, "Softmax", FloatTypes(), status);
  RegisterForTypes<Softmax<true>::Kernel>(kDevice, "LogSoftmax", FloatTypes(), status);
}

}  // namespace cuda
}  // namespace opgen
