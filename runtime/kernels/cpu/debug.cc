// CheckNumerics and CheckNumericsV2 (scan for NaN and Inf, then forward the input),
// EnsureShape (check the shape, forward) and Snapshot (a copy in a new buffer; no
// strings, as in TensorFlow).
#include <cmath>
#include <cstring>

#include "../debug_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

bool Forward(TF_OpKernelContext* ctx, TF_Tensor* input) {
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, input, s);
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

template <typename T, bool kV2>
struct CheckNumericsKernel {
  static void Compute(void* attrs, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    const T* x = Data<T>(input);
    const int64_t n = TF_TensorElementCount(input.get());
    unsigned found = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto v = Widen(x[i]);
      if (std::isnan(v)) found |= kernels::kFoundNaN;
      else if (std::isinf(v)) found |= v > 0 ? kernels::kFoundPosInf : kernels::kFoundNegInf;
    }
    if (found)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  kernels::NumericsMessage(found, kV2, *static_cast<std::string*>(attrs)));
    Forward(ctx, input.get());
  }
};

void EnsureShapeCompute(void* attrs, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  if (!kernels::CheckExpectedShape(ctx, *static_cast<kernels::ExpectedShape*>(attrs),
                                   Dims(input.get())))
    return;
  Forward(ctx, input.get());
}

void SnapshotCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  const std::vector<int64_t> dims = Dims(input.get());
  const TF_DataType type = TF_TensorType(input.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, type, dims);
  if (!out) return;
  const size_t bytes = TF_TensorByteSize(input.get());
  if (bytes) std::memcpy(TF_TensorData(out.get()), TF_TensorData(input.get()), bytes);
}

template <typename T> using CheckV1 = CheckNumericsKernel<T, false>;
template <typename T> using CheckV2 = CheckNumericsKernel<T, true>;

template <typename... Ts>
void RegisterChecks(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CheckNumerics", {{"T", DtypeOf<Ts>::value}}, {}, &CheckV1<Ts>::Compute,
                            kernels::CreateMessage, kernels::DeleteMessage}, status), ...);
  (RegisterKernel(kDevice, {"CheckNumericsV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &CheckV2<Ts>::Compute, kernels::CreateMessage,
                            kernels::DeleteMessage}, status), ...);
}

}  // namespace

void RegisterDebugKernels(TF_Status* status) {
  RegisterChecks(FloatTypes(), status);
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"EnsureShape", {{"T", t}}, {}, EnsureShapeCompute,
                             kernels::CreateExpectedShape, kernels::DeleteExpectedShape}, status);
    RegisterKernel(kDevice, {"Snapshot", {{"T", t}}, {}, SnapshotCompute}, status);
  }
  RegisterKernel(kDevice, {"EnsureShape", {{"T", TF_STRING}}, {}, EnsureShapeCompute,
                           kernels::CreateExpectedShape, kernels::DeleteExpectedShape}, status);
}

}  // namespace cpu
}  // namespace opgen
