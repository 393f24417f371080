// InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub} and
// DataFormat{VecPermute,DimMap} on the CPU: checks and rules are ../array_family_spec.h,
// shared with the CUDA plugin (kernels/cuda/array_family.cu); here the loops.
#include <cstring>
#include <vector>

#include "../../src/string_tensor.h"
#include "../array_family_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// ---- InTopK ----------------------------------------------------------------------------

template <typename I, bool kInputK>
struct InTopKKernel {
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
    TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_BOOL, {p.rows});
    if (!out || p.rows == 0) return;
    const float* pred = Data<float>(p.predictions);
    const I* targets = Data<I>(p.targets);
    bool* o = Data<bool>(out);
    const int64_t classes = p.classes, k = p.k;
    ParallelFor(p.rows, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        o[r] = kernels::InTopKRow(pred + r * classes, classes, targets[r], k);
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(classes, 1)));
  }
};

// ---- UpperBound / LowerBound ------------------------------------------------------------

template <typename T, typename O, bool kUpper>
struct SearchSortedKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::SearchPlan p;
    if (!kernels::PlanSearchSorted(ctx, &p)) return;
    TensorPtr out = kernels::AllocateOutput(ctx, 0, DtypeOf<O>::value, {p.batch, p.m});
    if (!out || p.batch * p.m == 0) return;
    const T* sorted = Data<T>(p.sorted);
    const T* values = Data<T>(p.values);
    O* o = Data<O>(out);
    const int64_t n = p.n, m = p.m;
    auto less = [](T a, T b) { return Widen(a) < Widen(b); };
    ParallelFor(p.batch * m, [=](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e)
        o[e] = static_cast<O>(kernels::SearchRow<kUpper>(sorted + (e / m) * n, n, values[e], less));
    }, 4096);
  }
};

// ---- Diag / DiagPart: elements moved as bytes of their width ------------------------------

template <size_t kWidth>
struct DiagKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr in;
    std::vector<int64_t> out_dims;
    if (!kernels::PlanDiag(ctx, &in, &out_dims)) return;
    TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(in.get()), out_dims);
    const int64_t n = NumElements(Dims(in.get()));
    if (!out || n == 0) return;
    const char* src = static_cast<const char*>(TF_TensorData(in.get()));
    char* dst = static_cast<char*>(TF_TensorData(out.get()));
    ParallelFor(n, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        char* row = dst + i * n * kWidth;
        std::memset(row, 0, n * kWidth);
        std::memcpy(row + i * kWidth, src + i * kWidth, kWidth);
      }
    }, std::max<int64_t>(1, kParallelThreshold / n));
  }
};

template <size_t kWidth>
struct DiagPartKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr in;
    std::vector<int64_t> out_dims;
    if (!kernels::PlanDiagPart(ctx, &in, &out_dims)) return;
    TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(in.get()), out_dims);
    const int64_t n = NumElements(out_dims);
    if (!out || n == 0) return;
    const char* src = static_cast<const char*>(TF_TensorData(in.get()));
    char* dst = static_cast<char*>(TF_TensorData(out.get()));
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * kWidth, src + (i * n + i) * kWidth, kWidth);
  }
};

// ---- Inplace ops ----------------------------------------------------------------------

// y = copy of x; then, in order of i, each row changed (duplicates: the last update wins,
// additions accumulate, as TensorFlow's CPU kernel).
// a + b or a - b: half types in float, rounded once; integers wrap.
template <typename T>
T Combine(T a, T b, int sign) {
  if constexpr (kIsFloat16<T>)
    return Narrow<T>(sign > 0 ? Widen(a) + Widen(b) : Widen(a) - Widen(b));
  else return sign > 0 ? WrappingAdd(a, b) : WrappingSub(a, b);
}

