// Array ops of gradients on the GPU, with the CPU kernels' operand checks
// (../nn_array_grad_spec.h): UnsortedSegmentSum as a gather (each output element adds up the
// rows of its segment in id order, rounding each addition to T as the CPU kernel does,
// so both give the same bits; ids of `num_segments` or more are dropped, as
// TensorFlow's GPU kernel drops them), StridedSliceGrad (dy scattered into zeros),
// MirrorPadGrad (a gather), and ConcatOffset / InvertPermutation on the host (their
// operands are host memory, as in TensorFlow). Twin of ../cpu/array_grad.cc.
#include "../nn_array_grad_spec.h"
#include "../space_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "grad_math.cuh"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T, typename I>
__global__ void UnsortedSegmentSumKernel(const T* data, const I* ids, T* out, int64_t n,
                                         int64_t inner, int64_t total) {
  for (int64_t o = GlobalThread<int64_t>(); o < total; o += GridStride<int64_t>()) {
    const int64_t segment = o / inner, j = o % inner;
    T acc = Narrow<T>(typename ComputeType<T>::type(0));
    for (int64_t i = 0; i < n; ++i)
      if (static_cast<int64_t>(ids[i]) == segment) acc = Narrow<T>(grad::Add(Widen(acc), Widen(data[i * inner + j])));
    out[o] = acc;
  }
}

template <typename T, typename I>
struct UnsortedSegmentSumOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SegmentPlan p;
    if (!kernels::PlanUnsortedSegment(ctx, "UnsortedSegmentSum", &p)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!out || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    UnsortedSegmentSumKernel<T, I><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(p.data), Data<I>(p.ids), Data<T>(out), p.n, p.inner, total);
    CheckLaunch(ctx, "UnsortedSegmentSum");
  }
};

// The slice's box, by value: per output dim its first index, step, count and stride.
struct GradBox {
  int rank = 0;
  int64_t first[kernels::kMaxGradDims] = {}, step[kernels::kMaxGradDims] = {},
          count[kernels::kMaxGradDims] = {}, stride[kernels::kMaxGradDims] = {};
};

template <typename W>
__global__ void ScatterBoxKernel(const W* dy, W* out, int64_t n, GradBox box) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    int64_t r = i, at = 0;
    for (int k = box.rank - 1; k >= 0; --k) {
      at += (box.first[k] + (r % box.count[k]) * box.step[k]) * box.stride[k];
      r /= box.count[k];
    }
    out[at] = dy[i];
  }
}

void StridedSliceGradCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::StridedSliceGradPlan p;
  if (!kernels::PlanStridedSliceGrad(ctx, *static_cast<kernels::StridedSliceMasks*>(state), &p)) return;
  const int rank = static_cast<int>(p.dims.size());
  if (rank > kernels::kMaxGradDims) {
    Fail(ctx, TF_UNIMPLEMENTED, "StridedSliceGrad: more than " +
                                    std::to_string(kernels::kMaxGradDims) + " dimensions on the GPU");
    return;
  }
  const TF_DataType dtype = TF_TensorType(p.dy.get());
  TensorPtr out = AllocateOutput(ctx, 0, dtype, p.dims);
  const int64_t total = NumElements(p.dims);
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const size_t e = TF_DataTypeSize(dtype);
  if (!CheckCuda(ctx, cudaMemsetAsync(TF_TensorData(out.get()), 0, total * e, stream), "StridedSliceGrad"))
    return;
  const int64_t n = NumElements(p.box.count);
  if (n == 0) return;
  GradBox box;
  box.rank = rank;
  int64_t stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    box.first[k] = p.box.first[k];
    box.step[k] = p.box.step[k];
    box.count[k] = p.box.count[k];
    box.stride[k] = stride;
    stride *= p.dims[k];
  }
  const void* src = TF_TensorData(p.dy.get());
  void* dst = TF_TensorData(out.get());
  switch (e) {
    case 1: ScatterBoxKernel<uint8_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), n, box); break;
    case 2: ScatterBoxKernel<uint16_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), n, box); break;
    case 4: ScatterBoxKernel<uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), n, box); break;
    case 8: ScatterBoxKernel<uint64_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), n, box); break;
    default: ScatterBoxKernel<double2><<<BlocksFor(n), kThreads, 0, stream>>>(
                 static_cast<const double2*>(src), static_cast<double2*>(dst), n, box); break;
  }
  CheckLaunch(ctx, "StridedSliceGrad");
}

