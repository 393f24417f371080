// The functors of the incomplete gamma and beta family of ops/special_math_ops.cc
// (Igamma, Igammac, IgammaGradA, RandomGammaGrad, Polygamma, Zeta, Betainc), shared by
// cpu/elementwise_special.cc and cuda/elementwise_special.cu as elementwise_math_spec.h's
// are; apart from it so that the generic element-wise loops do not compile these
// series.
#ifndef OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_SPEC_H_
#define OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "elementwise_math_spec.h"
#include "incomplete_gamma_beta.h"

namespace opgen {
namespace kernels {
namespace elementwise {

// Special functions of two operands: computed in double (incomplete_gamma_beta.h),
// rounded once.
#define OPGEN_SPECIAL_BINARY(Name, f)                                     \
  struct Name##Op : BinaryFunctor {                                       \
    using Base = Name##Op;                                                \
    template <typename T> OPGEN_HD static T Apply(T a, T x) {             \
      return T(special::f(double(a), double(x)));                         \
    }                                                                     \
  };
OPGEN_SPECIAL_BINARY(Igamma, Igamma)
OPGEN_SPECIAL_BINARY(Igammac, Igammac)
OPGEN_SPECIAL_BINARY(IgammaGradA, IgammaGradA)
OPGEN_SPECIAL_BINARY(RandomGammaGrad, RandomGammaGrad)
OPGEN_SPECIAL_BINARY(Polygamma, Polygamma)
OPGEN_SPECIAL_BINARY(Zeta, Zeta)
#undef OPGEN_SPECIAL_BINARY

// Betainc's three operands: each a scalar or of the one shape the non-scalars share
// (no numpy broadcasting). `First` is the CPU ternary loop's type of operand a.
struct BetaincOp {
  template <typename T> using First = T;
  template <typename T> OPGEN_HD static T Apply(T a, T b, T x) {
    return T(special::Betainc(double(a), double(b), double(x)));
  }
};
// The host-side shape check of Betainc, with TensorFlow's message; empty when the
// shapes agree.
inline std::string BetaincShapeError(const std::vector<std::vector<int64_t>>& dims) {
  const char* names[3] = {"a", "b", "x"};
  auto text = [](const std::vector<int64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
  };
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (!dims[i].empty() && !dims[j].empty() && dims[i] != dims[j])
        return std::string("Shapes of ") + names[i] + " and " + names[j] +
               " are inconsistent: " + text(dims[i]) + " vs. " + text(dims[j]);
  return "";
}

}  // namespace elementwise
}  // namespace kernels
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_SPEC_H_
