// Reductions over a set of axes (Sum, Mean, Max, Min, Prod, EuclideanNorm), ArgMax / ArgMin, and
// Softmax / LogSoftmax over the last axis.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "../nn_spec.h"
#include "../reduction_spec.h"
#include "kernel_util.h"
#include "simd_loops.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

// Reducers combine accumulator values (see AccumulatorOf); integer sums and products
// wrap, float maxima and minima propagate NaN, as TensorFlow's do.
struct SumReducer {
  template <typename A> static A Init() { return A(0); }
  template <typename A> static A Combine(A a, A b) { return WrappingAdd(a, b); }
};
struct ProdReducer {
  template <typename A> static A Init() { return A(1); }
  template <typename A> static A Combine(A a, A b) { return WrappingMul(a, b); }
};
struct MaxReducer {
  template <typename A> static A Init() {
    if constexpr (kIsFloating<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <typename A> static A Combine(A a, A b) { return b > a || b != b ? b : a; }
  static constexpr auto kFloatArray = &MaxFloatArray;  // the AVX-512 / AVX2 loop
};
struct MinReducer {
  template <typename A> static A Init() {
    if constexpr (kIsFloating<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <typename A> static A Combine(A a, A b) { return b < a || b != b ? b : a; }
  static constexpr auto kFloatArray = &MinFloatArray;
};

// What values of T are reduced in: float for half and bfloat16; for integer means a
// 64-bit sum, so that the mean of int8 values is right where their int8 sum would
// wrap (TensorFlow's result); T otherwise.
template <typename T, bool kMean>
using AccumulatorOf =
    std::conditional_t<kMean && kIsInteger<T>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, ComputeType<T>>;

// Floating-point sums are split in halves down to blocks of this many elements (as
// numpy's pairwise summation does), so the rounding error grows with log(n), not n.
constexpr int64_t kPairwiseBlock = 4096;

// Reduces x[0..n) with Reducer. Independent accumulators, one per lane, let the
// compiler keep them in vector registers.
template <typename Reducer, typename A, typename T>
A ReduceContiguous(const T* x, int64_t n) {
  if constexpr (HasFloatArray<Reducer>::value && std::is_same_v<T, float> &&
                std::is_same_v<A, float>)
    return Reducer::kFloatArray(x, n);
  constexpr bool kPairwise = kIsFloating<T> && std::is_same_v<Reducer, SumReducer>;
  if (kPairwise && n > kPairwiseBlock) {
    const int64_t half = n / 2 / 64 * 64;
    return ReduceContiguous<Reducer, A>(x, half) + ReduceContiguous<Reducer, A>(x + half, n - half);
  }
  constexpr int kLanes = std::max<int>(8, 128 / static_cast<int>(sizeof(A)));
  A lanes[kLanes];
  for (A& lane : lanes) lane = Reducer::template Init<A>();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] = Reducer::Combine(lanes[j], A(Widen(x[i + j])));
  A acc = Reducer::template Init<A>();
  for (; i < n; ++i) acc = Reducer::Combine(acc, A(Widen(x[i])));
  for (int step = kLanes / 2; step > 0; step /= 2)  // a tree, for the sum's rounding
    for (int j = 0; j < step; ++j) lanes[j] = Reducer::Combine(lanes[j], lanes[j + step]);
  return Reducer::Combine(lanes[0], acc);
}

// All of x[0..n) across threads: one partial result per chunk, combined in order.
template <typename Reducer, typename A, typename T>
A ReduceAll(const T* x, int64_t n) {
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(ParallelWorkers(), n / kParallelThreshold));
  if (chunks == 1) return ReduceContiguous<Reducer, A>(x, n);
  std::vector<A> partial(chunks);
  const int64_t step = (n + chunks - 1) / chunks;
  RunTasks(chunks, [&](int64_t c) {
    const int64_t begin = std::min(n, c * step), end = std::min(n, begin + step);
    partial[c] = ReduceContiguous<Reducer, A>(x + begin, end - begin);
  });
  A acc = partial[0];
  for (int64_t c = 1; c < chunks; ++c) acc = Reducer::Combine(acc, partial[c]);
  return acc;
}

// The input seen as [outer, reduced, inner] blocks, after merging neighbouring dims
// that are both reduced or both kept. `pattern` lists the merged dims' sizes, with
// `reduced` telling which are reduced; size-1 dims are dropped.
struct ReductionLayout {
  std::vector<int64_t> sizes;
  std::vector<bool> reduced;
};

ReductionLayout MergeDims(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  ReductionLayout layout;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!layout.sizes.empty() && layout.reduced.back() == reduced[d]) {
      layout.sizes.back() *= dims[d];
    } else {
      layout.sizes.push_back(dims[d]);
      layout.reduced.push_back(reduced[d]);
    }
  }
  return layout;
}

