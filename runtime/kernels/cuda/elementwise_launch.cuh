// Launching element-wise work: one output element from up to three operands, each
// operand either as large as the output, a scalar, or broadcast numpy-style.
//
// A functor F describes the work, deriving from Operands<Out, A, B, C> (below) for its
// output and operand element types, and defining
//   __device__ Out operator()(A, B, C) const;  // with kArity arguments
// F is passed to the kernel by value, so it may carry a constant (OnesLike's one).
//
// Two kernels per functor: FlatKernel when every operand is whole or a scalar (16-byte
// vector loads and stores, several in flight per thread), BroadcastKernel otherwise
// (dims collapsed first, then per-element offsets from precomputed strides with 32-bit
// multiply-shift division; outputs of 2^31 elements or more go in pieces).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../broadcast_spec.h"
#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {

struct NoInput {};

// A functor's output and operand types; operands left out are NoInput, and kArity counts
// the rest: struct AddFn : Operands<float, float, float> { ... }.
template <typename O, typename A0 = NoInput, typename B0 = NoInput, typename C0 = NoInput>
struct Operands {
  using Out = O;
  using A = A0;
  using B = B0;
  using C = C0;
  static constexpr int kArity = !std::is_same_v<A0, NoInput> + !std::is_same_v<B0, NoInput> +
                                !std::is_same_v<C0, NoInput>;
};

// N elements moved as one load or store: at most 16 bytes, aligned to its size.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

template <typename T>
struct Operand {
  const T* data;
  bool scalar;  // one element, read once and used for every output element
};

template <typename F, typename A, typename B, typename C>
__device__ __forceinline__ typename F::Out Invoke(const F& f, const A& a, const B& b, const C& c) {
  if constexpr (F::kArity == 0) return f();
  else if constexpr (F::kArity == 1) return f(a);
  else if constexpr (F::kArity == 2) return f(a, b);
  else return f(a, b, c);
}

template <typename T, int N>
__device__ __forceinline__ void LoadPack(const Operand<T>& op, const T& scalar_value, int64_t p,
                                         Pack<T, N>* out) {
  if (op.scalar) {
#pragma unroll
    for (int j = 0; j < N; ++j) out->v[j] = scalar_value;
  } else {
    *out = reinterpret_cast<const Pack<T, N>*>(op.data)[p];
  }
}

// Packs per thread per iteration: 4 (64 bytes per operand) for 4- and 8-byte types,
// fewer for narrower ones so that the unrolled loop stays at 16 elements or fewer.
constexpr int FlatUnroll(int n) { return n >= 16 ? 1 : (n >= 8 ? 2 : 4); }

