// Kernels that make, move, reshape or describe data on the GPU: Const, Identity, NoOp,
// Reshape, ExpandDims, Squeeze, Transpose, ConcatV2, Pack, Unpack, Slice, StridedSlice,
// GatherV2, Tile, Pad, Shape, Size, Rank and Range.
//
// Elements are moved as opaque words of 1 to 16 bytes, widened beyond the element size
// where extents, offsets and addresses allow, so one instantiation per word size serves
// every dtype; only Range computes values. Ops and dtypes mirror the CPU kernels
// (runtime/kernels/cpu/array.cc, concat_split.cc, slicing.cc, constant.cc), and the shape
// checks and error messages are theirs, from the shared ../*_spec.h headers. Shapes,
// axes, permutations and the like are host-memory args, read on the host as
// TensorFlow's GPU kernels read them.
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

#include "../concat_spec.h"
#include "../constant_spec.h"
#include "../gather_spec.h"
#include "../range_spec.h"
#include "../shape_ops.h"
#include "../slice_spec.h"
#include "../strided_slice_spec.h"
#include "../transpose_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

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

// ---- Const ----------------------------------------------------------------------------

// The value attr on the host, and its copy on each device the kernel ran on, uploaded
// at the first run there and output by every run after without a copy.
struct ConstState {
  TensorPtr host;
  std::mutex mu;
  std::vector<std::pair<int, TensorPtr>> on_device;  // (device ordinal, tensor)
};

// The value attr read and checked by the CPU kernel's own code (../constant_spec.h).
void* CreateConst(TF_OpKernelConstruction* ctx) {
  TF_Tensor* value = kernels::ReadConstValue(ctx);
  if (value == nullptr) return nullptr;
  auto* state = new ConstState();
  state->host.reset(value);
  return state;
}

void DeleteConst(void* state) { delete static_cast<ConstState*>(state); }

void ConstCompute(void* p, TF_OpKernelContext* ctx) {
  auto* state = static_cast<ConstState*>(p);
  const int ordinal = TF_GetDeviceId(ctx);
  std::lock_guard<std::mutex> lock(state->mu);
  for (const auto& [device, tensor] : state->on_device) {
    if (device == ordinal) {
      SetOutput(ctx, 0, tensor.get());
      return;
    }
  }
  const TF_Tensor* host = state->host.get();
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr output = AllocateLike(ctx, 0, host, Dims(host));
  if (!output) return;
  const size_t bytes = TF_TensorByteSize(host);
  // The host tensor lives as long as the kernel, so the copy may still be in flight
  // when this returns; work queued later on the stream sees it done.
  if (bytes > 0 && !CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(output.get()), TF_TensorData(host),
                                                   bytes, cudaMemcpyHostToDevice, stream),
                              "Const: cudaMemcpyAsync")) {
    return;
  }
  state->on_device.emplace_back(ordinal, std::move(output));
}

// ---- Identity, NoOp -------------------------------------------------------------------

void IdentityCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (input) SetOutput(ctx, 0, input.get());
}

void NoOpCompute(void*, TF_OpKernelContext*) {}

// ---- Reshape, ExpandDims, Squeeze -----------------------------------------------------
// The CPU kernels' own code (../shape_ops.h): the output shares the input's device
// buffer under the new shape, so nothing is copied.
using kernels::CreateSqueeze;
using kernels::DeleteSqueeze;
using kernels::ExpandDimsCompute;
using kernels::ReshapeCompute;
using kernels::SqueezeCompute;

// ---- Transpose ------------------------------------------------------------------------

constexpr int kTileEdge = 32;   // tile edge of the shared-memory transpose
constexpr int kTileRows = 8;    // rows of threads: each thread moves kTileEdge / kTileRows elements

