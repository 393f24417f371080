// The GPU side of the gather/scatter/segment kernels (scatter.cu, segment.cu): their
// index operands are host memory, so the host works out which source rows reach each
// output row, in order (a CSR list), and one thread per output element folds its rows.
// No atomics: every dtype (16-bit floats, 8-bit ints, complex) and every reduction
// (last-wins update, sum, product, max, min, mean) gives the CPU kernels' result, in the
// same order.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "complex_parts.cuh"
#include "cuda_kernel_util.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {

// kMax/kMin: the segment reductions' comparison; kScatterMax/kScatterMin:
// TensorScatterMax/Min's (an update replaces the value only when strictly better, so a
// NaN update is ignored), each as on the CPU.
enum class Fold {
  kUpdate, kSum, kSub, kProd, kDiv, kMax, kMin, kScatterMax, kScatterMin, kMean, kSqrtN
};

// What an output row with no source row and no base holds: 0 (and a max or min with
// rows starts from its first row: the sorted reductions), or the fold's start value
// (lowest, highest, 1), which the unsorted reductions start from.
enum class Empty { kZero, kIdentity };

template <typename C> __device__ inline C Lowest();
template <> __device__ inline float Lowest<float>() { return -3.402823466e38f; }
template <> __device__ inline double Lowest<double>() { return -1.7976931348623157e308; }

template <typename T, Fold F>
__device__ inline typename ComputeType<T>::type Start() {
  using C = typename ComputeType<T>::type;
  if constexpr (F == Fold::kProd) return C(1);
  else if constexpr (F == Fold::kMax || F == Fold::kMin) {
    if constexpr (std::is_same_v<T, __half>) return F == Fold::kMax ? -65504.0f : 65504.0f;
    else if constexpr (std::is_same_v<T, __nv_bfloat16>)
      return F == Fold::kMax ? -3.38953139e38f : 3.38953139e38f;
    else if constexpr (std::is_floating_point_v<T>)
      return F == Fold::kMax ? Lowest<C>() : -Lowest<C>();
    else return F == Fold::kMax ? std::numeric_limits<T>::lowest()
                                : std::numeric_limits<T>::max();
  } else {
    return C(0);
  }
}

template <typename C, Fold F>
__device__ inline C Step(C acc, C x) {
  if constexpr (F == Fold::kUpdate) return x;
  else if constexpr (F == Fold::kSub) return acc - x;
  else if constexpr (F == Fold::kProd) return acc * x;
  else if constexpr (F == Fold::kDiv) return acc / x;  // ResourceScatterDiv (0s refused first)
  // x replaces acc unless it is strictly worse, as TensorFlow's CPU kernels compare: a NaN
  // replaces acc, and whatever follows a NaN replaces it
  else if constexpr (F == Fold::kMax) return x < acc ? acc : x;
  else if constexpr (F == Fold::kMin) return acc < x ? acc : x;
  else if constexpr (F == Fold::kScatterMax) return x > acc ? x : acc;
  else if constexpr (F == Fold::kScatterMin) return x < acc ? x : acc;
  else if constexpr (std::is_same_v<C, bool>) return acc || x;
  else return acc + x;
}

// out[r, j] = fold over k in [offsets[r], offsets[r+1]) of src[rows[k], j], starting from
// base[r, j] (TensorScatter*) or the fold's start value. `src_scalar`: every row of src
// is its one element (a scalar update).
template <typename T, Fold F>
__global__ void CsrFoldKernel(const T* src, const T* base, const int64_t* offsets,
                              const int64_t* rows, T* out, int64_t slice, int64_t total,
                              Empty empty, bool src_scalar) {
  using C = typename ComputeType<T>::type;
  for (int64_t o = GlobalThread<int64_t>(); o < total; o += GridStride<int64_t>()) {
    const int64_t r = o / slice, j = o % slice;
    const int64_t begin = offsets[r], end = offsets[r + 1];
    C acc = base ? Widen(base[o]) : Start<T, F>();
    for (int64_t k = begin; k < end; ++k) {
      const C x = Widen(src[src_scalar ? 0 : rows[k] * slice + j]);
      const bool first = k == begin && !base && empty == Empty::kZero &&
                         (F == Fold::kMax || F == Fold::kMin);
      acc = first ? x : Step<C, F>(acc, x);
    }
    const int64_t n = end - begin;
    if (n == 0 && empty == Empty::kZero && base == nullptr) acc = C(0);
    if constexpr (F == Fold::kMean) {
      if (n > 0) acc = acc / C(static_cast<double>(n));
    } else if constexpr (F == Fold::kSqrtN) {
      if (n > 0) acc = acc / C(sqrt(static_cast<double>(n)));
    }
    out[o] = Narrow<T>(acc);
  }
}

// Output row of each contribution (-1: none) -> CSR offsets and source rows, stable.
struct Csr {
  std::vector<int64_t> offsets, rows;
};

inline Csr BuildCsr(const std::vector<int64_t>& dest, const std::vector<int64_t>& source,
                    int64_t out_rows) {
  Csr c;
  c.offsets.assign(out_rows + 1, 0);
  for (int64_t d : dest)
    if (d >= 0) ++c.offsets[d + 1];
  for (int64_t r = 0; r < out_rows; ++r) c.offsets[r + 1] += c.offsets[r];
  c.rows.resize(c.offsets[out_rows]);
  std::vector<int64_t> next(c.offsets.begin(), c.offsets.end() - 1);
  for (size_t i = 0; i < dest.size(); ++i)
    if (dest[i] >= 0) c.rows[next[dest[i]]++] = source[i];
  return c;
}

// Copies the CSR to the device and folds `src` into `out` ([out_rows, slice]).
template <typename T, Fold F>
void LaunchCsrFold(TF_OpKernelContext* ctx, const char* op, const Csr& csr, const T* src,
                   const T* base, T* out, int64_t out_rows, int64_t slice, Empty empty,
                   bool src_scalar = false) {
  const int64_t total = out_rows * slice;
  if (total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const int64_t n_off = static_cast<int64_t>(csr.offsets.size());
  const int64_t n_rows = static_cast<int64_t>(csr.rows.size());
  TensorPtr offsets = AllocateTemp(ctx, TF_INT64, {n_off});
  TensorPtr rows = AllocateTemp(ctx, TF_INT64, {n_rows > 0 ? n_rows : 1});
  if (!offsets || !rows) return;
  if (!CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(offsets), csr.offsets.data(), n_off * 8,
                                      cudaMemcpyHostToDevice, stream), op))
    return;
  if (n_rows > 0 && !CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(rows), csr.rows.data(),
                                                     n_rows * 8, cudaMemcpyHostToDevice, stream),
                               op))
    return;
  CsrFoldKernel<T, F><<<BlocksFor(total), kThreads, 0, stream>>>(
      src, base, Data<int64_t>(offsets), Data<int64_t>(rows), out, slice, total, empty,
      src_scalar);
  if (!CheckLaunch(ctx, op)) return;
  // the host vectors are pageable memory: the copies must be done before they go
  CheckCuda(ctx, cudaStreamSynchronize(stream), op);
}

}  // namespace cuda
}  // namespace opgen
