// Shape functions of misc_ops.cc: exact where the operands that decide a shape (split
// sizes, depth, k, a target shape) are known while the graph is built, ranks or
// nothing otherwise.
#include <algorithm>

#include "misc_shape_fns.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Select (v1): `t` and `e` have one shape; the condition is a scalar, that shape, or a
// vector as long as the first dimension.
void SelectV1(ShapeFnContext& c) {
  const PartialShape cond = c.Input(0);
  const PartialShape out = MergeShapes(c.Input(1), c.Input(2), "t and e must have the same shape");
  if (cond.rank_known && out.rank_known && cond.rank() != 0) {
    if (cond.rank() == 1 && out.rank() > 1) {
      MergeDim(cond.dims[0], out.dims[0], "the condition vector against the first dimension of t");
    } else {
      MergeShapes(cond, out, "the condition must be a scalar, a vector over the first "
                             "dimension, or shaped as t");
    }
  }
  c.SetOutput(0, out);
}

void IdentityN(ShapeFnContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) c.SetOutput(i, c.Input(i));
}

// The pieces of `value` along a known `axis` of sizes `sizes` (kUnknownDim: unknown).
void SetPieces(ShapeFnContext& c, const PartialShape& value, std::optional<int64_t> axis,
               const std::vector<int64_t>& sizes) {
  for (int i = 0; i < c.num_outputs(); ++i) {
    if (!value.rank_known) {
      c.SetOutput(i, PartialShape::Unknown());
    } else if (!axis) {
      c.SetOutput(i, PartialShape::UnknownDims(value.rank()));
    } else {
      PartialShape piece = value;
      piece.dims[*axis] = sizes[i];
      c.SetOutput(i, piece);
    }
  }
}

std::optional<int64_t> SplitAxis(ShapeFnContext& c, int input, const PartialShape& value) {
  c.InputWithRank(input, 0, "split_dim");
  std::optional<std::vector<int64_t>> axis = c.InputInts(input);
  if (!axis || !value.rank_known) return std::nullopt;
  return CanonicalAxis((*axis)[0], value.rank(), "split_dim");
}

void Split(ShapeFnContext& c) {
  const PartialShape value = c.Input(1);
  const std::optional<int64_t> axis = SplitAxis(c, 0, value);
  const int64_t n = c.num_outputs();
  int64_t size = kUnknownDim;
  if (axis && value.dims[*axis] >= 0) {
    if (value.dims[*axis] % n != 0)
      Fail("Number of ways to split should evenly divide the split dimension, but got "
           "split_dim " + std::to_string(*axis) + " (size = " + std::to_string(value.dims[*axis]) +
           ") and num_split " + std::to_string(n));
    size = value.dims[*axis] / n;
  }
  SetPieces(c, value, axis, std::vector<int64_t>(n, size));
}

void SplitV(ShapeFnContext& c) {
  const PartialShape value = c.Input(0);
  const int64_t n = c.num_outputs();
  const int64_t len = c.InputWithRank(1, 1, "size_splits").dims[0];
  if (len >= 0 && len != n)
    Fail("size_splits has " + std::to_string(len) + " entries but num_split is " + std::to_string(n));
  const std::optional<int64_t> axis = SplitAxis(c, 2, value);
  std::optional<std::vector<int64_t>> sizes = c.InputInts(1);
  std::vector<int64_t> pieces(n, kUnknownDim);
  if (sizes && axis) {
    const int64_t dim = value.dims[*axis];
    int64_t total = 0, unknown = -1;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = (*sizes)[i];
      if (s == -1) {
        if (unknown >= 0) Fail("size_splits has more than one -1");
        unknown = i;
      } else if (s < 0) {
        Fail("size_splits entry " + std::to_string(i) + " is negative: " + std::to_string(s));
      } else {
        total += s;
      }
      pieces[i] = s;
    }
    if (dim >= 0) {
      if (unknown >= 0 ? total > dim : total != dim)
        Fail("size_splits add up to " + std::to_string(total) + " but dimension " +
             std::to_string(*axis) + " has size " + std::to_string(dim));
      if (unknown >= 0) pieces[unknown] = dim - total;
    } else if (unknown >= 0) {
      pieces[unknown] = kUnknownDim;
    }
  }
  SetPieces(c, value, axis, pieces);
}

