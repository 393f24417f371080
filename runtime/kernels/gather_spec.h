// GatherV2's attr and operands checked and its output shape worked out, on the host:
// shared by the CPU kernel and the CUDA plugin's. The indices' bounds are checked by
// each kernel where the indices lie (the GPU's are in device memory).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// batch_dims other than 0 are refused at construction, with a clear message. The
// kernel keeps no state.
inline void* CreateGather(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int64_t batch_dims = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dims", &batch_dims, s.get());
  if (TF_GetCode(s.get()) == TF_OK && batch_dims != 0)
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "GatherV2 with batch_dims != 0 is not implemented yet");
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return nullptr;
}

// GatherV2(params, indices, axis): params seen as [outer, dims[axis], inner];
// out[o][j][k] = params[o][indices[j]][k].
struct GatherPlan {
  TensorPtr params, indices;
  std::vector<int64_t> dims;  // params' shape
  int64_t axis = 0;           // non-negative
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> out_dims;  // dims with dims[axis] replaced by the indices' shape
};

// False after reporting the failure. The TF1-era Gather(params, indices) (two inputs, no
// state) gathers along axis 0.
inline bool PlanGather(TF_OpKernelContext* ctx, GatherPlan* plan) {
  const bool v1 = TF_NumInputs(ctx) == 2;
  TensorPtr params = Input(ctx, 0), indices = Input(ctx, 1);
  if (!params || !indices) return false;
  const std::vector<int64_t> dims = Dims(params.get()), idims = Dims(indices.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> axis{0};
  if (v1 && rank < 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "params must be at least 1 dimensional");
    return false;
  }
  if (!v1) {
    TensorPtr axis_t = Input(ctx, 2);
    if (!axis_t) return false;
    axis = IndexValues(axis_t.get());
  }
  if (axis.size() != 1 || axis[0] < -rank || axis[0] >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: axis must be a scalar in [" + std::to_string(-rank) +
                                       ", " + std::to_string(rank) + ")");
    return false;
  }
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  OuterInner(dims, a, &plan->outer, &plan->inner);
  std::vector<int64_t> out(dims.begin(), dims.begin() + a);
  out.insert(out.end(), idims.begin(), idims.end());
  out.insert(out.end(), dims.begin() + a + 1, dims.end());
  plan->params = std::move(params);
  plan->indices = std::move(indices);
  plan->dims = dims;
  plan->axis = a;
  plan->out_dims = std::move(out);
  return true;
}

}  // namespace kernels
}  // namespace opgen
