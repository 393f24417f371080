// What the CUDA kernels that move bytes share (array.cu, concat_split.cu, slicing.cu,
// constant.cu, the twins of the CPU files of the same names): their dtypes, output
// helpers, and copies of opaque words of 1 to 16 bytes, widened beyond the element size
// where extents, offsets and addresses allow, so one instantiation per word size serves
// every dtype; strided copies serve Transpose, Slice, StridedSlice, Tile and Pad.
// Shapes, axes, permutations and the like are host-memory args, read on the host as
// TensorFlow's GPU kernels read them. Internal to each including file (an unnamed
// namespace): the kernels are templates instantiated where they are used.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {
namespace {


// The dtypes of the kernels that only move bytes or look at shapes: the CPU's
// kAllFixedSizeTypes. They move words of the element's size (complex128: 16 bytes).
constexpr TF_DataType kDataTypes[] = {TF_FLOAT,  TF_DOUBLE, TF_HALF,      TF_BFLOAT16,   TF_INT8,
                                      TF_INT16,  TF_INT32,  TF_INT64,     TF_UINT8,      TF_UINT16,
                                      TF_UINT32, TF_UINT64, TF_BOOL,      TF_COMPLEX64,  TF_COMPLEX128};
constexpr TF_DataType kIndexTypes[] = {TF_INT32, TF_INT64};

bool SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor) {
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, i, tensor, s.get());
  if (TF_GetCode(s.get()) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s.get());
  return false;
}

int64_t ElementBytes(const TF_Tensor* t) {
  return static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(t)));
}

// Output `i` of `like`'s dtype and shape `dims`.
TensorPtr AllocateLike(TF_OpKernelContext* ctx, int i, const TF_Tensor* like,
                       const std::vector<int64_t>& dims) {
  return AllocateOutput(ctx, i, TF_TensorType(like), dims);
}

// ---- words --------------------------------------------------------------------------

// Calls fn(W{}) with W the word type of `bytes` (1, 2, 4, 8 or 16).
template <typename Fn>
void WithWord(int64_t bytes, Fn&& fn) {
  switch (bytes) {
    case 1: fn(uint8_t{}); break;
    case 2: fn(uint16_t{}); break;
    case 4: fn(uint32_t{}); break;
    case 8: fn(uint64_t{}); break;
    default: fn(uint4{}); break;
  }
}

// The largest word size, at most 16 bytes, dividing every value (byte counts, byte
// offsets, addresses). Negative offsets divide as their magnitude does.
int64_t CommonWordBytes(std::initializer_list<uint64_t> values) {
  uint64_t bits = 16;
  for (uint64_t v : values) bits |= v;
  return static_cast<int64_t>(bits & (~bits + 1));  // the lowest set bit
}

