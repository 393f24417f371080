// ResourceGather and ResourceScatter{Add,Sub,Update,Mul,Div,Min,Max} on the CPU: rows of a variable read
// or updated under its lock (the runtime's variable API, c_api_ext.h); indices checked
// first (../resource_scatter_spec.h), duplicates applied in order. Twin:
// ../cuda/resource_scatter.cu.
#include <cstring>
#include <type_traits>

#include "../resource_scatter_spec.h"
#include "kernel_util.h"
#include "scatter_parallel.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

bool Ok(TF_OpKernelContext* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

void ResourceGatherCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr indices = Input(ctx, 1);
  if (!indices) return;
  StatusPtr s = NewStatus();
  TensorPtr var(OPGEN_KernelReadVariable(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), s.get()));
  if (!Ok(ctx, s.get())) return;
  const std::vector<int64_t> dims = Dims(var.get());
  kernels::ResourceRowsPlan p;
  std::string error;
  if (!kernels::PlanResourceRows(dims, indices.get(), nullptr, &p, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "ResourceGather: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), dims.begin() + 1, dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(var.get()), out_dims);
  if (!out) return;
  const int64_t run = p.slice * static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(var.get())));
  const char* src = static_cast<const char*>(TF_TensorData(var.get()));
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  const int64_t n = static_cast<int64_t>(p.rows.size());
  const int64_t* rows = p.rows.data();
  ForGatherRows(n, run, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (i + kPrefetchAhead < end) PrefetchRow(src + rows[i + kPrefetchAhead] * run, run);
      std::memcpy(dst + i * run, src + rows[i] * run, run);
    }
  });
}

enum class Mode { kAdd, kSub, kUpdate, kMul, kDiv, kMin, kMax };

constexpr const char* kScatterNames[] = {"ResourceScatterAdd", "ResourceScatterSub",
                                         "ResourceScatterUpdate", "ResourceScatterMul",
                                         "ResourceScatterDiv", "ResourceScatterMin",
                                         "ResourceScatterMax"};

struct ScatterArgs {
  const char* op;
  const TF_Tensor* indices;
  const TF_Tensor* updates;
};

template <typename T, Mode M>
struct ResourceScatter {
  static void Apply(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
    const auto* a = static_cast<const ScatterArgs*>(arg);
    const std::vector<int64_t> udims = Dims(a->updates);
    kernels::ResourceRowsPlan p;
    std::string error;
    if (!kernels::PlanResourceRows(Dims(old_value), a->indices, &udims, &p, &error)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": " + error).c_str());
      return;
    }
    const T* u = Data<T>(a->updates);
    if constexpr (M == Mode::kDiv && std::is_integral_v<T>) {
      // TensorFlow refuses an integer division by zero before anything is written.
      const int64_t count = TF_TensorElementCount(a->updates);
      for (int64_t j = 0; j < count; ++j)
        if (u[j] == T(0)) {
          TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": updates must not contain 0").c_str());
          return;
        }
    }
    T* out = Data<T>(new_value);
    const T* old = Data<T>(old_value);
    if (out != old) std::memcpy(out, old, TF_TensorByteSize(old_value));
    const int64_t n = static_cast<int64_t>(p.rows.size());
    const int64_t var_rows = p.slice > 0 ? TF_TensorElementCount(old_value) / p.slice : 0;
    // Each task owns a range of the variable's rows and applies their updates in order.
    ForOwnedRows(var_rows, n, p.slice, true, [&](int64_t lo, int64_t hi) {
      for (int64_t i = 0; i < n; ++i) {
        if (p.rows[i] < lo || p.rows[i] >= hi) continue;
        T* row = out + p.rows[i] * p.slice;
        if (p.scalar_updates) {
          for (int64_t j = 0; j < p.slice; ++j) row[j] = Combine(row[j], u[0]);
        } else {
          const T* x = u + i * p.slice;
          for (int64_t j = 0; j < p.slice; ++j) row[j] = Combine(row[j], x[j]);
        }
      }
    });
  }
  static T Combine(T old, T x) {
    if constexpr (M == Mode::kUpdate) return x;
    else if constexpr (M == Mode::kAdd) return Narrow<T>(WrappingAdd(Widen(old), Widen(x)));
    else if constexpr (M == Mode::kSub) return Narrow<T>(WrappingSub(Widen(old), Widen(x)));
    else if constexpr (M == Mode::kMul) return Narrow<T>(WrappingMul(Widen(old), Widen(x)));
    else if constexpr (M == Mode::kDiv) return Narrow<T>(Divide(Widen(old), Widen(x)));
    else if constexpr (M == Mode::kMin) return Widen(x) < Widen(old) ? x : old;
    else return Widen(x) > Widen(old) ? x : old;
  }
  // Integer division truncates toward zero; INT_MIN / -1 wraps, as on TensorFlow's CPU.
  template <typename C>
  static C Divide(C a, C b) {
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
      if (b == C(-1)) return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(a));
    }
    return a / b;
  }
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr indices = Input(ctx, 1), updates = Input(ctx, 2);
    if (!indices || !updates) return;
    ScatterArgs args{kScatterNames[static_cast<int>(M)], indices.get(), updates.get()};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariable(ctx, 0, DtypeOf<T>::value, &ResourceScatter::Apply, &args, s.get());
    Ok(ctx, s.get());
  }
};

template <Mode M, typename... Ts>
void RegisterScatter(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"dtype", DtypeOf<Ts>::value}, {"Tindices", i}},
        {"resource"}, &ResourceScatter<Ts, M>::Compute}, status), ...);
}

}  // namespace

void RegisterResourceScatterKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType i : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"ResourceGather", {{"dtype", t}, {"Tindices", i}}, {"resource"},
          ResourceGatherCompute, kernels::CreateResourceGather}, status);
  using Numbers = Concat<RealTypes, ComplexTypes>;
  RegisterScatter<Mode::kAdd>("ResourceScatterAdd", Numbers(), status);
  RegisterScatter<Mode::kSub>("ResourceScatterSub", Numbers(), status);
  RegisterScatter<Mode::kUpdate>("ResourceScatterUpdate", Concat<Numbers, Types<bool>>(), status);
  RegisterScatter<Mode::kMul>("ResourceScatterMul", Numbers(), status);
  RegisterScatter<Mode::kDiv>("ResourceScatterDiv", Numbers(), status);
  RegisterScatter<Mode::kMin>("ResourceScatterMin", RealTypes(), status);
  RegisterScatter<Mode::kMax>("ResourceScatterMax", RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
