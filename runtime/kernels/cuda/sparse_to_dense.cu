// SparseToDense on the GPU. Twin of ../cpu/sparse_to_dense.cc: the indices and the
// shape are checked and turned into offsets on the host (../sparse_to_dense_spec.h; both
// stay in host memory), then one pass fills the default and one scatters the values,
// elements moved as opaque words.
#include "../sparse_to_dense_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename W>
__global__ void FillWord(const W* __restrict__ fill, int64_t n, W* __restrict__ y) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = *fill;
}

template <typename W>
__global__ void Scatter(const W* __restrict__ values, bool one_value,
                        const int64_t* __restrict__ offsets, int64_t n, W* __restrict__ y) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[offsets[i]] = values[one_value ? 0 : i];
}

void SparseToDenseCompute(void* attrs, TF_OpKernelContext* ctx) {
  kernels::SparseToDensePlan p;
  if (!kernels::PlanSparseToDense(ctx, *static_cast<bool*>(attrs), &p)) return;
  const TF_DataType type = TF_TensorType(p.values.get());
  TensorPtr out = AllocateOutput(ctx, 0, type, p.dims);
  const int64_t total = NumElements(p.dims), n = static_cast<int64_t>(p.offsets.size());
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr offsets = AllocateTemp(ctx, TF_INT64, {n});
  if (!offsets) return;
  if (n > 0 && !CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(offsets), p.offsets.data(),
                                               n * sizeof(int64_t), cudaMemcpyHostToDevice,
                                               stream), "SparseToDense"))
    return;
  WithWord(TF_DataTypeSize(type), [&](auto word) {
    using W = decltype(word);
    FillWord<W><<<BlocksFor(total), kThreads, 0, stream>>>(Data<W>(p.fill.get()), total,
                                                           Data<W>(out));
    if (n > 0)
      Scatter<W><<<BlocksFor(n), kThreads, 0, stream>>>(Data<W>(p.values.get()), p.one_value,
                                                        Data<int64_t>(offsets), n, Data<W>(out));
  });
  if (!CheckLaunch(ctx, "SparseToDense")) return;
  // The offsets buffer goes when this returns: wait for the pass that reads it.
  CheckCuda(ctx, cudaStreamSynchronize(stream), "SparseToDense");
}

}  // namespace

void RegisterSparseToDenseKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"SparseToDense", {{"T", t}, {"Tindices", index}},
                               {"sparse_indices", "output_shape"}, SparseToDenseCompute,
                               kernels::CreateValidateIndices, kernels::DeleteValidateIndices},
                     status);
}

}  // namespace cuda
}  // namespace opgen
