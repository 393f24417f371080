// Row-major GEMMs on the device, shared by MatMul, BatchMatMulV2 and Conv2D: float
// types through cuBLAS (called on the column-major transposed problem, so nothing is
// copied or transposed), integer types through a tiled kernel that wraps on overflow
// as the CPU kernels do.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {

// Where the matrices of a batch of GEMMs lie: batch entry i (flat, row-major over
// `dims`) multiplies A at a + (sum over d of index_d * a_stride[d]) * m * k, and
// likewise B, into C at c + i * m * n. A stride of 0 broadcasts that operand.
struct BatchLayout {
  static constexpr int kMaxRank = 8;
  int rank = 0;  // 0: a single GEMM
  int64_t dims[kMaxRank] = {};
  int64_t a_stride[kMaxRank] = {};  // in matrices
  int64_t b_stride[kMaxRank] = {};

  int64_t count() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= dims[d];
    return n;
  }
};

// The layout of numpy-style broadcast batch dimensions `a_batch` and `b_batch` (both
// already left-padded with 1s to the same rank and known to be compatible), with
// dimensions of size 1 dropped and neighbours merged where the strides allow. False
// when more than kMaxRank dimensions remain.
bool BroadcastBatch(const std::vector<int64_t>& a_batch, const std::vector<int64_t>& b_batch,
                    BatchLayout* layout);

// C = op(A) @ op(B) for each entry of `batch`, all queued on `stream`: op transposes
// when ta / tb is set, and with `adjoint` also conjugates (complex types: BatchMatMulV2's
// adj_x / adj_y); op(A) is m x k, op(B) k x n, C m x n, all row-major and dense.
// False after reporting the failure on `ctx`. Defined for float, double, __half,
// __nv_bfloat16, int16_t, int32_t, int64_t and complex (ComplexParts<float / double>).
template <typename T>
bool Gemm(TF_OpKernelContext* ctx, cudaStream_t stream, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const T* a, const T* b, T* c, const BatchLayout& batch = BatchLayout(),
          bool adjoint = false);

}  // namespace cuda
}  // namespace opgen
