// Cast between every pair of real types and bool: floats, half, bfloat16, signed and
// unsigned integers, converted as ../cast_spec.h says. The `Truncate` attr (round toward
// zero when narrowing floats) is not implemented: conversions always round to nearest.
#include "../cast_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// The conversion rules (../cast_spec.h, shared with the CUDA plugin) over this file's
// 16-bit float types.
struct Float16Types {
  template <typename T> static constexpr bool kIs = kIsFloat16<T>;
  template <typename T> static T From(float f) { return Narrow<T>(f); }
};

template <typename Src, typename Dst>
Dst Convert(Src x) {
  return kernels::ConvertValue<Float16Types, Src, Dst>(x);
}

template <typename Src, typename Dst>
struct CastKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    std::vector<int64_t> dims = Dims(x.get());
    TensorPtr y = AllocateOutput<Dst>(ctx, 0, dims);
    if (!y) return;
    const Src* xp = Data<Src>(x);
    Dst* yp = Data<Dst>(y);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      const Src* __restrict a = xp;
      Dst* __restrict b = yp;
      for (int64_t i = begin; i < end; ++i) b[i] = Convert<Src, Dst>(a[i]);
    });
  }
};

template <typename Src, typename... Dsts>
void RegisterFrom(Types<Dsts...>, TF_Status* status) {
  (RegisterKernel2("Cast", "SrcT", DtypeOf<Src>::value, "DstT", DtypeOf<Dsts>::value,
                   &CastKernel<Src, Dsts>::Compute, status),
   ...);
}

template <typename... Srcs>
void RegisterAllPairs(Types<Srcs...> types, TF_Status* status) {
  (RegisterFrom<Srcs>(types, status), ...);
}

}  // namespace

void RegisterCastKernels(TF_Status* status) { RegisterAllPairs(RealAndBoolTypes(), status); }

}  // namespace cpu
}  // namespace opgen
