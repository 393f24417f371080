// Array ops of gradients: UnsortedSegmentSum (added up in id order, each addition
// rounded to T as TensorFlow's are), StridedSliceGrad (dy scattered into zeros),
// MirrorPadGrad (each output element gathers the padded elements mirrored from it),
// and ConcatOffset / InvertPermutation (host-side index math, ../nn_array_grad_spec.h, shared
// with the CUDA twin ../cuda/array_grad.cu).
#include <cstring>

#include "../nn_array_grad_spec.h"
#include "../space_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "scatter_parallel.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T, typename I>
struct UnsortedSegmentSumKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SegmentPlan p;
    if (!kernels::PlanUnsortedSegment(ctx, "UnsortedSegmentSum", &p)) return;
    const I* ids = Data<I>(p.ids);
    if (!kernels::CheckSegmentIds(ctx, "UnsortedSegmentSum", ids, p.n, p.segments)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    T* o = Data<T>(out);
    const T* d = Data<T>(p.data);
    const int64_t inner = p.inner;
    // Each task owns a range of segments and adds their rows in id order (negative ids,
    // dropped as TensorFlow documents, fall in no range).
    ForOwnedRows(p.segments, p.n, inner, true, [&](int64_t lo, int64_t hi) {
      std::fill(o + lo * inner, o + hi * inner, Narrow<T>(ComputeType<T>(0)));
      for (int64_t i = 0; i < p.n; ++i) {
        const int64_t s = static_cast<int64_t>(ids[i]);
        if (s < lo || s >= hi) continue;
        if (i + kPrefetchAhead < p.n) {  // ids come at random: ask for a later row early
          const int64_t next = static_cast<int64_t>(ids[i + kPrefetchAhead]);
          if (next >= lo && next < hi) PrefetchRow(o + next * inner, inner * static_cast<int64_t>(sizeof(T)));
        }
        T* row = o + s * inner;
        const T* src = d + i * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] = Narrow<T>(WrappingAdd(Widen(row[j]), Widen(src[j])));
      }
    });
  }
};

// dy's elements, in order, are the slice's box: each goes to first + index * step.
void StridedSliceGradCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::StridedSliceGradPlan p;
  if (!kernels::PlanStridedSliceGrad(ctx, *static_cast<kernels::StridedSliceMasks*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.dy.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.dims);
  if (!out) return;
  const int64_t e = static_cast<int64_t>(TF_DataTypeSize(dtype));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  const char* src = static_cast<const char*>(TF_TensorData(p.dy.get()));
  std::memset(dst, 0, NumElements(p.dims) * e);
  const kernels::StridedSliceBox& box = p.box;
  const int64_t n = NumElements(box.count);
  const size_t rank = p.dims.size();
  std::vector<int64_t> stride(rank, 1), index(rank, 0);
  for (size_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * p.dims[k];
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = 0;
    for (size_t k = 0; k < rank; ++k) at += (box.first[k] + index[k] * box.step[k]) * stride[k];
    std::memcpy(dst + at * e, src + i * e, e);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < box.count[k]) break;
      index[k] = 0;
    }
  }
}

template <typename T>
struct MirrorPadGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    kernels::MirrorPadGradPlan p;
    if (!kernels::PlanMirrorPadGrad(ctx, static_cast<kernels::MirrorPadAttrs*>(state)->symmetric, &p))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!out) return;
    const kernels::MirrorPadGradMap map = p.map;
    const T* in = Data<T>(p.input);
    T* o = Data<T>(out);
    ParallelFor(NumElements(p.out_dims), [=](int64_t begin, int64_t end) {
      const int rank = map.rank;
      int64_t pos[kernels::kMaxGradDims][3], count[kernels::kMaxGradDims], pick[kernels::kMaxGradDims];
      for (int64_t i = begin; i < end; ++i) {
        for (int64_t k = rank - 1, r = i; k >= 0; --k) {
          count[k] = map.Sources(static_cast<int>(k), r % map.out[k], pos[k]);
          r /= map.out[k];
          pick[k] = 0;
        }
        C acc = C(0);
        for (;;) {
          int64_t at = 0;
          for (int k = 0; k < rank; ++k) at = at * map.in[k] + pos[k][pick[k]];
          acc = WrappingAdd(acc, Widen(in[at]));
          int k = rank - 1;
          for (; k >= 0; --k) {
            if (++pick[k] < count[k]) break;
            pick[k] = 0;
          }
          if (k < 0) break;
        }
        o[i] = Narrow<T>(acc);
      }
    });
  }
};

template <typename... Ts>
void RegisterTyped(Types<Ts...>, TF_Status* status) {
  for (TF_DataType n : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {"UnsortedSegmentSum",
         {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32}, {"Tnumsegments", n}}, {},
         &UnsortedSegmentSumKernel<Ts, int32_t>::Compute}, status), ...);
    (RegisterKernel(kDevice, {"UnsortedSegmentSum",
         {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64}, {"Tnumsegments", n}}, {},
         &UnsortedSegmentSumKernel<Ts, int64_t>::Compute}, status), ...);
  }
  for (TF_DataType p : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {"MirrorPadGrad", {{"T", DtypeOf<Ts>::value}, {"Tpaddings", p}}, {},
         &MirrorPadGradKernel<Ts>::Compute, kernels::CreateMirrorPad, kernels::DeleteMirrorPad},
         status), ...);
}

}  // namespace

void RegisterArrayGradKernels(TF_Status* status) {
  RegisterTyped(RealTypes(), status);
  RegisterKernel(kDevice, {"ConcatOffset", {{"shape_type", TF_INT32}}, {},
                           kernels::ConcatOffsetCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"ConcatOffset", {{"shape_type", TF_INT64}}, {},
                           kernels::ConcatOffsetCompute<int64_t>}, status);
  RegisterKernel(kDevice, {"InvertPermutation", {{"T", TF_INT32}}, {},
                           kernels::InvertPermutationCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"InvertPermutation", {{"T", TF_INT64}}, {},
                           kernels::InvertPermutationCompute<int64_t>}, status);
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"StridedSliceGrad", {{"T", t}, {"Index", index}}, {},
          StridedSliceGradCompute, kernels::CreateStridedSliceMasks,
          kernels::DeleteStridedSliceMasks}, status);
}

}  // namespace cpu
}  // namespace opgen
