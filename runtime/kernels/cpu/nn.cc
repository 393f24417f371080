// Neural-network kernels: Softmax and LogSoftmax over the last axis, BiasAdd.
#include <algorithm>
#include <cmath>
#include <cstring>

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
      TensorPtr logits = Input(ctx, 0);
      if (!logits) return;
      std::vector<int64_t> dims = Dims(logits.get());
      if (dims.empty()) {
        Fail(ctx, TF_INVALID_ARGUMENT, "logits must have rank >= 1, got a scalar");
        return;
      }
      TensorPtr output = AllocateOutput<T>(ctx, 0, dims);
      if (!output) return;
      const int64_t depth = dims.back();
      const int64_t rows = depth == 0 ? 0 : NumElements(dims) / depth;
      const T* in = Data<T>(logits);
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

struct BiasAddAttrs { bool channels_first = false; };

void* CreateBiasAdd(TF_OpKernelConstruction* ctx) {
  auto* attrs = new BiasAddAttrs();
  char format[8] = {0};
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrString(ctx, "data_format", format, sizeof(format) - 1, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  attrs->channels_first = std::strcmp(format, "NCHW") == 0;
  return attrs;
}
void DeleteBiasAdd(void* p) { delete static_cast<BiasAddAttrs*>(p); }

template <typename T>
struct BiasAddKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const bool channels_first = static_cast<BiasAddAttrs*>(state)->channels_first;
    TensorPtr value = Input(ctx, 0), bias = Input(ctx, 1);
    if (!value || !bias) return;
    std::vector<int64_t> dims = Dims(value.get()), bdims = Dims(bias.get());
    const size_t channel_axis = channels_first ? 1 : dims.size() - 1;
    if (dims.size() < 2 || bdims.size() != 1 || bdims[0] != dims[channel_axis]) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "Must provide as many biases as the channel dimension of the input: value " +
               ShapeString(dims) + ", bias " + ShapeString(bdims));
      return;
    }
    TensorPtr output = AllocateOutput<T>(ctx, 0, dims);
    if (!output || NumElements(dims) == 0) return;
    const int64_t channels = dims[channel_axis];
    int64_t inner = 1;
    for (size_t d = channel_axis + 1; d < dims.size(); ++d) inner *= dims[d];
    const int64_t n = NumElements(dims);
    const T* x = Data<T>(value);
    const T* b = Data<T>(bias);
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

struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;
  bool channels_last = true;
};

void* CreateBatchNorm(TF_OpKernelConstruction* ctx) {
  auto* attrs = new BatchNormAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &attrs->epsilon, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrFloat(ctx, "exponential_avg_factor", &attrs->exponential_avg_factor, s.get());
  char format[8] = {0};
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrString(ctx, "data_format", format, sizeof(format) - 1, s.get());
  if (TF_GetCode(s.get()) == TF_OK && format[1] == 'C')  // NCHW, NCDHW
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "FusedBatchNormV3: only channels-last layouts are implemented");
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return attrs;
  }
  attrs->is_training = GetBoolAttr(ctx, "is_training");
  return attrs;
}
void DeleteBatchNorm(void* p) { delete static_cast<BatchNormAttrs*>(p); }

// FusedBatchNormV3 on float, channels last. Inference normalises with the given
// statistics; training computes them over every dimension but the channel one and
// blends them into the running ones with exponential_avg_factor.
void BatchNormCompute(void* state, TF_OpKernelContext* ctx) {
  const BatchNormAttrs& a = *static_cast<BatchNormAttrs*>(state);
  TensorPtr x = Input(ctx, 0), scale = Input(ctx, 1), offset = Input(ctx, 2), mean = Input(ctx, 3),
            variance = Input(ctx, 4);
  if (!x || !scale || !offset || !mean || !variance) return;
  std::vector<int64_t> dims = Dims(x.get());
  const int64_t c = dims.empty() ? 0 : dims.back();
  if (dims.size() < 2 || TF_TensorElementCount(scale.get()) != c ||
      TF_TensorElementCount(offset.get()) != c ||
      (!a.is_training && (TF_TensorElementCount(mean.get()) != c ||
                          TF_TensorElementCount(variance.get()) != c))) {
    Fail(ctx, TF_INVALID_ARGUMENT, "FusedBatchNormV3: scale, offset, mean and variance need one "
                                   "value per channel of x " + ShapeString(dims));
    return;
  }
  const int64_t rows = NumElements(dims) / std::max<int64_t>(c, 1);
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
      const double old_mean = TF_TensorElementCount(mean.get()) == c ? Data<float>(mean)[k] : 0.0;
      const double old_var = TF_TensorElementCount(variance.get()) == c ? Data<float>(variance)[k] : 0.0;
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
                  CreateBiasAdd, DeleteBiasAdd),
   ...);
}

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterKernel2("FusedBatchNormV3", "T", TF_FLOAT, "U", TF_FLOAT, BatchNormCompute, status,
                  CreateBatchNorm, DeleteBatchNorm);
  RegisterForTypes<Softmax<false>::Kernel>("Softmax", FloatTypes(), status);
  RegisterForTypes<Softmax<true>::Kernel>("LogSoftmax", FloatTypes(), status);
  RegisterBiasAdd(RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
