// Bincount and DenseBincount: counts (or weight sums) per value, per row for a 2-D
// DenseBincount input. Checks: ../bincount_spec.h, shared with the CUDA plugin. Values
// of size or more are left out, negative values are an error (as TensorFlow's CPU
// kernels); with binary_output a bin is 1 where its value occurs.
#include <algorithm>

#include "../bincount_spec.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

template <typename Tidx, typename T>
void Count(TF_OpKernelContext* ctx, bool dense, bool binary) {
  kernels::BincountPlan p;
  if (!kernels::PlanBincount<Tidx>(ctx, dense, &p)) return;
  const Tidx* v = Data<Tidx>(p.values.get());
  const int64_t n = p.rows * p.per_row;
  for (int64_t i = 0; i < n; ++i)
    if (v[i] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(dense ? "DenseBincount" : "Bincount") +
                                         ": Input arr must be non-negative!");
      return;
    }
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!out) return;
  T* o = Data<T>(out);
  std::fill(o, o + NumElements(p.out_dims), T(0));
  const T* w = p.weighted ? Data<T>(p.weights.get()) : nullptr;
  for (int64_t r = 0; r < p.rows; ++r)
    for (int64_t j = 0; j < p.per_row; ++j) {
      const int64_t i = r * p.per_row + j;
      const int64_t value = static_cast<int64_t>(v[i]);
      if (value >= p.size) continue;
      T& bin = o[r * p.size + value];
      if (binary) bin = T(1);
      else bin += w ? w[i] : T(1);
    }
}

void* CreateDense(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool binary = kernels::BoolAttr(ctx, "binary_output", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(binary);
}
void DeleteDense(void* b) { delete static_cast<bool*>(b); }

template <typename Tidx, typename T>
void DenseCompute(void* state, TF_OpKernelContext* ctx) {
  Count<Tidx, T>(ctx, true, *static_cast<bool*>(state));
}
template <typename T> struct BincountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) { Count<int32_t, T>(ctx, false, false); }
};

template <typename Tidx, typename... Ts>
void RegisterDense(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"DenseBincount",
                            {{"Tidx", DtypeOf<Tidx>::value}, {"T", DtypeOf<Ts>::value}}, {},
                            &DenseCompute<Tidx, Ts>, CreateDense, DeleteDense}, status), ...);
}

using BinTypes = Types<int32_t, int64_t, float, double>;

}  // namespace

void RegisterBincountKernels(TF_Status* status) {
  RegisterForTypes<BincountKernel>(kDevice, "Bincount", BinTypes(), status);
  RegisterDense<int32_t>(BinTypes(), status);
  RegisterDense<int64_t>(BinTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