template <typename T, typename C>
__global__ void MirrorPadGradKernel(const T* in, T* out, int64_t total, kernels::MirrorPadGradMap map) {
  for (int64_t i = GlobalThread<int64_t>(); i < total; i += GridStride<int64_t>()) {
    int64_t pos[kernels::kMaxGradDims][3];
    int count[kernels::kMaxGradDims], pick[kernels::kMaxGradDims];
    int64_t r = i;
    for (int k = map.rank - 1; k >= 0; --k) {
      count[k] = map.Sources(k, r % map.out[k], pos[k]);
      r /= map.out[k];
      pick[k] = 0;
    }
    C acc = C(0);
    for (;;) {
      int64_t at = 0;
      for (int k = 0; k < map.rank; ++k) at = at * map.in[k] + pos[k][pick[k]];
      acc = grad::Add(acc, Widen(in[at]));
      int k = map.rank - 1;
      for (; k >= 0; --k) {
        if (++pick[k] < count[k]) break;
        pick[k] = 0;
      }
      if (k < 0) break;
    }
    out[i] = Narrow<T>(acc);
  }
}

template <typename T>
struct MirrorPadGradOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = typename ComputeType<T>::type;
    kernels::MirrorPadGradPlan p;
    if (!kernels::PlanMirrorPadGrad(ctx, static_cast<kernels::MirrorPadAttrs*>(state)->symmetric, &p))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!out || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    MirrorPadGradKernel<T, C><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(p.input), Data<T>(out), total, p.map);
    CheckLaunch(ctx, "MirrorPadGrad");
  }
};

template <typename... Ts>
void RegisterTyped(Types<Ts...>, TF_Status* status) {
  for (TF_DataType n : {TF_INT32, TF_INT64}) {
    (RegisterKernel(kDevice, {"UnsortedSegmentSum",
         {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32}, {"Tnumsegments", n}}, {"num_segments"},
         &UnsortedSegmentSumOp<Ts, int32_t>::Compute}, status), ...);
    (RegisterKernel(kDevice, {"UnsortedSegmentSum",
         {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64}, {"Tnumsegments", n}}, {"num_segments"},
         &UnsortedSegmentSumOp<Ts, int64_t>::Compute}, status), ...);
  }
  for (TF_DataType p : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {"MirrorPadGrad", {{"T", DtypeOf<Ts>::value}, {"Tpaddings", p}},
         {"paddings"}, &MirrorPadGradOp<Ts>::Compute, kernels::CreateMirrorPad,
         kernels::DeleteMirrorPad}, status), ...);
}

using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

// Every fixed-size type, as the CPU registers StridedSliceGrad.
constexpr TF_DataType kAllFixedSizeTypes[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32, TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL, TF_COMPLEX64, TF_COMPLEX128};

}  // namespace

void RegisterArrayGradKernels(TF_Status* status) {
  RegisterTyped(RealTypes(), status);
  RegisterKernel(kDevice, {"ConcatOffset", {{"shape_type", TF_INT32}}, {"concat_dim", "shape", "offset"},
                           kernels::ConcatOffsetCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"ConcatOffset", {{"shape_type", TF_INT64}}, {"concat_dim", "shape", "offset"},
                           kernels::ConcatOffsetCompute<int64_t>}, status);
  RegisterKernel(kDevice, {"InvertPermutation", {{"T", TF_INT32}}, {"x", "y"},
                           kernels::InvertPermutationCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"InvertPermutation", {{"T", TF_INT64}}, {"x", "y"},
                           kernels::InvertPermutationCompute<int64_t>}, status);
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"StridedSliceGrad", {{"T", t}, {"Index", index}},
          {"shape", "begin", "end", "strides"}, StridedSliceGradCompute,
          kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks}, status);
}

}  // namespace cuda
}  // namespace opgen
