// CPU kernels of the sparse optimizer ops (ResourceSparseApply*): the dense algorithms of
// ../training_spec.h applied to the rows `indices` names, one index after another, so a
// repeated index updates its row again (as TensorFlow's CPU kernels do). Host only: no GPU
// kernels yet.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernel_util.h"
#include "parallel.h"
#include "../training_spec.h"

namespace opgen {
namespace cpu {

namespace {

namespace t = kernels::training;

struct CpuHost {
  static constexpr bool kHostScalars = true;
  template <typename T>
  static double HostValue(const T* x) { return static_cast<double>(Widen(*x)); }
};

template <typename T>
struct SparseArgs : t::StepArgs<T> {
  const TF_Tensor* indices;
};

template <typename Algo, typename Index, typename T>
struct SparseKernel {
  using L = t::Layout<t::Sparse<Algo>>;
  using C = ComputeType<T>;

  // TensorFlow's checks and messages, all before anything is written; "" when all pass.
  static std::string Check(const TF_Tensor* const* values, const SparseArgs<T>& a) {
    std::string m = t::SlotShapeMismatch<L, Algo::kVars>(values);
    if (!m.empty()) return m;
    const std::vector<int64_t> var_dims = Dims(values[0]);
    const std::vector<int64_t> grad_dims = Dims(a.grad);
    if (var_dims.empty()) return "var must be at least 1 dimensional";
    if (grad_dims.size() != var_dims.size()) {
      return "grad must have the same number of dimensions as var";
    }
    for (size_t d = 1; d < var_dims.size(); ++d) {
      if (var_dims[d] != grad_dims[d]) {
        return "var and grad must match in dimension " + std::to_string(d);
      }
    }
    const int64_t n = TF_TensorElementCount(a.indices);
    if (grad_dims[0] != n) return "grad must be the same size as indices in the first dimension.";
    const auto* idx = static_cast<const Index*>(TF_TensorData(a.indices));
    const int64_t rows = var_dims[0];
    for (int64_t j = 0; j < n; ++j) {
      if (idx[j] >= 0 && idx[j] < rows) continue;
      if (L::kBracketedIndexMessage) {
        return "indices[" + std::to_string(j) + "] = " + std::to_string(idx[j]) +
               " is not in [0, " + std::to_string(rows) + ")";
      }
      return "Index " + std::to_string(idx[j]) + " at offset " + std::to_string(j) +
             " in indices is out of range";
    }
    return "";
  }

  static void Update(const TF_Tensor* const* old_values, TF_Tensor* const* new_values, int,
                     void* arg, TF_Status* status) {
    const auto& a = *static_cast<const SparseArgs<T>*>(arg);
    const std::string m = Check(old_values, a);
    if (!m.empty()) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, m.c_str());
      return;
    }
    T* vars[Algo::kVars];
    const size_t bytes = TF_TensorByteSize(old_values[0]);
    for (int k = 0; k < Algo::kVars; ++k) {
      vars[k] = static_cast<T*>(TF_TensorData(new_values[k]));
      if (new_values[k] != old_values[k] && bytes > 0) {  // copy-on-write
        std::memcpy(vars[k], TF_TensorData(old_values[k]), bytes);
      }
    }
    C s[Algo::kScalars], p[8];
    for (int k = 0; k < Algo::kScalars; ++k) s[k] = Widen(*a.scalars[k]);
    Algo::Prepare(s, p);
    const int64_t n = TF_TensorElementCount(a.indices);
    const int64_t rows = TF_Dim(old_values[0], 0);
    const int64_t inner = rows == 0 ? 0 : TF_TensorElementCount(old_values[0]) / rows;
    const auto* idx = static_cast<const Index*>(TF_TensorData(a.indices));
    const T* grad = static_cast<const T*>(TF_TensorData(a.grad));
    // Split over the columns: each chunk walks every index in order, so a repeated row
    // is still updated once per occurrence, in order.
    ParallelFor(inner, [&](int64_t begin, int64_t end) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t base = static_cast<int64_t>(idx[j]) * inner;
        for (int64_t e = begin; e < end; ++e) {
          C v[Algo::kVars];
          for (int k = 0; k < Algo::kVars; ++k) v[k] = Widen(vars[k][base + e]);
          Algo::Apply(v, Widen(grad[j * inner + e]), p, a.flag);
          for (int k = 0; k < Algo::kVars; ++k) vars[k][base + e] = Narrow<T>(v[k]);
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(n, 1)));
  }

