// ExtractImagePatches on the host: each output value copies one input element (or is
// zero in the padding), per ../patches_spec.h; the copy is by element size, so one
// instantiation serves every dtype of that width.
#include <cstring>

#include "../patches_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename W>
void CopyPatches(const kernels::PatchGeometry& g, const W* in, W* out, int64_t total) {
  ParallelFor(total, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int64_t src = kernels::PatchSource(g, n);
      if (src >= 0) {
        out[n] = in[src];
      } else {
        std::memset(&out[n], 0, sizeof(W));
      }
    }
  });
}

void ExtractPatchesCompute(void* state, TF_OpKernelContext* ctx) {
  const kernels::PatchAttrs& a = *static_cast<kernels::PatchAttrs*>(state);
  const TF_Tensor* images = BorrowInput(ctx, 0);
  if (images == nullptr) return;
  kernels::PatchGeometry g;
  if (!kernels::PlanPatches(ctx, a, images, &g)) return;
  const TF_DataType dtype = TF_TensorType(images);
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, {g.batch, g.out_h, g.out_w, g.out_depth()});
  if (!out) return;
  const int64_t total = g.batch * g.out_h * g.out_w * g.out_depth();
  if (total == 0) return;
  const void* in = TF_TensorData(images);
  void* o = TF_TensorData(out.get());
  switch (TF_DataTypeSize(dtype)) {
    case 1: return CopyPatches(g, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(o), total);
    case 2: return CopyPatches(g, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(o), total);
    case 4: return CopyPatches(g, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(o), total);
    case 8: return CopyPatches(g, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(o), total);
    default: return CopyPatches(g, static_cast<const Bytes16*>(in), static_cast<Bytes16*>(o), total);
  }
}

}  // namespace

// The OpDef's types but bool, as TensorFlow's CPU kernels register them.
void RegisterExtractPatchesKernels(TF_Status* status) {
  for (TF_DataType t : {TF_BFLOAT16, TF_HALF, TF_FLOAT, TF_DOUBLE, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_COMPLEX64,
                        TF_COMPLEX128})
    RegisterKernel(kDevice, {"ExtractImagePatches", {{"T", t}}, {}, &ExtractPatchesCompute,
                             kernels::CreatePatchAttrs, kernels::DeletePatchAttrs}, status);
}

}  // namespace cpu
}  // namespace opgen
