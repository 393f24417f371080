// Reductions over a set of axes (Sum, Mean, Max, Min, Prod) and ArgMax / ArgMin.
#include <algorithm>
#include <limits>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// Normalises axes against `rank` (negative counts from the end); false if out of range.
bool NormalizeAxes(std::vector<int64_t>* axes, int64_t rank) {
  for (int64_t& a : *axes) {
    if (a < -rank || a >= rank) return false;
    if (a < 0) a += rank;
  }
  return true;
}

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

struct SumReducer {
  template <typename T> static T Init() { return T(0); }
  template <typename T> static T Combine(T a, T b) { return a + b; }
};
struct ProdReducer {
  template <typename T> static T Init() { return T(1); }
  template <typename T> static T Combine(T a, T b) { return a * b; }
};
struct MaxReducer {
  template <typename T> static T Init() { return std::numeric_limits<T>::lowest(); }
  template <typename T> static T Combine(T a, T b) { return b > a ? b : a; }
};
struct MinReducer {
  template <typename T> static T Init() { return std::numeric_limits<T>::max(); }
  template <typename T> static T Combine(T a, T b) { return b < a ? b : a; }
};

struct ReduceAttrs { bool keep_dims = false; };

void* CreateReduce(TF_OpKernelConstruction* ctx) {
  return new ReduceAttrs{GetBoolAttr(ctx, "keep_dims")};
}
void DeleteReduce(void* p) { delete static_cast<ReduceAttrs*>(p); }

template <typename Reducer, bool kMean>
struct Reduce {
  template <typename T>
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const bool keep_dims = static_cast<ReduceAttrs*>(state)->keep_dims;
    TensorPtr input = Input(ctx, 0), axes_t = Input(ctx, 1);
    if (!input || !axes_t) return;
    std::vector<int64_t> dims = Dims(input.get());
    std::vector<int64_t> axes = IndexValues(axes_t.get());
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (!NormalizeAxes(&axes, rank)) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction dimension for input of rank " +
                                         std::to_string(rank) + ": " + ShapeString(IndexValues(axes_t.get())));
      return;
    }
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) reduced[a] = true;
    // The output keeps unreduced dims; reduced ones become 1 (dropped unless keep_dims).
    std::vector<int64_t> kept(rank), out_dims;
    int64_t reduce_count = 1;
    for (int64_t d = 0; d < rank; ++d) {
      kept[d] = reduced[d] ? 1 : dims[d];
      if (reduced[d]) reduce_count *= dims[d];
      if (!reduced[d] || keep_dims) out_dims.push_back(kept[d]);
    }
    TensorPtr output = AllocateOutput<T>(ctx, 0, out_dims);
    if (!output) return;
    T* out = Data<T>(output);
    const T* in = Data<T>(input);
    const int64_t out_n = NumElements(kept), in_n = NumElements(dims);
    for (int64_t i = 0; i < out_n; ++i) out[i] = Reducer::template Init<T>();
    const std::vector<int64_t> kept_strides = Strides(kept);
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < in_n; ++i) {
      int64_t o = 0;
      for (int64_t d = 0; d < rank; ++d) if (!reduced[d]) o += index[d] * kept_strides[d];
      out[o] = Reducer::Combine(out[o], in[i]);
      for (int64_t d = rank; d-- > 0;) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    if constexpr (kMean) {
      if (reduce_count > 0)
        for (int64_t i = 0; i < out_n; ++i) out[i] = out[i] / static_cast<T>(reduce_count);
    }
  }
};