  static void Compute(void* flag, TF_OpKernelContext* ctx) {
    SparseArgs<T> args;
    args.ctx = ctx;
    args.flag = flag != nullptr && *static_cast<TF_Bool*>(flag);
    if (!t::ReadScalars<CpuHost, L, Algo::kScalars>(ctx, &args)) return;
    args.grad = BorrowInput(ctx, L::kGrad);
    args.indices = BorrowInput(ctx, L::kIndices);
    if (args.grad == nullptr || args.indices == nullptr) return;
    if (TF_NumDims(args.indices) != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, "indices must be one-dimensional");
      return;
    }
    int indices[Algo::kVars];
    for (int k = 0; k < Algo::kVars; ++k) indices[k] = k;
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariables(ctx, indices, L::kVarNames, Algo::kVars, DtypeOf<T>::value,
                                &SparseKernel::Update, &args, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

template <typename Algo, typename... Ts>
void Register(const char* op, kernels::CreateFn read_flag, Types<Ts...>, TF_Status* status) {
  std::vector<const char*> host(std::begin(t::Layout<Algo>::kVarNames),
                                std::end(t::Layout<Algo>::kVarNames));
  const kernels::DeleteFn destroy = read_flag != nullptr ? &t::DeleteFlag : nullptr;
  ((RegisterKernel(kDevice,
                   {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT32}}, host,
                    &SparseKernel<Algo, int32_t, Ts>::Compute, read_flag, destroy},
                   status),
    RegisterKernel(kDevice,
                   {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", TF_INT64}}, host,
                    &SparseKernel<Algo, int64_t, Ts>::Compute, read_flag, destroy},
                   status)),
   ...);
}

}  // namespace

void RegisterSparseTrainingKernels(TF_Status* status) {
  const kernels::CreateFn none = nullptr, nesterov = &t::CreateFlag<t::kUseNesterov>,
                          update_slots = &t::CreateFlag<t::kUpdateSlots>,
                          linear_by_lr = &t::CreateFlag<t::kMultiplyLinearByLr>;
  const FloatTypes types;
  const Types<float, double, Half> no_bfloat16;  // as TensorFlow's CPU kernels
  const Types<float, double> wide_types;
  Register<t::Adadelta>("ResourceSparseApplyAdadelta", none, types, status);
  Register<t::CenteredRMSProp>("ResourceSparseApplyCenteredRMSProp", none, no_bfloat16, status);
  Register<t::ProximalAdagrad>("ResourceSparseApplyProximalAdagrad", none, wide_types, status);
  Register<t::ProximalGradientDescent>("ResourceSparseApplyProximalGradientDescent", none,
                                       wide_types, status);
  Register<t::Adagrad>("ResourceSparseApplyAdagrad", update_slots, types, status);
  Register<t::AdagradV2>("ResourceSparseApplyAdagradV2", update_slots, types, status);
  Register<t::Ftrl>("ResourceSparseApplyFtrl", linear_by_lr, types, status);
  Register<t::FtrlV2>("ResourceSparseApplyFtrlV2", linear_by_lr, types, status);
  Register<t::KerasMomentum>("ResourceSparseApplyKerasMomentum", nesterov, types, status);
  Register<t::Momentum>("ResourceSparseApplyMomentum", nesterov, types, status);
  Register<t::RMSProp>("ResourceSparseApplyRMSProp", none, no_bfloat16, status);
}

}  // namespace cpu
}  // namespace opgen
