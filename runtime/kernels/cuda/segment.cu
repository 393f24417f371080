// The segment reductions on the GPU, twins of ../cpu/segment.cc: segment ids, indices
// and num_segments are host memory, checked there as on the CPU (an unsorted id past
// num_segments fails, where TensorFlow's GPU kernels drop it), and each output row folds
// its data rows on the device in order (csr_reduce.cuh).
#include <cstdint>
#include <vector>

#include "../nn_array_grad_spec.h"
#include "../segment_spec.h"
#include "csr_reduce.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T, typename I, Fold F>
struct UnsortedKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const char* op = F == Fold::kMax ? "UnsortedSegmentMax"
                     : F == Fold::kMin ? "UnsortedSegmentMin" : "UnsortedSegmentProd";
    kernels::SegmentPlan p;
    if (!kernels::PlanUnsortedSegment(ctx, op, &p)) return;
    const I* ids = Data<I>(p.ids);
    if (!kernels::CheckSegmentIds(ctx, op, ids, p.n, p.segments)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    std::vector<int64_t> rows(p.n), segs(p.n);
    for (int64_t i = 0; i < p.n; ++i) rows[i] = i, segs[i] = ids[i] < 0 ? -1 : static_cast<int64_t>(ids[i]);
    LaunchCsrFold<T, F>(ctx, op, BuildCsr(segs, rows, p.segments), Data<T>(p.data), nullptr,
                        Data<T>(out), p.segments, p.inner, Empty::kIdentity);
  }
};

template <typename T, Fold F, bool kSparse, bool kNum = false>
struct SortedKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SortedSegmentPlan p;
    if (!kernels::PlanSortedSegment(ctx, Name(), kSparse, &p, kNum)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    LaunchCsrFold<T, F>(ctx, Name(), BuildCsr(p.segments, p.rows, p.out_dims[0]),
                        Data<T>(p.data), nullptr, Data<T>(out), p.out_dims[0], p.inner,
                        // Segment*V2: empty segments hold the identity, as XLA's
                        F == Fold::kProd || (kNum && !kSparse) ? Empty::kIdentity : Empty::kZero);
  }
  static const char* Name() {
    if (kNum && !kSparse)  // Segment*V2: the sorted reductions with num_segments
      return F == Fold::kSum    ? "SegmentSumV2"
             : F == Fold::kProd ? "SegmentProdV2"
             : F == Fold::kMax  ? "SegmentMaxV2"
                                   : "SegmentMinV2";
    if (kNum)
      return F == Fold::kSum    ? "SparseSegmentSumWithNumSegments"
             : F == Fold::kMean ? "SparseSegmentMeanWithNumSegments"
                                : "SparseSegmentSqrtNWithNumSegments";
    switch (F) {
      case Fold::kSum: return kSparse ? "SparseSegmentSum" : "SegmentSum";
      case Fold::kMean: return kSparse ? "SparseSegmentMean" : "SegmentMean";
      case Fold::kSqrtN: return "SparseSegmentSqrtN";
      case Fold::kProd: return "SegmentProd";
      case Fold::kMax: return "SegmentMax";
      default: return "SegmentMin";
    }
  }
};

template <Fold F, typename... Ts>
void RegisterUnsorted(const char* op, Types<Ts...>, TF_Status* status) {
  const std::vector<const char*> host{"segment_ids", "num_segments"};
  for (TF_DataType n : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32},
        {"Tnumsegments", n}}, host, &UnsortedKernel<Ts, int32_t, F>::Compute}, status), ...);
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64},
        {"Tnumsegments", n}}, host, &UnsortedKernel<Ts, int64_t, F>::Compute}, status), ...);
  }
}

template <Fold F, typename... Ts>
void RegisterSorted(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", i}}, {"segment_ids"},
        &SortedKernel<Ts, F, false>::Compute}, status), ...);
}

// Segment*V2: the sorted kernels with a num_segments operand.
template <Fold F, typename... Ts>
void RegisterSortedV2(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType n : {TF_INT32, TF_INT64})
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", i}, {"Tnumsegments", n}},
          {"segment_ids", "num_segments"}, &SortedKernel<Ts, F, false, true>::Compute}, status), ...);
}

template <Fold F, typename... Ts>
void RegisterSparse(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType s : {TF_INT32, TF_INT64})
      (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", i}, {"Tsegmentids", s}},
          {"indices", "segment_ids"}, &SortedKernel<Ts, F, true>::Compute}, status), ...);
}

template <Fold F, typename... Ts>
void RegisterWithNumSegments(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    for (TF_DataType s : {TF_INT32, TF_INT64})
      for (TF_DataType n : {TF_INT32, TF_INT64})
        (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tidx", i},
            {"Tsegmentids", s}, {"Tnumsegments", n}}, {"indices", "segment_ids", "num_segments"},
            &SortedKernel<Ts, F, true, true>::Compute}, status), ...);
}

using Floats = Types<float, double, __half, __nv_bfloat16>;
using Reals = kernels::Concat<Floats, Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                            uint32_t, uint64_t>>;
using Numbers = kernels::Concat<Reals, Types<ComplexParts<float>, ComplexParts<double>>>;

}  // namespace

// The CPU kernels' registrations (../cpu/segment.cc), index operands in host memory.
void RegisterSegmentKernels(TF_Status* status) {
  RegisterUnsorted<Fold::kMax>("UnsortedSegmentMax", Reals(), status);
  RegisterUnsorted<Fold::kMin>("UnsortedSegmentMin", Reals(), status);
  RegisterUnsorted<Fold::kProd>("UnsortedSegmentProd", Numbers(), status);
  RegisterSorted<Fold::kSum>("SegmentSum", Numbers(), status);
  RegisterSorted<Fold::kMean>("SegmentMean", Numbers(), status);
  RegisterSorted<Fold::kProd>("SegmentProd", Numbers(), status);
  RegisterSorted<Fold::kMax>("SegmentMax", Reals(), status);
  RegisterSorted<Fold::kMin>("SegmentMin", Reals(), status);
  RegisterSortedV2<Fold::kSum>("SegmentSumV2", Numbers(), status);
  RegisterSortedV2<Fold::kProd>("SegmentProdV2", Numbers(), status);
  RegisterSortedV2<Fold::kMax>("SegmentMaxV2", Reals(), status);
  RegisterSortedV2<Fold::kMin>("SegmentMinV2", Reals(), status);
  RegisterSparse<Fold::kSum>("SparseSegmentSum", Reals(), status);
  RegisterSparse<Fold::kMean>("SparseSegmentMean", Floats(), status);
  RegisterSparse<Fold::kSqrtN>("SparseSegmentSqrtN", Floats(), status);
  RegisterWithNumSegments<Fold::kSum>("SparseSegmentSumWithNumSegments", Reals(), status);
  RegisterWithNumSegments<Fold::kMean>("SparseSegmentMeanWithNumSegments", Floats(), status);
  RegisterWithNumSegments<Fold::kSqrtN>("SparseSegmentSqrtNWithNumSegments", Floats(), status);
}

}  // namespace cuda
}  // namespace opgen