uint64_t Address(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// Copies `bytes` between device buffers on the kernel's stream.
bool CopyDeviceToDevice(TF_OpKernelContext* ctx, cudaStream_t stream, void* dst, const void* src,
                        int64_t bytes) {
  if (bytes == 0) return true;
  return CheckCuda(ctx, cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                                        cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync");
}

// ---- strided copies: Transpose, Slice, StridedSlice, Tile, Pad ------------------------

// How an output index along one dim finds its input element.
enum class MapKind {
  kLinear,  // input index = output index (times the stride): Transpose, (Strided)Slice
  kTile,    // input index = output index modulo the input extent
  kPad,     // input index = output index - low padding; outside the input: zero
};

struct MapDim {
  int64_t out;     // output extent
  int64_t stride;  // input elements per step of the input index (may be negative)
  int64_t in;      // kTile, kPad: the input extent
  int64_t low;     // kPad: padding before the input
};

constexpr int kMaxRank = 8;

// MapDims as a kernel parameter, innermost dim last.
struct StridedMap {
  int rank;
  int64_t out[kMaxRank];
  int64_t stride[kMaxRank];
  int64_t in[kMaxRank];
  int64_t low[kMaxRank];
  int64_t base;  // input element of output element 0
};

// Drops size-1 output dims and merges each dim into the one outside it where the pair
// walks the input as one longer dim. Fewer dims: fewer divisions per element, and the
// innermost dim as long as possible for wide words.
std::vector<MapDim> Collapse(MapKind kind, const std::vector<MapDim>& dims) {
  std::vector<MapDim> out;
  for (const MapDim& d : dims) {
    // Index 0 always, and inside (an empty padded input never gets here).
    if (d.out == 1) continue;
    if (!out.empty()) {
      MapDim& p = out.back();
      bool merge = false;
      switch (kind) {
        case MapKind::kLinear: merge = p.stride == d.stride * d.out; break;
        case MapKind::kTile: merge = d.in == d.out && p.stride == d.stride * d.in; break;
        case MapKind::kPad:
          merge = d.low == 0 && d.in == d.out && p.stride == d.stride * d.in;
          break;
      }
      if (merge) {
        p.low *= d.out;
        p.in *= d.in;
        p.out *= d.out;
        p.stride = d.stride;
        continue;
      }
    }
    out.push_back(d);
  }
  return out;
}

// The input element that output element `i` reads; *inside is false where it reads
// padding instead.
template <MapKind kKind, typename I>
__host__ __device__ inline int64_t SourceOf(I i, const StridedMap& m, bool* inside) {
  I rest = i;
  int64_t src = m.base;
  *inside = true;
  for (int d = m.rank - 1; d >= 0; --d) {
    const I extent = static_cast<I>(m.out[d]);
    const I q = rest / extent;
    const I index = rest - q * extent;
    rest = q;
    if constexpr (kKind == MapKind::kLinear) {
      src += static_cast<int64_t>(index) * m.stride[d];
    } else if constexpr (kKind == MapKind::kTile) {
      src += static_cast<int64_t>(index % static_cast<I>(m.in[d])) * m.stride[d];
    } else {
      const int64_t j = static_cast<int64_t>(index) - m.low[d];
      *inside = *inside && j >= 0 && j < m.in[d];
      src += j * m.stride[d];
    }
  }
  return src;
}

template <typename W, MapKind kKind, typename I>
__global__ void __launch_bounds__(kThreads)
    StridedCopyKernel(const W* __restrict__ in, W* __restrict__ out, I n, StridedMap m) {
  const I step = static_cast<I>(gridDim.x) * blockDim.x;
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    bool inside;
    const int64_t src = SourceOf<kKind>(i, m, &inside);
    out[i] = inside ? in[src] : W{};
  }
}

template <MapKind kKind>
void LaunchStridedCopy(int64_t word, const void* in, void* out, int64_t n, const StridedMap& m,
                       cudaStream_t stream) {
  WithWord(word, [&](auto w) {
    using W = decltype(w);
    const W* src = static_cast<const W*>(in);
    W* dst = static_cast<W*>(out);
    if (n <= std::numeric_limits<int32_t>::max()) {
      StridedCopyKernel<W, kKind, uint32_t>
          <<<BlocksFor(n), kThreads, 0, stream>>>(src, dst, static_cast<uint32_t>(n), m);
    } else {
      StridedCopyKernel<W, kKind, int64_t><<<BlocksFor(n), kThreads, 0, stream>>>(src, dst, n, m);
    }
  });
}

// How a strided copy runs: as one contiguous copy from input element `base`, or as a
// kernel over `words` output words of `word` bytes.
struct StridedPlan {
  enum How { kContiguous, kKernel, kTooManyDims } how;
  StridedMap map;
  int64_t word;
  int64_t words;
};

// Plans filling the n elements (of esize bytes) of the output dims of `full_dims` from
// `in`: element (i_0, ..., i_r-1) from input element base + the sum of each dim's
// mapped index times its stride. n > 0.
StridedPlan PlanStridedCopy(MapKind kind, const std::vector<MapDim>& full_dims, int64_t base,
                            int64_t esize, const void* in, const void* out, int64_t n) {
  StridedPlan plan{};
  const std::vector<MapDim> dims = Collapse(kind, full_dims);
  if (kind == MapKind::kLinear && (dims.empty() || (dims.size() == 1 && dims[0].stride == 1))) {
    plan.how = StridedPlan::kContiguous;
    plan.map.base = base;
    plan.word = esize;
    plan.words = n;
    return plan;
  }
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    plan.how = StridedPlan::kTooManyDims;
    plan.map.rank = static_cast<int>(dims.size());
    return plan;
  }
  // Where the innermost dim is contiguous in the input, a thread moves f elements at
  // once when every extent, offset and address along it is a multiple of f.
  int64_t factor = 1;
  if (!dims.empty() && dims.back().stride == 1) {
    const MapDim& last = dims.back();
    uint64_t bits = CommonWordBytes({static_cast<uint64_t>(last.out * esize),
                                     static_cast<uint64_t>(base * esize), Address(in),
                                     Address(out)});
    if (kind != MapKind::kLinear) bits = CommonWordBytes({bits, static_cast<uint64_t>(last.in * esize)});
    if (kind == MapKind::kPad) bits = CommonWordBytes({bits, static_cast<uint64_t>(last.low * esize)});
    for (size_t d = 0; d + 1 < dims.size(); ++d)
      bits = CommonWordBytes({bits, static_cast<uint64_t>(dims[d].stride * esize)});
    factor = std::max<int64_t>(1, static_cast<int64_t>(bits) / esize);
  }
  plan.how = StridedPlan::kKernel;
  StridedMap& m = plan.map;
  m.rank = static_cast<int>(dims.size());
  m.base = base / factor;
  for (size_t d = 0; d < dims.size(); ++d) {
    const bool inner = d + 1 == dims.size();
    m.out[d] = inner ? dims[d].out / factor : dims[d].out;
    m.in[d] = inner ? dims[d].in / factor : dims[d].in;
    m.low[d] = inner ? dims[d].low / factor : dims[d].low;
    m.stride[d] = inner ? dims[d].stride : dims[d].stride / factor;
  }
  plan.word = esize * factor;
  plan.words = n / factor;
  return plan;
}

