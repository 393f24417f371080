// NthElement on the CPU only, as in TensorFlow: each row of the last dimension's n-th
// smallest value (n-th largest with reverse), found by partial sorting a copy of the row
// in the compute type.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

struct NthElementAttrs {
  bool reverse = false;
};

void* CreateNthElement(TF_OpKernelConstruction* ctx) {
  auto* a = new NthElementAttrs();
  StatusPtr s = NewStatus();
  a->reverse = kernels::BoolAttr(ctx, "reverse", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
void DeleteNthElement(void* p) { delete static_cast<NthElementAttrs*>(p); }

template <typename T>
void NthElementCompute(void* state, TF_OpKernelContext* ctx) {
  const bool reverse = static_cast<NthElementAttrs*>(state)->reverse;
  TensorPtr input = Input(ctx, 0), n_t = Input(ctx, 1);
  if (!input || !n_t) return;
  if (TF_NumDims(n_t.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "N must be scalar but has rank " + std::to_string(TF_NumDims(n_t.get())));
  const int64_t n = IndexValues(n_t.get())[0];
  if (n < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "n must be non-negative but is " + std::to_string(n));
  const std::vector<int64_t> dims = Dims(input.get());
  if (dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input must be at least rank 1 but is rank 0");
  const int64_t cols = dims.back();
  if (cols <= n)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input must have last dimension > n = " + std::to_string(n));
  const std::vector<int64_t> out_dims(dims.begin(), dims.end() - 1);
  TensorPtr out = AllocateOutput<T>(ctx, 0, out_dims);
  const int64_t rows = NumElements(out_dims);
  if (!out || rows == 0) return;
  using C = ComputeType<T>;
  const int64_t at = reverse ? cols - 1 - n : n;
  const T* x = Data<T>(input);
  T* y = Data<T>(out);
  ParallelFor(rows, [&](int64_t first, int64_t last) {
    std::vector<C> row(cols);
    for (int64_t r = first; r < last; ++r) {
      for (int64_t j = 0; j < cols; ++j) row[j] = Widen(x[r * cols + j]);
      // reverse counts from the end of the ascending order, as TensorFlow's kernel does
      // (the same element as a descending search, and the same one as TensorFlow's when
      // NaN leaves the order undefined)
      std::nth_element(row.begin(), row.begin() + at, row.end());
      y[r] = Narrow<T>(row[at]);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(cols, 1)));
}

template <typename... Ts>
void RegisterNthElement(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"NthElement", {{"T", DtypeOf<Ts>::value}}, {"n"}, NthElementCompute<Ts>,
                            CreateNthElement, DeleteNthElement}, status), ...);
}

}  // namespace

void RegisterNthElementKernels(TF_Status* status) { RegisterNthElement(RealTypes(), status); }

}  // namespace cpu
}  // namespace opgen
