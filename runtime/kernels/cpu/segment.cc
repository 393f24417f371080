// The segment reductions on the CPU: UnsortedSegment{Max,Min,Prod} (ids < 0 dropped,
// ids past num_segments an error; empty segments hold the reduction's identity: lowest,
// highest, 1), Segment{Sum,Mean,Max,Min,Prod} (sorted ids; empty segments 0, or 1 for
// the product) and SparseSegment{Sum,Mean,SqrtN} (rows picked by indices; empty
// segments 0). Each segment is reduced in the compute type, rounded to T once, in
// contribution order; NaN in a max or min as TensorFlow's CPU kernels (Step). Plans: ../segment_spec.h, ../nn_array_grad_spec.h.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "../nn_array_grad_spec.h"
#include "../segment_spec.h"
#include "kernel_util.h"
#include "scatter_parallel.h"

namespace opgen {
namespace cpu {
namespace {

enum class Reduce { kSum, kMean, kSqrtN, kProd, kMax, kMin };

template <typename T, Reduce R>
ComputeType<T> Identity() {
  using C = ComputeType<T>;
  if constexpr (R == Reduce::kProd) return C(1);
  else if constexpr (R == Reduce::kMax) return Lowest<T>();
  else if constexpr (R == Reduce::kMin) return Highest<T>();
  else return C(0);
}

template <typename T, Reduce R>
ComputeType<T> Step(ComputeType<T> acc, ComputeType<T> x) {
  if constexpr (R == Reduce::kProd) return WrappingMul(acc, x);
  // x replaces acc unless it is strictly worse, as TensorFlow's CPU kernels compare: a NaN
  // replaces acc, and whatever follows a NaN replaces it
  else if constexpr (R == Reduce::kMax) return x < acc ? acc : x;
  else if constexpr (R == Reduce::kMin) return acc < x ? acc : x;
  else return WrappingAdd(acc, x);
}

// Reduces contributions [begin, end) (data row rows[i], or i where rows is null, into
// segment segs[i]) that fall in segments [lo, hi) into those rows of `out`
// ([segments, inner]), in contribution order; acc and count are the accumulators of
// every segment (acc may be `out` itself where T is its own compute type).
// Unsorted (`unsorted`): every segment starts from the identity, and empty ones keep it.
// Sorted: a max or min starts from the segment's first row (so -inf survives a max, as
// in TensorFlow), the others from the identity; empty segments are 0 (1 for the product).
template <typename T, Reduce R, typename S>
void ReduceRange(const T* data, const int64_t* rows, const S* segs, int64_t begin, int64_t end,
                 int64_t lo, int64_t hi, int64_t inner, bool unsorted, ComputeType<T>* acc,
                 int64_t* count, T* out) {
  using C = ComputeType<T>;
  std::fill(acc + lo * inner, acc + hi * inner, Identity<T, R>());
  for (int64_t i = begin; i < end; ++i) {
    const int64_t s = static_cast<int64_t>(segs[i]);
    if (s < lo || s >= hi) continue;
    C* a = acc + s * inner;
    if (rows && i + kPrefetchAhead < end)  // picked rows come at random
      PrefetchRow(data + rows[i + kPrefetchAhead] * inner, inner * static_cast<int64_t>(sizeof(T)));
    if (unsorted && i + kPrefetchAhead < end) {  // and so do unsorted segments
      const int64_t next = static_cast<int64_t>(segs[i + kPrefetchAhead]);
      if (next >= lo && next < hi) PrefetchRow(acc + next * inner, inner * static_cast<int64_t>(sizeof(C)));
    }
    const T* x = data + (rows ? rows[i] : i) * inner;
    if (!unsorted && count[s] == 0 && (R == Reduce::kMax || R == Reduce::kMin))
      for (int64_t j = 0; j < inner; ++j) a[j] = Widen(x[j]);
    else
      for (int64_t j = 0; j < inner; ++j) a[j] = Step<T, R>(a[j], Widen(x[j]));
    ++count[s];
  }
  for (int64_t s = lo; s < hi; ++s) {
    const C* a = acc + s * inner;
    T* o = out + s * inner;
    const int64_t c = count[s];
    for (int64_t j = 0; j < inner; ++j) {
      C v = a[j];
      if (c == 0 && !unsorted && R != Reduce::kProd) v = C(0);
      if constexpr (R == Reduce::kMean) {
        if (c > 0) v = v / static_cast<C>(c);
      } else if constexpr (R == Reduce::kSqrtN) {
        if (c > 0) v = v / static_cast<C>(std::sqrt(static_cast<double>(c)));
      }
      o[j] = Narrow<T>(v);
    }
  }
}

// Reduces n contributions into `segments` rows of `out`, split over the pool by ranges
// of segments (../cpu/scatter_parallel.h): sorted segment ids let each range find its
// contributions by binary search; unsorted ones are scanned by every range.
template <typename T, Reduce R, typename S>
void ReduceRows(const T* data, const int64_t* rows, const S* segs, int64_t n, int64_t segments,
                int64_t inner, bool unsorted, T* out) {
  using C = ComputeType<T>;
  std::vector<C> buffer;
  C* acc;
  if constexpr (std::is_same_v<C, T>) {
    acc = out;
  } else {
    buffer.resize(static_cast<size_t>(segments * inner));
    acc = buffer.data();
  }
  std::vector<int64_t> count(static_cast<size_t>(segments), 0);
  ForOwnedRows(segments, n, inner, unsorted, [&](int64_t lo, int64_t hi) {
    int64_t begin = 0, end = n;
    if (!unsorted) {
      begin = std::lower_bound(segs, segs + n, lo) - segs;
      end = std::lower_bound(segs + begin, segs + n, hi) - segs;
    }
    ReduceRange<T, R>(data, rows, segs, begin, end, lo, hi, inner, unsorted, acc, count.data(), out);
  });
}

template <typename T, typename I, Reduce R>
struct UnsortedKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const char* op = R == Reduce::kMax ? "UnsortedSegmentMax"
                     : R == Reduce::kMin ? "UnsortedSegmentMin" : "UnsortedSegmentProd";
    kernels::SegmentPlan p;
    if (!kernels::PlanUnsortedSegment(ctx, op, &p)) return;
    const I* ids = Data<I>(p.ids);
    if (!kernels::CheckSegmentIds(ctx, op, ids, p.n, p.segments)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    ReduceRows<T, R>(Data<T>(p.data), nullptr, ids, p.n, p.segments, p.inner, true, Data<T>(out));
  }
};

template <typename T, Reduce R, bool kSparse, bool kNum = false>
struct SortedKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SortedSegmentPlan p;
    if (!kernels::PlanSortedSegment(ctx, Name(), kSparse, &p, kNum)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    // Segment*V2 (TensorFlow runs them through XLA only): empty segments hold the
    // identity (the lowest value for a max), as the unsorted reductions'.
    ReduceRows<T, R>(Data<T>(p.data), kSparse ? p.rows.data() : nullptr, p.segments.data(),
                     static_cast<int64_t>(p.rows.size()), p.out_dims[0], p.inner, kNum && !kSparse,
                     Data<T>(out));
  }
  static const char* Name() {
    if (kNum && !kSparse)  // Segment*V2: the sorted reductions with num_segments
      return R == Reduce::kSum    ? "SegmentSumV2"
             : R == Reduce::kProd ? "SegmentProdV2"
             : R == Reduce::kMax  ? "SegmentMaxV2"
                                   : "SegmentMinV2";
    if (kNum)
      return R == Reduce::kSum    ? "SparseSegmentSumWithNumSegments"
             : R == Reduce::kMean ? "SparseSegmentMeanWithNumSegments"
                                  : "SparseSegmentSqrtNWithNumSegments";
    switch (R) {
      case Reduce::kSum: return kSparse ? "SparseSegmentSum" : "SegmentSum";
      case Reduce::kMean: return kSparse ? "SparseSegmentMean" : "SegmentMean";
      case Reduce::kSqrtN: return "SparseSegmentSqrtN";
      case Reduce::kProd: return "SegmentProd";
      case Reduce::kMax: return "SegmentMax";
      default: return "SegmentMin";
    }
  }
};

template <Reduce R, typename... Ts>
void RegisterUnsorted(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType n : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32},
        {"Tnumsegments", n}}, {}, &UnsortedKernel<Ts, int32_t, R>::Compute}, status), ...);
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64},
        {"Tnumsegments", n}}, {}, &UnsortedKernel<Ts, int64_t, R>::Compute}, status), ...);
  }
}

