// One thread (grid-stride) per output element of the backprop kernels, which compute
// each element with ../conv_grad_spec.h's per-element sums, as the CPU kernels do.
#pragma once

#include <cstdint>

#include "cuda_kernel_util.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {

// Widening reads of a typed device buffer, for the shared per-element sums.
template <typename T>
struct Read {
  const T* p;
  __host__ __device__ typename ComputeType<T>::type operator()(int64_t i) const { return Widen(p[i]); }
};

// Calls f(e) for e in [0, n); f writes element e.
template <typename F>
__global__ void ForEachElementKernel(int64_t n, F f) {
  for (int64_t e = GlobalThread<int64_t>(); e < n; e += GridStride<int64_t>()) f(e);
}

// Launches ForEachElementKernel on the kernel's stream; false after reporting a failure.
template <typename F>
bool LaunchForEach(TF_OpKernelContext* ctx, int64_t n, const F& f, const char* op) {
  if (n <= 0) return true;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return false;
  ForEachElementKernel<<<BlocksFor(n), kThreads, 0, stream>>>(n, f);
  return CheckLaunch(ctx, op);
}

}  // namespace cuda
}  // namespace opgen
