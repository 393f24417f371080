// Shape functions of the gradient-kernel ops: exact where the operands that decide a
// shape (num_segments, the forward op's shape, paddings) are known while the graph is
// built, ranks or nothing otherwise, as TensorFlow infers them.
#include "grad_kernel_shape_fns.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// BiasAddGrad: one value per channel of the gradient.
void BiasAddGrad(ShapeFnContext& c) {
  const PartialShape g = c.InputWithRankAtLeast(0, 2, "out_backprop");
  if (!g.rank_known) return c.SetOutput(0, PartialShape::UnknownDims(1));
  const bool nchw = c.AttrString("data_format") == "NCHW";
  c.SetOutput(0, PartialShape::Of({g.dims[nchw ? 1 : g.rank() - 1]}));
}

// SoftmaxCrossEntropyWithLogits: features and labels broadcast to one [batch, classes].
void SoftmaxCrossEntropy(ShapeFnContext& c) {
  PartialShape both = BroadcastShapes(c.Input(0), c.Input(1));
  if (!both.rank_known) both = PartialShape::UnknownDims(2);
  if (both.rank() != 2)
    Fail("logits and labels must be broadcastable to a matrix, got rank " +
         std::to_string(both.rank()));
  c.SetOutput(0, PartialShape::Of({both.dims[0]}));
  c.SetOutput(1, both);
}

// SparseSoftmaxCrossEntropyWithLogits: features [batch, classes], labels [batch].
void SparseSoftmaxCrossEntropy(ShapeFnContext& c) {
  PartialShape features = c.InputWithRank(0, 2, "features");
  const PartialShape labels = c.InputWithRank(1, 1, "labels");
  features.dims[0] = MergeDim(features.dims[0], labels.dims[0],
                              "the batch of features against the length of labels");
  c.SetOutput(0, PartialShape::Of({features.dims[0]}));
  c.SetOutput(1, features);
}

// UnsortedSegment*: data's shape starts with segment_ids'; the output is
// [num_segments] + the rest of data's shape.
void UnsortedSegmentReduction(ShapeFnContext& c) {
  const PartialShape data = c.Input(0), ids = c.Input(1);
  c.InputWithRank(2, 0, "num_segments");
  const std::optional<std::vector<int64_t>> n = c.InputInts(2);
  const int64_t segments = n ? (*n)[0] : kUnknownDim;
  if (n && segments < 0) Fail("num_segments must not be negative, got " + std::to_string(segments));
  if (!data.rank_known || !ids.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (ids.rank() > data.rank())
    Fail("segment_ids " + ids.ToString() + " must be a prefix of data's shape " + data.ToString());
  for (int64_t k = 0; k < ids.rank(); ++k)
    MergeDim(data.dims[k], ids.dims[k], "segment_ids' shape against the start of data's shape");
  std::vector<int64_t> out{segments};
  out.insert(out.end(), data.dims.begin() + ids.rank(), data.dims.end());
  c.SetOutput(0, PartialShape::Of(out));
}

// ConcatOffset: each offset is shaped as its shape vector.
void ConcatOffset(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "concat_dim");
  for (int i = 1; i < c.num_inputs(); ++i) c.SetOutput(i - 1, c.InputWithRank(i, 1, "shape"));
}

void InvertPermutation(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRank(0, 1, "x")); }

// StridedSliceGrad: shaped as its `shape` operand says (negative values: unknown).
void StridedSliceGrad(ShapeFnContext& c) {
  const int64_t n = c.InputWithRank(0, 1, "shape").dims[0];
  const std::optional<std::vector<int64_t>> shape = c.InputInts(0);
  if (!shape) return c.SetOutput(0, n < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(n));
  PartialShape out = PartialShape::Of(*shape);
  for (int64_t& d : out.dims)
    if (d < 0) d = kUnknownDim;
  c.SetOutput(0, out);
}

// MirrorPadGrad: the padded gradient less its paddings.
void MirrorPadGrad(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const PartialShape pads_shape = c.InputWithRank(1, 2, "paddings");
  MergeDim(pads_shape.dims[1], 2, "paddings' second dimension");
  int64_t rank = in.rank();
  if (rank >= 0 && pads_shape.dims[0] >= 0 && rank != pads_shape.dims[0])
    Fail("the rank of input " + std::to_string(rank) + " differs from the rows of paddings " +
         std::to_string(pads_shape.dims[0]));
  if (rank < 0) rank = pads_shape.dims[0];
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  const std::optional<std::vector<int64_t>> pads = c.InputInts(1);
  PartialShape out = PartialShape::UnknownDims(rank);
  for (int64_t k = 0; pads && in.rank_known && k < rank; ++k) {
    const int64_t lo = (*pads)[2 * k], hi = (*pads)[2 * k + 1];
    if (lo < 0 || hi < 0) Fail("paddings must not be negative");
    if (in.dims[k] < 0) continue;
    out.dims[k] = in.dims[k] - lo - hi;
    if (out.dims[k] < 0)
      Fail("paddings " + std::to_string(lo) + " and " + std::to_string(hi) + " exceed dimension " +
           std::to_string(k) + " of size " + std::to_string(in.dims[k]));
  }
  c.SetOutput(0, out);
}

}  // namespace

namespace shape_fns {
const OpShapeFn kBiasAddGrad = ShapeFn<BiasAddGrad>;
const OpShapeFn kSoftmaxCrossEntropy = ShapeFn<SoftmaxCrossEntropy>;
const OpShapeFn kSparseSoftmaxCrossEntropy = ShapeFn<SparseSoftmaxCrossEntropy>;
const OpShapeFn kUnsortedSegmentReduction = ShapeFn<UnsortedSegmentReduction>;
const OpShapeFn kConcatOffset = ShapeFn<ConcatOffset>;
const OpShapeFn kInvertPermutation = ShapeFn<InvertPermutation>;
const OpShapeFn kStridedSliceGrad = ShapeFn<StridedSliceGrad>;
const OpShapeFn kMirrorPadGrad = ShapeFn<MirrorPadGrad>;
}  // namespace shape_fns

}  // namespace opgen
