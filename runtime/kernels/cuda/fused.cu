// The graph optimizer's fused kernels on the GPU (_OpgenFusedConv2D,
// _OpgenFusedDepthwiseConv2dNative, _OpgenFusedMatMul, float32): Conv2D's and
// DepthwiseConv2dNative's own computations (conv_gpu.h) / the cuBLAS GEMM of gemm.cu,
// then one epilogue pass adding the bias and applying the activation. Attrs and checks are the CPU
// kernels' (../fused_spec.h); the activation formulas match conv2d_float.cc's.
#include <cmath>

#include "../conv_family_spec.h"
#include "../fused_spec.h"
#include "conv_gpu.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::Activation;

__device__ inline float Activate(float x, Activation act, float alpha) {
  switch (act) {
    case Activation::kNone: return x;
    case Activation::kRelu: return isnan(x) ? x : fmaxf(x, 0.0f);
    case Activation::kRelu6: return isnan(x) ? x : fminf(fmaxf(x, 0.0f), 6.0f);
    case Activation::kElu: return x < 0.0f ? expm1f(x) : x;
    case Activation::kLeakyRelu: return x < 0.0f ? alpha * x : x;
    case Activation::kSigmoid: return 1.0f / (1.0f + expf(-x));
    case Activation::kSwish: return x / (1.0f + expf(-x));
    case Activation::kTanh: return tanhf(x);
    case Activation::kGeluExact: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case Activation::kGeluTanh:
      return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

// out[i] = act(out[i] + bias[i % channels] (+ residual[i])) over a row-major
// [rows, channels] block; `residual` may be null.
__global__ void EpilogueKernel(float* out, const float* bias, const float* residual, int64_t n,
                               int64_t channels, Activation act, float alpha) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float x = out[i] + bias[i % channels];
    if (residual != nullptr) x += residual[i];
    out[i] = Activate(x, act, alpha);
  }
}

bool LaunchEpilogue(TF_OpKernelContext* ctx, cudaStream_t stream, float* out, const float* bias,
                    int64_t n, int64_t channels, const kernels::FusedEpilogueAttrs& ep,
                    const float* residual = nullptr) {
  EpilogueKernel<<<BlocksFor(n), kThreads, 0, stream>>>(out, bias, residual, n, channels,
                                                        ep.activation, ep.alpha);
  return CheckLaunch(ctx, "fused epilogue");
}

void* CreateFusedConvGpu(TF_OpKernelConstruction* ctx) { return kernels::CreateFusedConv(ctx, "GPU"); }

// _OpgenFusedConv2D, and with `with_residual` _OpgenFusedConv2DWithResidual.
template <bool with_residual>
void FusedConv2DCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<const kernels::FusedConvAttrs*>(state);
  const kernels::Window2D& w = attrs.window;
  kernels::WindowPlan p;
  if (!kernels::PlanConv2D(ctx, w, &p)) return;
  TensorPtr bias, residual;
  if (!kernels::CheckFusedBias(ctx, p.oc, &bias)) return;
  if (with_residual && !kernels::CheckFusedResidual(ctx, p.out_dims, &residual)) return;
  TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
  const int64_t n = p.batch * p.oh * p.ow * p.oc;
  if (!output || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!Conv2DFloatGpu(ctx, stream, w, p, Data<float>(output))) return;
  LaunchEpilogue(ctx, stream, Data<float>(output), Data<float>(bias), n, p.oc, attrs.epilogue,
                 with_residual ? Data<float>(residual) : nullptr);
}

void FusedDepthwiseCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<const kernels::FusedConvAttrs*>(state);
  const kernels::Window2D& w = attrs.window;
  kernels::WindowPlan p;
  int64_t multiplier = 1;
  if (!kernels::PlanDepthwise(ctx, w, &p, &multiplier)) return;
  TensorPtr bias;
  if (!kernels::CheckFusedBias(ctx, p.oc, &bias)) return;
  TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
  const int64_t n = NumElements(p.out_dims);
  if (!output || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!DepthwiseFloatGpu(ctx, stream, w, p, multiplier, Data<float>(output))) return;
  LaunchEpilogue(ctx, stream, Data<float>(output), Data<float>(bias), n, p.oc, attrs.epilogue);
}

void FusedMatMulCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<const kernels::FusedMatMulAttrs*>(state);
  kernels::MatMulPlan p;
  if (!kernels::PlanMatMul(ctx, attrs.matmul, &p)) return;
  TensorPtr bias;
  if (!kernels::CheckFusedBias(ctx, p.n, &bias)) return;
  TensorPtr c = AllocateOutput<float>(ctx, 0, p.out_dims);
  if (!c || p.m * p.n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!Gemm<float>(ctx, stream, attrs.matmul.transpose_a, attrs.matmul.transpose_b, p.m, p.n,
                   p.k, Data<float>(p.a), Data<float>(p.b), Data<float>(c)))
    return;
  LaunchEpilogue(ctx, stream, Data<float>(c), Data<float>(bias), p.m * p.n, p.n, attrs.epilogue);
}

// y[i] = act(x[i or row] * scale[c] + offset[c]) over [rows, channels].
__global__ void ScaleShiftKernel(const float* x, const float* scale, const float* offset, float* y,
                                 int64_t n, int64_t channels, bool repeat_x, Activation act,
                                 float alpha) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = i % channels;
    const float v = x[repeat_x ? i / channels : i];
    y[i] = Activate(v * scale[c] + offset[c], act, alpha);
  }
}

void FusedScaleShiftCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& ep = *static_cast<const kernels::FusedEpilogueAttrs*>(state);
  kernels::ScaleShiftPlan p;
  if (!kernels::PlanScaleShift(ctx, &p)) return;
  TensorPtr y = AllocateOutput<float>(ctx, 0, p.out_dims);
  const int64_t n = NumElements(p.out_dims);
  if (!y || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  ScaleShiftKernel<<<BlocksFor(n), kThreads, 0, stream>>>(
      Data<float>(p.x), Data<float>(p.scale), Data<float>(p.offset), Data<float>(y), n,
      p.channels, p.repeat_x, ep.activation, ep.alpha);
  CheckLaunch(ctx, "_OpgenFusedScaleShift");
}

}  // namespace

void RegisterFusedKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"_OpgenFusedConv2D", {{"T", TF_FLOAT}}, {}, &FusedConv2DCompute<false>,
                      CreateFusedConvGpu, kernels::DeleteFusedConv},
           status);
  RegisterKernel(kDevice, {"_OpgenFusedConv2DWithResidual", {{"T", TF_FLOAT}}, {},
                      &FusedConv2DCompute<true>, CreateFusedConvGpu, kernels::DeleteFusedConv},
           status);
  RegisterKernel(kDevice, {"_OpgenFusedDepthwiseConv2dNative", {{"T", TF_FLOAT}}, {},
                      &FusedDepthwiseCompute, CreateFusedConvGpu, kernels::DeleteFusedConv},
           status);
  RegisterKernel(kDevice, {"_OpgenFusedMatMul", {{"T", TF_FLOAT}}, {}, &FusedMatMulCompute,
                      kernels::CreateFusedMatMul, kernels::DeleteFusedMatMul},
           status);
  RegisterKernel(kDevice, {"_OpgenFusedScaleShift", {{"T", TF_FLOAT}}, {}, &FusedScaleShiftCompute,
                      kernels::CreateFusedScaleShift, kernels::DeleteFusedScaleShift},
           status);
}

}  // namespace cuda
}  // namespace opgen
