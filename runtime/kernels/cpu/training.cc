// CPU kernels of the optimizer ops (../training_spec.h): the element loop, split over
// the cores for large variables, and a copy for copy-on-write updates.
#include <cstring>

#include "kernel_util.h"
#include "parallel.h"
#include "../training_spec.h"

namespace opgen {
namespace cpu {

void RegisterTrainingKernels(TF_Status* status);  // the family's entry (cpu_kernels.cc)

namespace {

struct CpuTraining {
  static void Copy(TF_OpKernelContext*, void* dst, const void* src, size_t bytes, TF_Status*) {
    std::memcpy(dst, src, bytes);
  }

  template <typename Algo, typename T>
  struct Loop {
    using C = ComputeType<T>;

    template <bool kNesterov>
    static void Range(T* const* vars, const T* grad, const C* p, int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        C v[Algo::kVars];
        for (int k = 0; k < Algo::kVars; ++k) v[k] = Widen(vars[k][i]);
        Algo::Apply(v, Widen(grad[i]), p, kNesterov);
        for (int k = 0; k < Algo::kVars; ++k) vars[k][i] = Narrow<T>(v[k]);
      }
    }

    static void Run(TF_OpKernelContext*, T* const* vars, const T* grad,
                    const T* const* scalars, int64_t n, bool nesterov, TF_Status*) {
      C s[Algo::kScalars], p[8];
      for (int k = 0; k < Algo::kScalars; ++k) s[k] = Widen(*scalars[k]);
      Algo::Prepare(s, p);
      ParallelFor(n, [&](int64_t begin, int64_t end) {
        if (nesterov) Range<true>(vars, grad, p, begin, end);
        else Range<false>(vars, grad, p, begin, end);
      });
    }
  };
};

}  // namespace

void RegisterTrainingKernels(TF_Status* status) {
  namespace t = kernels::training;
  using Dev = CpuTraining;
  const kernels::CreateFn none = nullptr, nesterov = &t::CreateFlag<t::kUseNesterov>,
                          update_slots = &t::CreateFlag<t::kUpdateSlots>;
  const FloatTypes types;
  t::RegisterTrainingKernels<Dev, t::Adagrad>(kDevice, "ResourceApplyAdagrad", update_slots,
                                              types, status);
  t::RegisterTrainingKernels<Dev, t::Adam>(kDevice, "ResourceApplyAdam", nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::GradientDescent>(kDevice, "ResourceApplyGradientDescent",
                                                      none, types, status);
  t::RegisterTrainingKernels<Dev, t::KerasMomentum>(kDevice, "ResourceApplyKerasMomentum",
                                                    nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::Momentum>(kDevice, "ResourceApplyMomentum", nesterov, types,
                                               status);
  t::RegisterTrainingKernels<Dev, t::RMSProp>(kDevice, "ResourceApplyRMSProp", none, types, status);
}

}  // namespace cpu
}  // namespace opgen
