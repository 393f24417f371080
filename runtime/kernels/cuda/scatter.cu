// GatherNd, ScatterNd, TensorScatter{Update,Add,Sub,Max,Min}, DynamicStitch,
// ParallelDynamicStitch and DynamicPartition on the GPU, twins of ../cpu/scatter.cc: the
// indices (ScatterNd's shape, the partitions) are host memory, checked there
// as on the CPU (bad rows fail with the CPU's message; TensorFlow's GPU kernels instead
// zero-fill / skip them), and the rows each output slice gets are folded on the device
// in index order (csr_reduce.cuh), so duplicates give the CPU's result.
#include <cstdint>
#include <string>

#include "../scatter_spec.h"
#include "csr_reduce.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::NdPlan;

template <typename I>
bool Slots(TF_OpKernelContext* ctx, void* state, const char* op, const char* what,
           const TF_Tensor* indices, const NdPlan& p, std::vector<int64_t>* slots) {
  const I* idx = Data<I>(indices);
  slots->resize(p.rows);
  const bool ignore = kernels::IgnoreBadIndices(state);
  for (int64_t r = 0; r < p.rows; ++r) {
    (*slots)[r] = kernels::NdSlot(idx + r * p.depth, p);
    if ((*slots)[r] < 0 && !ignore) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + kernels::NdRowString(idx, r, p) +
                                         " does not index into " + what + ShapeString(p.dims));
      return false;
    }
  }
  return true;
}

