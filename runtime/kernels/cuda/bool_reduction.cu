// All and Any on the GPU: a strided pass ANDs or ORs the reduced dims (../reduction_spec.h
// resolves the axes as the CPU kernel does). Twin of ../cpu/bool_reduction.cc.
#include <type_traits>

#include "../reduction_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "strided_pass.cuh"

namespace opgen {
namespace cuda {
namespace {

// All / Any: the kept dims in order, the reduced ones summed with AND / OR.
struct AndCombine {
  template <typename A> __device__ static A Init() { return A(true); }
  template <typename A> __device__ static A Combine(A a, A b) { return a && b; }
};
struct OrCombine {
  template <typename A> __device__ static A Init() { return A(false); }
  template <typename A> __device__ static A Combine(A a, A b) { return a || b; }
};

template <typename Combine>
void BoolReduceCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::ReductionSpec r;
  if (!kernels::ResolveReduction(ctx, *static_cast<kernels::ReduceAttrs*>(state), &r)) return;
  TensorPtr out = AllocateOutput(ctx, 0, TF_BOOL, r.out_dims);
  if (!out || NumElements(r.out_dims) == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  kernels::StridedPass pass;
  int64_t stride = 1;
  for (size_t d = r.dims.size(); d-- > 0;) {
    auto& dims = r.reduced[d] ? pass.sum_dims : pass.dims;
    auto& strides = r.reduced[d] ? pass.sum_strides : pass.strides;
    dims.insert(dims.begin(), r.dims[d]);
    strides.insert(strides.begin(), stride);
    stride *= r.dims[d];
  }
  if (pass.sum_dims.empty()) {  // nothing reduced: AND / OR of one value is the value
    pass.sum_dims.push_back(1);
    pass.sum_strides.push_back(0);
  }
  RunPass<bool, bool, Combine>(ctx, stream, pass, Data<bool>(r.input), Data<bool>(out),
                               std::is_same_v<Combine, AndCombine> ? "All" : "Any");
}

}  // namespace

void RegisterBoolReductionKernels(TF_Status* status) {
  for (TF_DataType tidx : {TF_INT32, TF_INT64}) {
    RegisterKernel(kDevice, {"All", {{"Tidx", tidx}}, {"reduction_indices"},
                             &BoolReduceCompute<AndCombine>, kernels::CreateReduce,
                             kernels::DeleteReduce},
                   status);
    RegisterKernel(kDevice, {"Any", {{"Tidx", tidx}}, {"reduction_indices"},
                             &BoolReduceCompute<OrCombine>, kernels::CreateReduce,
                             kernels::DeleteReduce},
                   status);
  }
}

}  // namespace cuda
}  // namespace opgen
