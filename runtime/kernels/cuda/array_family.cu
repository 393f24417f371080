// InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub} and
// DataFormat{VecPermute,DimMap} on the GPU: the CPU kernels' checks and rules
// (../array_family_spec.h). Shapes and attrs are checked on the host; the loops are grid-
// stride kernels. Diag/DiagPart and InplaceUpdate move elements as opaque words.
#include <type_traits>
#include <vector>

#include "../array_family_spec.h"
#include "complex_parts.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

#define OPGEN_GRID_LOOP(n, total)                                                     \
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < (total); \
       n += static_cast<int64_t>(gridDim.x) * blockDim.x)

// ---- InTopK ----------------------------------------------------------------------------

template <typename I>
__global__ void InTopKRows(const float* pred, const I* targets, bool* out, int64_t rows,
                           int64_t classes, int64_t k) {
  OPGEN_GRID_LOOP(r, rows) out[r] = kernels::InTopKRow(pred + r * classes, classes, targets[r], k);
}

template <typename I, bool kInputK>
struct InTopKOp {
  static void* Create(TF_OpKernelConstruction* ctx) {
    if (kInputK) return nullptr;
    StatusPtr s = NewStatus();
    int64_t k = 0;
    TF_OpKernelConstruction_GetAttrInt64(ctx, "k", &k, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
    return new int64_t(k);
  }
  static void Delete(void* p) { delete static_cast<int64_t*>(p); }
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::InTopKPlan p;
    if (!kernels::PlanInTopK(ctx, kInputK, kInputK ? 0 : *static_cast<int64_t*>(state), &p)) return;
    TensorPtr out = AllocateOutput<bool>(ctx, 0, {p.rows});
    if (!out || p.rows == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    InTopKRows<I><<<BlocksFor(p.rows), kThreads, 0, stream>>>(
        Data<float>(p.predictions), Data<I>(p.targets), Data<bool>(out), p.rows, p.classes, p.k);
    CheckLaunch(ctx, "InTopK");
  }
};

// ---- UpperBound / LowerBound ------------------------------------------------------------

template <typename T>
struct WideLess {
  __device__ bool operator()(T a, T b) const { return Widen(a) < Widen(b); }
};

template <bool kUpper, typename T, typename O>
__global__ void SearchKernel(const T* sorted, const T* values, O* out, int64_t total, int64_t n,
                             int64_t m) {
  OPGEN_GRID_LOOP(e, total)
    out[e] = static_cast<O>(kernels::SearchRow<kUpper>(sorted + (e / m) * n, n, values[e], WideLess<T>()));
}

template <typename T, typename O, bool kUpper>
struct SearchOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SearchPlan p;
    if (!kernels::PlanSearchSorted(ctx, &p)) return;
    TensorPtr out = AllocateOutput<O>(ctx, 0, {p.batch, p.m});
    const int64_t total = p.batch * p.m;
    if (!out || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    SearchKernel<kUpper, T, O><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(p.sorted), Data<T>(p.values), Data<O>(out), total, p.n, p.m);
    CheckLaunch(ctx, kUpper ? "UpperBound" : "LowerBound");
  }
};

// ---- Diag / DiagPart ----------------------------------------------------------------------

template <typename W>
__global__ void DiagKernel(const W* in, W* out, int64_t n) {
  OPGEN_GRID_LOOP(e, n * n) out[e] = (e / n == e % n) ? in[e / n] : W{};
}

template <typename W>
__global__ void DiagPartKernel(const W* in, W* out, int64_t n) {
  OPGEN_GRID_LOOP(i, n) out[i] = in[i * n + i];
}

template <bool kPart>
void DiagCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr in;
  std::vector<int64_t> out_dims;
  if (!(kPart ? kernels::PlanDiagPart(ctx, &in, &out_dims) : kernels::PlanDiag(ctx, &in, &out_dims)))
    return;
  const TF_DataType dtype = TF_TensorType(in.get());
  TensorPtr out = AllocateOutput(ctx, 0, dtype, out_dims);
  const int64_t n = kPart ? NumElements(out_dims) : NumElements(Dims(in.get()));
  if (!out || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    const W* src = static_cast<const W*>(TF_TensorData(in.get()));
    W* dst = static_cast<W*>(TF_TensorData(out.get()));
    if (kPart) DiagPartKernel<W><<<BlocksFor(n), kThreads, 0, stream>>>(src, dst, n);
    else DiagKernel<W><<<BlocksFor(n * n), kThreads, 0, stream>>>(src, dst, n);
  });
  CheckLaunch(ctx, kPart ? "DiagPart" : "Diag");
}