template <typename T, kernels::InplaceMode kMode>
struct InplaceKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::InplacePlan p;
    if (!kernels::PlanInplace(ctx, &p)) return;
    TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(p.x.get()), p.dims);
    if (!out) return;
    const size_t bytes = TF_TensorByteSize(p.x.get());
    if (bytes > 0) std::memcpy(TF_TensorData(out.get()), TF_TensorData(p.x.get()), bytes);
    T* y = Data<T>(out);
    const T* v = Data<T>(p.v);
    const int32_t* idx = Data<int32_t>(p.i);
    const int64_t size = p.row_size;
    for (int64_t j = 0; j < p.count; ++j) {
      T* row = y + kernels::WrapRow(idx[j], p.rows) * size;
      const T* src = v + j * size;
      for (int64_t e = 0; e < size; ++e) {
        if constexpr (kMode == kernels::InplaceMode::kUpdate) row[e] = src[e];
        else if constexpr (kMode == kernels::InplaceMode::kAdd) row[e] = Combine(row[e], src[e], 1);
        else row[e] = Combine(row[e], src[e], -1);
      }
    }
  }
};

// Strings: a deep copy of x's elements (a byte copy would share their heap memory), then
// v's rows assigned over it.
void InplaceUpdateStringCompute(void*, TF_OpKernelContext* ctx) {
  kernels::InplacePlan p;
  if (!kernels::PlanInplace(ctx, &p)) return;
  TensorPtr out(NewStringTensor(p.dims));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "InplaceUpdate: out of memory for strings");
  const TF_TString* x = StringElements(p.x.get());
  const TF_TString* v = StringElements(p.v.get());
  TF_TString* y = MutableStringElements(out.get());
  const int32_t* idx = Data<int32_t>(p.i);
  bool ok = true;
  for (int64_t e = 0, n = NumElements(p.dims); ok && e < n; ++e) ok = AssignString(&y[e], StringElement(&x[e]));
  for (int64_t j = 0; ok && j < p.count; ++j) {
    TF_TString* row = y + kernels::WrapRow(idx[j], p.rows) * p.row_size;
    for (int64_t e = 0; ok && e < p.row_size; ++e)
      ok = AssignString(&row[e], StringElement(&v[j * p.row_size + e]));
  }
  if (!ok) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "InplaceUpdate: out of memory for strings");
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, out.get(), s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

// ---- DataFormat ops -------------------------------------------------------------------

template <typename T>
struct DataFormatKernels {
  static void DimMap(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::DataFormatAttrs*>(state);
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr out = kernels::AllocateOutput(ctx, 0, DtypeOf<T>::value, dims);
    if (!out) return;
    const std::vector<int64_t> map = kernels::DimMapTable(a);
    const int64_t n = static_cast<int64_t>(map.size());
    const T* in = Data<T>(x);
    T* o = Data<T>(out);
    for (int64_t e = 0, total = NumElements(dims); e < total; ++e)
      o[e] = static_cast<T>(map[kernels::DimMapIndex(in[e], n)]);
  }
  static void VecPermute(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::DataFormatAttrs*>(state);
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    std::vector<int64_t> from;
    if (!kernels::PlanVecPermute(ctx, a, x.get(), &from)) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr out = kernels::AllocateOutput(ctx, 0, DtypeOf<T>::value, dims);
    if (!out) return;
    const int64_t width = dims.size() == 2 ? 2 : 1;
    const T* in = Data<T>(x);
    T* o = Data<T>(out);
    for (size_t r = 0; r < from.size(); ++r)
      for (int64_t c = 0; c < width; ++c) o[r * width + c] = in[from[r] * width + c];
  }
};

template <typename T, typename... Os>
void RegisterSearch(TF_Status* status) {
  for (bool upper : {false, true}) {
    (RegisterKernel(kDevice, {upper ? "UpperBound" : "LowerBound",
         {{"T", DtypeOf<T>::value}, {"out_type", DtypeOf<Os>::value}}, {},
         upper ? &SearchSortedKernel<T, Os, true>::Compute : &SearchSortedKernel<T, Os, false>::Compute},
         status), ...);
  }
}

