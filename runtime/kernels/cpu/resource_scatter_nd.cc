// ResourceScatterNd{Update,Add,Sub,Min,Max} and ResourceGatherNd on the CPU: GatherNd's
// and TensorScatter*'s index rows (../resource_scatter_nd_spec.h) on a variable, read or
// updated under its lock; every row is checked before anything is written, and rows apply
// in order. Twin: ../cuda/resource_scatter_nd.cu.
#include <cstring>
#include <type_traits>

#include "../resource_scatter_nd_spec.h"
#include "kernel_util.h"
#include "scatter_parallel.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::NdPlan;

enum class Nd { kUpdate, kAdd, kSub, kMin, kMax };

template <typename T, Nd M>
T Combine(T old, T x) {
  if constexpr (M == Nd::kUpdate) return x;
  // bool as TensorFlow's CPU kernels compute it: + is or, - is exclusive or
  else if constexpr (std::is_same_v<T, bool> && M == Nd::kAdd) return old || x;
  else if constexpr (std::is_same_v<T, bool> && M == Nd::kSub) return old != x;
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
        !(error = kernels::NdUpdatesMismatch(p, idims, udims)).empty() ||
        !kernels::NdSlots<I>(a->indices, p, a->ignore_bad, "shape ", &slots, &error)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": " + error).c_str());
      return;
    }
    T* out = Data<T>(new_value);
    const T* old = Data<T>(old_value);
    if (out != old && TF_TensorByteSize(old_value) > 0)
      std::memcpy(out, old, TF_TensorByteSize(old_value));
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
      !kernels::NdSlots<I>(indices.get(), p, false, "param shape ", &slots, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "ResourceGatherNd: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), p.dims.begin() + p.depth, p.dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(var.get()), out_dims);
  if (!out) return;
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(var.get())));
  const char* src = static_cast<const char*>(TF_TensorData(var.get()));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  const int64_t* slot = slots.data();
  if (run == 0) return;  // nothing to copy (and no buffers to copy between)
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
  RegisterNd<Nd::kAdd>("ResourceScatterNdAdd", Concat<Numbers, Types<bool>>(), status);
  RegisterNd<Nd::kSub>("ResourceScatterNdSub", Concat<Numbers, Types<bool>>(), status);
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
