// A StridedPass (../einsum_spec.h) on the GPU: a thread per output element finds its
// input offset from the output index and combines the summed indices. Einsum's
// transposes, diagonals and sums, BroadcastTo's repeat and All / Any run on it.
#pragma once

#include <string>
#include <type_traits>

#include "../einsum_spec.h"
#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {

constexpr int kMaxPassRank = 8;

// The pass by value, for the kernel's arguments.
struct PassArgs {
  int rank = 0, sums = 0;
  int64_t dims[kMaxPassRank] = {}, strides[kMaxPassRank] = {};
  int64_t sum_dims[kMaxPassRank] = {}, sum_strides[kMaxPassRank] = {};
  int64_t n = 0, sum_n = 1;
};

// Adds `p` to `args`; false after reporting UNIMPLEMENTED when it has more dimensions
// than the kernel takes.
inline bool ToPassArgs(TF_OpKernelContext* ctx, const kernels::StridedPass& p, const char* op,
                       PassArgs* args) {
  if (p.dims.size() > kMaxPassRank || p.sum_dims.size() > kMaxPassRank) {
    Fail(ctx, TF_UNIMPLEMENTED, std::string(op) + " on the GPU: more than " +
                                    std::to_string(kMaxPassRank) + " dimensions to move or sum");
    return false;
  }
  args->rank = static_cast<int>(p.dims.size());
  args->sums = static_cast<int>(p.sum_dims.size());
  for (int d = 0; d < args->rank; ++d) {
    args->dims[d] = p.dims[d];
    args->strides[d] = p.strides[d];
  }
  for (int d = 0; d < args->sums; ++d) {
    args->sum_dims[d] = p.sum_dims[d];
    args->sum_strides[d] = p.sum_strides[d];
  }
  args->n = NumElements(p.dims);
  args->sum_n = NumElements(p.sum_dims);
  return true;
}

// Sums in the accumulator type A (float for 16-bit floats; integers wrap through their
// unsigned type).
struct PassSum {
  template <typename A> __device__ static A Init() { return A(0); }
  template <typename A> __device__ static A Combine(A a, A b) { return a + b; }
};

template <typename T, typename A, typename Combine>
__global__ void StridedPassKernel(PassArgs p, const T* __restrict__ in, T* __restrict__ out) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, src = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t q = rest / p.dims[d];
      src += (rest - q * p.dims[d]) * p.strides[d];
      rest = q;
    }
    if constexpr (!std::is_arithmetic_v<A>) {  // opaque words: copies only
      out[i] = in[src];
      continue;
    } else {
    if (p.sums == 0) {
      out[i] = in[src];
      continue;
    }
    A acc = Combine::template Init<A>();
    for (int64_t s = 0; s < p.sum_n; ++s) {
      int64_t r = s, off = src;
      for (int d = p.sums - 1; d >= 0; --d) {
        const int64_t q = r / p.sum_dims[d];
        off += (r - q * p.sum_dims[d]) * p.sum_strides[d];
        r = q;
      }
      acc = Combine::Combine(acc, static_cast<A>(in[off]));
    }
    out[i] = static_cast<T>(acc);
    }
  }
}

// Queues `p` from `in` into `out` on `stream`; false after reporting the failure.
template <typename T, typename A = T, typename Combine = PassSum>
bool RunPass(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::StridedPass& p,
             const T* in, T* out, const char* op) {
  PassArgs args;
  if (!ToPassArgs(ctx, p, op, &args)) return false;
  if (args.n == 0) return true;
  StridedPassKernel<T, A, Combine><<<BlocksFor(args.n), kThreads, 0, stream>>>(args, in, out);
  return CheckLaunch(ctx, op);
}

}  // namespace cuda
}  // namespace opgen
