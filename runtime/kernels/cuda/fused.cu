// The graph optimizer's fused kernels on the GPU (_OpgenFusedConv2D, _OpgenFusedMatMul,
// float32): a plain direct convolution / the cuBLAS GEMM of gemm.cu, then one epilogue
// pass adding the bias and applying the activation. Attrs and checks are the CPU
// kernels' (../fused_spec.h); the activation formulas match conv2d_float.cc's.
#include <cmath>

#include "../fused_spec.h"
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

// out[i] = act(out[i] + bias[i % channels]) over a row-major [rows, channels] block.
__global__ void EpilogueKernel(float* out, const float* bias, int64_t n, int64_t channels,
                               Activation act, float alpha) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = Activate(out[i] + bias[i % channels], act, alpha);
}

bool LaunchEpilogue(TF_OpKernelContext* ctx, cudaStream_t stream, float* out, const float* bias,
                    int64_t n, int64_t channels, const kernels::FusedEpilogueAttrs& ep) {
  EpilogueKernel<<<BlocksFor(n), kThreads, 0, stream>>>(out, bias, n, channels, ep.activation,
                                                        ep.alpha);
  return CheckLaunch(ctx, "fused epilogue");
}

struct ConvShape {
  int64_t ih, iw, ic, oh, ow, oc, kh, kw, sh, sw, dh, dw, pt, pl;
};

// One output value per thread: the window's taps times the filter, summed in float.
__global__ void DirectConvKernel(const float* in, const float* filter, float* out, int64_t n,
                                 ConvShape s) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i % s.oc, x = (i / s.oc) % s.ow, y = (i / (s.oc * s.ow)) % s.oh;
    const int64_t b = i / (s.oc * s.ow * s.oh);
    float acc = 0.0f;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int64_t sy = y * s.sh - s.pt + ky * s.dh;
      if (sy < 0 || sy >= s.ih) continue;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t sx = x * s.sw - s.pl + kx * s.dw;
        if (sx < 0 || sx >= s.iw) continue;
        const float* pixel = in + ((b * s.ih + sy) * s.iw + sx) * s.ic;
        const float* taps = filter + (ky * s.kw + kx) * s.ic * s.oc + o;
        for (int64_t c = 0; c < s.ic; ++c) acc += pixel[c] * taps[c * s.oc];
      }
    }
    out[i] = acc;
  }
}

void* CreateFusedConvGpu(TF_OpKernelConstruction* ctx) { return kernels::CreateFusedConv(ctx, "GPU"); }

void FusedConv2DCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<const kernels::FusedConvAttrs*>(state);
  const kernels::Window2D& w = attrs.window;
  kernels::WindowPlan p;
  if (!kernels::PlanConv2D(ctx, w, &p)) return;
  TensorPtr bias;
  if (!kernels::CheckFusedBias(ctx, p.oc, &bias)) return;
  TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
  const int64_t n = p.batch * p.oh * p.ow * p.oc;
  if (!output || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const ConvShape s{p.ih, p.iw, p.ic, p.oh, p.ow, p.oc, p.kh, p.kw, w.strides[1], w.strides[2],
                    w.dilations[1], w.dilations[2], p.pt, p.pl};
  DirectConvKernel<<<BlocksFor(n), kThreads, 0, stream>>>(Data<float>(p.input),
                                                          Data<float>(p.filter),
                                                          Data<float>(output), n, s);
  if (!CheckLaunch(ctx, "_OpgenFusedConv2D")) return;
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

}  // namespace

void RegisterFusedKernels(TF_Status* status) {
  Register(KernelSpec{"_OpgenFusedConv2D", {{"T", TF_FLOAT}}, {}, &FusedConv2DCompute,
                      CreateFusedConvGpu, kernels::DeleteFusedConv},
           status);
  Register(KernelSpec{"_OpgenFusedMatMul", {{"T", TF_FLOAT}}, {}, &FusedMatMulCompute,
                      kernels::CreateFusedMatMul, kernels::DeleteFusedMatMul},
           status);
}

}  // namespace cuda
}  // namespace opgen