// out[b][c][r] = in[b][r][c] for in of shape [batches, rows, cols], through a padded
// shared-memory tile so that reads and writes both go along rows.
template <typename W>
__global__ void __launch_bounds__(kTileEdge * kTileRows)
    TransposeTileKernel(const W* __restrict__ in, W* __restrict__ out, int64_t batches,
                        int64_t rows, int64_t cols) {
  __shared__ W tile[kTileEdge][kTileEdge + 1];
  const int64_t row_tiles = (rows + kTileEdge - 1) / kTileEdge, col_tiles = (cols + kTileEdge - 1) / kTileEdge;
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    const W* src = in + b * rows * cols;
    W* dst = out + b * rows * cols;
    for (int64_t rt = blockIdx.y; rt < row_tiles; rt += gridDim.y) {
      for (int64_t ct = blockIdx.x; ct < col_tiles; ct += gridDim.x) {
        const int64_t r0 = rt * kTileEdge, c0 = ct * kTileEdge;
        for (int k = threadIdx.y; k < kTileEdge; k += kTileRows) {
          const int64_t r = r0 + k, c = c0 + threadIdx.x;
          if (r < rows && c < cols) tile[k][threadIdx.x] = src[r * cols + c];
        }
        __syncthreads();
        for (int k = threadIdx.y; k < kTileEdge; k += kTileRows) {
          const int64_t c = c0 + k, r = r0 + threadIdx.x;
          if (c < cols && r < rows) dst[c * rows + r] = tile[threadIdx.x][k];
        }
        __syncthreads();  // the tile is refilled by the next iteration
      }
    }
  }
}

// Whether merged output dims (with their input strides) swap the last two of at most
// three merged input dims, [B, R, C] -> [B, C, R]: what the shared-memory tiles do.
bool SwapsLastTwo(const std::vector<MapDim>& merged, int64_t* batches, int64_t* rows, int64_t* cols) {
  const size_t m = merged.size();
  if (m != 2 && m != 3) return false;
  if (merged[m - 2].stride != 1 || merged[m - 1].stride != merged[m - 2].out) return false;
  if (m == 3 && merged[0].stride != merged[1].out * merged[2].out) return false;
  *batches = m == 3 ? merged[0].out : 1;
  *rows = merged[m - 1].out;
  *cols = merged[m - 2].out;
  return true;
}

// The permutation checked and the output shape worked out by the CPU kernel's own code
// (../transpose_spec.h); here only the copy.
void TransposeCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TransposePlan plan;
  if (!kernels::PlanTranspose(ctx, &plan)) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& perm = plan.perm;
  const std::vector<int64_t>& out_dims = plan.out_dims;
  const size_t rank = dims.size();
  TensorPtr output = AllocateLike(ctx, 0, input, out_dims);
  if (!output) return;
  const int64_t n = NumElements(out_dims);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const std::vector<int64_t> in_strides = StridesOf(dims);
  std::vector<MapDim> map(rank);
  for (size_t d = 0; d < rank; ++d) map[d] = MapDim{out_dims[d], in_strides[perm[d]], 0, 0};
  const int64_t esize = ElementBytes(input);
  const void* in = TF_TensorData(input);
  void* out = TF_TensorData(output.get());
  int64_t batches, rows, cols;
  if (!SwapsLastTwo(Collapse(MapKind::kLinear, map), &batches, &rows, &cols)) {
    StridedCopy(ctx, stream, "Transpose", MapKind::kLinear, map, 0, esize, in, out, n);
    return;
  }
  const int64_t row_tiles = (rows + kTileEdge - 1) / kTileEdge, col_tiles = (cols + kTileEdge - 1) / kTileEdge;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(col_tiles, 1 << 30)),
                  static_cast<unsigned>(std::min<int64_t>(row_tiles, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(batches, 65535)));
  const dim3 block(kTileEdge, kTileRows);
  WithWord(esize, [&](auto w) {
    using W = decltype(w);
    TransposeTileKernel<W><<<grid, block, 0, stream>>>(static_cast<const W*>(in), static_cast<W*>(out),
                                                       batches, rows, cols);
  });
  CheckLaunch(ctx, "Transpose");
}

// ---- ConcatV2, Pack, Unpack -----------------------------------------------------------

constexpr int kMaxPieces = 64;  // pieces per launch (kernel parameters stay under 4 KiB)

// Pieces of a joined tensor seen as rows: piece p holds, per row, `row[p]` words that
// start at word `column[p]` of the joined row.
struct PieceTable {
  void* data[kMaxPieces];
  int64_t row[kMaxPieces];
  int64_t column[kMaxPieces];
};

