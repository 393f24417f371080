// Cast between every pair of real types and bool: floats, half, bfloat16, signed and
// unsigned integers. In-range values convert as C++ (and numpy's astype) convert them:
// floats truncate toward zero, narrower floats round to nearest even, any non-zero value
// is true, integers wrap to narrower integers. The `Truncate` attr (round toward zero
// when narrowing floats) is not implemented: conversions always round to nearest.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// A float that is NaN or outside int32/int64's range has no C++ conversion (it is
// undefined behaviour). It becomes the type's minimum, the "integer indefinite" value
// x86 produces and so what numpy's astype gives there. Narrower and unsigned integer
// types go through int64 and wrap, as numpy's conversions do on x86.
template <typename F, typename Dst>
Dst FloatToInteger(F x) {
  if constexpr (std::is_signed_v<Dst> && sizeof(Dst) >= 4) {
    // -2^(bits-1) and 2^(bits-1) are exact in float and double; values just below the
    // minimum truncate to it, which the early return gives as well.
    constexpr F kLow = static_cast<F>(std::numeric_limits<Dst>::min());
    if (!(x >= kLow && x < -kLow)) return std::numeric_limits<Dst>::min();
    return static_cast<Dst>(x);
  } else if constexpr (std::is_same_v<Dst, uint64_t>) {
    if (x >= F(0) && x < F(18446744073709551616.0)) return static_cast<uint64_t>(x);
    return static_cast<uint64_t>(FloatToInteger<F, int64_t>(x));
  } else {
    return static_cast<Dst>(FloatToInteger<F, int64_t>(x));
  }
}

template <typename Src, typename Dst>
Dst Convert(Src x) {
  if constexpr (std::is_same_v<Src, Dst>) {
    return x;
  } else if constexpr (kIsFloat16<Src>) {
    return Convert<float, Dst>(static_cast<float>(x));
  } else if constexpr (kIsFloat16<Dst>) {
    return Dst(static_cast<float>(x));
  } else if constexpr (std::is_floating_point_v<Src> && kIsInteger<Dst>) {
    return FloatToInteger<Src, Dst>(x);
  } else {
    return static_cast<Dst>(x);
  }
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
