// BiasAddGrad and the softmax cross-entropy losses on the GPU, with the CPU kernels'
// operand checks (../nn_array_grad_spec.h): one thread per channel or per row, adding up in the
// CPU kernels' order in the compute type. A label outside [0, classes) gives NaN for
// its row (TensorFlow's GPU kernels do the same; the labels stay on the device). Twin of
// ../cpu/nn_grad.cc.
#include <cmath>

#include "../nn_array_grad_spec.h"
#include "../nn_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "grad_math.cuh"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T, typename C>
__global__ void BiasAddGradKernel(const T* g, T* out, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t c = GlobalThread<int64_t>(); c < channels; c += GridStride<int64_t>()) {
    C acc = C(0);
    for (int64_t r = 0; r < outer; ++r) {
      const T* run = g + (r * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) acc = grad::Add(acc, Widen(run[i]));
    }
    out[c] = Narrow<T>(acc);
  }
}

template <typename T>
struct BiasAddGradOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = typename ComputeType<T>::type;
    kernels::BiasAddGradPlan p;
    if (!kernels::PlanBiasAddGrad(ctx, static_cast<kernels::BiasAddAttrs*>(state)->channels_first, &p))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {p.channels});
    if (!out || p.channels == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    BiasAddGradKernel<T, C><<<BlocksFor(p.channels), kThreads, 0, stream>>>(
        Data<T>(p.grad), Data<T>(out), p.outer, p.channels, p.inner);
    CheckLaunch(ctx, "BiasAddGrad");
  }
};

// Each operation rounded to T, as the CPU kernels (and TensorFlow's) compute the
// losses; nothing for float and double.
template <typename T, typename C> __device__ inline C R(C x) { return Widen(Narrow<T>(x)); }

// The row's maximum and sum(exp(logit - max)), added up in order.
template <typename T, typename C>
__device__ void RowStats(const T* f, int64_t step, int64_t classes, C* max, C* sum_exp) {
  C m = -INFINITY;
  for (int64_t c = 0; c < classes; ++c) {
    const C v = Widen(f[c * step]);
    m = v > m || v != v ? v : m;
  }
  C sum = C(0);
  for (int64_t c = 0; c < classes; ++c)
    sum = R<T>(sum + R<T>(grad::Exp(R<T>(Widen(f[c * step]) - m))));
  *max = m;
  *sum_exp = sum;
}

template <typename T, typename C>
__global__ void XentKernel(const T* f, const T* l, T* loss, T* back, int64_t batch, int64_t classes,
                           int64_t f0, int64_t f1, int64_t l0, int64_t l1) {
  for (int64_t b = GlobalThread<int64_t>(); b < batch; b += GridStride<int64_t>()) {
    C max, sum_exp;
    RowStats<T, C>(f + b * f0, f1, classes, &max, &sum_exp);
    const C log_sum = R<T>(grad::Log(sum_exp));
    C total = C(0);
    for (int64_t c = 0; c < classes; ++c) {
      const C shifted = R<T>(Widen(f[b * f0 + c * f1]) - max), label = Widen(l[b * l0 + c * l1]);
      total = R<T>(total + R<T>(label * R<T>(log_sum - shifted)));
      back[b * classes + c] = Narrow<T>(R<T>(R<T>(grad::Exp(shifted)) / sum_exp) - label);
    }
    loss[b] = Narrow<T>(total);
  }
}

template <typename T>
struct XentOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    using C = typename ComputeType<T>::type;
    kernels::XentPlan p;
    if (!kernels::PlanXent(ctx, &p)) return;
    TensorPtr loss = AllocateOutput<T>(ctx, 0, {p.batch});
    TensorPtr back = AllocateOutput<T>(ctx, 1, {p.batch, p.classes});
    if (!loss || !back || p.batch == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    XentKernel<T, C><<<BlocksFor(p.batch), kThreads, 0, stream>>>(
        Data<T>(p.features), Data<T>(p.labels), Data<T>(loss), Data<T>(back), p.batch, p.classes,
        p.fs[0], p.fs[1], p.ls[0], p.ls[1]);
    CheckLaunch(ctx, "SoftmaxCrossEntropyWithLogits");
  }
};

template <typename T, typename L, typename C>
__global__ void SparseXentKernel(const T* f, const L* labels, T* loss, T* back, int64_t batch,
                                 int64_t classes) {
  for (int64_t b = GlobalThread<int64_t>(); b < batch; b += GridStride<int64_t>()) {
    const T* row = f + b * classes;
    const int64_t label = static_cast<int64_t>(labels[b]);
    if (label < 0 || label >= classes) {
      for (int64_t c = 0; c < classes; ++c) back[b * classes + c] = Narrow<T>(C(NAN));
      loss[b] = Narrow<T>(C(NAN));
      continue;
    }
    C max, sum_exp;
    RowStats<T, C>(row, 1, classes, &max, &sum_exp);
    for (int64_t c = 0; c < classes; ++c) {
      const C p_c = R<T>(R<T>(grad::Exp(R<T>(Widen(row[c]) - max))) / sum_exp);
      back[b * classes + c] = Narrow<T>(p_c - C(c == label ? 1 : 0));
    }
    loss[b] = Narrow<T>(R<T>(grad::Log(sum_exp)) - R<T>(Widen(row[label]) - max));
  }
}

template <typename T, typename L>
struct SparseXentOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    using C = typename ComputeType<T>::type;
    kernels::SparseXentPlan p;
    if (!kernels::PlanSparseXent(ctx, &p)) return;
    TensorPtr loss = AllocateOutput<T>(ctx, 0, {p.batch});
    TensorPtr back = AllocateOutput<T>(ctx, 1, {p.batch, p.classes});
    if (!loss || !back || p.batch == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    SparseXentKernel<T, L, C><<<BlocksFor(p.batch), kThreads, 0, stream>>>(
        Data<T>(p.features), Data<L>(p.labels), Data<T>(loss), Data<T>(back), p.batch, p.classes);
    CheckLaunch(ctx, "SparseSoftmaxCrossEntropyWithLogits");
  }
};

template <typename... Ts>
void RegisterBiasAddGrad(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"BiasAddGrad", {{"T", DtypeOf<Ts>::value}}, {},
       &BiasAddGradOp<Ts>::Compute, kernels::CreateBiasAdd, kernels::DeleteBiasAdd}, status),
   ...);
}

template <typename... Ts>
void RegisterLosses(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SoftmaxCrossEntropyWithLogits", {{"T", DtypeOf<Ts>::value}}, {},
       &XentOp<Ts>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"SparseSoftmaxCrossEntropyWithLogits",
       {{"T", DtypeOf<Ts>::value}, {"Tlabels", TF_INT32}}, {}, &SparseXentOp<Ts, int32_t>::Compute},
       status), ...);
  (RegisterKernel(kDevice, {"SparseSoftmaxCrossEntropyWithLogits",
       {{"T", DtypeOf<Ts>::value}, {"Tlabels", TF_INT64}}, {}, &SparseXentOp<Ts, int64_t>::Compute},
       status), ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

}  // namespace

void RegisterNnGradKernels(TF_Status* status) {
  RegisterBiasAddGrad(RealTypes(), status);
  RegisterLosses(FloatTypes(), status);
}

}  // namespace cuda
}  // namespace opgen