// Where word i of a piece with `row` words per row, starting at word `column` of each
// joined row, sits in the joined tensor.
__host__ __device__ inline int64_t JoinedWord(int64_t i, int64_t row, int64_t column, int64_t joined_row) {
  const int64_t r = i / row;
  return r * joined_row + column + (i - r * row);
}

// Copies every piece into the joined tensor (kSplit: the other way). blockIdx.y picks
// the piece, so no thread searches for one.
template <typename W, bool kSplit>
__global__ void __launch_bounds__(kThreads)
    JoinKernel(W* __restrict__ joined, int64_t rows, int64_t joined_row, PieceTable t) {
  const int p = blockIdx.y;
  const int64_t row = t.row[p], column = t.column[p], n = rows * row;
  W* piece = static_cast<W*>(t.data[p]);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t at = JoinedWord(i, row, column, joined_row);
    if constexpr (kSplit) piece[i] = joined[at];
    else joined[at] = piece[i];
  }
}

// Launches of JoinKernel for a join: words of `word` bytes, `joined_row` words per
// joined row, and tables of at most kMaxPieces non-empty pieces.
struct JoinPlan {
  int64_t word;
  int64_t joined_row;
  std::vector<PieceTable> tables;
  std::vector<int> counts;        // pieces in each table
  std::vector<int64_t> largest;   // words of each table's largest piece
};

// Plans joining (or splitting) `rows` rows of `row_bytes` bytes (both > 0): piece p
// holds `piece_bytes[p]` bytes of each row, after those of the pieces before it.
JoinPlan PlanJoin(const void* joined, int64_t rows, int64_t row_bytes, const std::vector<void*>& pieces,
                  const std::vector<int64_t>& piece_bytes) {
  JoinPlan plan{};
  std::vector<int64_t> column(pieces.size());
  uint64_t word = CommonWordBytes({static_cast<uint64_t>(row_bytes), Address(joined)});
  int64_t at = 0;
  for (size_t p = 0; p < pieces.size(); at += piece_bytes[p], ++p) {
    column[p] = at;
    if (piece_bytes[p] > 0)
      word = CommonWordBytes({word, static_cast<uint64_t>(piece_bytes[p]), static_cast<uint64_t>(at),
                              Address(pieces[p])});
  }
  const int64_t w = static_cast<int64_t>(word);
  plan.word = w;
  plan.joined_row = row_bytes / w;
  std::vector<size_t> nonempty;
  for (size_t p = 0; p < pieces.size(); ++p)
    if (piece_bytes[p] > 0) nonempty.push_back(p);
  for (size_t first = 0; first < nonempty.size(); first += kMaxPieces) {
    const size_t count = std::min<size_t>(kMaxPieces, nonempty.size() - first);
    PieceTable table{};
    int64_t largest = 0;
    for (size_t k = 0; k < count; ++k) {
      const size_t p = nonempty[first + k];
      table.data[k] = pieces[p];
      table.row[k] = piece_bytes[p] / w;
      table.column[k] = column[p] / w;
      largest = std::max(largest, table.row[k] * rows);
    }
    plan.tables.push_back(table);
    plan.counts.push_back(static_cast<int>(count));
    plan.largest.push_back(largest);
  }
  return plan;
}

