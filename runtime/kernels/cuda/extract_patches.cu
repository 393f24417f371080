// ExtractImagePatches on the GPU: one thread per output value copies its input element
// (zero in the padding), per ../patches_spec.h, by element size as the CPU kernel.
#include "../patches_spec.h"
#include "cuda_kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cuda {
namespace {

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <typename W>
__global__ void PatchesKernel(kernels::PatchGeometry g, const W* in, W* out, int64_t total) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t src = kernels::PatchSource(g, n);
    out[n] = src >= 0 ? in[src] : W{};
  }
}

template <typename W>
void Launch(const kernels::PatchGeometry& g, const void* in, void* out, int64_t total,
            cudaStream_t stream) {
  PatchesKernel<W><<<BlocksFor(total), kThreads, 0, stream>>>(
      g, static_cast<const W*>(in), static_cast<W*>(out), total);
}

void ExtractPatchesCompute(void* state, TF_OpKernelContext* ctx) {
  const kernels::PatchAttrs& a = *static_cast<kernels::PatchAttrs*>(state);
  TensorPtr images = Input(ctx, 0);
  if (!images) return;
  kernels::PatchGeometry g;
  if (!kernels::PlanPatches(ctx, a, images.get(), &g)) return;
  const TF_DataType dtype = TF_TensorType(images.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, {g.batch, g.out_h, g.out_w, g.out_depth()});
  const int64_t total = g.batch * g.out_h * g.out_w * g.out_depth();
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const void* in = TF_TensorData(images.get());
  void* o = TF_TensorData(out.get());
  switch (TF_DataTypeSize(dtype)) {
    case 1: Launch<uint8_t>(g, in, o, total, stream); break;
    case 2: Launch<uint16_t>(g, in, o, total, stream); break;
    case 4: Launch<uint32_t>(g, in, o, total, stream); break;
    case 8: Launch<uint64_t>(g, in, o, total, stream); break;
    default: Launch<Bytes16>(g, in, o, total, stream); break;
  }
  CheckLaunch(ctx, "ExtractImagePatches");
}

}  // namespace

// The CPU kernel's registrations (kernels/cpu/extract_patches.cc).
void RegisterExtractPatchesKernels(TF_Status* status) {
  for (TF_DataType t : {TF_BFLOAT16, TF_HALF, TF_FLOAT, TF_DOUBLE, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_COMPLEX64,
                        TF_COMPLEX128})
    RegisterKernel(kDevice, {"ExtractImagePatches", {{"T", t}}, {}, &ExtractPatchesCompute,
                             kernels::CreatePatchAttrs, kernels::DeletePatchAttrs}, status);
}

}  // namespace cuda
}  // namespace opgen
