// Neural-network kernels: Softmax and LogSoftmax over the last axis, BiasAdd.
#include <algorithm>
#include <cmath>

#include "../nn_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// One pass for the max, one for the sum of exponentials, one to write: numerically
// stable for large logits.
template <bool kLog>
struct Softmax {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      kernels::SoftmaxPlan p;
      if (!kernels::PlanSoftmax(ctx, &p)) return;
      TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
      if (!output) return;
      const int64_t depth = p.depth, rows = p.rows;
      const T* in = Data<T>(p.logits);
      T* out = Data<T>(output);
      using C = ComputeType<T>;
      ParallelFor(rows, [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* x = in + r * depth;
          T* y = out + r * depth;
          C max = Widen(x[0]);
          for (int64_t i = 1; i < depth; ++i) max = Widen(x[i]) > max ? Widen(x[i]) : max;
          C sum = 0;
          for (int64_t i = 0; i < depth; ++i) sum += std::exp(Widen(x[i]) - max);
          if constexpr (kLog) {
            const C log_sum = std::log(sum);
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(Widen(x[i]) - max - log_sum);
          } else {
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(std::exp(Widen(x[i]) - max) / sum);
          }
        }
      }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(depth, 1)));
    }
  };
};

// The attrs and input checks of BiasAdd and FusedBatchNormV3: ../nn_spec.h, shared
// with the CUDA plugin; here the arithmetic.
using kernels::BatchNormAttrs;
using kernels::BiasAddAttrs;

template <typename T>
struct BiasAddKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::BiasAddPlan p;
    if (!kernels::PlanBiasAdd(ctx, *static_cast<BiasAddAttrs*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
    const int64_t n = NumElements(p.dims);
    if (!output || n == 0) return;
    const int64_t channels = p.channels, inner = p.inner;
    const T* x = Data<T>(p.value);
    const T* b = Data<T>(p.bias);
    T* y = Data<T>(output);
    const int64_t rows = n / (channels * inner);
    ParallelFor(rows * channels, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {  // r: one run of `inner` values of one channel
        const T bias = b[r % channels];
        for (int64_t i = r * inner; i < (r + 1) * inner; ++i)
          y[i] = Narrow<T>(WrappingAdd(Widen(x[i]), Widen(bias)));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(inner, 1)));
  }
};

// FusedBatchNormV3 on float, channels last. Inference normalises with the given
// statistics; training computes them over every dimension but the channel one and
// blends them into the running ones with exponential_avg_factor.
void BatchNormCompute(void* state, TF_OpKernelContext* ctx) {
  const BatchNormAttrs& a = *static_cast<BatchNormAttrs*>(state);
  kernels::BatchNormPlan p;
  if (!kernels::PlanBatchNorm(ctx, a, &p)) return;
  const TensorPtr &x = p.x, &scale = p.scale, &offset = p.offset;
  const TensorPtr &mean = p.mean, &variance = p.variance;
  const std::vector<int64_t>& dims = p.dims;
  const int64_t c = p.c, rows = p.rows;
  const float* xp = Data<float>(x);
  std::vector<double> batch_mean(c, 0.0), batch_var(c, 0.0);
  if (a.is_training) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < c; ++k) batch_mean[k] += xp[r * c + k];
    for (int64_t k = 0; k < c; ++k) batch_mean[k] /= std::max<int64_t>(rows, 1);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < c; ++k) {
        const double d = xp[r * c + k] - batch_mean[k];
        batch_var[k] += d * d;
      }
    for (int64_t k = 0; k < c; ++k) batch_var[k] /= std::max<int64_t>(rows, 1);
  } else {
    for (int64_t k = 0; k < c; ++k) {
      batch_mean[k] = Data<float>(mean)[k];
      batch_var[k] = Data<float>(variance)[k];
    }
  }
  TensorPtr y = AllocateOutput<float>(ctx, 0, dims);
  if (!y) return;
  float* yp = Data<float>(y);
  std::vector<float> multiplier(c), shift(c);
  for (int64_t k = 0; k < c; ++k) {
    multiplier[k] = static_cast<float>(Data<float>(scale)[k] / std::sqrt(batch_var[k] + a.epsilon));
    shift[k] = static_cast<float>(Data<float>(offset)[k] - batch_mean[k] * multiplier[k]);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < c; ++k) yp[r * c + k] = xp[r * c + k] * multiplier[k] + shift[k];
  // Outputs 1..4: running statistics and the reserve spaces; output 5 is empty.
  std::vector<float> running_mean(c), running_var(c);
  for (int64_t k = 0; k < c; ++k) {
    if (a.is_training) {
      const double f = a.exponential_avg_factor;
      const double corrected = rows > 1 ? batch_var[k] * rows / (rows - 1) : batch_var[k];
      const double old_mean = p.has_mean ? Data<float>(mean)[k] : 0.0;
      const double old_var = p.has_variance ? Data<float>(variance)[k] : 0.0;
      running_mean[k] = static_cast<float>((1 - f) * old_mean + f * batch_mean[k]);
      running_var[k] = static_cast<float>((1 - f) * old_var + f * corrected);
    } else {
      running_mean[k] = static_cast<float>(batch_mean[k]);
      running_var[k] = static_cast<float>(batch_var[k]);
    }
  }
  const std::vector<float>* values[] = {&running_mean, &running_var, &running_mean, &running_var};
  for (int i = 0; i < 4; ++i) {
    TensorPtr out = AllocateOutput<float>(ctx, 1 + i, {c});
    if (!out) return;
    std::copy(values[i]->begin(), values[i]->end(), Data<float>(out));
    if (a.is_training && i >= 2) {  // reserve spaces hold the batch statistics themselves
      for (int64_t k = 0; k < c; ++k)
        Data<float>(out)[k] = static_cast<float>(i == 2 ? batch_mean[k] : batch_var[k]);
    }
  }
  AllocateOutput<float>(ctx, 5, {0});
}

template <typename... Ts>
void RegisterBiasAdd(Types<Ts...>, TF_Status* status) {
  (RegisterKernel("BiasAdd", "T", DtypeOf<Ts>::value, &BiasAddKernel<Ts>::Compute, status,
                  kernels::CreateBiasAdd, kernels::DeleteBiasAdd),
   ...);
}

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterKernel2("FusedBatchNormV3", "T", TF_FLOAT, "U", TF_FLOAT, BatchNormCompute, status,
                  kernels::CreateBatchNorm, kernels::DeleteBatchNorm);
  RegisterForTypes<Softmax<false>::Kernel>("Softmax", FloatTypes(), status);
  RegisterForTypes<Softmax<true>::Kernel>("LogSoftmax", FloatTypes(), status);
  RegisterBiasAdd(RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