void JoinPieces(TF_OpKernelContext* ctx, const char* op, bool split, void* joined, int64_t rows,
                int64_t row_bytes, const std::vector<void*>& pieces,
                const std::vector<int64_t>& piece_bytes) {
  if (rows == 0 || row_bytes == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const JoinPlan plan = PlanJoin(joined, rows, row_bytes, pieces, piece_bytes);
  for (size_t t = 0; t < plan.tables.size(); ++t) {
    const dim3 grid(BlocksFor(plan.largest[t]), static_cast<unsigned>(plan.counts[t]));
    WithWord(plan.word, [&](auto word_type) {
      using W = decltype(word_type);
      W* data = static_cast<W*>(joined);
      if (split)
        JoinKernel<W, true><<<grid, kThreads, 0, stream>>>(data, rows, plan.joined_row, plan.tables[t]);
      else
        JoinKernel<W, false><<<grid, kThreads, 0, stream>>>(data, rows, plan.joined_row, plan.tables[t]);
    });
    if (!CheckLaunch(ctx, op)) return;
  }
}

using kernels::OuterInner;

// Concatenates `pieces` (all of the output's rank, equal except along `axis`).
void Concatenate(TF_OpKernelContext* ctx, const char* op, const std::vector<TensorPtr>& pieces,
                 int64_t axis, const std::vector<int64_t>& out_dims) {
  TensorPtr output = AllocateLike(ctx, 0, pieces[0].get(), out_dims);
  if (!output) return;
  int64_t outer, inner;
  OuterInner(out_dims, axis, &outer, &inner);
  const int64_t esize = ElementBytes(pieces[0].get());
  std::vector<void*> data;
  std::vector<int64_t> bytes;
  for (const TensorPtr& piece : pieces) {
    data.push_back(TF_TensorData(piece.get()));
    bytes.push_back(TF_Dim(piece.get(), static_cast<int>(axis)) * inner * esize);
  }
  JoinPieces(ctx, op, false, TF_TensorData(output.get()), outer, out_dims[axis] * inner * esize,
             data, bytes);
}

// ConcatV2, Pack and Unpack: inputs checked and the output shapes worked out by the CPU
// kernels' own code (../concat_spec.h); here only the copy.
void ConcatV2Compute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanConcat(ctx, &plan)) return;
  Concatenate(ctx, "ConcatV2", plan.pieces, plan.axis, plan.out_dims);
}

using kernels::AxisAttr;
using kernels::CreateAxisAttr;
using kernels::DeleteAxisAttr;

void PackCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanPack(ctx, *static_cast<AxisAttr*>(state), &plan)) return;
  const std::vector<TensorPtr>& pieces = plan.pieces;
  const int64_t axis = plan.axis;
  const std::vector<int64_t>& out_dims = plan.out_dims;
  const int n = static_cast<int>(pieces.size());
  // Packing is concatenating pieces that each have a size-1 dimension at `axis`.
  TensorPtr output = AllocateLike(ctx, 0, pieces[0].get(), out_dims);
  if (!output) return;
  int64_t outer, inner;
  OuterInner(out_dims, axis, &outer, &inner);
  const int64_t esize = ElementBytes(pieces[0].get());
  std::vector<void*> data;
  for (const TensorPtr& piece : pieces) data.push_back(TF_TensorData(piece.get()));
  JoinPieces(ctx, "Pack", false, TF_TensorData(output.get()), outer, n * inner * esize, data,
             std::vector<int64_t>(n, inner * esize));
}

void UnpackCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::UnpackPlan plan;
  if (!kernels::PlanUnpack(ctx, *static_cast<AxisAttr*>(state), &plan)) return;
  const TF_Tensor* value = plan.value.get();
  const int num = plan.num;
  const int64_t esize = ElementBytes(value), inner = plan.inner;
  std::vector<TensorPtr> outputs;
  std::vector<void*> data;
  for (int i = 0; i < num; ++i) {
    outputs.push_back(AllocateLike(ctx, i, value, plan.out_dims));
    if (!outputs.back()) return;
    data.push_back(TF_TensorData(outputs.back().get()));
  }
  JoinPieces(ctx, "Unpack", true, TF_TensorData(value), plan.outer, num * inner * esize, data,
             std::vector<int64_t>(num, inner * esize));
}

// ---- Slice, StridedSlice, Tile, Pad ---------------------------------------------------

// Copies the box of `input` (dims `dims`) that starts at `first` and takes count[d]
// elements `step[d]` apart along each dim into `output`, in order: Slice and StridedSlice.
void CopyBox(TF_OpKernelContext* ctx, const char* op, const TF_Tensor* input,
             const std::vector<int64_t>& dims, const std::vector<int64_t>& first,
             const std::vector<int64_t>& step, const std::vector<int64_t>& count,
             TF_Tensor* output) {
  const int64_t n = NumElements(count);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  int64_t base = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    map[d] = MapDim{count[d], step[d] * strides[d], 0, 0};
    base += first[d] * strides[d];
  }
  StridedCopy(ctx, stream, op, MapKind::kLinear, map, base, ElementBytes(input),
              TF_TensorData(input), TF_TensorData(output), n);
}

