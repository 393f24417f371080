// CPU kernels of the optimizer ops (../training_spec.h): the element loop, split over
// the cores for large variables, and a copy for copy-on-write updates.
#include <cstring>

#include "kernel_util.h"
#include "parallel.h"
#include "../training_spec.h"

namespace opgen {
namespace cpu {

namespace {

struct CpuTraining {
  static constexpr bool kHostScalars = true;  // TensorFlow's CPU kernels check values
  template <typename T>
  static double HostValue(const T* x) { return static_cast<double>(Widen(*x)); }

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
                          update_slots = &t::CreateFlag<t::kUpdateSlots>,
                          linear_by_lr = &t::CreateFlag<t::kMultiplyLinearByLr>;
  // TensorFlow's CPU kernels stop short of 16-bit floats for some algorithms.
  const FloatTypes types;
  const Types<float, double> wide_types;
  const Types<float, double, Half> no_bfloat16;
  t::RegisterTrainingKernels<Dev, t::Adadelta>(kDevice, "ResourceApplyAdadelta", none, types,
                                               status);
  t::RegisterTrainingKernels<Dev, t::Adagrad>(kDevice, "ResourceApplyAdagrad", update_slots,
                                              types, status);
  t::RegisterTrainingKernels<Dev, t::AdagradV2>(kDevice, "ResourceApplyAdagradV2", update_slots,
                                                types, status);
  t::RegisterTrainingKernels<Dev, t::AdaMax>(kDevice, "ResourceApplyAdaMax", none, no_bfloat16,
                                             status);
  t::RegisterTrainingKernels<Dev, t::Adam>(kDevice, "ResourceApplyAdam", nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::AdamWithAmsgrad>(kDevice, "ResourceApplyAdamWithAmsgrad", none,
                                                      types, status);
  t::RegisterTrainingKernels<Dev, t::AddSign>(kDevice, "ResourceApplyAddSign", none, types,
                                              status);
  t::RegisterTrainingKernels<Dev, t::CenteredRMSProp>(kDevice, "ResourceApplyCenteredRMSProp",
                                                      none, types, status);
  t::RegisterTrainingKernels<Dev, t::Ftrl>(kDevice, "ResourceApplyFtrl", linear_by_lr, types,
                                           status);
  t::RegisterTrainingKernels<Dev, t::FtrlV2>(kDevice, "ResourceApplyFtrlV2", linear_by_lr, types,
                                             status);
  t::RegisterTrainingKernels<Dev, t::GradientDescent>(kDevice, "ResourceApplyGradientDescent",
                                                      none, types, status);
  t::RegisterTrainingKernels<Dev, t::KerasMomentum>(kDevice, "ResourceApplyKerasMomentum",
                                                    nesterov, types, status);
  t::RegisterTrainingKernels<Dev, t::Momentum>(kDevice, "ResourceApplyMomentum", nesterov, types,
                                               status);
  t::RegisterTrainingKernels<Dev, t::PowerSign>(kDevice, "ResourceApplyPowerSign", none, types,
                                                status);
  t::RegisterTrainingKernels<Dev, t::ProximalAdagrad>(kDevice, "ResourceApplyProximalAdagrad",
                                                      none, wide_types, status);
  t::RegisterTrainingKernels<Dev, t::ProximalGradientDescent>(
      kDevice, "ResourceApplyProximalGradientDescent", none, wide_types, status);
  t::RegisterTrainingKernels<Dev, t::RMSProp>(kDevice, "ResourceApplyRMSProp", none, types, status);
}

}  // namespace cpu
}  // namespace opgen