// out[o * inner + j] = reduction over r of in[(o * rows + r) * inner + j]: rows of
// `inner` values combined element-wise, a loop that vectorises across j.
template <typename Reducer, typename A, typename T>
void ReduceColumns(const T* in, int64_t outer, int64_t rows, int64_t inner, A* out) {
  const int64_t total = outer * inner;
  // Few, short columns over many rows (a sum over the first axis of a tall matrix):
  // split the rows instead of the columns, so that each thread streams whole rows
  // into a partial result of its own; the partials are combined in order.
  const int64_t row_blocks =
      std::min<int64_t>(ParallelWorkers(), rows * inner / kParallelThreshold);
  if (outer == 1 && row_blocks > 1 && inner <= 16384) {
    std::vector<A> partial(static_cast<size_t>(row_blocks * inner));
    const int64_t step = (rows + row_blocks - 1) / row_blocks;
    RunTasks(row_blocks, [&](int64_t b) {
      const int64_t r0 = std::min(rows, b * step), r1 = std::min(rows, r0 + step);
      A* __restrict acc = partial.data() + b * inner;
      for (int64_t j = 0; j < inner; ++j) acc[j] = Reducer::template Init<A>();
      for (int64_t r = r0; r < r1; ++r) {
        const T* __restrict row = in + r * inner;
        for (int64_t j = 0; j < inner; ++j) acc[j] = Reducer::Combine(acc[j], A(Widen(row[j])));
      }
    });
    for (int64_t j = 0; j < inner; ++j) out[j] = partial[j];
    for (int64_t b = 1; b < row_blocks; ++b)
      for (int64_t j = 0; j < inner; ++j) out[j] = Reducer::Combine(out[j], partial[b * inner + j]);
    return;
  }
  ParallelFor(total, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin / inner; o * inner < end; ++o) {
      const int64_t j0 = std::max(begin, o * inner) - o * inner;
      const int64_t j1 = std::min(end, (o + 1) * inner) - o * inner;
      A* __restrict acc = out + o * inner;
      for (int64_t j = j0; j < j1; ++j) acc[j] = Reducer::template Init<A>();
      for (int64_t r = 0; r < rows; ++r) {
        const T* __restrict row = in + (o * rows + r) * inner;
        for (int64_t j = j0; j < j1; ++j) acc[j] = Reducer::Combine(acc[j], A(Widen(row[j])));
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(rows, 1)));
}

// Any other layout: every input element added into its output slot, one at a time.
template <typename Reducer, typename A, typename T>
void ReduceGeneral(const T* in, const std::vector<int64_t>& dims, const std::vector<bool>& reduced,
                   A* out, int64_t out_n) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> kept(rank);
  for (int64_t d = 0; d < rank; ++d) kept[d] = reduced[d] ? 1 : dims[d];
  const std::vector<int64_t> kept_strides = Strides(kept);
  for (int64_t i = 0; i < out_n; ++i) out[i] = Reducer::template Init<A>();
  std::vector<int64_t> index(rank, 0);
  const int64_t in_n = NumElements(dims);
  for (int64_t i = 0; i < in_n; ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) if (!reduced[d]) o += index[d] * kept_strides[d];
    out[o] = Reducer::Combine(out[o], A(Widen(in[i])));
    for (int64_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

// Reduces `in` into out[0..out_n) in the compute type, choosing the loop by layout.
template <typename Reducer, typename A, typename T>
void ReduceInto(const T* in, const std::vector<int64_t>& dims, const std::vector<bool>& reduced,
                A* out, int64_t out_n) {
  const ReductionLayout l = MergeDims(dims, reduced);
  const size_t k = l.sizes.size();
  if (out_n == 0) return;
  if (NumElements(dims) == 0) {  // an empty reduction: the reducer's identity
    for (int64_t i = 0; i < out_n; ++i) out[i] = Reducer::template Init<A>();
  } else if (k == 0 || (k == 1 && !l.reduced[0])) {  // nothing reduced
    for (int64_t i = 0; i < out_n; ++i) out[i] = A(Widen(in[i]));
  } else if (k == 1) {  // everything
    out[0] = ReduceAll<Reducer, A>(in, l.sizes[0]);
  } else if (k == 2 && l.reduced[1]) {  // [kept, reduced]: one row per output
    const int64_t rows = l.sizes[0], len = l.sizes[1];
    if (rows < ParallelWorkers()) {
      for (int64_t r = 0; r < rows; ++r) out[r] = ReduceAll<Reducer, A>(in + r * len, len);
    } else {
      ParallelFor(rows, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) out[r] = ReduceContiguous<Reducer, A>(in + r * len, len);
      }, std::max<int64_t>(1, kParallelThreshold / len));
    }
  } else if (k == 2) {  // [reduced, kept]
    ReduceColumns<Reducer, A>(in, 1, l.sizes[0], l.sizes[1], out);
  } else if (k == 3 && !l.reduced[0]) {  // [kept, reduced, kept]
    ReduceColumns<Reducer, A>(in, l.sizes[0], l.sizes[1], l.sizes[2], out);
  } else {
    ReduceGeneral<Reducer, A>(in, dims, reduced, out, out_n);
  }
}

