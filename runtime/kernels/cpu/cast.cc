// Cast between every pair of real and complex types and bool: floats, half, bfloat16, signed and
// unsigned integers, converted as ../cast_spec.h says. The `Truncate` attr (round toward
// zero when narrowing) applies to float32 -> bfloat16, as in TensorFlow; every other
// conversion rounds to nearest.
#include "../cast_spec.h"
#include "../misc_spec.h"
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

// Complex values as TensorFlow casts them: to a real type or bool the real part converts
// (the imaginary part is dropped, so 1j is false); a real value becomes the real part,
// with a zero imaginary part.
template <typename Src, typename Dst>
Dst Convert(Src x) {
  if constexpr (kIsComplex<Src> && kIsComplex<Dst>) {
    using From = typename IsComplex<Src>::Part;
    using To = typename IsComplex<Dst>::Part;
    return Dst(Convert<From, To>(x.real()), Convert<From, To>(x.imag()));
  } else if constexpr (kIsComplex<Src>) {
    return Convert<typename IsComplex<Src>::Part, Dst>(x.real());
  } else if constexpr (kIsComplex<Dst>) {
    using To = typename IsComplex<Dst>::Part;
    return Dst(Convert<Src, To>(x), To(0));
  } else {
    return kernels::ConvertValue<Float16Types, Src, Dst>(x);
  }
}

template <typename Src, typename Dst>
struct CastKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    std::vector<int64_t> dims = Dims(x.get());
    TensorPtr y = AllocateOutput<Dst>(ctx, 0, dims);
    if (!y) return;
    const Src* xp = Data<Src>(x);
    Dst* yp = Data<Dst>(y);
    if constexpr (std::is_same_v<Dst, BFloat16> && std::is_same_v<Src, float>) {
      if (static_cast<const kernels::CastAttrs*>(state)->truncate) {
        ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            yp[i].bits = kernels::TruncatedBfloat16Bits(static_cast<float>(xp[i]));
        });
        return;
      }
    }
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      const Src* __restrict a = xp;
      Dst* __restrict b = yp;
      for (int64_t i = begin; i < end; ++i) b[i] = Convert<Src, Dst>(a[i]);
    });
  }
};

template <typename Src, typename... Dsts>
void RegisterFrom(Types<Dsts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Cast", {{"SrcT", DtypeOf<Src>::value}, {"DstT", DtypeOf<Dsts>::value}},
       {}, &CastKernel<Src, Dsts>::Compute, kernels::CreateCast, kernels::DeleteCast}, status),
   ...);
}

template <typename... Srcs>
void RegisterAllPairs(Types<Srcs...> types, TF_Status* status) {
  (RegisterFrom<Srcs>(types, status), ...);
}

}  // namespace

void RegisterCastKernels(TF_Status* status) {
  RegisterAllPairs(Concat<RealAndBoolTypes, ComplexTypes>(), status);
}

}  // namespace cpu
}  // namespace opgen
