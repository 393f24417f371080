// A StridedPass (../einsum_spec.h) on the CPU: the transposes, diagonals, broadcasts
// and sums of Einsum, and BroadcastTo's repeat, as one strided loop.
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

#include "../einsum_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {

using kernels::StridedPass;

// Runs `p` from `in` into `out` (dense, p.dims row-major), summing in the compute type.
template <typename T>
void RunPass(const StridedPass& p, const T* in, T* out) {
  const size_t rank = p.dims.size(), sums = p.sum_dims.size();
  const int64_t n = NumElements(p.dims), sum_n = NumElements(p.sum_dims);
  if (n == 0) return;
  const int64_t inner = rank ? p.dims[rank - 1] : 1;
  const int64_t inner_stride = rank ? p.strides[rank - 1] : 0;
  // Rows (runs of the last output dim) go to threads; each finds its start offset.
  ParallelFor(n / inner, [&](int64_t row_begin, int64_t row_end) {
    std::vector<int64_t> index(rank, 0), sum_index(sums, 0);
    int64_t src = 0;
    for (int64_t r = row_begin, d = static_cast<int64_t>(rank) - 1; d-- > 0;) {
      index[d] = r % p.dims[d];
      r /= p.dims[d];
      src += index[d] * p.strides[d];
    }
    for (int64_t row = row_begin; row < row_end; ++row) {
      T* dst = out + row * inner;
      if (sum_n == 1 && inner_stride == 1) {  // a contiguous run: a plain copy
        std::copy_n(in + src, inner, dst);
      } else if constexpr (!std::is_arithmetic_v<ComputeType<T>>) {  // opaque words: copies only
        for (int64_t j = 0; j < inner; ++j) dst[j] = in[src + j * inner_stride];
      } else if (sum_n == 1) {
        for (int64_t j = 0; j < inner; ++j) dst[j] = in[src + j * inner_stride];
      } else {
        for (int64_t j = 0; j < inner; ++j) {
          ComputeType<T> acc = ComputeType<T>(0);
          const T* base = in + src + j * inner_stride;
          int64_t off = 0;
          std::fill(sum_index.begin(), sum_index.end(), 0);
          for (int64_t s = 0; s < sum_n; ++s) {
            acc = WrappingAdd(acc, Widen(base[off]));
            for (size_t e = sums; e-- > 0;) {
              off += p.sum_strides[e];
              if (++sum_index[e] < p.sum_dims[e]) break;
              off -= p.sum_strides[e] * p.sum_dims[e];
              sum_index[e] = 0;
            }
          }
          dst[j] = Narrow<T>(acc);
        }
      }
      for (int64_t d = static_cast<int64_t>(rank) - 1; d-- > 0;) {
        src += p.strides[d];
        if (++index[d] < p.dims[d]) break;
        src -= p.strides[d] * p.dims[d];
        index[d] = 0;
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(1, inner * sum_n)));
}

}  // namespace cpu
}  // namespace opgen
