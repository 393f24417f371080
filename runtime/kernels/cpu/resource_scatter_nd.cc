// ResourceScatterNd{Update,Add,Sub,Min,Max} and ResourceGatherNd on the CPU: GatherNd's
// and TensorScatter*'s index rows (../scatter_spec.h) on a variable, read or updated under
// its lock; every row is checked before anything is written, and rows apply in order.
#include <cstring>

#include "../scatter_spec.h"
#include "kernel_util.h"
#include "scatter_parallel.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::NdPlan;

enum class Nd { kUpdate, kAdd, kSub, kMin, kMax };

// TensorFlow's checks of updates against indices and the variable, in its order and words
// (ScatterNd's update kernels); "" when they agree.
std::string UpdatesMismatch(const NdPlan& p, const std::vector<int64_t>& idims,
                            const std::vector<int64_t>& udims) {
  const int64_t b = static_cast<int64_t>(p.batch.size()), u = static_cast<int64_t>(udims.size());
  const int64_t rank = static_cast<int64_t>(p.dims.size());
  const std::string batch = "Dimensions [0," + std::to_string(b) + ") of indices[shape=" +
                            ShapeString(idims) + "]";
  const std::string batch_u = " must match dimensions [0," + std::to_string(b) +
                              ") of updates[shape=" + ShapeString(udims) + "]";
  const std::string slice = "Dimensions [" + std::to_string(p.depth) + "," + std::to_string(rank) +
                            ") of input[shape=" + ShapeString(p.dims) + "] must match dimensions [" +
                            std::to_string(b) + "," + std::to_string(u) + ") of updates[shape=" +
                            ShapeString(udims) + "]";
  if (u < b) return batch + batch_u;
  if (rank < p.depth + (u - b) || u != b + rank - p.depth) return slice;
  for (int64_t d = 0; d < b; ++d)
    if (udims[d] != idims[d])
      return batch + " = " + std::to_string(idims[d]) + batch_u + " = " + std::to_string(udims[d]);
  for (int64_t d = b; d < u; ++d)
    if (udims[d] != p.dims[p.depth + d - b]) return slice;
  return "";
}

// Every row's slot, or false with TensorFlow's message for the first bad one (IGNORE: -1).
template <typename I>
bool NdSlots(const TF_Tensor* indices, const NdPlan& p, bool ignore, const char* what,
             std::vector<int64_t>* slots, std::string* error) {
  const I* idx = static_cast<const I*>(TF_TensorData(indices));
  slots->resize(p.rows);
  for (int64_t r = 0; r < p.rows; ++r) {
    (*slots)[r] = kernels::NdSlot(idx + r * p.depth, p);
    if ((*slots)[r] < 0 && !ignore) {
      *error = kernels::NdRowString(idx, r, p) + " does not index into " + what + ShapeString(p.dims);
      return false;
    }
  }
  return true;
}

template <typename T, Nd M>
T Combine(T old, T x) {
  if constexpr (M == Nd::kUpdate) return x;
  else if constexpr (M == Nd::kAdd) return Narrow<T>(WrappingAdd(Widen(old), Widen(x)));
  else if constexpr (M == Nd::kSub) return Narrow<T>(WrappingSub(Widen(old), Widen(x)));
  else if constexpr (M == Nd::kMin) return Widen(x) < Widen(old) ? x : old;
  else return Widen(x) > Widen(old) ? x : old;
}

struct NdArgs {
  const char* op;
  const TF_Tensor* indices;
  const TF_Tensor* updates;
  bool ignore_bad;
};

