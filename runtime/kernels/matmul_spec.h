// MatMul's and BatchMatMulV2's attrs, shape checks and output shapes (with
// BatchMatMulV2's batch dims broadcast), on the host: shared by the CPU kernels and the
// CUDA plugin's, which differ only in the GEMMs.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "broadcast_spec.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Whether op(a) and op(b) are the transposes of the operands: MatMul's transpose_a /
// transpose_b, BatchMatMulV2's adj_x / adj_y (the adjoint is the transpose for the
// real types these kernels take). The kernel's state.
struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
  bool equal_batches = false;  // BatchMatMul (TF1-era): no broadcasting of batch dims
};

inline void* CreateMatMulAttrs(TF_OpKernelConstruction* ctx, const char* a_name,
                               const char* b_name) {
  auto* attrs = new MatMulAttrs();
  StatusPtr s = NewStatus();
  attrs->transpose_a = BoolAttr(ctx, a_name, s.get());
  if (TF_GetCode(s.get()) == TF_OK) attrs->transpose_b = BoolAttr(ctx, b_name, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void* CreateMatMul(TF_OpKernelConstruction* ctx) {
  return CreateMatMulAttrs(ctx, "transpose_a", "transpose_b");
}
inline void* CreateBatchMatMul(TF_OpKernelConstruction* ctx) {
  return CreateMatMulAttrs(ctx, "adj_x", "adj_y");
}
inline void* CreateBatchMatMulV1(TF_OpKernelConstruction* ctx) {
  auto* attrs = static_cast<MatMulAttrs*>(CreateMatMulAttrs(ctx, "adj_x", "adj_y"));
  attrs->equal_batches = true;
  return attrs;
}
inline void DeleteMatMulAttrs(void* p) { delete static_cast<MatMulAttrs*>(p); }

// op(a) is m x k and op(b) k x n, for one matrix (MatMul) or each batch entry
// (BatchMatMulV2); the output is out_dims.
struct MatMulPlan {
  TensorPtr a, b;
  int64_t m = 0, n = 0, k = 0;
  // BatchMatMulV2: each operand's batch dims, left-padded with 1s to the rank of the
  // broadcast batch dims `batch` (empty for MatMul).
  std::vector<int64_t> a_batch, b_batch, batch;
  std::vector<int64_t> out_dims;
};

// MatMul(a, b): two matrices. False after reporting the failure.
inline bool PlanMatMul(TF_OpKernelContext* ctx, const MatMulAttrs& attrs, MatMulPlan* plan) {
  TensorPtr a = Input(ctx, 0), b = Input(ctx, 1);
  if (!a || !b) return false;
  const std::vector<int64_t> ad = Dims(a.get()), bd = Dims(b.get());
  if (ad.size() != 2 || bd.size() != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] must be matrices, got shapes " +
                                       ShapeString(ad) + " and " + ShapeString(bd));
    return false;
  }
  const bool ta = attrs.transpose_a, tb = attrs.transpose_b;
  const int64_t m = ta ? ad[1] : ad[0], k = ta ? ad[0] : ad[1];
  const int64_t k2 = tb ? bd[1] : bd[0], n = tb ? bd[0] : bd[1];
  if (k != k2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Matrix size-incompatible: In[0]: " + ShapeString(ad) + ", In[1]: " + ShapeString(bd) +
             " (transpose_a=" + (ta ? "true" : "false") + ", transpose_b=" + (tb ? "true" : "false") +
             ")");
    return false;
  }
  plan->a = std::move(a);
  plan->b = std::move(b);
  plan->m = m;
  plan->n = n;
  plan->k = k;
  plan->out_dims = {m, n};
  return true;
}

// BatchMatMulV2(x, y): matrices in the last two dims, the batch dims before them
// broadcast as in numpy's matmul. False after reporting the failure.
inline bool PlanBatchMatMul(TF_OpKernelContext* ctx, const MatMulAttrs& attrs, MatMulPlan* plan) {
  TensorPtr x = Input(ctx, 0), y = Input(ctx, 1);
  if (!x || !y) return false;
  const std::vector<int64_t> xd = Dims(x.get()), yd = Dims(y.get());
  if (xd.size() < 2 || yd.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank >= 2, got " +
                                       ShapeString(xd) + " and " + ShapeString(yd));
    return false;
  }
  const bool ta = attrs.transpose_a, tb = attrs.transpose_b;
  const size_t xr = xd.size(), yr = yd.size();
  if (attrs.equal_batches) {  // TensorFlow's messages for BatchMatMul
    if (xr != yr) {
      Fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] has different ndims: " + ShapeString(xd) +
                                         " vs. " + ShapeString(yd));
      return false;
    }
    for (size_t d = 0; d + 2 < xr; ++d) {
      if (xd[d] != yd[d]) {
        Fail(ctx, TF_INVALID_ARGUMENT, "In[0].dim(" + std::to_string(d) + ") and In[1].dim(" +
                                           std::to_string(d) + ") must be the same: " +
                                           ShapeString(xd) + " vs " + ShapeString(yd));
        return false;
      }
    }
  }
  const int64_t m = ta ? xd[xr - 1] : xd[xr - 2], k = ta ? xd[xr - 2] : xd[xr - 1];
  const int64_t k2 = tb ? yd[yr - 1] : yd[yr - 2], n = tb ? yd[yr - 2] : yd[yr - 1];
  std::vector<int64_t> xb(xd.begin(), xd.end() - 2), yb(yd.begin(), yd.end() - 2);
  const size_t rank = std::max(xb.size(), yb.size());
  xb.insert(xb.begin(), rank - xb.size(), 1);
  yb.insert(yb.begin(), rank - yb.size(), 1);
  std::vector<int64_t> batch;
  if (k != k2 || !BroadcastShape(xb, yb, &batch)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "BatchMatMulV2: incompatible shapes " + ShapeString(xd) +
                                       " and " + ShapeString(yd));
    return false;
  }
  plan->a = std::move(x);
  plan->b = std::move(y);
  plan->m = m;
  plan->n = n;
  plan->k = k;
  plan->a_batch = std::move(xb);
  plan->b_batch = std::move(yb);
  plan->out_dims = batch;
  plan->out_dims.push_back(m);
  plan->out_dims.push_back(n);
  plan->batch = std::move(batch);
  return true;
}

}  // namespace kernels
}  // namespace opgen
