// The graph optimizer's fused kernels: _OpgenFusedConv2D through the convolution core
// with its epilogue (conv2d_float.h), _OpgenFusedMatMul as one GEMM and the same
// epilogue while the product is still in cache. float32 only, as the ops' OpDefs say.
#include <algorithm>
#include <vector>

#include "../conv_family_spec.h"
#include "../fused_spec.h"
#include "conv2d_simd.h"  // ApplyActivationBlock
#include "conv2d_float.h"
#include "conv_groups.h"
#include "depthwise_float.h"
#include "gemm.h"
#include "kernel_util.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OPGEN_FUSED_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define OPGEN_FUSED_CLONES
#endif

namespace opgen {
namespace cpu {
namespace {

// y[c] = x[c] * scale[c] + offset[c] over one row of channels (vectorised per CPU).
OPGEN_FUSED_CLONES
void ScaleShiftRow(const float* __restrict x, const float* __restrict scale,
                   const float* __restrict offset, float* __restrict y, int64_t n) {
  for (int64_t c = 0; c < n; ++c) y[c] = x[c] * scale[c] + offset[c];
}

// The CPU kernels' state: the attrs, and for a constant filter the prepared forms of it.
struct FusedConvState {
  kernels::FusedConvAttrs attrs;
  FilterCache filter_cache;
};

void* CreateFusedConvCpu(TF_OpKernelConstruction* ctx) {
  auto* state = new FusedConvState();
  kernels::ReadFusedConv(ctx, "CPU", &state->attrs);
  return state;
}
void DeleteFusedConvCpu(void* state) { delete static_cast<FusedConvState*>(state); }

Epilogue MakeEpilogue(const kernels::FusedEpilogueAttrs& attrs, const float* bias) {
  Epilogue ep;
  ep.bias = bias;
  ep.activation = attrs.activation;
  ep.alpha = attrs.alpha;
  return ep;
}

// The epilogue over a [rows, cols] output on all cores (MatMul's: OpenBLAS's GEMM has no
// epilogue of its own). The convolution cores apply theirs inside their parallel loops.
void ParallelEpilogue(float* out, int64_t rows, int64_t cols, const Epilogue& ep) {
  if (ep.empty() || rows * cols == 0) return;
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    ApplyEpilogue(out + begin * cols, end - begin, cols, ep);
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(cols, 1)));
}

// _OpgenFusedConv2D, and with `with_residual` _OpgenFusedConv2DWithResidual.
template <bool with_residual>
void FusedConv2DCompute(void* state, TF_OpKernelContext* ctx) {
  auto& cpu_state = *static_cast<FusedConvState*>(state);
  const kernels::FusedConvAttrs& attrs = cpu_state.attrs;
  const kernels::Window2D& w = attrs.window;
  kernels::WindowPlan p;
  if (!kernels::PlanConv2D(ctx, w, &p)) return;
  TensorPtr bias, residual;
  if (!kernels::CheckFusedBias(ctx, p.oc, &bias)) return;
  if (with_residual && !kernels::CheckFusedResidual(ctx, p.out_dims, &residual)) return;
  TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
  if (!output || p.batch * p.oh * p.ow * p.oc == 0) return;
  const Conv2DGeometry g{p.batch, p.ih, p.iw, p.ic, p.kh, p.kw, p.oc, p.oh, p.ow,
                         w.strides[1], w.strides[2], w.dilations[1], w.dilations[2], p.pt, p.pl};
  Epilogue ep = MakeEpilogue(attrs.epilogue, Data<float>(bias));
  if (with_residual) ep.residual = Data<float>(residual);
  if (p.groups == 1) {
    Conv2DFloat(g, Data<float>(p.input), Data<float>(p.filter), Data<float>(output), ep,
                attrs.constant_filter ? &cpu_state.filter_cache : nullptr);
    return;
  }
  // Grouped: the convolution (depthwise for a group per channel, else per group), then
  // the epilogue over the assembled output.
  if (p.groups == p.ic) {
    DepthwiseConv2DFloat(DepthwiseOf(w, p), Data<float>(p.input), Data<float>(p.filter),
                         Data<float>(output), Epilogue{});
  } else {
    ForEachConvGroup(p, Data<float>(p.input), Data<float>(p.filter), Data<float>(output),
                     [&](const float* in_g, const float* f_g, float* out_g, int64_t ic, int64_t oc) {
                       Conv2DGeometry gg = g;
                       gg.ic = ic;
                       gg.oc = oc;
                       Conv2DFloat(gg, in_g, f_g, out_g, Epilogue{});
                     });
  }
  float* out = Data<float>(output);
  const int64_t oc = p.oc;
  ParallelFor(p.batch * p.oh * p.ow, [&](int64_t begin, int64_t end) {
    ApplyEpilogue(out + begin * oc, end - begin, oc, ep,
                  ep.residual != nullptr ? ep.residual + begin * oc : nullptr);
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(oc, 1)));
}

void FusedDepthwiseCompute(void* state, TF_OpKernelContext* ctx) {
  const kernels::FusedConvAttrs& attrs = static_cast<FusedConvState*>(state)->attrs;
  const kernels::Window2D& w = attrs.window;
  kernels::WindowPlan p;
  int64_t multiplier = 1;
  if (!kernels::PlanDepthwise(ctx, w, &p, &multiplier)) return;
  TensorPtr bias;
  if (!kernels::CheckFusedBias(ctx, p.oc, &bias)) return;
  TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
  if (!output || NumElements(p.out_dims) == 0) return;
  const DepthwiseGeometry g{p.batch, p.ih, p.iw, p.ic, p.kh, p.kw, multiplier, p.oh, p.ow,
                            w.strides[1], w.strides[2], w.dilations[1], w.dilations[2], p.pt, p.pl};
  DepthwiseConv2DFloat(g, Data<float>(p.input), Data<float>(p.filter), Data<float>(output),
                       MakeEpilogue(attrs.epilogue, Data<float>(bias)));
}

void FusedMatMulCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<const kernels::FusedMatMulAttrs*>(state);
  kernels::MatMulPlan p;
  if (!kernels::PlanMatMul(ctx, attrs.matmul, &p)) return;
  TensorPtr bias;
  if (!kernels::CheckFusedBias(ctx, p.n, &bias)) return;
  TensorPtr c = AllocateOutput<float>(ctx, 0, p.out_dims);
  if (!c || p.m * p.n == 0) return;
  float* out = Data<float>(c);
  if (p.k == 0) {
    for (int64_t i = 0; i < p.m * p.n; ++i) out[i] = 0.0f;
  } else {
    Gemm(attrs.matmul.transpose_a, attrs.matmul.transpose_b, p.m, p.n, p.k, Data<float>(p.a),
         Data<float>(p.b), out);
  }
  ParallelEpilogue(out, p.m, p.n, MakeEpilogue(attrs.epilogue, Data<float>(bias)));
}

void FusedScaleShiftCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& ep_attrs = *static_cast<const kernels::FusedEpilogueAttrs*>(state);
  kernels::ScaleShiftPlan p;
  if (!kernels::PlanScaleShift(ctx, &p)) return;
  TensorPtr y = AllocateOutput<float>(ctx, 0, p.out_dims);
  const int64_t C = p.channels, rows = C == 0 ? 0 : NumElements(p.out_dims) / C;
  if (!y || rows == 0) return;
  const float* x = Data<float>(p.x);
  const float* scale = Data<float>(p.scale);
  const float* offset = Data<float>(p.offset);
  float* out = Data<float>(y);
  Epilogue act;  // the activation alone: the offset is already in
  act.activation = ep_attrs.activation;
  act.alpha = ep_attrs.alpha;
  // Few channels (an RGB image's 3): scale and offset repeated over `period` rows, so
  // that one vector loop covers many rows instead of a call per 3-float row.
  const int64_t period = p.repeat_x || C >= 64 ? 1 : (64 + C - 1) / C;
  std::vector<float> tiled_scale, tiled_offset;
  if (period > 1) {
    for (int64_t i = 0; i < period; ++i) {
      tiled_scale.insert(tiled_scale.end(), scale, scale + C);
      tiled_offset.insert(tiled_offset.end(), offset, offset + C);
    }
  }
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    if (period > 1) {
      for (int64_t r = begin; r < end; r += period) {
        const int64_t n = std::min(period, end - r) * C;
        ScaleShiftRow(x + r * C, tiled_scale.data(), tiled_offset.data(), out + r * C, n);
      }
    } else {
      for (int64_t r = begin; r < end; ++r) {
        float* row = out + r * C;
        if (p.repeat_x) {
          for (int64_t c = 0; c < C; ++c) row[c] = x[r] * scale[c] + offset[c];
        } else {
          ScaleShiftRow(x + r * C, scale, offset, row, C);
        }
      }
    }
    ApplyActivationBlock(out + begin * C, end - begin, C, C, act);
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(C, 1)));
}

}  // namespace

void RegisterFusedKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"_OpgenFusedConv2D", {{"T", TF_FLOAT}}, {}, &FusedConv2DCompute<false>,
      CreateFusedConvCpu, DeleteFusedConvCpu}, status);
  RegisterKernel(kDevice, {"_OpgenFusedConv2DWithResidual", {{"T", TF_FLOAT}}, {},
      &FusedConv2DCompute<true>, CreateFusedConvCpu, DeleteFusedConvCpu}, status);
  RegisterKernel(kDevice, {"_OpgenFusedDepthwiseConv2dNative", {{"T", TF_FLOAT}}, {},
      &FusedDepthwiseCompute, CreateFusedConvCpu, DeleteFusedConvCpu}, status);
  RegisterKernel(kDevice, {"_OpgenFusedMatMul", {{"T", TF_FLOAT}}, {}, &FusedMatMulCompute,
      kernels::CreateFusedMatMul, kernels::DeleteFusedMatMul}, status);
  RegisterKernel(kDevice, {"_OpgenFusedScaleShift", {{"T", TF_FLOAT}}, {}, &FusedScaleShiftCompute,
      kernels::CreateFusedScaleShift, kernels::DeleteFusedScaleShift}, status);
}

}  // namespace cpu
}  // namespace opgen