// ---- Inplace ops ----------------------------------------------------------------------

// a + b or a - b: half types in float; integers on their unsigned type (they wrap).
template <typename T>
__device__ T Combine(T a, T b, int sign) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(sign > 0 ? static_cast<U>(a) + static_cast<U>(b)
                                                  : static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return Narrow<T>(sign > 0 ? Widen(a) + Widen(b) : Widen(a) - Widen(b));
  }
}

// One thread per element of a row, walking i in order: duplicates resolve as on the CPU
// (the last update wins, additions accumulate).
template <typename T, kernels::InplaceMode kMode>
__global__ void InplaceKernel(T* y, const int32_t* idx, const T* v, int64_t count, int64_t rows,
                              int64_t size) {
  OPGEN_GRID_LOOP(e, size) {
    for (int64_t j = 0; j < count; ++j) {
      T* dst = y + kernels::WrapRow(idx[j], rows) * size + e;
      const T src = v[j * size + e];
      if constexpr (kMode == kernels::InplaceMode::kUpdate) *dst = src;
      else *dst = Combine(*dst, src, kMode == kernels::InplaceMode::kAdd ? 1 : -1);
    }
  }
}

template <typename T, kernels::InplaceMode kMode>
void LaunchInplace(TF_OpKernelContext* ctx) {
  kernels::InplacePlan p;
  if (!kernels::PlanInplace(ctx, &p)) return;
  TensorPtr out = AllocateOutput(ctx, 0, TF_TensorType(p.x.get()), p.dims);
  if (!out) return;
  const size_t bytes = TF_TensorByteSize(p.x.get());
  if (bytes == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(out.get()), TF_TensorData(p.x.get()), bytes,
                                      cudaMemcpyDeviceToDevice, stream), "Inplace"))
    return;
  if (p.count == 0 || p.row_size == 0) return;
  InplaceKernel<T, kMode><<<BlocksFor(p.row_size), kThreads, 0, stream>>>(
      static_cast<T*>(TF_TensorData(out.get())), Data<int32_t>(p.i),
      static_cast<const T*>(TF_TensorData(p.v.get())), p.count, p.rows, p.row_size);
  CheckLaunch(ctx, "Inplace");
}

void InplaceUpdateCompute(void*, TF_OpKernelContext* ctx) {
  const TF_DataType dtype = TF_ExpectedOutputDataType(ctx, 0);
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    LaunchInplace<decltype(word), kernels::InplaceMode::kUpdate>(ctx);
  });
}

template <typename T, kernels::InplaceMode kMode>
struct InplaceArithmeticOp {
  static void Compute(void*, TF_OpKernelContext* ctx) { LaunchInplace<T, kMode>(ctx); }
};

// ---- DataFormat ops -------------------------------------------------------------------

struct Table { int64_t v[5]; };

template <typename T>
__global__ void DimMapKernel(const T* in, T* out, int64_t total, Table map, int64_t n) {
  OPGEN_GRID_LOOP(e, total) out[e] = static_cast<T>(map.v[kernels::DimMapIndex(in[e], n)]);
}

template <typename T>
__global__ void VecPermuteKernel(const T* in, T* out, Table from, int64_t rows, int64_t width) {
  OPGEN_GRID_LOOP(e, rows * width) out[e] = in[from.v[e / width] * width + e % width];
}

template <typename T>
struct DataFormatOps {
  static void DimMap(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::DataFormatAttrs*>(state);
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
    const int64_t total = NumElements(dims);
    if (!out || total == 0) return;
    const std::vector<int64_t> map = kernels::DimMapTable(a);
    Table t{};
    for (size_t j = 0; j < map.size(); ++j) t.v[j] = map[j];
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    DimMapKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(x), Data<T>(out), total, t,
                                                               static_cast<int64_t>(map.size()));
    CheckLaunch(ctx, "DataFormatDimMap");
  }
  static void VecPermute(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::DataFormatAttrs*>(state);
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    std::vector<int64_t> from;
    if (!kernels::PlanVecPermute(ctx, a, x.get(), &from)) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
    if (!out) return;
    Table t{};
    for (size_t r = 0; r < from.size(); ++r) t.v[r] = from[r];
    const int64_t rows = static_cast<int64_t>(from.size()), width = dims.size() == 2 ? 2 : 1;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    VecPermuteKernel<T><<<BlocksFor(rows * width), kThreads, 0, stream>>>(Data<T>(x), Data<T>(out),
                                                                         t, rows, width);
    CheckLaunch(ctx, "DataFormatVecPermute");
  }
};

