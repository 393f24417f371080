// GatherNd, ScatterNd, TensorScatter{Update,Add,Sub,Max,Min}, DynamicStitch,
// ParallelDynamicStitch and DynamicPartition on the CPU: every index
// row is checked before anything is written (../scatter_spec.h has the geometry shared
// with the CUDA twin ../cuda/scatter.cu). Gathers copy bytes, so one kernel serves
// every fixed-size type; scatters combine in index order, each step rounded to T. The
// scatters' CPU kernels take int32 and int64 indices, as TensorFlow's do.
#include <cstring>

#include "../scatter_spec.h"
#include "kernel_util.h"
#include "scatter_parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::NdPlan;

// Every row's slot, or false after reporting the first bad one (IGNORE: slot -1).
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

// out[b..., :] = params[indices[b..., :], ...]
template <typename I>
void GatherNdCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr params = Input(ctx, 0), indices = Input(ctx, 1);
  if (!params || !indices) return;
  NdPlan p;
  std::string error;
  if (!kernels::PlanNd(Dims(params.get()), Dims(indices.get()), &p, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "GatherNd: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), p.dims.begin() + p.depth, p.dims.end());
  if (p.rows > 0 && NumElements(p.dims) == 0 && p.slice == 0) {
    // nothing to read: an empty slice per row
  } else if (p.rows > 0 && NumElements(p.dims) == 0) {
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "GatherNd: Requested more than 0 entries, but params is empty.  Params shape: " +
                    ShapeString(p.dims));
  }
  std::vector<int64_t> slots;
  if (!Slots<I>(ctx, state, "GatherNd", "param shape ", indices.get(), p, &slots)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(params.get()), out_dims);
  if (!out) return;
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(params.get())));
  const char* src = static_cast<const char*>(TF_TensorData(params.get()));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  const int64_t* slot = slots.data();
  ForGatherRows(p.rows, run, [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      if (r + kPrefetchAhead < end && slot[r + kPrefetchAhead] >= 0)
        PrefetchRow(src + slot[r + kPrefetchAhead] * run, run);
      if (slot[r] < 0) std::memset(dst + r * run, 0, run);
      else std::memcpy(dst + r * run, src + slot[r] * run, run);
    }
  });
}

// DynamicStitch, ParallelDynamicStitch: zeros, then every data row copied to its merged
// row in order (the last duplicate wins, as on TensorFlow's CPU).
void StitchCompute(void* state, TF_OpKernelContext* ctx) {
  const char* op = static_cast<const char*>(state);
  kernels::StitchPlan p;
  if (!kernels::PlanStitch(ctx, op, &p)) return;
  const TF_DataType dtype = TF_DataType(TF_ExpectedOutputDataType(ctx, 0));
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  if (!out) return;
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(dtype));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  std::memset(dst, 0, p.out_dims[0] * run);
  size_t k = 0;
  for (size_t m = 0; m < p.data.size(); ++m) {
    const char* src = static_cast<const char*>(TF_TensorData(p.data[m].get()));
    for (int64_t r = 0; r < p.counts[m]; ++r, ++k) std::memcpy(dst + p.dest[k] * run, src + r * run, run);
  }
}

void* CreateStitch(TF_OpKernelConstruction*) { return const_cast<char*>("DynamicStitch"); }
void* CreateParallelStitch(TF_OpKernelConstruction*) {
  return const_cast<char*>("ParallelDynamicStitch");
}

// DynamicPartition: each row copied to its place in its partition's output.
void PartitionCompute(void*, TF_OpKernelContext* ctx) {
  kernels::PartitionPlan p;
  if (!kernels::PlanPartition(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.data.get());
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(dtype));
  std::vector<TensorPtr> outs;
  for (size_t q = 0; q < p.counts.size(); ++q) {
    std::vector<int64_t> dims{p.counts[q]};
    dims.insert(dims.end(), p.inner.begin(), p.inner.end());
    outs.push_back(kernels::AllocateOutput(ctx, static_cast<int>(q), dtype, dims));
    if (!outs.back()) return;
  }
  const char* src = static_cast<const char*>(TF_TensorData(p.data.get()));
  for (size_t r = 0; r < p.part.size(); ++r)
    std::memcpy(static_cast<char*>(TF_TensorData(outs[p.part[r]].get())) + p.place[r] * run,
                src + r * run, run);
}

enum class Combine { kUpdate, kAdd, kSub, kMax, kMin };

template <typename T, Combine C>
T Apply(T old, T u) {
  if constexpr (C == Combine::kUpdate) {
    return u;
  } else if constexpr (C == Combine::kAdd) {
    if constexpr (std::is_same_v<T, bool>) return old || u;
    else return Narrow<T>(WrappingAdd(Widen(old), Widen(u)));
  } else if constexpr (C == Combine::kSub) {
    return Narrow<T>(WrappingSub(Widen(old), Widen(u)));
  } else if constexpr (C == Combine::kMax) {
    return Widen(u) > Widen(old) ? u : old;
  } else {
    return Widen(u) < Widen(old) ? u : old;
  }
}