template <typename... Ts>
void RegisterSearches(Types<Ts...>, TF_Status* status) {
  (RegisterSearch<Ts, int32_t, int64_t>(status), ...);
}

template <typename... Ts>
void RegisterDiags(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Diag", {{"T", DtypeOf<Ts>::value}}, {}, &DiagKernel<sizeof(Ts)>::Compute},
                  status), ...);
  (RegisterKernel(kDevice, {"DiagPart", {{"T", DtypeOf<Ts>::value}}, {},
                            &DiagPartKernel<sizeof(Ts)>::Compute}, status), ...);
}

template <kernels::InplaceMode kMode, typename... Ts>
void RegisterInplace(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &InplaceKernel<Ts, kMode>::Compute},
                  status), ...);
}

}  // namespace

// The dtypes of TensorFlow's CPU kernels: InTopK(V2) for int32/int64 targets;
// Upper/LowerBound for the real numbers; Diag/DiagPart for their OpDefs' list but
// bfloat16;
// InplaceUpdate for every type (strings deep-copied), InplaceAdd/Sub
// for the numbers; Bitcast, which only re-types a buffer, for every
// type its OpDef allows (one kernel, unconstrained).
void RegisterArrayFamilyKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"InTopKV2", {{"T", TF_INT32}}, {}, &InTopKKernel<int32_t, true>::Compute}, status);
  RegisterKernel(kDevice, {"InTopKV2", {{"T", TF_INT64}}, {}, &InTopKKernel<int64_t, true>::Compute}, status);
  RegisterKernel(kDevice, {"InTopK", {{"T", TF_INT32}}, {}, &InTopKKernel<int32_t, false>::Compute,
                           &InTopKKernel<int32_t, false>::Create, &InTopKKernel<int32_t, false>::Delete}, status);
  RegisterKernel(kDevice, {"InTopK", {{"T", TF_INT64}}, {}, &InTopKKernel<int64_t, false>::Compute,
                           &InTopKKernel<int64_t, false>::Create, &InTopKKernel<int64_t, false>::Delete}, status);
  RegisterSearches(RealTypes(), status);
  RegisterDiags(Types<Half, float, double, int32_t, int64_t, std::complex<float>,
                      std::complex<double>>(), status);
  RegisterKernel(kDevice, {"Bitcast", {}, {}, &kernels::BitcastCompute}, status);
  RegisterInplace<kernels::InplaceMode::kUpdate>("InplaceUpdate", Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterKernel(kDevice, {"InplaceUpdate", {{"T", TF_STRING}}, {}, &InplaceUpdateStringCompute}, status);
  RegisterInplace<kernels::InplaceMode::kAdd>("InplaceAdd", Concat<RealTypes, ComplexTypes>(), status);
  RegisterInplace<kernels::InplaceMode::kSub>("InplaceSub", Concat<RealTypes, ComplexTypes>(), status);
  RegisterKernel(kDevice, {"DataFormatDimMap", {{"T", TF_INT32}}, {}, &DataFormatKernels<int32_t>::DimMap,
                           kernels::CreateDataFormat, kernels::DeleteDataFormat}, status);
  RegisterKernel(kDevice, {"DataFormatDimMap", {{"T", TF_INT64}}, {}, &DataFormatKernels<int64_t>::DimMap,
                           kernels::CreateDataFormat, kernels::DeleteDataFormat}, status);
  RegisterKernel(kDevice, {"DataFormatVecPermute", {{"T", TF_INT32}}, {},
                           &DataFormatKernels<int32_t>::VecPermute, kernels::CreateDataFormat,
                           kernels::DeleteDataFormat}, status);
  RegisterKernel(kDevice, {"DataFormatVecPermute", {{"T", TF_INT64}}, {},
                           &DataFormatKernels<int64_t>::VecPermute, kernels::CreateDataFormat,
                           kernels::DeleteDataFormat}, status);
}

}  // namespace cpu
}  // namespace opgen
