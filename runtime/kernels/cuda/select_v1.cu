// The v1 Select on the GPU: a condition of the first dim's length or of x's shape picks
// x or y (../misc_spec.h); elements move as opaque words. Twin of ../cpu/select_v1.cc.
#include "../misc_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"
#include "strided_pass.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename W>
__global__ void SelectV1Kernel(const bool* __restrict__ c, const W* __restrict__ t,
                               const W* __restrict__ e, int64_t n, int64_t inner,
                               W* __restrict__ out) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = c[i / inner] ? t[i] : e[i];
}

void SelectCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SelectV1Plan p;
  if (!kernels::PlanSelectV1(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.t.get());
  TensorPtr out = AllocateOutput(ctx, 0, dtype, p.dims);
  if (!out || p.n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    SelectV1Kernel<W><<<BlocksFor(p.n), kThreads, 0, stream>>>(
        Data<bool>(p.condition.get()), Data<W>(p.t.get()), Data<W>(p.e.get()), p.n, p.inner,
        Data<W>(out));
  });
  CheckLaunch(ctx, "Select");
}

}  // namespace

void RegisterSelectV1Kernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes)
    RegisterKernel(kDevice, {"Select", {{"T", t}}, {}, SelectCompute}, status);
}

}  // namespace cuda
}  // namespace opgen