// Slice, Tile and Pad: operands checked and output shapes worked out by the CPU kernels'
// own code (../slice_spec.h); here the strided copy.
void SliceCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SlicePlan plan;
  if (!kernels::PlanSlice(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, 0, plan.input.get(), plan.size);
  if (!output) return;
  CopyBox(ctx, "Slice", plan.input.get(), plan.dims, plan.begin,
          std::vector<int64_t>(plan.dims.size(), 1), plan.size, output.get());
}

// numpy's basic indexing as TensorFlow spells it, resolved on the host by the CPU
// kernel's own code (strided_slice_spec.h); the copy is a strided one.
void StridedSliceCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::StridedSlicePlan plan;
  if (!kernels::PlanStridedSlice(ctx, *static_cast<kernels::StridedSliceMasks*>(state), &plan)) return;
  const kernels::StridedSliceBox& box = plan.box;
  TensorPtr output = AllocateLike(ctx, 0, plan.input.get(), box.out_dims);
  if (!output) return;
  CopyBox(ctx, "StridedSlice", plan.input.get(), plan.dims, box.first, box.step, box.count,
          output.get());
}

void TileCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TilePlan plan;
  if (!kernels::PlanTile(ctx, &plan)) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& out = plan.out_dims;
  TensorPtr output = AllocateLike(ctx, 0, input, out);
  if (!output) return;
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) map[d] = MapDim{out[d], strides[d], dims[d], 0};
  StridedCopy(ctx, stream, "Tile", MapKind::kTile, map, 0, ElementBytes(input),
              TF_TensorData(input), TF_TensorData(output.get()), n);
}

void PadCompute(void*, TF_OpKernelContext* ctx) {
  kernels::PadPlan plan;
  if (!kernels::PlanPad(ctx, &plan)) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& pads = plan.pads;
  const std::vector<int64_t>& out = plan.out_dims;
  TensorPtr output = AllocateLike(ctx, 0, input, out);
  if (!output) return;
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const int64_t esize = ElementBytes(input);
  if (TF_TensorElementCount(input) == 0) {  // all padding; every dtype's zero is 0 bytes
    CheckCuda(ctx, cudaMemsetAsync(TF_TensorData(output.get()), 0, static_cast<size_t>(n * esize), stream),
              "Pad: cudaMemsetAsync");
    return;
  }
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) map[d] = MapDim{out[d], strides[d], dims[d], pads[2 * d]};
  StridedCopy(ctx, stream, "Pad", MapKind::kPad, map, 0, esize, TF_TensorData(input),
              TF_TensorData(output.get()), n);
}

// ---- GatherV2 -------------------------------------------------------------------------

// Records in *first_bad the lowest position of an index outside [0, limit).
template <typename Index>
__global__ void __launch_bounds__(kThreads)
    FindBadIndexKernel(const Index* __restrict__ indices, int64_t count, int64_t limit,
                       unsigned long long* first_bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0 || v >= limit) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

// The word of `params` that output word i reads: out[o][j][k] = params[o][indices[j]][k]
// with `inner` words per k-row and `limit` rows along the axis; -1 for a bad index
// (reported by the check above).
template <typename Index>
__host__ __device__ inline int64_t GatherSource(int64_t i, const Index* indices, int64_t count, int64_t inner,
                                                int64_t limit) {
  const int64_t t = i / inner, k = i - t * inner;
  const int64_t o = t / count, j = t - o * count;
  const int64_t v = static_cast<int64_t>(indices[j]);
  return v >= 0 && v < limit ? (o * limit + v) * inner + k : -1;
}

template <typename W, typename Index>
__global__ void __launch_bounds__(kThreads)
    GatherKernel(const W* __restrict__ params, const Index* __restrict__ indices, W* __restrict__ out,
                 int64_t n, int64_t count, int64_t inner, int64_t limit) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t src = GatherSource(i, indices, count, inner, limit);
    out[i] = src >= 0 ? params[src] : W{};
  }
}

// The word size of a gather: k-rows of `inner_bytes` move in the widest words that
// divide them and both buffers' addresses.
int64_t GatherWordBytes(int64_t inner_bytes, const void* params, const void* out) {
  return CommonWordBytes({static_cast<uint64_t>(inner_bytes), Address(params), Address(out)});
}