template <typename T, typename I, Nd M>
struct ResourceScatterNd {
  static void Apply(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
    const auto* a = static_cast<const NdArgs*>(arg);
    const std::vector<int64_t> idims = Dims(a->indices), udims = Dims(a->updates);
    NdPlan p;
    std::string error;
    std::vector<int64_t> slots;
    if (!kernels::PlanNd(Dims(old_value), idims, &p, &error) ||
        !(error = UpdatesMismatch(p, idims, udims)).empty() ||
        !NdSlots<I>(a->indices, p, a->ignore_bad, "shape ", &slots, &error)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": " + error).c_str());
      return;
    }
    T* out = Data<T>(new_value);
    const T* old = Data<T>(old_value);
    if (out != old) std::memcpy(out, old, TF_TensorByteSize(old_value));
    const T* u = Data<T>(a->updates);
    const int64_t slots_out = p.slice > 0 ? NumElements(p.dims) / p.slice : 0;
    // Each task owns a range of the variable's slices and applies their rows in order.
    ForOwnedRows(slots_out, p.rows, p.slice, true, [&](int64_t lo, int64_t hi) {
      for (int64_t r = 0; r < p.rows; ++r) {
        if (slots[r] < lo || slots[r] >= hi) continue;
        T* dst = out + slots[r] * p.slice;
        const T* src = u + r * p.slice;
        for (int64_t j = 0; j < p.slice; ++j) dst[j] = Combine<T, M>(dst[j], src[j]);
      }
    });
  }
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    TensorPtr indices = Input(ctx, 1), updates = Input(ctx, 2);
    if (!indices || !updates) return;
    static constexpr const char* kNames[] = {"ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                                             "ResourceScatterNdSub", "ResourceScatterNdMin",
                                             "ResourceScatterNdMax"};
    NdArgs args{kNames[static_cast<int>(M)], indices.get(), updates.get(),
                kernels::IgnoreBadIndices(state)};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariable(ctx, 0, DtypeOf<T>::value, &ResourceScatterNd::Apply, &args, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

// out[b..., :] = variable[indices[b..., :], ...]
template <typename I>
void ResourceGatherNdCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr indices = Input(ctx, 1);
  if (!indices) return;
  StatusPtr s = NewStatus();
  TensorPtr var(OPGEN_KernelReadVariable(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), s.get()));
  if (TF_GetCode(s.get()) != TF_OK) return TF_OpKernelContext_Failure(ctx, s.get());
  NdPlan p;
  std::string error;
  std::vector<int64_t> slots;
  if (!kernels::PlanNd(Dims(var.get()), Dims(indices.get()), &p, &error) ||
      !NdSlots<I>(indices.get(), p, false, "param shape ", &slots, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "ResourceGatherNd: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), p.dims.begin() + p.depth, p.dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(var.get()), out_dims);
  if (!out) return;
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(var.get())));
  const char* src = static_cast<const char*>(TF_TensorData(var.get()));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  const int64_t* slot = slots.data();
  ForGatherRows(p.rows, run, [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) std::memcpy(dst + r * run, src + slot[r] * run, run);
  });
}

template <Nd M, typename... Ts>
void RegisterNd(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32}}, {"ref"},
       &ResourceScatterNd<Ts, int32_t, M>::Compute, kernels::CreateNdAttrs,
       kernels::DeleteNdAttrs}, status), ...);
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64}}, {"ref"},
       &ResourceScatterNd<Ts, int64_t, M>::Compute, kernels::CreateNdAttrs,
       kernels::DeleteNdAttrs}, status), ...);
}

}  // namespace

void RegisterResourceScatterNdKernels(TF_Status* status) {
  using Numbers = Concat<RealTypes, ComplexTypes>;
  RegisterNd<Nd::kUpdate>("ResourceScatterNdUpdate", Concat<Numbers, Types<bool>>(), status);
  RegisterNd<Nd::kAdd>("ResourceScatterNdAdd", Numbers(), status);
  RegisterNd<Nd::kSub>("ResourceScatterNdSub", Numbers(), status);
  RegisterNd<Nd::kMin>("ResourceScatterNdMin", RealTypes(), status);
  RegisterNd<Nd::kMax>("ResourceScatterNdMax", RealTypes(), status);
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"ResourceGatherNd", {{"dtype", t}, {"Tindices", TF_INT32}},
        {"resource"}, ResourceGatherNdCompute<int32_t>}, status);
    RegisterKernel(kDevice, {"ResourceGatherNd", {{"dtype", t}, {"Tindices", TF_INT64}},
        {"resource"}, ResourceGatherNdCompute<int64_t>}, status);
  }
}

}  // namespace cpu
}  // namespace opgen