// GatherNd copies slices whole: W is a word type of the element's size.
template <typename W, typename I>
void GatherNdCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr params = Input(ctx, 0), indices = Input(ctx, 1);
  if (!params || !indices) return;
  NdPlan p;
  std::string error;
  if (!kernels::PlanNd(Dims(params.get()), Dims(indices.get()), &p, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "GatherNd: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), p.dims.begin() + p.depth, p.dims.end());
  if (p.rows > 0 && NumElements(p.dims) == 0 && p.slice != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "GatherNd: Requested more than 0 entries, but params is empty.  Params shape: " +
                    ShapeString(p.dims));
  std::vector<int64_t> slots;
  if (!Slots<I>(ctx, state, "GatherNd", "param shape ", indices.get(), p, &slots)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(params.get()), out_dims);
  if (!out) return;
  std::vector<int64_t> dest(p.rows);
  for (int64_t r = 0; r < p.rows; ++r) dest[r] = slots[r] < 0 ? -1 : r;
  LaunchCsrFold<W, Fold::kUpdate>(ctx, "GatherNd", BuildCsr(dest, slots, p.rows),
                                  Data<W>(params.get()), nullptr, Data<W>(out), p.rows, p.slice,
                                  Empty::kZero);
}

// DynamicStitch, ParallelDynamicStitch: zeros, then each data tensor's rows folded in
// (last wins), one launch per tensor in order on the stream. W: a word of T's size.
template <typename W>
void StitchCompute(void* state, TF_OpKernelContext* ctx) {
  const char* op = static_cast<const char*>(state);
  kernels::StitchPlan p;
  if (!kernels::PlanStitch(ctx, op, &p)) return;
  const TF_DataType dtype = TF_DataType(TF_ExpectedOutputDataType(ctx, 0));
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  if (!out) return;
  const int64_t rows = p.out_dims[0];
  if (rows * p.slice == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr ||
      !CheckCuda(ctx, cudaMemsetAsync(Data<W>(out), 0, rows * p.slice * sizeof(W), stream), op))
    return;
  int64_t k = 0;
  for (size_t m = 0; m < p.data.size(); ++m) {
    std::vector<int64_t> dest(p.dest.begin() + k, p.dest.begin() + k + p.counts[m]), source;
    for (int64_t r = 0; r < p.counts[m]; ++r) source.push_back(r);
    k += p.counts[m];
    LaunchCsrFold<W, Fold::kUpdate>(ctx, op, BuildCsr(dest, source, rows), Data<W>(p.data[m]),
                                    Data<W>(out), Data<W>(out), rows, p.slice, Empty::kZero);
    if (TF_GetCode(ThreadStatus()) != TF_OK) return;
  }
}

void* CreateStitch(TF_OpKernelConstruction*) { return const_cast<char*>("DynamicStitch"); }
void* CreateParallelStitch(TF_OpKernelConstruction*) {
  return const_cast<char*>("ParallelDynamicStitch");
}

// DynamicPartition: one launch per output, its rows listed on the host.
template <typename W>
void PartitionCompute(void*, TF_OpKernelContext* ctx) {
  kernels::PartitionPlan p;
  if (!kernels::PlanPartition(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.data.get());
  for (size_t q = 0; q < p.counts.size(); ++q) {
    std::vector<int64_t> dims{p.counts[q]};
    dims.insert(dims.end(), p.inner.begin(), p.inner.end());
    TensorPtr out = kernels::AllocateOutput(ctx, static_cast<int>(q), dtype, dims);
    if (!out) return;
    std::vector<int64_t> dest(p.part.size()), source(p.part.size());
    for (size_t r = 0; r < p.part.size(); ++r) {
      dest[r] = p.part[r] == static_cast<int64_t>(q) ? p.place[r] : -1;
      source[r] = static_cast<int64_t>(r);
    }
    LaunchCsrFold<W, Fold::kUpdate>(ctx, "DynamicPartition", BuildCsr(dest, source, p.counts[q]),
                                    Data<W>(p.data), nullptr, Data<W>(out), p.counts[q], p.slice,
                                    Empty::kZero);
  }
}

template <typename T, typename I, Fold F, bool kBase>
struct ScatterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = kBase ? Name() : "ScatterNd";
    TensorPtr base, indices, updates;
    std::vector<int64_t> dims;
    if (kBase) {
      base = Input(ctx, 0), indices = Input(ctx, 1), updates = Input(ctx, 2);
      if (!base || !indices || !updates) return;
      dims = Dims(base.get());
    } else {
      indices = Input(ctx, 0), updates = Input(ctx, 1);
      TensorPtr shape = Input(ctx, 2);
      if (!indices || !updates || !shape) return;
      if (TF_NumDims(shape.get()) != 1)
        return Fail(ctx, TF_INVALID_ARGUMENT, "ScatterNd: Shape must be a vector, got shape " +
                                                  ShapeString(Dims(shape.get())));
      for (int64_t i = 0, n = TF_TensorElementCount(shape.get()); i < n; ++i)
        dims.push_back(static_cast<int64_t>(Data<I>(shape.get())[i]));
      for (int64_t d : dims)
        if (d < 0)
          return Fail(ctx, TF_INVALID_ARGUMENT, "ScatterNd: Dimension " + std::to_string(d) +
                                                    " must be >= 0 in shape " + ShapeString(dims));
    }
    const std::vector<int64_t> idims = Dims(indices.get()), udims = Dims(updates.get());
    NdPlan p;
    std::string error;
    if (!kernels::PlanNd(dims, idims, &p, &error))
      return Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + error);
    if (!kernels::CheckScatterUpdates(ctx, op, p, idims, udims)) return;
    std::vector<int64_t> slots;
    if (!Slots<I>(ctx, state, op, "shape ", indices.get(), p, &slots)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
    if (!out) return;
    const int64_t out_rows = p.slice == 0 ? 0 : NumElements(dims) / p.slice;
    std::vector<int64_t> source(p.rows);
    for (int64_t r = 0; r < p.rows; ++r) source[r] = r;
    LaunchCsrFold<T, F>(ctx, op, BuildCsr(slots, source, out_rows), Data<T>(updates),
                        kBase ? Data<T>(base) : nullptr, Data<T>(out), out_rows, p.slice,
                        Empty::kZero);
  }
  static const char* Name() {
    switch (F) {
      case Fold::kUpdate: return "TensorScatterUpdate";
      case Fold::kSum: return "TensorScatterAdd";
      case Fold::kSub: return "TensorScatterSub";
      case Fold::kScatterMax: return "TensorScatterMax";
      default: return "TensorScatterMin";
    }
  }
};

template <typename I, typename T, Fold F, bool kBase>
void RegisterScatter(const char* op, TF_Status* status) {
  RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tindices", DtypeOf<I>::value}},
      kBase ? std::vector<const char*>{"indices"} : std::vector<const char*>{"indices", "shape"},
      &ScatterKernel<T, I, F, kBase>::Compute, kernels::CreateNdAttrs, kernels::DeleteNdAttrs},
      status);
}

