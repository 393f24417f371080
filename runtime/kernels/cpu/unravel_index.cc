// UnravelIndex on the CPU only, as in TensorFlow (index arithmetic on host data).
#include <string>
#include <vector>

#include "index_kernels.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// UnravelIndex(indices, dims): each flat index as coordinates in `dims`, one row per
// dimension ([rank] for a scalar index, [rank, n] for n). As TensorFlow: C++ division
// (a negative index gives negative coordinates), and only indices past the end fail.
template <typename T>
void UnravelIndexCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr indices_t = Input(ctx, 0), dims_t = Input(ctx, 1);
  if (!indices_t || !dims_t) return;
  if (TF_NumDims(indices_t.get()) > 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The indices can only be scalar or vector, got \"" +
                                              ShapeString(Dims(indices_t.get())) + "\"");
  if (TF_NumDims(dims_t.get()) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The indices can only be 1-D, got \"" +
                                              ShapeString(Dims(dims_t.get())) + "\"");
  if (TF_NumDims(indices_t.get()) == 1 && TF_TensorElementCount(indices_t.get()) == 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "received empty tensor indices");
  const T* idx = static_cast<const T*>(TF_TensorData(indices_t.get()));
  const T* dims = static_cast<const T*>(TF_TensorData(dims_t.get()));
  const int64_t rank = TF_TensorElementCount(dims_t.get());
  const int64_t n = TF_TensorElementCount(indices_t.get());
  int64_t total = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Input dims cannot be negative. Got dim = " +
                                                std::to_string(dims[d]) + " at index " +
                                                std::to_string(d));
    if (__builtin_mul_overflow(total, static_cast<int64_t>(dims[d]), &total))
      return Fail(ctx, TF_INVALID_ARGUMENT, "Input dims product is causing integer overflow");
  }
  for (int64_t i = 0; i < n; ++i)
    if (static_cast<int64_t>(idx[i]) >= total || total == 0)  // (a 0 dim: no index fits)
      return Fail(ctx, TF_INVALID_ARGUMENT, "index is out of bound as with dims");
  std::vector<int64_t> out_dims{rank};
  if (TF_NumDims(indices_t.get()) == 1) out_dims.push_back(n);
  TensorPtr out = AllocateOutput<T>(ctx, 0, out_dims);
  if (!out) return;
  T* o = Data<T>(out);
  for (int64_t i = 0; i < n; ++i) {
    T rest = idx[i];
    for (int64_t d = rank; d-- > 0;) {
      o[d * n + i] = rest % dims[d];
      rest = rest / dims[d];
    }
  }
}

}  // namespace

void RegisterUnravelIndexKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"UnravelIndex", {{"Tidx", TF_INT32}}, {}, UnravelIndexCompute<int32_t>},
                 status);
  RegisterKernel(kDevice, {"UnravelIndex", {{"Tidx", TF_INT64}}, {}, UnravelIndexCompute<int64_t>},
                 status);
}

}  // namespace cpu
}  // namespace opgen
