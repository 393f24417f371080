// BiasAddGrad and the softmax cross-entropy losses (whose second output is their own
// gradient): sums and softmax rows in the compute type (float for half and bfloat16),
// each result rounded once. The operand checks: ../nn_array_grad_spec.h; the CUDA twin:
// ../cuda/nn_grad.cu.
#include <cmath>
#include <limits>

#include "../nn_array_grad_spec.h"
#include "../nn_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T>
struct BiasAddGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    kernels::BiasAddGradPlan p;
    if (!kernels::PlanBiasAddGrad(ctx, static_cast<kernels::BiasAddAttrs*>(state)->channels_first, &p))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {p.channels});
    if (!out) return;
    const T* g = Data<T>(p.grad);
    T* o = Data<T>(out);
    const int64_t outer = p.outer, channels = p.channels, inner = p.inner;
    if (inner == 1) {  // channels last: rows of `channels` added up in order
      std::vector<C> acc(channels, C(0));
      for (int64_t r = 0; r < outer; ++r)
        for (int64_t c = 0; c < channels; ++c) acc[c] = WrappingAdd(acc[c], Widen(g[r * channels + c]));
      for (int64_t c = 0; c < channels; ++c) o[c] = Narrow<T>(acc[c]);
      return;
    }
    ParallelFor(channels, [=](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        C acc = C(0);
        for (int64_t r = 0; r < outer; ++r) {
          const T* run = g + (r * channels + c) * inner;
          for (int64_t i = 0; i < inner; ++i) acc = WrappingAdd(acc, Widen(run[i]));
        }
        o[c] = Narrow<T>(acc);
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(outer * inner, 1)));
  }
};

// TensorFlow computes the losses in T itself: for half and bfloat16 every operation
// rounds to T. R does the same, so that results, and overflow to infinity (with the
// NaN that may follow), match its kernels'; for float and double it changes nothing.
template <typename T> ComputeType<T> R(ComputeType<T> x) { return Widen(Narrow<T>(x)); }

// One row of logits: its maximum and sum(exp(logit - max)), added up in order.
template <typename T, typename Logit>
void RowStats(int64_t classes, Logit logit, ComputeType<T>* max, ComputeType<T>* sum_exp) {
  using C = ComputeType<T>;
  C m = -std::numeric_limits<C>::infinity();
  for (int64_t c = 0; c < classes; ++c) {
    const C v = logit(c);
    m = v > m || v != v ? v : m;  // a NaN logit makes the row NaN
  }
  C sum = C(0);
  for (int64_t c = 0; c < classes; ++c) sum = R<T>(sum + R<T>(std::exp(R<T>(logit(c) - m))));
  *max = m;
  *sum_exp = sum;
}

template <typename T>
struct XentKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    kernels::XentPlan p;
    if (!kernels::PlanXent(ctx, &p)) return;
    TensorPtr loss = AllocateOutput<T>(ctx, 0, {p.batch});
    TensorPtr back = AllocateOutput<T>(ctx, 1, {p.batch, p.classes});
    if (!loss || !back) return;
    const T* f = Data<T>(p.features);
    const T* l = Data<T>(p.labels);
    T* lp = Data<T>(loss);
    T* bp = Data<T>(back);
    const int64_t classes = p.classes, f0 = p.fs[0], f1 = p.fs[1], l0 = p.ls[0], l1 = p.ls[1];
    ParallelFor(p.batch, [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        auto logit = [&](int64_t c) { return Widen(f[b * f0 + c * f1]); };
        C max, sum_exp;
        RowStats<T>(classes, logit, &max, &sum_exp);
        const C log_sum = R<T>(std::log(sum_exp));
        C total = C(0);
        for (int64_t c = 0; c < classes; ++c) {
          const C shifted = R<T>(logit(c) - max), label = Widen(l[b * l0 + c * l1]);
          total = R<T>(total + R<T>(label * R<T>(log_sum - shifted)));
          bp[b * classes + c] = Narrow<T>(R<T>(R<T>(std::exp(shifted)) / sum_exp) - label);
        }
        lp[b] = Narrow<T>(total);
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(classes, 1)));
  }
};

template <typename T, typename L>
struct SparseXentKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    kernels::SparseXentPlan p;
    if (!kernels::PlanSparseXent(ctx, &p)) return;
    const L* labels = Data<L>(p.labels);
    if (!kernels::CheckSparseLabels(ctx, labels, p.batch, p.classes)) return;
    TensorPtr loss = AllocateOutput<T>(ctx, 0, {p.batch});
    TensorPtr back = AllocateOutput<T>(ctx, 1, {p.batch, p.classes});
    if (!loss || !back) return;
    const T* f = Data<T>(p.features);
    T* lp = Data<T>(loss);
    T* bp = Data<T>(back);
    const int64_t classes = p.classes;
    ParallelFor(p.batch, [=](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        auto logit = [&](int64_t c) { return Widen(f[b * classes + c]); };
        C max, sum_exp;
        RowStats<T>(classes, logit, &max, &sum_exp);
        const int64_t label = static_cast<int64_t>(labels[b]);
        for (int64_t c = 0; c < classes; ++c) {
          const C p_c = R<T>(R<T>(std::exp(R<T>(logit(c) - max))) / sum_exp);
          bp[b * classes + c] = Narrow<T>(p_c - C(c == label ? 1 : 0));
        }
        lp[b] = Narrow<T>(R<T>(std::log(sum_exp)) - R<T>(logit(label) - max));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(classes, 1)));
  }
};

template <typename... Ts>
void RegisterBiasAddGrad(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"BiasAddGrad", {{"T", DtypeOf<Ts>::value}}, {},
       &BiasAddGradKernel<Ts>::Compute, kernels::CreateBiasAdd, kernels::DeleteBiasAdd}, status),
   ...);
}

template <typename... Ts>
void RegisterLosses(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SoftmaxCrossEntropyWithLogits", {{"T", DtypeOf<Ts>::value}}, {},
       &XentKernel<Ts>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"SparseSoftmaxCrossEntropyWithLogits",
       {{"T", DtypeOf<Ts>::value}, {"Tlabels", TF_INT32}}, {}, &SparseXentKernel<Ts, int32_t>::Compute},
       status), ...);
  (RegisterKernel(kDevice, {"SparseSoftmaxCrossEntropyWithLogits",
       {{"T", DtypeOf<Ts>::value}, {"Tlabels", TF_INT64}}, {}, &SparseXentKernel<Ts, int64_t>::Compute},
       status), ...);
}

}  // namespace

void RegisterNnGradKernels(TF_Status* status) {
  RegisterBiasAddGrad(RealTypes(), status);
  RegisterLosses(FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