using Reals = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                    uint8_t, uint16_t, uint32_t, uint64_t>;
using Numbers = kernels::Concat<Reals, Types<ComplexParts<float>, ComplexParts<double>>>;

template <typename I, typename... Ts>
void RegisterArithmetic(Types<Ts...>, TF_Status* status) {
  (RegisterScatter<I, Ts, Fold::kSum, false>("ScatterNd", status), ...);
  (RegisterScatter<I, Ts, Fold::kSum, true>("TensorScatterAdd", status), ...);
  (RegisterScatter<I, Ts, Fold::kSub, true>("TensorScatterSub", status), ...);
  (RegisterScatter<I, Ts, Fold::kUpdate, true>("TensorScatterUpdate", status), ...);
}

template <typename I, typename... Ts>
void RegisterMaxMin(Types<Ts...>, TF_Status* status) {
  (RegisterScatter<I, Ts, Fold::kScatterMax, true>("TensorScatterMax", status), ...);
  (RegisterScatter<I, Ts, Fold::kScatterMin, true>("TensorScatterMin", status), ...);
}

template <typename I>
void RegisterForIndex(TF_Status* status) {
  RegisterArithmetic<I>(Numbers(), status);
  RegisterScatter<I, bool, Fold::kSum, false>("ScatterNd", status);
  RegisterScatter<I, bool, Fold::kUpdate, true>("TensorScatterUpdate", status);
  RegisterMaxMin<I>(Reals(), status);
}

constexpr TF_DataType kFixedSizeTypes[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32, TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL, TF_COMPLEX64, TF_COMPLEX128};

// The kernel of `Compute` for a word of the element's size.
template <template <typename> class K>
ComputeFn BySize(TF_DataType t) {
  switch (TF_DataTypeSize(t)) {
    case 1: return K<uint8_t>::Compute;
    case 2: return K<uint16_t>::Compute;
    case 4: return K<uint32_t>::Compute;
    case 8: return K<uint64_t>::Compute;
    default: return K<ComplexParts<double>>::Compute;
  }
}
template <typename W> struct Stitch { static constexpr ComputeFn Compute = StitchCompute<W>; };
template <typename W> struct Partition {
  static constexpr ComputeFn Compute = PartitionCompute<W>;
};

void RegisterStitchPartition(TF_Status* status) {
  for (TF_DataType t : kFixedSizeTypes) {
    RegisterKernel(kDevice, {"DynamicStitch", {{"T", t}}, {"indices"}, BySize<Stitch>(t),
                             CreateStitch}, status);
    RegisterKernel(kDevice, {"ParallelDynamicStitch", {{"T", t}}, {"indices"},
                             BySize<Stitch>(t), CreateParallelStitch}, status);
    RegisterKernel(kDevice, {"DynamicPartition", {{"T", t}}, {"partitions"},
                             BySize<Partition>(t)}, status);
  }
}

template <typename I>
void RegisterGatherNd(TF_Status* status) {
  const TF_DataType tindices = DtypeOf<I>::value;
  for (TF_DataType t : {TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL,
                        TF_COMPLEX64, TF_COMPLEX128}) {
    ComputeFn fn = nullptr;
    switch (TF_DataTypeSize(t)) {
      case 1: fn = GatherNdCompute<uint8_t, I>; break;
      case 2: fn = GatherNdCompute<uint16_t, I>; break;
      case 4: fn = GatherNdCompute<uint32_t, I>; break;
      case 8: fn = GatherNdCompute<uint64_t, I>; break;
      default: fn = GatherNdCompute<ComplexParts<double>, I>; break;
    }
    RegisterKernel(kDevice, {"GatherNd", {{"Tparams", t}, {"Tindices", tindices}}, {"indices"},
                             fn, kernels::CreateNdAttrs, kernels::DeleteNdAttrs}, status);
  }
}

}  // namespace

// The CPU kernels' registrations (../cpu/scatter.cc), index operands in host memory.
void RegisterScatterKernels(TF_Status* status) {
  RegisterGatherNd<int16_t>(status);
  RegisterGatherNd<int32_t>(status);
  RegisterGatherNd<int64_t>(status);
  RegisterForIndex<int32_t>(status);
  RegisterForIndex<int64_t>(status);
  RegisterStitchPartition(status);
}

}  // namespace cuda
}  // namespace opgen
