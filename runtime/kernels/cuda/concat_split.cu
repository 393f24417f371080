// ConcatV2, Pack and Unpack on the GPU: pieces joined or split as rows of opaque
// words (byte_copy.cuh). Twin of ../cpu/concat_split.cc, with its checks (../concat_spec.h).
#include "../concat_spec.h"
#include "byte_copy.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

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

// Concat (TF1-era): the axis is input 0.
void ConcatV1Compute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanConcat(ctx, &plan, true)) return;
  Concatenate(ctx, "Concat", plan.pieces, plan.axis, plan.out_dims);
}

// ParallelConcat: the [1, ...] values joined along 0.
void ParallelConcatCompute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanParallelConcat(ctx, &plan)) return;
  Concatenate(ctx, "ParallelConcat", plan.pieces, plan.axis, plan.out_dims);
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

}  // namespace

void RegisterConcatSplitKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) {
    for (TF_DataType index : kIndexTypes)
      RegisterKernel(kDevice, {"ConcatV2", {{"T", t}, {"Tidx", index}}, {"axis"}, ConcatV2Compute},
                     status);
    RegisterKernel(kDevice, {"Concat", {{"T", t}}, {"concat_dim"}, ConcatV1Compute}, status);
    RegisterKernel(kDevice, {"ParallelConcat", {{"T", t}}, {}, ParallelConcatCompute}, status);
    RegisterKernel(kDevice, {"Pack", {{"T", t}}, {}, PackCompute, CreateAxisAttr, DeleteAxisAttr},
                   status);
    RegisterKernel(kDevice, {"Unpack", {{"T", t}}, {}, UnpackCompute, CreateAxisAttr, DeleteAxisAttr},
                   status);
  }
}

}  // namespace cuda
}  // namespace opgen