// The attrs, axes checks and output shapes: ../reduction_spec.h, shared with the CUDA
// plugin; here the arithmetic.
using kernels::CreateReduce;
using kernels::DeleteReduce;
using kernels::ReduceAttrs;

template <typename Reducer, bool kMean>
struct Reduce {
  template <typename T>
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::ReductionSpec r;
    if (!kernels::ResolveReduction(ctx, *static_cast<ReduceAttrs*>(state), &r)) return;
    const int64_t reduce_count = r.reduce_count;
    TensorPtr output = AllocateOutput<T>(ctx, 0, r.out_dims);
    if (!output) return;
    const int64_t out_n = NumElements(r.out_dims);
    T* out = Data<T>(output);
    // Results are made in the accumulator type, in place when that is T itself.
    using A = AccumulatorOf<T, kMean>;
    std::vector<A> wide;
    A* acc = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      acc = out;
    } else {
      wide.resize(out_n);
      acc = wide.data();
    }
    ReduceInto<Reducer, A>(Data<T>(r.input), r.dims, r.reduced, acc, out_n);
    if constexpr (kMean) {
      // Integer means truncate, as TensorFlow's do; an empty integer mean stays 0.
      if (kIsFloating<T> || reduce_count > 0)
        for (int64_t i = 0; i < out_n; ++i) acc[i] = acc[i] / static_cast<A>(reduce_count);
    }
    if constexpr (!std::is_same_v<A, T>)
      for (int64_t i = 0; i < out_n; ++i) out[i] = Narrow<T>(static_cast<ComputeType<T>>(acc[i]));
  }
};

// EuclideanNorm: sqrt of the sum of |x|^2. The squares are rounded to T first (integer
// ones wrap, half ones overflow to inf, as TensorFlow's T arithmetic gives), then summed
// by Sum's loops; integer roots truncate. Complex squares are x * conj(x) as the textbook
// product (TensorFlow's: an infinite part gives a NaN imaginary part) and the root complex.
template <typename T>
void EuclideanNormCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::ReductionSpec r;
  if (!kernels::ResolveReduction(ctx, *static_cast<ReduceAttrs*>(state), &r)) return;
  TensorPtr output = AllocateOutput<T>(ctx, 0, r.out_dims);
  if (!output) return;
  using A = ComputeType<T>;
  const int64_t n = NumElements(r.dims), out_n = NumElements(r.out_dims);
  const T* in = Data<T>(r.input);
  std::vector<A> squares(static_cast<size_t>(n)), sums(static_cast<size_t>(out_n));
  ParallelFor(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (kIsComplex<T>) squares[i] = WrappingMul(in[i], std::conj(in[i]));
      else if constexpr (kIsInteger<T>) squares[i] = WrappingMul(in[i], in[i]);
      else squares[i] = Widen(Narrow<T>(Widen(in[i]) * Widen(in[i])));
    }
  });
  ReduceInto<SumReducer, A>(squares.data(), r.dims, r.reduced, sums.data(), out_n);
  T* out = Data<T>(output);
  for (int64_t i = 0; i < out_n; ++i) {
    if constexpr (kIsInteger<T>) out[i] = static_cast<T>(std::sqrt(static_cast<double>(sums[i])));
    else out[i] = Narrow<T>(std::sqrt(sums[i]));
  }
}

template <typename... Ts>
void RegisterEuclideanNorm(Types<Ts...>, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {"EuclideanNorm", {{"T", DtypeOf<Ts>::value}, {"Tidx", tidx}}, {},
                              &EuclideanNormCompute<Ts>, CreateReduce, DeleteReduce}, status),
     ...);
}

template <bool kMax>
struct ArgReduce {
  template <typename T, typename Out>
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::ArgReductionSpec r;
    if (!kernels::ResolveArgReduction(ctx, &r)) return;
    const int64_t outer = r.outer, len = r.len, inner = r.inner;
    TensorPtr output = AllocateOutput<Out>(ctx, 0, r.out_dims);
    if (!output) return;
    const T* in = Data<T>(r.input);
    Out* out = Data<Out>(output);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* base = in + o * len * inner + i;
        // As TensorFlow: NaN is skipped (the first of equals wins; an all-NaN row gives 0).
        int64_t best = 0;
        for (int64_t k = 1; k < len; ++k) {
          const ComputeType<T> v = Widen(base[k * inner]), b = Widen(base[best * inner]);
          if (kMax ? v > b : v < b) best = k;
          else if (b != b && v == v) best = k;  // the first non-NaN replaces a leading NaN
        }
        out[o * inner + i] = static_cast<Out>(best);
      }
    }
  }
};