using Reals = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                    uint8_t, uint16_t, uint32_t, uint64_t>;

template <typename... Ts>
void RegisterSearches(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"LowerBound", {{"T", DtypeOf<Ts>::value}, {"out_type", TF_INT32}}, {},
                            &SearchOp<Ts, int32_t, false>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"LowerBound", {{"T", DtypeOf<Ts>::value}, {"out_type", TF_INT64}}, {},
                            &SearchOp<Ts, int64_t, false>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"UpperBound", {{"T", DtypeOf<Ts>::value}, {"out_type", TF_INT32}}, {},
                            &SearchOp<Ts, int32_t, true>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"UpperBound", {{"T", DtypeOf<Ts>::value}, {"out_type", TF_INT64}}, {},
                            &SearchOp<Ts, int64_t, true>::Compute}, status), ...);
}

template <typename... Ts>
void RegisterInplaceArithmetic(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"InplaceAdd", {{"T", DtypeOf<Ts>::value}}, {},
       &InplaceArithmeticOp<Ts, kernels::InplaceMode::kAdd>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"InplaceSub", {{"T", DtypeOf<Ts>::value}}, {},
       &InplaceArithmeticOp<Ts, kernels::InplaceMode::kSub>::Compute}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/array_family.cc); InTopKV2's k stays on the
// host, as in TensorFlow.
void RegisterArrayFamilyKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"InTopKV2", {{"T", TF_INT32}}, {"k"}, &InTopKOp<int32_t, true>::Compute}, status);
  RegisterKernel(kDevice, {"InTopKV2", {{"T", TF_INT64}}, {"k"}, &InTopKOp<int64_t, true>::Compute}, status);
  RegisterKernel(kDevice, {"InTopK", {{"T", TF_INT32}}, {}, &InTopKOp<int32_t, false>::Compute,
                           &InTopKOp<int32_t, false>::Create, &InTopKOp<int32_t, false>::Delete}, status);
  RegisterKernel(kDevice, {"InTopK", {{"T", TF_INT64}}, {}, &InTopKOp<int64_t, false>::Compute,
                           &InTopKOp<int64_t, false>::Create, &InTopKOp<int64_t, false>::Delete}, status);
  RegisterSearches(Reals(), status);
  for (TF_DataType t : {TF_HALF, TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_COMPLEX64,
                        TF_COMPLEX128}) {
    RegisterKernel(kDevice, {"Diag", {{"T", t}}, {}, &DiagCompute<false>}, status);
    RegisterKernel(kDevice, {"DiagPart", {{"T", t}}, {}, &DiagCompute<true>}, status);
  }
  RegisterKernel(kDevice, {"Bitcast", {}, {}, &kernels::BitcastCompute}, status);
  for (TF_DataType t : kDataTypes)
    RegisterKernel(kDevice, {"InplaceUpdate", {{"T", t}}, {}, &InplaceUpdateCompute}, status);
  RegisterInplaceArithmetic(kernels::Concat<Reals, Types<ComplexParts<float>, ComplexParts<double>>>(),
                            status);
  for (TF_DataType t : {TF_INT32, TF_INT64}) {
    const bool wide = t == TF_INT64;
    RegisterKernel(kDevice, {"DataFormatDimMap", {{"T", t}}, {},
                             wide ? &DataFormatOps<int64_t>::DimMap : &DataFormatOps<int32_t>::DimMap,
                             kernels::CreateDataFormat, kernels::DeleteDataFormat}, status);
    RegisterKernel(kDevice, {"DataFormatVecPermute", {{"T", t}}, {},
                             wide ? &DataFormatOps<int64_t>::VecPermute : &DataFormatOps<int32_t>::VecPermute,
                             kernels::CreateDataFormat, kernels::DeleteDataFormat}, status);
  }
}

}  // namespace cuda
}  // namespace opgen