// Gathers on the stream, checks the indices there too, and waits for the check: the
// CPU kernel reports the first bad index, so the GPU one must know before it returns.
template <typename Index>
void Gather(TF_OpKernelContext* ctx, cudaStream_t stream, const void* params, const void* indices_p,
            void* out, int64_t outer, int64_t count, int64_t inner_bytes, int64_t limit) {
  const Index* indices = static_cast<const Index*>(indices_p);
  TensorPtr flag = AllocateTemp(ctx, TF_INT64, {1});
  if (!flag) return;
  auto* first_bad = static_cast<unsigned long long*>(TF_TensorData(flag.get()));
  if (!CheckCuda(ctx, cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), stream),
                 "GatherV2: cudaMemsetAsync"))
    return;
  FindBadIndexKernel<Index><<<BlocksFor(count), kThreads, 0, stream>>>(indices, count, limit, first_bad);
  if (!CheckLaunch(ctx, "GatherV2")) return;
  const int64_t word = GatherWordBytes(inner_bytes, params, out);
  const int64_t inner = inner_bytes / word, n = outer * count * inner;
  if (n > 0) {
    WithWord(word, [&](auto w) {
      using W = decltype(w);
      GatherKernel<W, Index><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const W*>(params), indices, static_cast<W*>(out), n, count, inner, limit);
    });
    if (!CheckLaunch(ctx, "GatherV2")) return;
  }
  unsigned long long bad = 0;
  if (!CheckCuda(ctx, cudaMemcpyAsync(&bad, first_bad, sizeof bad, cudaMemcpyDeviceToHost, stream),
                 "GatherV2: cudaMemcpyAsync") ||
      !CheckCuda(ctx, cudaStreamSynchronize(stream), "GatherV2: cudaStreamSynchronize"))
    return;
  if (bad == ~0ull) return;
  Index value = 0;
  if (!CheckCuda(ctx, cudaMemcpyAsync(&value, indices + bad, sizeof value, cudaMemcpyDeviceToHost, stream),
                 "GatherV2: cudaMemcpyAsync") ||
      !CheckCuda(ctx, cudaStreamSynchronize(stream), "GatherV2: cudaStreamSynchronize"))
    return;
  Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: index " + std::to_string(static_cast<int64_t>(value)) +
                                     " is not in [0, " + std::to_string(limit) + ")");
}

// The attr, axis and output shape from the CPU kernel's own code (../gather_spec.h).
void GatherCompute(void*, TF_OpKernelContext* ctx) {
  kernels::GatherPlan plan;
  if (!kernels::PlanGather(ctx, &plan)) return;
  const TF_Tensor* params = plan.params.get();
  const TF_Tensor* indices_t = plan.indices.get();
  const std::vector<int64_t>& dims = plan.dims;
  const int64_t a = plan.axis, outer = plan.outer, inner = plan.inner;
  TensorPtr output = AllocateLike(ctx, 0, params, plan.out_dims);
  if (!output) return;
  const int64_t count = TF_TensorElementCount(indices_t);
  if (count == 0) return;  // no index to check, nothing to gather
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const void* p = TF_TensorData(params);
  const void* idx = TF_TensorData(indices_t);
  void* o = TF_TensorData(output.get());
  const int64_t inner_bytes = inner * ElementBytes(params);
  switch (TF_TensorType(indices_t)) {
    case TF_INT16: Gather<int16_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
    case TF_INT32: Gather<int32_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
    default: Gather<int64_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
  }
}

// ---- Shape, Size, Rank ----------------------------------------------------------------

// Shape, Size and Rank: the CPU kernels' own code (../shape_ops.h); the input is left on
// the device, never read.
using kernels::DescribeKernels;

// ---- Range ----------------------------------------------------------------------------

// start + i * delta, rounded as the CPU rounds it: one product, one sum, never fused.
__device__ inline float RangeValue(float start, int64_t i, float delta) {
  return __fadd_rn(start, __fmul_rn(static_cast<float>(i), delta));
}
__device__ inline double RangeValue(double start, int64_t i, double delta) {
  return __dadd_rn(start, __dmul_rn(static_cast<double>(i), delta));
}
// Integers: wrapping unsigned arithmetic, as the CPU kernel (i * delta can pass T's range
// on the way to a value that is in it).
template <typename T>
__device__ inline T RangeValue(T start, int64_t i, T delta) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(delta));
}