// Runs PlanStridedCopy's plan on the stream. n > 0.
void StridedCopy(TF_OpKernelContext* ctx, cudaStream_t stream, const char* op, MapKind kind,
                 const std::vector<MapDim>& full_dims, int64_t base, int64_t esize,
                 const void* in, void* out, int64_t n) {
  const StridedPlan plan = PlanStridedCopy(kind, full_dims, base, esize, in, out, n);
  switch (plan.how) {
    case StridedPlan::kContiguous:
      CopyDeviceToDevice(ctx, stream, out, static_cast<const char*>(in) + base * esize, n * esize);
      return;
    case StridedPlan::kTooManyDims:
      Fail(ctx, TF_UNIMPLEMENTED, std::string(op) + ": the GPU kernel handles at most " +
                                      std::to_string(kMaxRank) +
                                      " dimensions that cannot be merged, got " +
                                      std::to_string(plan.map.rank));
      return;
    case StridedPlan::kKernel:
      break;
  }
  const StridedMap& m = plan.map;
  switch (kind) {
    case MapKind::kLinear: LaunchStridedCopy<MapKind::kLinear>(plan.word, in, out, plan.words, m, stream); break;
    case MapKind::kTile: LaunchStridedCopy<MapKind::kTile>(plan.word, in, out, plan.words, m, stream); break;
    case MapKind::kPad: LaunchStridedCopy<MapKind::kPad>(plan.word, in, out, plan.words, m, stream); break;
  }
  CheckLaunch(ctx, op);
}

// Row-major strides, in elements, of `dims`.
std::vector<int64_t> StridesOf(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

}  // namespace
}  // namespace cuda
}  // namespace opgen
