// All and Any on the CPU: the axes checked and the output shape worked out by
// ../reduction_spec.h (shared with the CUDA plugin); each output is the AND / OR of its
// reduced elements, stopping at the first that decides it.
#include <algorithm>

#include "../reduction_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

template <bool kAll>
void BoolReduceCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::ReductionSpec r;
  if (!kernels::ResolveReduction(ctx, *static_cast<kernels::ReduceAttrs*>(state), &r)) return;
  TensorPtr out = AllocateOutput<bool>(ctx, 0, r.out_dims);
  if (!out) return;
  // Kept and reduced dims with their input strides, outermost first.
  std::vector<int64_t> kept, kept_strides, red, red_strides;
  int64_t stride = 1;
  for (size_t d = r.dims.size(); d-- > 0;) {
    (r.reduced[d] ? red : kept).insert((r.reduced[d] ? red : kept).begin(), r.dims[d]);
    (r.reduced[d] ? red_strides : kept_strides)
        .insert((r.reduced[d] ? red_strides : kept_strides).begin(), stride);
    stride *= r.dims[d];
  }
  const bool* in = Data<bool>(r.input);
  bool* o = Data<bool>(out);
  const int64_t n = NumElements(kept), m = NumElements(red);
  std::vector<int64_t> index(kept.size(), 0), rindex(red.size());
  int64_t base = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool result = kAll;
    int64_t off = base;
    std::fill(rindex.begin(), rindex.end(), 0);
    for (int64_t j = 0; j < m && result == kAll; ++j) {
      result = in[off];
      for (size_t d = red.size(); d-- > 0;) {
        off += red_strides[d];
        if (++rindex[d] < red[d]) break;
        off -= red_strides[d] * red[d];
        rindex[d] = 0;
      }
    }
    o[i] = result;
    for (size_t d = kept.size(); d-- > 0;) {
      base += kept_strides[d];
      if (++index[d] < kept[d]) break;
      base -= kept_strides[d] * kept[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void RegisterBoolReductionKernels(TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    RegisterKernel(kDevice, {"All", {{"Tidx", tidx}}, {}, &BoolReduceCompute<true>,
        kernels::CreateReduce, kernels::DeleteReduce}, status);
    RegisterKernel(kDevice, {"Any", {{"Tidx", tidx}}, {}, &BoolReduceCompute<false>,
        kernels::CreateReduce, kernels::DeleteReduce}, status);
  }
}

}  // namespace cpu
}  // namespace opgen
