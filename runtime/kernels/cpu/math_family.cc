// PopulationCount, ApproximateEqual and Cross on the CPU: operands checked by
// ../math_family_spec.h (shared with the CUDA plugin), here the arithmetic.
#include <cmath>

#include "../math_family_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T>
struct PopulationCountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr y = AllocateOutput<uint8_t>(ctx, 0, dims);
    if (!y) return;
    const T* xp = Data<T>(x);
    uint8_t* yp = Data<uint8_t>(y);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) yp[i] = kernels::PopCount(xp[i]);
    });
  }
};

// |x - y| < tolerance, in T (TensorFlow's CPU kernels are float and double).
template <typename T>
struct ApproximateEqualKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const T tolerance = static_cast<T>(static_cast<kernels::ApproximateEqualAttrs*>(state)->tolerance);
    TensorPtr x, y;
    std::vector<int64_t> dims;
    if (!kernels::PlanApproximateEqual(ctx, &x, &y, &dims)) return;
    TensorPtr z = AllocateOutput<bool>(ctx, 0, dims);
    if (!z) return;
    const T* xp = Data<T>(x);
    const T* yp = Data<T>(y);
    bool* zp = Data<bool>(z);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) zp[i] = std::abs(xp[i] - yp[i]) < tolerance;
    });
  }
};

// Each product and difference rounded to T (as TensorFlow's T arithmetic does); integer
// ones wrap.
template <typename T>
struct CrossKernel {
  static T Term(T a1, T b2, T a2, T b1) {
    if constexpr (kIsInteger<T>) return WrappingSub(WrappingMul(a1, b2), WrappingMul(a2, b1));
    else {
      const T p = Narrow<T>(Widen(a1) * Widen(b2)), q = Narrow<T>(Widen(a2) * Widen(b1));
      return Narrow<T>(Widen(p) - Widen(q));
    }
  }
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::CrossPlan p;
    if (!kernels::PlanCross(ctx, &p)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
    if (!out) return;
    const T* a = Data<T>(p.a);
    const T* b = Data<T>(p.b);
    T* c = Data<T>(out);
    ParallelFor(p.rows, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* u = a + 3 * r;
        const T* v = b + 3 * r;
        T* w = c + 3 * r;
        w[0] = Term(u[1], v[2], u[2], v[1]);
        w[1] = Term(u[2], v[0], u[0], v[2]);
        w[2] = Term(u[0], v[1], u[1], v[0]);
      }
    });
  }
};

template <typename... Ts>
void RegisterApproximateEqual(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"ApproximateEqual", {{"T", DtypeOf<Ts>::value}}, {},
                            &ApproximateEqualKernel<Ts>::Compute, kernels::CreateApproximateEqual,
                            kernels::DeleteApproximateEqual}, status), ...);
}

}  // namespace

void RegisterMathFamilyKernels(TF_Status* status) {
  // TensorFlow's CPU types for each.
  RegisterForTypes<PopulationCountKernel>(kDevice, "PopulationCount", IntTypes(), status);
  RegisterApproximateEqual(Types<float, double>(), status);
  RegisterForTypes<CrossKernel>(kDevice, "Cross", RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
