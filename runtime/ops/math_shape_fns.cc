// Shape functions of the arithmetic ops: broadcasting, reductions and matrix products.
#include <algorithm>

#include "shape_fn_context.h"
#include "shape_fns.h"

namespace opgen {
namespace {

PartialShape BroadcastInputs(ShapeFnContext& c) {
  PartialShape out = c.Input(0);
  for (int i = 1; i < c.num_inputs(); ++i) out = BroadcastShapes(out, c.Input(i));
  return out;
}

void Broadcast(ShapeFnContext& c) { c.SetOutput(0, BroadcastInputs(c)); }

// Equal / NotEqual: with incompatible_shape_error false, operands that cannot broadcast
// are not an error but compare as a whole, giving a scalar (as in TensorFlow).
void EqualityBroadcast(ShapeFnContext& c) {
  if (!c.AttrBool("incompatible_shape_error") && !Broadcastable(c.Input(0), c.Input(1)))
    return c.SetOutput(0, PartialShape::Of({}));
  Broadcast(c);
}

void SameShapes(ShapeFnContext& c) {
  PartialShape out;
  for (int i = 0; i < c.num_inputs(); ++i)
    out = MergeShapes(out, c.Input(i), "input " + std::to_string(i) + " against the others");
  c.SetOutput(0, out);
}

// Cross: a and b of one shape, rank >= 1, a last dim of 3.
void Cross(ShapeFnContext& c) {
  const PartialShape a = c.InputWithRankAtLeast(0, 1, "a"), b = c.InputWithRankAtLeast(1, 1, "b");
  const PartialShape out = MergeShapes(a, b, "b against a");
  if (out.rank_known && out.dims.back() >= 0 && out.dims.back() != 3)
    Fail("Dimension must be 3 but is " + std::to_string(out.dims.back()));
  c.SetOutput(0, out);
}

// AccumulateNV2: the `shape` attr is the output's shape.
void ExplicitShape(ShapeFnContext& c) { c.SetOutput(0, c.AttrShape("shape")); }

void RankAtLeast1(ShapeFnContext& c) { c.SetOutput(0, c.InputWithRankAtLeast(0, 1, "input")); }

// MatrixBandPart: a batch of matrices in, the same shape out; the band sizes are scalars.
void MatrixBandPart(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRankAtLeast(0, 2, "input");
  c.InputWithRank(1, 0, "num_lower");
  c.InputWithRank(2, 0, "num_upper");
  c.SetOutput(0, input);
}

void Reduction(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const PartialShape axes_shape = c.Input(1);
  if (axes_shape.rank() > 1)
    Fail("reduction_indices must be a scalar or a vector, not " + axes_shape.ToString());
  const bool keep_dims = c.AttrBool("keep_dims");
  std::optional<std::vector<int64_t>> axes = c.InputInts(1);
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (!axes)  // which dims go is unknown; with keep_dims at least the rank stays
    return c.SetOutput(0, keep_dims ? PartialShape::UnknownDims(in.rank())
                                    : PartialShape::Unknown());
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t axis : *axes) reduced[CanonicalAxis(axis, in.rank(), "reduction axis")] = true;
  PartialShape out = PartialShape::Of({});
  for (int64_t k = 0; k < in.rank(); ++k) {
    if (!reduced[k]) out.dims.push_back(in.dims[k]);
    else if (keep_dims) out.dims.push_back(1);
  }
  c.SetOutput(0, out);
}

void ArgReduction(ShapeFnContext& c) {
  PartialShape in = c.Input(0);
  c.InputWithRank(1, 0, "dimension");
  std::optional<std::vector<int64_t>> dimension = c.InputInts(1);
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (!dimension)
    return c.SetOutput(0, PartialShape::UnknownDims(std::max<int64_t>(in.rank() - 1, 0)));
  in.dims.erase(in.dims.begin() + CanonicalAxis((*dimension)[0], in.rank(), "dimension"));
  c.SetOutput(0, in);
}

void CheckInner(int64_t a, int64_t b, const PartialShape& x, const PartialShape& y) {
  if (a >= 0 && b >= 0 && a != b)
    Fail("inner dimensions " + std::to_string(a) + " and " + std::to_string(b) + " differ (" +
         x.ToString() + " times " + y.ToString() + ")");
}

void MatMul(ShapeFnContext& c) {
  const PartialShape a = c.InputWithRank(0, 2, "a"), b = c.InputWithRank(1, 2, "b");
  const bool ta = c.AttrBool("transpose_a"), tb = c.AttrBool("transpose_b");
  CheckInner(a.dims[ta ? 0 : 1], b.dims[tb ? 1 : 0], a, b);
  c.SetOutput(0, PartialShape::Of({a.dims[ta ? 1 : 0], b.dims[tb ? 0 : 1]}));
}

void BatchMatMul(ShapeFnContext& c) {
  const PartialShape x = c.InputWithRankAtLeast(0, 2, "x"), y = c.InputWithRankAtLeast(1, 2, "y");
  if (!x.rank_known || !y.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  const bool adj_x = c.AttrBool("adj_x"), adj_y = c.AttrBool("adj_y");
  const int64_t rx = x.rank(), ry = y.rank();
  const int64_t rows = x.dims[rx - (adj_x ? 1 : 2)], inner_x = x.dims[rx - (adj_x ? 2 : 1)];
  const int64_t inner_y = y.dims[ry - (adj_y ? 1 : 2)], cols = y.dims[ry - (adj_y ? 2 : 1)];
  CheckInner(inner_x, inner_y, x, y);
  PartialShape batch = BroadcastShapes(PartialShape::Of({x.dims.begin(), x.dims.end() - 2}),
                                       PartialShape::Of({y.dims.begin(), y.dims.end() - 2}));
  batch.dims.push_back(rows);
  batch.dims.push_back(cols);
  c.SetOutput(0, batch);
}

}  // namespace

namespace shape_fns {
const OpShapeFn kBroadcast = ShapeFn<Broadcast>;
const OpShapeFn kEqualityBroadcast = ShapeFn<EqualityBroadcast>;
const OpShapeFn kSameShapes = ShapeFn<SameShapes>;
const OpShapeFn kCross = ShapeFn<Cross>;
const OpShapeFn kExplicitShape = ShapeFn<ExplicitShape>;
const OpShapeFn kRankAtLeast1 = ShapeFn<RankAtLeast1>;
const OpShapeFn kMatrixBandPart = ShapeFn<MatrixBandPart>;
const OpShapeFn kReduction = ShapeFn<Reduction>;
const OpShapeFn kArgReduction = ShapeFn<ArgReduction>;
const OpShapeFn kMatMul = ShapeFn<MatMul>;
const OpShapeFn kBatchMatMul = ShapeFn<BatchMatMul>;
}  // namespace shape_fns

}  // namespace opgen