// out[i] = f(a[i], b[i], c[i]) for i < n, operands flagged scalar read at 0. The first
// `packs` * N elements move as packs (the caller checked alignment); the rest, fewer
// than N or all of them when packs is 0, one at a time.
template <typename F, int N>
__global__ void __launch_bounds__(kThreads)
    FlatKernel(F f, int64_t n, int64_t packs, typename F::Out* __restrict__ out,
               Operand<typename F::A> a, Operand<typename F::B> b, Operand<typename F::C> c) {
  using Out = typename F::Out;
  using A = typename F::A;
  using B = typename F::B;
  using C = typename F::C;
  A sa{};
  B sb{};
  C sc{};
  if constexpr (F::kArity >= 1) if (a.scalar) sa = a.data[0];
  if constexpr (F::kArity >= 2) if (b.scalar) sb = b.data[0];
  if constexpr (F::kArity >= 3) if (c.scalar) sc = c.data[0];

  constexpr int kUnroll = FlatUnroll(N);
  const int64_t tile = int64_t{kThreads} * kUnroll;
  for (int64_t base = int64_t{blockIdx.x} * tile + threadIdx.x; base < packs;
       base += int64_t{gridDim.x} * tile) {
    Pack<A, N> pa[kUnroll];
    Pack<B, N> pb[kUnroll];
    Pack<C, N> pc[kUnroll];
    // All loads first, so that each thread has kUnroll of them in flight.
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t p = base + int64_t{u} * kThreads;
      if (p < packs) {
        if constexpr (F::kArity >= 1) LoadPack<A, N>(a, sa, p, &pa[u]);
        if constexpr (F::kArity >= 2) LoadPack<B, N>(b, sb, p, &pb[u]);
        if constexpr (F::kArity >= 3) LoadPack<C, N>(c, sc, p, &pc[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t p = base + int64_t{u} * kThreads;
      if (p < packs) {
        Pack<Out, N> r;
#pragma unroll
        for (int j = 0; j < N; ++j) r.v[j] = Invoke(f, pa[u].v[j], pb[u].v[j], pc[u].v[j]);
        reinterpret_cast<Pack<Out, N>*>(out)[p] = r;
      }
    }
  }
  for (int64_t i = packs * N + int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * kThreads) {
    A va = sa;
    B vb = sb;
    C vc = sc;
    if constexpr (F::kArity >= 1) if (!a.scalar) va = a.data[i];
    if constexpr (F::kArity >= 2) if (!b.scalar) vb = b.data[i];
    if constexpr (F::kArity >= 3) if (!c.scalar) vc = c.data[i];
    out[i] = Invoke(f, va, vb, vc);
  }
}

// ---- broadcasting ----------------------------------------------------------------------

// 16: broadcasts whose dims cannot merge are rare beyond 8, but the CPU has no limit.
constexpr int kMaxBroadcastRank = 16;

// n / d and n % d for 32-bit n by a multiply and a shift (the round-up method: with
// l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1, n / d = (hi32(n m) + n) >> l
// for every 32-bit n, the sum taken in 64 bits).
struct DivMod {
  uint32_t divisor = 1, multiplier = 1, shift = 0;
  DivMod() = default;
  explicit DivMod(uint32_t d) : divisor(d) {
    while ((uint64_t{1} << shift) < d) ++shift;
    multiplier = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __host__ __device__ __forceinline__ uint32_t Quotient(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(n, multiplier);
#else
    const uint32_t hi = static_cast<uint32_t>((uint64_t{n} * multiplier) >> 32);
#endif
    return static_cast<uint32_t>((uint64_t{hi} + n) >> shift);
  }
};

// Dims innermost first and each operand's element strides along them (0 where it is
// broadcast), for outputs of fewer than 2^31 elements (larger ones go in pieces).
struct BroadcastGeometry {
  int rank;
  DivMod dims[kMaxBroadcastRank];
  uint32_t strides[3][kMaxBroadcastRank];
};

template <typename F>
__global__ void __launch_bounds__(kThreads)
    BroadcastKernel(F f, uint32_t n, typename F::Out* __restrict__ out, BroadcastGeometry g,
                    const typename F::A* __restrict__ a, const typename F::B* __restrict__ b,
                    const typename F::C* __restrict__ c) {
  typename F::A va{};
  typename F::B vb{};
  typename F::C vc{};
  // n < 2^31 and the grid is far smaller, so i + stride never wraps.
  for (uint32_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    uint32_t rest = i, ia = 0, ib = 0, ic = 0;
#pragma unroll
    for (int d = 0; d < kMaxBroadcastRank; ++d) {
      if (d == g.rank) break;
      uint32_t coordinate = rest;  // the outermost dim needs no division
      if (d + 1 < g.rank) {
        const uint32_t q = g.dims[d].Quotient(rest);
        coordinate = rest - q * g.dims[d].divisor;
        rest = q;
      }
      ia += coordinate * g.strides[0][d];
      ib += coordinate * g.strides[1][d];
      ic += coordinate * g.strides[2][d];
    }
    if constexpr (F::kArity >= 1) va = a[ia];
    if constexpr (F::kArity >= 2) vb = b[ib];
    if constexpr (F::kArity >= 3) vc = c[ic];
    out[i] = Invoke(f, va, vb, vc);
  }
}

// numpy's rule, as the CPU kernels apply it (../broadcast_spec.h).
using kernels::BroadcastShape;

// The output's dims with size-1 dims dropped and neighbours merged where every operand
// is either whole along both or broadcast along both; `broadcast[k][d]` says operand k
// is broadcast along collapsed dim d. [8,1,4] + [8,5,4] stays 3-D; [2,3,4] + [4] becomes
// [6,4]; same shapes become one dim.
struct CollapsedShape {
  std::vector<int64_t> dims;
  std::vector<std::vector<bool>> broadcast;
};

inline CollapsedShape Collapse(const std::vector<int64_t>& out,
                               const std::vector<std::vector<int64_t>>& operands) {
  const size_t rank = out.size(), k = operands.size();
  CollapsedShape c;
  c.broadcast.resize(k);
  std::vector<bool> previous;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    std::vector<bool> pattern(k);
    for (size_t o = 0; o < k; ++o) {
      const std::vector<int64_t>& dims = operands[o];
      const size_t lead = rank - dims.size();
      pattern[o] = d < lead || dims[d - lead] == 1;
    }
    if (!c.dims.empty() && pattern == previous) {
      c.dims.back() *= out[d];
    } else {
      c.dims.push_back(out[d]);
      for (size_t o = 0; o < k; ++o) c.broadcast[o].push_back(pattern[o]);
      previous = pattern;
    }
  }
  if (c.dims.empty()) {  // a single element
    c.dims.push_back(1);
    for (size_t o = 0; o < k; ++o) c.broadcast[o].push_back(false);
  }
  return c;
}

// The device's multiprocessor count, asked once per device.
inline int MultiprocessorCount() {
  static std::atomic<int> counts[64];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return 132;
  int count = counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        count <= 0)
      count = 132;
    counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

// Blocks for a grid-stride loop over `units` units of kThreads * per_thread: enough to
// cover them, at most as many as the device keeps resident at once.
inline unsigned GridFor(int64_t units, int per_thread) {
  const int64_t per_block = int64_t{kThreads} * per_thread;
  const int64_t wanted = std::max<int64_t>(1, (units + per_block - 1) / per_block);
  const int64_t resident = int64_t{MultiprocessorCount()} * (2048 / kThreads);
  return static_cast<unsigned>(std::min(wanted, resident));
}

inline bool AlignedTo(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// out[i] = f(...) over n elements, each operand whole (n elements) or a scalar.
template <typename F>
bool LaunchFlat(TF_OpKernelContext* ctx, cudaStream_t stream, const F& f, int64_t n,
                typename F::Out* out, Operand<typename F::A> a, Operand<typename F::B> b,
                Operand<typename F::C> c) {
  using Out = typename F::Out;
  constexpr size_t kWidest = std::max({sizeof(Out), F::kArity >= 1 ? sizeof(typename F::A) : 1,
                                       F::kArity >= 2 ? sizeof(typename F::B) : 1,
                                       F::kArity >= 3 ? sizeof(typename F::C) : 1});
  constexpr int N = kWidest >= 16 ? 1 : static_cast<int>(16 / kWidest);
  bool aligned = AlignedTo(out, sizeof(Out) * N);
  if constexpr (F::kArity >= 1) aligned = aligned && (a.scalar || AlignedTo(a.data, sizeof(typename F::A) * N));
  if constexpr (F::kArity >= 2) aligned = aligned && (b.scalar || AlignedTo(b.data, sizeof(typename F::B) * N));
  if constexpr (F::kArity >= 3) aligned = aligned && (c.scalar || AlignedTo(c.data, sizeof(typename F::C) * N));
  const int64_t packs = aligned ? n / N : 0;
  const unsigned blocks = packs > 0 ? GridFor(packs, FlatUnroll(N)) : GridFor(n, 1);
  FlatKernel<F, N><<<blocks, kThreads, 0, stream>>>(f, n, packs, out, a, b, c);
  return CheckLaunch(ctx, "element-wise kernel launch");
}

// One launch of an element-wise problem: a flat one (each operand whole or a scalar) or
// a broadcasting one of fewer than 2^31 elements. Offsets count elements.
struct LaunchPiece {
  bool flat = true;
  int64_t n = 0;
  int64_t out_offset = 0;
  int64_t offsets[3] = {0, 0, 0};
  bool scalar[3] = {false, false, false};
  BroadcastGeometry geometry{};
};

// A broadcasting problem: dims outermost first, each operand's element strides along
// them (0 where broadcast) and where it starts.
struct StridedProblem {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides[3];
  int64_t offsets[3] = {0, 0, 0};
  int64_t out_offset = 0;
};

inline void AddPieces(const StridedProblem& p, std::vector<LaunchPiece>* pieces) {
  const int rank = static_cast<int>(p.dims.size());
  const int64_t n = NumElements(p.dims);
  if (n == 0) return;
  LaunchPiece piece;
  piece.n = n;
  piece.out_offset = p.out_offset;
  for (int o = 0; o < 3; ++o) piece.offsets[o] = p.offsets[o];
  if (rank == 1) {  // each operand whole along the one dim, or one element
    for (int o = 0; o < 3; ++o) piece.scalar[o] = p.strides[o][0] == 0;
    pieces->push_back(piece);
    return;
  }
  constexpr int64_t kLimit = int64_t{1} << 31;
  const int64_t inner = n / p.dims[0];
  if (n >= kLimit) {
    // Split along the outermost dim into pieces below 2^31 elements; when one slice of
    // it is that large, go one dim down.
    StridedProblem part = p;
    const bool drop = inner >= kLimit;
    const int64_t step = drop ? 1 : (kLimit - 1) / inner;
    if (drop) {
      part.dims.erase(part.dims.begin());
      for (auto& s : part.strides) s.erase(s.begin());
    }
    for (int64_t begin = 0; begin < p.dims[0]; begin += step) {
      if (!drop) part.dims[0] = std::min(step, p.dims[0] - begin);
      for (int o = 0; o < 3; ++o) part.offsets[o] = p.offsets[o] + begin * p.strides[o][0];
      part.out_offset = p.out_offset + begin * inner;
      AddPieces(part, pieces);
    }
    return;
  }
  piece.flat = false;
  piece.geometry.rank = rank;
  for (int d = 0; d < rank; ++d) {  // innermost first
    const int src = rank - 1 - d;
    piece.geometry.dims[d] = DivMod(static_cast<uint32_t>(p.dims[src]));
    for (int o = 0; o < 3; ++o) piece.geometry.strides[o][d] = static_cast<uint32_t>(p.strides[o][src]);
  }
  pieces->push_back(piece);
}

// The launches computing an output of `out_dims` (non-empty) from operands of
// `operand_dims` (each broadcastable to it); false after reporting a failure.
inline bool PlanElementwise(TF_OpKernelContext* ctx, const std::vector<int64_t>& out_dims,
                            const std::vector<std::vector<int64_t>>& operand_dims,
                            std::vector<LaunchPiece>* pieces) {
  const CollapsedShape shape = Collapse(out_dims, operand_dims);
  const int rank = static_cast<int>(shape.dims.size());
  if (rank > kMaxBroadcastRank) {
    Fail(ctx, TF_UNIMPLEMENTED,
         "broadcasting that leaves more than " + std::to_string(kMaxBroadcastRank) +
             " dims after merging neighbours is not implemented on the GPU (output shape " +
             ShapeString(out_dims) + ")");
    return false;
  }
  StridedProblem p;
  p.dims = shape.dims;
  for (size_t o = 0; o < 3; ++o) {
    p.strides[o].assign(rank, 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (o < shape.broadcast.size() && shape.broadcast[o][d]) continue;
      p.strides[o][d] = stride;
      stride *= shape.dims[d];
    }
  }
  pieces->clear();
  AddPieces(p, pieces);
  return true;
}

template <typename F>
bool LaunchPieces(TF_OpKernelContext* ctx, cudaStream_t stream, const F& f,
                  const std::vector<LaunchPiece>& pieces, typename F::Out* out, const void* a,
                  const void* b, const void* c) {
  using A = typename F::A;
  using B = typename F::B;
  using C = typename F::C;
  for (const LaunchPiece& p : pieces) {
    const A* pa = a ? static_cast<const A*>(a) + p.offsets[0] : nullptr;
    const B* pb = b ? static_cast<const B*>(b) + p.offsets[1] : nullptr;
    const C* pc = c ? static_cast<const C*>(c) + p.offsets[2] : nullptr;
    if (p.flat) {
      if (!LaunchFlat(ctx, stream, f, p.n, out + p.out_offset, Operand<A>{pa, p.scalar[0]},
                      Operand<B>{pb, p.scalar[1]}, Operand<C>{pc, p.scalar[2]}))
        return false;
    } else {
      BroadcastKernel<F><<<GridFor(p.n, 1), kThreads, 0, stream>>>(
          f, static_cast<uint32_t>(p.n), out + p.out_offset, p.geometry, pa, pb, pc);
      if (!CheckLaunch(ctx, "broadcasting element-wise kernel launch")) return false;
    }
  }
  return true;
}

// out (of `out_dims`, non-empty) = f applied to the operands (F::kArity of them, dims in
// `operand_dims`, each broadcastable to out_dims) with numpy broadcasting.
template <typename F>
bool LaunchElementwise(TF_OpKernelContext* ctx, cudaStream_t stream, const F& f,
                       const std::vector<int64_t>& out_dims, typename F::Out* out,
                       const std::vector<std::vector<int64_t>>& operand_dims, const void* a,
                       const void* b = nullptr, const void* c = nullptr) {
  std::vector<LaunchPiece> pieces;
  return PlanElementwise(ctx, out_dims, operand_dims, &pieces) &&
         LaunchPieces(ctx, stream, f, pieces, out, a, b, c);
}

}  // namespace cuda
}  // namespace opgen
