// Select (v1) on the CPU: the condition is a scalar, t's shape, or a vector over the
// first dimension (../misc_spec.h, shared with the CUDA plugin). Elements move as words.
#include <algorithm>

#include "../misc_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

template <typename W>
void SelectWords(const kernels::SelectV1Plan& p, const bool* c, const W* t, const W* e, W* o) {
  if (p.scalar) {
    std::copy_n(c[0] ? t : e, p.n, o);
    return;
  }
  for (int64_t i = 0; i < p.n; ++i) o[i] = c[i / p.inner] ? t[i] : e[i];
}

struct Word128 { uint64_t lo, hi; };

void SelectCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SelectV1Plan p;
  if (!kernels::PlanSelectV1(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.t.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.dims);
  if (!out || p.n == 0) return;
  const bool* c = Data<bool>(p.condition.get());
  const void* t = TF_TensorData(p.t.get());
  const void* e = TF_TensorData(p.e.get());
  void* o = TF_TensorData(out.get());
  switch (TF_DataTypeSize(dtype)) {
#define OPGEN_SELECT_WORD(bytes, W) \
    case bytes: SelectWords(p, c, static_cast<const W*>(t), static_cast<const W*>(e), static_cast<W*>(o)); break;
    OPGEN_SELECT_WORD(1, uint8_t)
    OPGEN_SELECT_WORD(2, uint16_t)
    OPGEN_SELECT_WORD(4, uint32_t)
    OPGEN_SELECT_WORD(8, uint64_t)
    OPGEN_SELECT_WORD(16, Word128)
#undef OPGEN_SELECT_WORD
    default: Fail(ctx, TF_UNIMPLEMENTED, "Select: elements of " + std::to_string(TF_DataTypeSize(dtype)) + " bytes");
  }
}

}  // namespace

void RegisterSelectV1Kernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) RegisterKernel(kDevice, {"Select", {{"T", t}}, {},
                                               SelectCompute}, status);
  RegisterKernel(kDevice, {"Select", {{"T", TF_STRING}}, {}, SelectStringCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