template <typename T>
__global__ void __launch_bounds__(kThreads) RangeFillKernel(T start, T delta, T* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = RangeValue(start, i, delta);
}

// start, limit and delta are host-memory scalars; the values are made on the device.
template <typename T>
struct RangeKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    T start, delta;
    int64_t n;
    if (!kernels::PlanRange(ctx, &start, &delta, &n)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, {n});
    if (!output || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    RangeFillKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(start, delta, Data<T>(output), n);
    CheckLaunch(ctx, "Range");
  }
};

// ---- registration ---------------------------------------------------------------------

void Add(const char* op, std::vector<std::pair<const char*, TF_DataType>> constraints,
         std::vector<const char*> host_memory, ComputeFn compute, TF_Status* status,
         CreateFn create = nullptr, DeleteFn destroy = nullptr) {
  Register(KernelSpec{op, std::move(constraints), std::move(host_memory), compute, create, destroy},
           status);
}

void RegisterDataKernels(TF_DataType t, TF_Status* status) {
  Add("Const", {{"dtype", t}}, {}, ConstCompute, status, CreateConst, DeleteConst);
  Add("Identity", {{"T", t}}, {}, IdentityCompute, status);
  for (TF_DataType index : kIndexTypes) {
    Add("Reshape", {{"T", t}, {"Tshape", index}}, {"shape"}, ReshapeCompute, status);
    Add("ExpandDims", {{"T", t}, {"Tdim", index}}, {"dim"}, ExpandDimsCompute, status);
    Add("Transpose", {{"T", t}, {"Tperm", index}}, {"perm"}, TransposeCompute, status);
    Add("ConcatV2", {{"T", t}, {"Tidx", index}}, {"axis"}, ConcatV2Compute, status);
    Add("Slice", {{"T", t}, {"Index", index}}, {"begin", "size"}, SliceCompute, status);
    Add("StridedSlice", {{"T", t}, {"Index", index}}, {"begin", "end", "strides"}, StridedSliceCompute,
        status, kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks);
    Add("Tile", {{"T", t}, {"Tmultiples", index}}, {"multiples"}, TileCompute, status);
    Add("Pad", {{"T", t}, {"Tpaddings", index}}, {"paddings"}, PadCompute, status);
  }
  Add("Squeeze", {{"T", t}}, {}, SqueezeCompute, status, CreateSqueeze, DeleteSqueeze);
  Add("Pack", {{"T", t}}, {}, PackCompute, status, CreateAxisAttr, DeleteAxisAttr);
  Add("Unpack", {{"T", t}}, {}, UnpackCompute, status, CreateAxisAttr, DeleteAxisAttr);
  for (TF_DataType indices : {TF_INT16, TF_INT32, TF_INT64})
    for (TF_DataType axis : kIndexTypes)
      Add("GatherV2", {{"Tparams", t}, {"Tindices", indices}, {"Taxis", axis}}, {"axis"}, GatherCompute,
          status, kernels::CreateGather, nullptr);
  Add("Shape", {{"T", t}, {"out_type", TF_INT32}}, {"output"}, &DescribeKernels<int32_t>::Shape, status);
  Add("Shape", {{"T", t}, {"out_type", TF_INT64}}, {"output"}, &DescribeKernels<int64_t>::Shape, status);
  Add("Size", {{"T", t}, {"out_type", TF_INT32}}, {"output"}, &DescribeKernels<int32_t>::Size, status);
  Add("Size", {{"T", t}, {"out_type", TF_INT64}}, {"output"}, &DescribeKernels<int64_t>::Size, status);
  Add("Rank", {{"T", t}}, {"output"}, &DescribeKernels<int32_t>::Rank, status);
}

template <typename T>
void RegisterRange(TF_Status* status) {
  Add("Range", {{"Tidx", DtypeOf<T>::value}}, {"start", "limit", "delta"}, &RangeKernel<T>::Compute, status);
}

}  // namespace

void RegisterArrayKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) RegisterDataKernels(t, status);
  Add("NoOp", {}, {}, NoOpCompute, status);
  RegisterRange<float>(status);
  RegisterRange<double>(status);
  RegisterRange<int32_t>(status);
  RegisterRange<int64_t>(status);
}

}  // namespace cuda
}  // namespace opgen
