// Neural-network kernels: Softmax and LogSoftmax over the last axis, BiasAdd.
#include <cmath>
#include <cstring>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// One pass for the max, one for the sum of exponentials, one to write: numerically
// stable for large logits.
template <bool kLog>
struct SoftmaxKernel {
  template <typename T>
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
    for (int64_t r = 0; r < rows; ++r) {
      const T* x = in + r * depth;
      T* y = out + r * depth;
      T max = x[0];
      for (int64_t i = 1; i < depth; ++i) max = x[i] > max ? x[i] : max;
      T sum = 0;
      for (int64_t i = 0; i < depth; ++i) sum += std::exp(x[i] - max);
      if constexpr (kLog) {
        const T log_sum = std::log(sum);
        for (int64_t i = 0; i < depth; ++i) y[i] = x[i] - max - log_sum;
      } else {
        for (int64_t i = 0; i < depth; ++i) y[i] = std::exp(x[i] - max) / sum;
      }
    }
  }
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
    if (!output) return;
    const int64_t channels = dims[channel_axis];
    int64_t inner = 1;
    for (size_t d = channel_axis + 1; d < dims.size(); ++d) inner *= dims[d];
    const int64_t n = NumElements(dims);
    const T* x = Data<T>(value);
    const T* b = Data<T>(bias);
    T* y = Data<T>(output);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b[(i / inner) % channels];
  }
};

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterKernel("Softmax", "T", TF_FLOAT, &SoftmaxKernel<false>::Compute<float>, status);
  RegisterKernel("Softmax", "T", TF_DOUBLE, &SoftmaxKernel<false>::Compute<double>, status);
  RegisterKernel("LogSoftmax", "T", TF_FLOAT, &SoftmaxKernel<true>::Compute<float>, status);
  RegisterKernel("LogSoftmax", "T", TF_DOUBLE, &SoftmaxKernel<true>::Compute<double>, status);
  RegisterKernel("BiasAdd", "T", TF_FLOAT, &BiasAddKernel<float>::Compute, status, CreateBiasAdd, DeleteBiasAdd);
  RegisterKernel("BiasAdd", "T", TF_DOUBLE, &BiasAddKernel<double>::Compute, status, CreateBiasAdd, DeleteBiasAdd);
  RegisterKernel("BiasAdd", "T", TF_INT32, &BiasAddKernel<int32_t>::Compute, status, CreateBiasAdd, DeleteBiasAdd);
  RegisterKernel("BiasAdd", "T", TF_INT64, &BiasAddKernel<int64_t>::Compute, status, CreateBiasAdd, DeleteBiasAdd);
}

}  // namespace cpu
}  // namespace opgen