// ScatterNd(indices, updates, shape) with kBase false (zeros, rows added up) and
// TensorScatter*(tensor, indices, updates) with kBase true (a copy of tensor).
template <typename T, typename I, Combine C, bool kBase>
struct ScatterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = kBase ? TensorScatterName() : "ScatterNd";
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
    T* o = Data<T>(out);
    const T* b = kBase ? Data<T>(base) : nullptr;
    const T* u = Data<T>(updates);
    const int64_t slots_out = p.slice > 0 ? NumElements(dims) / p.slice : 0;
    // Each task owns a range of output slices and applies its updates in index order
    // (ignored rows, slot -1, fall in no range).
    ForOwnedRows(slots_out, p.rows, p.slice, true, [&](int64_t lo, int64_t hi) {
      const int64_t first = lo * p.slice, count = (hi - lo) * p.slice;
      if (kBase) std::memcpy(o + first, b + first, count * sizeof(T));
      else std::fill_n(o + first, count, T{});
      for (int64_t r = 0; r < p.rows; ++r) {
        if (slots[r] < lo || slots[r] >= hi) continue;
        if (r + kPrefetchAhead < p.rows) {  // slots come at random: ask for a later one early
          const int64_t next = slots[r + kPrefetchAhead];
          if (next >= lo && next < hi) PrefetchRow(o + next * p.slice, p.slice * static_cast<int64_t>(sizeof(T)));
        }
        T* dst = o + slots[r] * p.slice;
        const T* src = u + r * p.slice;
        for (int64_t j = 0; j < p.slice; ++j) dst[j] = Apply<T, kBase ? C : Combine::kAdd>(dst[j], src[j]);
      }
    });
  }
  static const char* TensorScatterName() {
    switch (C) {
      case Combine::kUpdate: return "TensorScatterUpdate";
      case Combine::kAdd: return "TensorScatterAdd";
      case Combine::kSub: return "TensorScatterSub";
      case Combine::kMax: return "TensorScatterMax";
      default: return "TensorScatterMin";
    }
  }
};

template <typename I, typename T, Combine C, bool kBase>
void RegisterScatter(const char* op, TF_Status* status) {
  RegisterKernel(kDevice, {op, {{"T", DtypeOf<T>::value}, {"Tindices", DtypeOf<I>::value}},
      kBase ? std::vector<const char*>{} : std::vector<const char*>{"shape"},
      &ScatterKernel<T, I, C, kBase>::Compute, kernels::CreateNdAttrs, kernels::DeleteNdAttrs},
      status);
}

template <typename I, typename... Ts>
void RegisterArithmetic(Types<Ts...>, TF_Status* status) {
  (RegisterScatter<I, Ts, Combine::kAdd, false>("ScatterNd", status), ...);
  (RegisterScatter<I, Ts, Combine::kAdd, true>("TensorScatterAdd", status), ...);
  (RegisterScatter<I, Ts, Combine::kSub, true>("TensorScatterSub", status), ...);
}

template <typename I, typename... Ts>
void RegisterUpdate(Types<Ts...>, TF_Status* status) {
  (RegisterScatter<I, Ts, Combine::kUpdate, true>("TensorScatterUpdate", status), ...);
}

template <typename I, typename... Ts>
void RegisterMaxMin(Types<Ts...>, TF_Status* status) {
  (RegisterScatter<I, Ts, Combine::kMax, true>("TensorScatterMax", status), ...);
  (RegisterScatter<I, Ts, Combine::kMin, true>("TensorScatterMin", status), ...);
}

template <typename I>
void RegisterForIndex(TF_Status* status) {
  using Numbers = Concat<RealTypes, ComplexTypes>;
  RegisterArithmetic<I>(Numbers(), status);
  RegisterScatter<I, bool, Combine::kAdd, false>("ScatterNd", status);
  RegisterUpdate<I>(Concat<Numbers, Types<bool>>(), status);
  RegisterMaxMin<I>(RealTypes(), status);
}

}  // namespace

void RegisterScatterKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"GatherNd", {{"Tparams", t}, {"Tindices", TF_INT16}}, {},
        GatherNdCompute<int16_t>, kernels::CreateNdAttrs, kernels::DeleteNdAttrs}, status);
    RegisterKernel(kDevice, {"GatherNd", {{"Tparams", t}, {"Tindices", TF_INT32}}, {},
        GatherNdCompute<int32_t>, kernels::CreateNdAttrs, kernels::DeleteNdAttrs}, status);
    RegisterKernel(kDevice, {"GatherNd", {{"Tparams", t}, {"Tindices", TF_INT64}}, {},
        GatherNdCompute<int64_t>, kernels::CreateNdAttrs, kernels::DeleteNdAttrs}, status);
  }
  RegisterForIndex<int32_t>(status);
  RegisterForIndex<int64_t>(status);
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"DynamicStitch", {{"T", t}}, {}, StitchCompute, CreateStitch},
                   status);
    RegisterKernel(kDevice, {"ParallelDynamicStitch", {{"T", t}}, {}, StitchCompute,
                             CreateParallelStitch}, status);
    RegisterKernel(kDevice, {"DynamicPartition", {{"T", t}}, {}, PartitionCompute}, status);
  }
}

}  // namespace cpu
}  // namespace opgen