template <bool kMax>
struct ArgReduce {
  template <typename T, typename Out>
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0), axis_t = Input(ctx, 1);
    if (!input || !axis_t) return;
    std::vector<int64_t> dims = Dims(input.get());
    std::vector<int64_t> axis = IndexValues(axis_t.get());
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (axis.size() != 1 || !NormalizeAxes(&axis, rank)) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Expected a dimension in [-" + std::to_string(rank) +
                                         ", " + std::to_string(rank) + ")");
      return;
    }
    const int64_t a = axis[0];
    if (dims[a] == 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Reduction axis " + std::to_string(a) + " is empty in shape " +
                                         ShapeString(dims));
      return;
    }
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= dims[d];
    for (int64_t d = a + 1; d < rank; ++d) inner *= dims[d];
    std::vector<int64_t> out_dims;
    for (int64_t d = 0; d < rank; ++d) if (d != a) out_dims.push_back(dims[d]);
    TensorPtr output = AllocateOutput<Out>(ctx, 0, out_dims);
    if (!output) return;
    const T* in = Data<T>(input);
    Out* out = Data<Out>(output);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* base = in + o * dims[a] * inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < dims[a]; ++k) {
          T v = base[k * inner], b = base[best * inner];
          if (kMax ? v > b : v < b) best = k;
        }
        out[o * inner + i] = static_cast<Out>(best);
      }
    }
  }
};

template <typename Reducer, bool kMean, typename T>
void RegisterReduce(const char* op, TF_Status* status) {
  RegisterKernel2(op, "T", DtypeOf<T>::value, "Tidx", TF_INT32,
                  &Reduce<Reducer, kMean>::template Compute<T>, status, CreateReduce, DeleteReduce);
  RegisterKernel2(op, "T", DtypeOf<T>::value, "Tidx", TF_INT64,
                  &Reduce<Reducer, kMean>::template Compute<T>, status, CreateReduce, DeleteReduce);
}

template <typename Reducer, bool kMean>
void RegisterReduceAll(const char* op, TF_Status* status) {
  RegisterReduce<Reducer, kMean, float>(op, status);
  RegisterReduce<Reducer, kMean, double>(op, status);
  RegisterReduce<Reducer, kMean, int32_t>(op, status);
  RegisterReduce<Reducer, kMean, int64_t>(op, status);
}

template <bool kMax, typename T>
void RegisterArg(const char* op, TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    if (TF_GetCode(status) != TF_OK) return;
    TF_KernelBuilder* b = TF_NewKernelBuilder(op, "CPU", nullptr,
                                              &ArgReduce<kMax>::template Compute<T, int64_t>, nullptr);
    TF_KernelBuilder_TypeConstraint(b, "T", DtypeOf<T>::value, status);
    TF_KernelBuilder_TypeConstraint(b, "Tidx", tidx, status);
    TF_KernelBuilder_TypeConstraint(b, "output_type", TF_INT64, status);
    TF_RegisterKernelBuilder(op, b, status);
    if (TF_GetCode(status) != TF_OK) return;
    b = TF_NewKernelBuilder(op, "CPU", nullptr, &ArgReduce<kMax>::template Compute<T, int32_t>, nullptr);
    TF_KernelBuilder_TypeConstraint(b, "T", DtypeOf<T>::value, status);
    TF_KernelBuilder_TypeConstraint(b, "Tidx", tidx, status);
    TF_KernelBuilder_TypeConstraint(b, "output_type", TF_INT32, status);
    TF_RegisterKernelBuilder(op, b, status);
  }
}

template <bool kMax>
void RegisterArgAll(const char* op, TF_Status* status) {
  RegisterArg<kMax, float>(op, status);
  RegisterArg<kMax, double>(op, status);
  RegisterArg<kMax, int32_t>(op, status);
  RegisterArg<kMax, int64_t>(op, status);
}

}  // namespace

void RegisterReductionKernels(TF_Status* status) {
  RegisterReduceAll<SumReducer, false>("Sum", status);
  RegisterReduceAll<SumReducer, true>("Mean", status);
  RegisterReduceAll<ProdReducer, false>("Prod", status);
  RegisterReduceAll<MaxReducer, false>("Max", status);
  RegisterReduceAll<MinReducer, false>("Min", status);
  RegisterArgAll<true>("ArgMax", status);
  RegisterArgAll<false>("ArgMin", status);
}

}  // namespace cpu
}  // namespace opgen