template <typename Reducer, bool kMean, typename T>
void RegisterReduce(const char* op, TF_Status* status) {
  RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tidx", TF_INT32}}, {},
      &Reduce<Reducer, kMean>::template Compute<T>, CreateReduce, DeleteReduce}, status);
  RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tidx", TF_INT64}}, {},
      &Reduce<Reducer, kMean>::template Compute<T>, CreateReduce, DeleteReduce}, status);
}

template <typename Reducer, bool kMean, typename... Ts>
void RegisterReduceAll(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterReduce<Reducer, kMean, Ts>(op, status), ...);
}

template <bool kMax, typename T>
void RegisterArg(const char* op, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tidx", tidx}, {"output_type", TF_INT64}},
        {}, &ArgReduce<kMax>::template Compute<T, int64_t>}, status);
    RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tidx", tidx}, {"output_type", TF_INT32}},
        {}, &ArgReduce<kMax>::template Compute<T, int32_t>}, status);
  }
}

// ArgMax's OpDef also allows int16 and uint16 indices, which TensorFlow's CPU kernels
// take; ArgMin's does not.
template <typename T>
void RegisterArgMaxNarrowIndices(TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    for (auto [out, compute] : {std::pair{TF_INT16, &ArgReduce<true>::template Compute<T, int16_t>},
                                std::pair{TF_UINT16, &ArgReduce<true>::template Compute<T, uint16_t>}}) {
      RegisterKernel(kDevice, {"ArgMax", {{"T", DtypeOf<T>::value}, {"Tidx", tidx}, {"output_type", out}},
          {}, compute}, status);
    }
  }
}

template <typename... Ts>
void RegisterArgMaxNarrow(Types<Ts...>, TF_Status* status) {
  (RegisterArgMaxNarrowIndices<Ts>(status), ...);
}

template <bool kMax, typename... Ts>
void RegisterArgAll(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterArg<kMax, Ts>(op, status), ...);
}

// ---- Softmax, LogSoftmax over the last axis ---------------------------------------------

// One pass for the max, one for the sum of exponentials, one to write: numerically
// stable for large logits.
template <bool kLog>
struct Softmax {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      kernels::SoftmaxPlan p;
      if (!kernels::PlanSoftmax(ctx, &p)) return;
      TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
      if (!output) return;
      const int64_t depth = p.depth, rows = p.rows;
      const T* in = Data<T>(p.logits);
      T* out = Data<T>(output);
      using C = ComputeType<T>;
      ParallelFor(rows, [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* x = in + r * depth;
          T* y = out + r * depth;
          C max = Widen(x[0]);
          for (int64_t i = 1; i < depth; ++i) max = Widen(x[i]) > max ? Widen(x[i]) : max;
          C sum = 0;
          for (int64_t i = 0; i < depth; ++i) sum += std::exp(Widen(x[i]) - max);
          if constexpr (kLog) {
            const C log_sum = std::log(sum);
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(Widen(x[i]) - max - log_sum);
          } else {
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(std::exp(Widen(x[i]) - max) / sum);
          }
        }
      }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(depth, 1)));
    }
  };
};

}  // namespace

void RegisterReductionKernels(TF_Status* status) {
  RegisterReduceAll<SumReducer, false>("Sum", Concat<RealTypes, ComplexTypes>(), status);
  RegisterReduceAll<SumReducer, true>("Mean", Concat<RealTypes, ComplexTypes>(), status);
  RegisterReduceAll<ProdReducer, false>("Prod", Concat<RealTypes, ComplexTypes>(), status);
  RegisterReduceAll<MaxReducer, false>("Max", RealTypes(), status);
  RegisterReduceAll<MinReducer, false>("Min", RealTypes(), status);
  RegisterEuclideanNorm(Concat<RealTypes, ComplexTypes>(), status);
  RegisterArgAll<true>("ArgMax", RealAndBoolTypes(), status);
  RegisterArgAll<false>("ArgMin", RealAndBoolTypes(), status);
  RegisterArgMaxNarrow(RealAndBoolTypes(), status);
  RegisterForTypes<Softmax<false>::Kernel>(kDevice, "Softmax", FloatTypes(), status);
  RegisterForTypes<Softmax<true>::Kernel>(kDevice, "LogSoftmax", FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
