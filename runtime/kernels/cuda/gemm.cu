// Row-major GEMMs on the device (see gemm.h).
#include "gemm.h"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "complex_parts.cuh"
#include "cublas_api.h"

namespace opgen {
namespace cuda {

bool BroadcastBatch(const std::vector<int64_t>& a_batch, const std::vector<int64_t>& b_batch,
                    BatchLayout* layout) {
  *layout = BatchLayout();
  const size_t rank = a_batch.size();
  int64_t a_stride = 1, b_stride = 1;  // of dimension d, in matrices, filled from the back
  std::vector<int64_t> sizes, as, bs;  // kept dimensions, back to front
  for (size_t d = rank; d-- > 0;) {
    const int64_t size = a_batch[d] == 1 ? b_batch[d] : a_batch[d];
    if (size != 1) {
      const int64_t sa = a_batch[d] == 1 ? 0 : a_stride, sb = b_batch[d] == 1 ? 0 : b_stride;
      // Merges into the (inner) dimension kept last when the pair walks memory as one.
      if (!sizes.empty() && sa == as.back() * sizes.back() && sb == bs.back() * sizes.back()) {
        sizes.back() *= size;
      } else {
        sizes.push_back(size);
        as.push_back(sa);
        bs.push_back(sb);
      }
    }
    a_stride *= a_batch[d];
    b_stride *= b_batch[d];
  }
  if (sizes.size() > static_cast<size_t>(BatchLayout::kMaxRank)) return false;
  layout->rank = static_cast<int>(sizes.size());
  for (int d = 0; d < layout->rank; ++d) {  // back to front -> front to back
    const size_t from = sizes.size() - 1 - d;
    layout->dims[d] = sizes[from];
    layout->a_stride[d] = as[from];
    layout->b_stride[d] = bs[from];
  }
  return true;
}

namespace {

// Offsets, in matrices, of A and B of batch entry `i`.
__device__ inline void BatchOffsets(const BatchLayout& l, int64_t i, int64_t* a, int64_t* b) {
  int64_t ao = 0, bo = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    const int64_t index = i % l.dims[d];
    i /= l.dims[d];
    ao += index * l.a_stride[d];
    bo += index * l.b_stride[d];
  }
  *a = ao;
  *b = bo;
}

// ---- integers: a tiled kernel ----------------------------------------------------------

// Unsigned accumulators: products and sums wrap modulo 2^bits, and reducing the final
// sum to T's width equals the CPU's wrapping at every step.
template <typename T> struct WrappingAccumulator;
template <> struct WrappingAccumulator<int16_t> { using type = uint32_t; };
template <> struct WrappingAccumulator<int32_t> { using type = uint32_t; };
template <> struct WrappingAccumulator<int64_t> { using type = uint64_t; };

constexpr int kTile = 16;
constexpr unsigned kMaxGridYZ = 65535;

// One kTile x kTile block of C per thread block; blocks walk rows of tiles and batch
// entries with grid strides (grid y and z are limited to 65535).
template <typename T>
__global__ void IntegerGemmKernel(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
                                  const T* b, T* c, BatchLayout batch, int64_t count) {
  using Acc = typename WrappingAccumulator<T>::type;
  __shared__ Acc a_tile[kTile][kTile + 1];
  __shared__ Acc b_tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row_tiles = (m + kTile - 1) / kTile;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kTile + tx;  // column of C
  for (int64_t z = blockIdx.z; z < count; z += gridDim.z) {
    int64_t ao, bo;
    BatchOffsets(batch, z, &ao, &bo);
    const T* A = a + ao * m * k;
    const T* B = b + bo * k * n;
    T* C = c + z * m * n;
    for (int64_t tile = blockIdx.y; tile < row_tiles; tile += gridDim.y) {
      const int64_t i = tile * kTile + ty;  // row of C
      Acc acc = 0;
      for (int64_t p0 = 0; p0 < k; p0 += kTile) {
        const int64_t pa = p0 + tx, pb = p0 + ty;
        a_tile[ty][tx] = i < m && pa < k ? static_cast<Acc>(ta ? A[pa * m + i] : A[i * k + pa]) : 0;
        b_tile[ty][tx] = pb < k && j < n ? static_cast<Acc>(tb ? B[j * k + pb] : B[pb * n + j]) : 0;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTile; ++q) acc += a_tile[ty][q] * b_tile[q][tx];
        __syncthreads();
      }
      if (i < m && j < n) C[i * n + j] = static_cast<T>(acc);
    }
  }
}

template <typename T>
bool IntegerGemm(TF_OpKernelContext* ctx, cudaStream_t stream, bool ta, bool tb, int64_t m,
                 int64_t n, int64_t k, const T* a, const T* b, T* c, const BatchLayout& batch,
                 int64_t count) {
  const int64_t col_tiles = (n + kTile - 1) / kTile, row_tiles = (m + kTile - 1) / kTile;
  if (col_tiles > INT_MAX) {
    Fail(ctx, TF_UNIMPLEMENTED, "integer GEMM: more than 2^35 columns");
    return false;
  }
  const dim3 grid(static_cast<unsigned>(col_tiles),
                  static_cast<unsigned>(row_tiles < kMaxGridYZ ? row_tiles : kMaxGridYZ),
                  static_cast<unsigned>(count < kMaxGridYZ ? count : kMaxGridYZ));
  IntegerGemmKernel<T><<<grid, dim3(kTile, kTile), 0, stream>>>(ta, tb, m, n, k, a, b, c, batch,
                                                                 count);
  return CheckLaunch(ctx, "integer GEMM");
}

// ---- floats: cuBLAS ---------------------------------------------------------------------

template <typename T> struct BlasTraits;
// float32 computes in float32 proper, not TF32 (which TensorFlow allows by default on
// Ampere and later): GPU results then match the CPU's to float32 accuracy.
template <> struct BlasTraits<float> {
  using Scalar = float;
  static constexpr cudaDataType data = CUDA_R_32F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct BlasTraits<double> {
  using Scalar = double;
  static constexpr cudaDataType data = CUDA_R_64F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};
// 16-bit floats: tensor-core products accumulated in float32, rounded once to the output.
template <> struct BlasTraits<__half> {
  using Scalar = float;
  static constexpr cudaDataType data = CUDA_R_16F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct BlasTraits<__nv_bfloat16> {
  using Scalar = float;
  static constexpr cudaDataType data = CUDA_R_16BF;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct BlasTraits<ComplexParts<float>> {
  using Scalar = ComplexParts<float>;
  static constexpr cudaDataType data = CUDA_C_32F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct BlasTraits<ComplexParts<double>> {
  using Scalar = ComplexParts<double>;
  static constexpr cudaDataType data = CUDA_C_64F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};

// Pointers to the matrices of each batch entry, for cublasGemmBatchedEx: A's at
// [0, count), B's at [count, 2 count), C's at [2 count, 3 count).
template <typename T>
__global__ void BatchPointersKernel(BatchLayout batch, int64_t count, const T* a, const T* b,
                                    T* c, int64_t a_size, int64_t b_size, int64_t c_size,
                                    const void** out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ao, bo;
    BatchOffsets(batch, i, &ao, &bo);
    out[i] = a + ao * a_size;
    out[count + i] = b + bo * b_size;
    out[2 * count + i] = c + i * c_size;
  }
}

template <typename T>
bool BlasGemm(TF_OpKernelContext* ctx, cudaStream_t stream, bool ta, bool tb, int64_t m,
              int64_t n, int64_t k, const T* a, const T* b, T* c, const BatchLayout& batch,
              int64_t count, bool adjoint) {
  using Traits = BlasTraits<T>;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || count > INT_MAX) {
    Fail(ctx, TF_UNIMPLEMENTED, "GEMM dimensions beyond 2^31 - 1 are not supported on the GPU");
    return false;
  }
  CublasLease lease(ctx, stream);
  if (!lease.ok()) return false;
  const CublasApi& api = lease.api();
  const typename Traits::Scalar one(1), zero(0);
  // cuBLAS is column-major, where a row-major matrix reads as its transpose: computing
  // C^T = op(B)^T @ op(A)^T there writes row-major C, with B passed first.
  const cublasOperation_t transposed = adjoint ? CUBLAS_OP_C : CUBLAS_OP_T;
  const cublasOperation_t op_a = ta ? transposed : CUBLAS_OP_N;
  const cublasOperation_t op_b = tb ? transposed : CUBLAS_OP_N;
  const int lda = static_cast<int>(ta ? m : k), ldb = static_cast<int>(tb ? k : n);
  const int ldc = static_cast<int>(n);
  const cudaDataType type = Traits::data;

  int64_t rows = m;  // rows of one GEMM over several batch entries stacked (below)
  bool single = count == 1;
  // A stack of dense, untransposed A matrices times one shared B is one taller GEMM.
  if (!single && batch.rank == 1 && batch.b_stride[0] == 0 && batch.a_stride[0] == 1 && !ta &&
      m * count <= INT_MAX) {
    single = true;
    rows = m * count;
  }
  if (single) {
    return CheckCublas(ctx, api,
                       api.GemmEx(lease.handle(), op_b, op_a, static_cast<int>(n),
                                  static_cast<int>(rows), static_cast<int>(k), &one, b, type, ldb, a,
                                  type, lda, &zero, c, type, ldc, Traits::compute,
                                  CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
  }
  if (batch.rank == 1) {
    return CheckCublas(
        ctx, api,
        api.GemmStridedBatchedEx(lease.handle(), op_b, op_a, static_cast<int>(n),
                                 static_cast<int>(m), static_cast<int>(k), &one, b, type, ldb,
                                 batch.b_stride[0] * k * n, a, type, lda, batch.a_stride[0] * m * k,
                                 &zero, c, type, ldc, m * n, static_cast<int>(count),
                                 Traits::compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
  }
  // Broadcasting over several dimensions: one pointer per matrix, built on the device.
  TensorPtr pointers = AllocateTemp(ctx, TF_INT64, {3 * count});
  if (!pointers) return false;
  const void** p = static_cast<const void**>(TF_TensorData(pointers.get()));
  BatchPointersKernel<T><<<BlocksFor(count), kThreads, 0, stream>>>(batch, count, a, b, c, m * k,
                                                                     k * n, m * n, p);
  if (!CheckLaunch(ctx, "GEMM batch pointers")) return false;
  return CheckCublas(ctx, api,
                     api.GemmBatchedEx(lease.handle(), op_b, op_a, static_cast<int>(n),
                                       static_cast<int>(m), static_cast<int>(k), &one, p + count,
                                       type, ldb, p, type, lda, &zero,
                                       const_cast<void* const*>(p + 2 * count), type, ldc,
                                       static_cast<int>(count), Traits::compute,
                                       CUBLAS_GEMM_DEFAULT),
                     "cublasGemmBatchedEx");
}

template <typename T> constexpr bool kIsInteger = std::is_integral_v<T>;

}  // namespace

template <typename T>
bool Gemm(TF_OpKernelContext* ctx, cudaStream_t stream, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const T* a, const T* b, T* c, const BatchLayout& batch, bool adjoint) {
  const int64_t count = batch.count();
  if (count == 0 || m == 0 || n == 0) return true;
  if (k == 0)  // empty sums: zeros (all-zero bits for every type here)
    return CheckCuda(ctx, cudaMemsetAsync(c, 0, sizeof(T) * count * m * n, stream), "GEMM zeros");
  if constexpr (kIsInteger<T>) return IntegerGemm(ctx, stream, ta, tb, m, n, k, a, b, c, batch, count);
  else return BlasGemm(ctx, stream, ta, tb, m, n, k, a, b, c, batch, count, adjoint);
}

#define OPGEN_INSTANTIATE_GEMM(T)                                                                \
  template bool Gemm<T>(TF_OpKernelContext*, cudaStream_t, bool, bool, int64_t, int64_t, int64_t, \
                        const T*, const T*, T*, const BatchLayout&, bool);
OPGEN_INSTANTIATE_GEMM(float)
OPGEN_INSTANTIATE_GEMM(double)
OPGEN_INSTANTIATE_GEMM(__half)
OPGEN_INSTANTIATE_GEMM(__nv_bfloat16)
OPGEN_INSTANTIATE_GEMM(int16_t)
OPGEN_INSTANTIATE_GEMM(int32_t)
OPGEN_INSTANTIATE_GEMM(int64_t)
OPGEN_INSTANTIATE_GEMM(ComplexParts<float>)
OPGEN_INSTANTIATE_GEMM(ComplexParts<double>)
#undef OPGEN_INSTANTIATE_GEMM

}  // namespace cuda
}  // namespace opgen