template <Reduce R, typename... Ts>
void RegisterSorted(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", i}}, {},
        &SortedKernel<Ts, R, false>::Compute}, status), ...);
}

// Segment*V2: the sorted kernels with a num_segments operand.
template <Reduce R, typename... Ts>
void RegisterSortedV2(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType n : {TF_INT32, TF_INT64})
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", i}, {"Tnumsegments", n}},
          {}, &SortedKernel<Ts, R, false, true>::Compute}, status), ...);
}

template <Reduce R, typename... Ts>
void RegisterSparse(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType s : {TF_INT32, TF_INT64})
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", i}, {"Tsegmentids", s}},
          {}, &SortedKernel<Ts, R, true>::Compute}, status), ...);
}

template <Reduce R, typename... Ts>
void RegisterWithNumSegments(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType s : {TF_INT32, TF_INT64})
      for (TF_DataType n : {TF_INT32, TF_INT64})
        (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", i},
            {"Tsegmentids", s}, {"Tnumsegments", n}}, {},
            &SortedKernel<Ts, R, true, true>::Compute}, status), ...);
}

}  // namespace

void RegisterSegmentKernels(TF_Status* status) {
  using Numbers = Concat<RealTypes, ComplexTypes>;
  RegisterUnsorted<Reduce::kMax>("UnsortedSegmentMax", RealTypes(), status);
  RegisterUnsorted<Reduce::kMin>("UnsortedSegmentMin", RealTypes(), status);
  RegisterUnsorted<Reduce::kProd>("UnsortedSegmentProd", Numbers(), status);
  RegisterSorted<Reduce::kSum>("SegmentSum", Numbers(), status);
  RegisterSorted<Reduce::kMean>("SegmentMean", Numbers(), status);
  RegisterSorted<Reduce::kProd>("SegmentProd", Numbers(), status);
  RegisterSorted<Reduce::kMax>("SegmentMax", RealTypes(), status);
  RegisterSorted<Reduce::kMin>("SegmentMin", RealTypes(), status);
  RegisterSortedV2<Reduce::kSum>("SegmentSumV2", Numbers(), status);
  RegisterSortedV2<Reduce::kProd>("SegmentProdV2", Numbers(), status);
  RegisterSortedV2<Reduce::kMax>("SegmentMaxV2", RealTypes(), status);
  RegisterSortedV2<Reduce::kMin>("SegmentMinV2", RealTypes(), status);
  RegisterSparse<Reduce::kSum>("SparseSegmentSum", RealTypes(), status);
  RegisterSparse<Reduce::kMean>("SparseSegmentMean", FloatTypes(), status);
  RegisterSparse<Reduce::kSqrtN>("SparseSegmentSqrtN", FloatTypes(), status);
  RegisterWithNumSegments<Reduce::kSum>("SparseSegmentSumWithNumSegments", RealTypes(), status);
  RegisterWithNumSegments<Reduce::kMean>("SparseSegmentMeanWithNumSegments", FloatTypes(), status);
  RegisterWithNumSegments<Reduce::kSqrtN>("SparseSegmentSqrtNWithNumSegments", FloatTypes(),
                                          status);
}

}  // namespace cpu
}  // namespace opgen
