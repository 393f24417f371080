// Cast between float, double, int32, int64 and bool, for every pair. In-range values
// convert as C++ (and numpy's astype) convert them: floats truncate toward zero, any
// non-zero value is true. `Truncate` only matters for narrow float types, which these
// kernels do not cover.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// A float that is NaN or outside Dst's range has no C++ conversion (it is undefined
// behaviour). It becomes Dst's minimum, the "integer indefinite" value x86 produces and
// so what numpy's astype gives there.
template <typename Src, typename Dst>
Dst Convert(Src x) {
  if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst> &&
                !std::is_same_v<Dst, bool>) {
    // -2^(bits-1) and 2^(bits-1) are exact in float and double; values just below the
    // minimum truncate to it, which the early return gives as well.
    constexpr Src kLow = static_cast<Src>(std::numeric_limits<Dst>::min());
    if (!(x >= kLow && x < -kLow)) return std::numeric_limits<Dst>::min();
  }
  return static_cast<Dst>(x);
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
    const int64_t n = NumElements(dims);
    for (int64_t i = 0; i < n; ++i) yp[i] = Convert<Src, Dst>(xp[i]);
  }
};

template <typename Src, typename... Dsts>
void RegisterFrom(TF_Status* status) {
  (RegisterKernel2("Cast", "SrcT", DtypeOf<Src>::value, "DstT", DtypeOf<Dsts>::value,
                   &CastKernel<Src, Dsts>::Compute, status),
   ...);
}

}  // namespace

void RegisterCastKernels(TF_Status* status) {
  RegisterFrom<float, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<double, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<int32_t, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<int64_t, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<bool, float, double, int32_t, int64_t, bool>(status);
}

}  // namespace cpu
}  // namespace opgen