void OneHot(ShapeFnContext& c) {
  const PartialShape indices = c.Input(0);
  c.InputWithRank(1, 0, "depth");
  c.InputWithRank(2, 0, "on_value");
  c.InputWithRank(3, 0, "off_value");
  const int64_t axis = c.AttrInt("axis");
  if (axis < -1) Fail("axis must be -1 or a dimension index, not " + std::to_string(axis));
  std::optional<std::vector<int64_t>> depth = c.InputInts(1);
  if (depth && (*depth)[0] < 0) Fail("depth must be non-negative, got " + std::to_string((*depth)[0]));
  if (!indices.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (axis > indices.rank())
    Fail("axis " + std::to_string(axis) + " is out of range for indices of rank " +
         std::to_string(indices.rank()));
  PartialShape out = indices;
  out.dims.insert(axis == -1 ? out.dims.end() : out.dims.begin() + axis,
                  depth ? (*depth)[0] : kUnknownDim);
  c.SetOutput(0, out);
}

void BroadcastTo(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const int64_t len = c.InputWithRank(1, 1, "shape").dims[0];
  std::optional<std::vector<int64_t>> shape = c.InputInts(1);
  if (!shape) return c.SetOutput(0, len >= 0 ? PartialShape::UnknownDims(len) : PartialShape::Unknown());
  const PartialShape out = PartialShape::Of(*shape);
  for (int64_t d : *shape)
    if (d < 0) Fail("BroadcastTo: shape " + out.ToString() + " has a negative dimension");
  if (in.rank_known) {
    if (in.rank() > out.rank())
      Fail("BroadcastTo: rank of input " + in.ToString() + " is greater than the rank of shape " +
           out.ToString());
    for (int64_t k = 0; k < in.rank(); ++k) {
      const int64_t d = in.dims[in.rank() - 1 - k], o = out.dims[out.rank() - 1 - k];
      if (d >= 0 && d != 1 && d != o)
        Fail("BroadcastTo: input " + in.ToString() + " cannot broadcast to " + out.ToString());
    }
  }
  c.SetOutput(0, out);
}

void Where(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  c.SetOutput(0, PartialShape::Of({kUnknownDim, in.rank_known ? in.rank() : kUnknownDim}));
}

void TopK(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 1, "input");
  c.InputWithRank(1, 0, "k");
  std::optional<std::vector<int64_t>> k = c.InputInts(1);
  if (k && (*k)[0] < 0) Fail("k must be non-negative, got " + std::to_string((*k)[0]));
  if (in.rank_known) {
    const int64_t last = in.dims.back();
    if (k && last >= 0 && last < (*k)[0])
      Fail("input must have at least k=" + std::to_string((*k)[0]) + " columns, has " +
           std::to_string(last));
    in.dims.back() = k ? (*k)[0] : kUnknownDim;
  }
  c.SetOutput(0, in);
  c.SetOutput(1, in);
}

}  // namespace

namespace shape_fns {
const OpShapeFn kSelectV1 = ShapeFn<SelectV1>;
const OpShapeFn kIdentityN = ShapeFn<IdentityN>;
const OpShapeFn kSplit = ShapeFn<Split>;
const OpShapeFn kSplitV = ShapeFn<SplitV>;
const OpShapeFn kOneHot = ShapeFn<OneHot>;
const OpShapeFn kBroadcastTo = ShapeFn<BroadcastTo>;
const OpShapeFn kWhere = ShapeFn<Where>;
const OpShapeFn kTopK = ShapeFn<TopK>;
}  // namespace shape_fns

}  // namespace opgen
