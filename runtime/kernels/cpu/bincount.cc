// Bincount, DenseBincount, RaggedBincount and SparseBincount: counts (or weight sums) per
// value, per output row. Checks and rows: ../bincount_spec.h, shared with the CUDA
// plugin. Values of size or more are left out; negative values are an error but for a
// batched SparseBincount, which leaves them out (as TensorFlow's CPU kernels); with
// binary_output a bin is 1 where its value occurs.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "../bincount_spec.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

enum class Kind { kBincount, kDense, kRagged, kSparse };

const char* OpName(Kind k) {
  switch (k) {
    case Kind::kBincount: return "Bincount";
    case Kind::kDense: return "DenseBincount";
    case Kind::kRagged: return "RaggedBincount";
    default: return "SparseBincount";
  }
}

template <typename Tidx>
bool Plan(TF_OpKernelContext* ctx, Kind kind, kernels::BincountPlan* p) {
  switch (kind) {
    case Kind::kRagged: return kernels::PlanRaggedBincount<Tidx>(ctx, p);
    case Kind::kSparse: return kernels::PlanSparseBincount<Tidx>(ctx, p);
    default: return kernels::PlanBincount<Tidx>(ctx, kind == Kind::kDense, p);
  }
}

template <typename Tidx, typename T>
void Count(TF_OpKernelContext* ctx, Kind kind, bool binary) {
  kernels::BincountPlan p;
  if (!Plan<Tidx>(ctx, kind, &p)) return;
  const Tidx* v = Data<Tidx>(p.values.get());
  // A batched (rank >= 2) sparse input leaves negative values out, as TensorFlow's does.
  if (kind != Kind::kSparse || p.row_of.empty())
    for (int64_t i = 0; i < p.count; ++i)
      if (v[i] < 0) {
        Fail(ctx, TF_INVALID_ARGUMENT, std::string(OpName(kind)) + ": Input arr must be non-negative!");
        return;
      }
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!out) return;
  T* o = Data<T>(out);
  std::fill(o, o + NumElements(p.out_dims), T(0));
  const T* w = p.weighted ? Data<T>(p.weights.get()) : nullptr;
  for (int64_t i = 0; i < p.count; ++i) {
    const int64_t value = static_cast<int64_t>(v[i]);
    if (value < 0 || value >= p.size) continue;
    const int64_t row = p.row_of.empty() ? i / p.per_row : p.row_of[i];
    T& bin = o[row * p.size + value];
    if (binary) bin = T(1);
    else bin += w ? w[i] : T(1);
  }
}

template <Kind kKind, typename Tidx, typename T>
void BinaryCompute(void* state, TF_OpKernelContext* ctx) {
  Count<Tidx, T>(ctx, kKind, *static_cast<bool*>(state));
}
template <typename T> struct BincountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    Count<int32_t, T>(ctx, Kind::kBincount, false);
  }
};

// The ops with Tidx, T and binary_output attrs, and their host-memory args.
template <Kind kKind, typename Tidx, typename... Ts>
void RegisterWithTidx(const std::vector<const char*>& host, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {OpName(kKind),
                            {{"Tidx", DtypeOf<Tidx>::value}, {"T", DtypeOf<Ts>::value}}, host,
                            &BinaryCompute<kKind, Tidx, Ts>, kernels::CreateBinaryOutputState, kernels::DeleteBinaryOutputState}, status),
   ...);
}

using BinTypes = Types<int32_t, int64_t, float, double>;

// HistogramFixedWidth: the bins of ../bincount_spec.h, counted in order.
template <typename T, typename Out>
void HistogramCompute(void*, TF_OpKernelContext* ctx) {
  kernels::HistogramPlan p;
  T lo{};
  if (!kernels::PlanHistogram<T>(ctx, &p, &lo)) return;
  const T* v = Data<T>(p.values);
  if constexpr (std::is_floating_point_v<T>) {  // TensorFlow's CPU kernel refuses NaN
    for (int64_t i = 0; i < p.count; ++i)
      if (std::isnan(v[i])) return Fail(ctx, TF_INVALID_ARGUMENT, "Histogram values must not contain NaN");
  }
  TensorPtr out = AllocateOutput<Out>(ctx, 0, {p.nbins});
  if (!out) return;
  Out* bins = Data<Out>(out);
  std::fill(bins, bins + p.nbins, Out(0));
  for (int64_t i = 0; i < p.count; ++i) ++bins[kernels::HistogramBin(v[i], lo, p.step, p.nbins)];
}

template <typename... Ts>
void RegisterHistogram(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"HistogramFixedWidth", {{"T", DtypeOf<Ts>::value}, {"dtype", TF_INT32}},
                            {}, &HistogramCompute<Ts, int32_t>}, status), ...);
  (RegisterKernel(kDevice, {"HistogramFixedWidth", {{"T", DtypeOf<Ts>::value}, {"dtype", TF_INT64}},
                            {}, &HistogramCompute<Ts, int64_t>}, status), ...);
}

}  // namespace

void RegisterBincountKernels(TF_Status* status) {
  RegisterForTypes<BincountKernel>(kDevice, "Bincount", BinTypes(), status);
  RegisterWithTidx<Kind::kDense, int32_t>({}, BinTypes(), status);
  RegisterWithTidx<Kind::kDense, int64_t>({}, BinTypes(), status);
  RegisterWithTidx<Kind::kRagged, int32_t>({}, BinTypes(), status);
  RegisterWithTidx<Kind::kRagged, int64_t>({}, BinTypes(), status);
  RegisterWithTidx<Kind::kSparse, int32_t>({}, BinTypes(), status);
  RegisterWithTidx<Kind::kSparse, int64_t>({}, BinTypes(), status);
  RegisterHistogram(BinTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
