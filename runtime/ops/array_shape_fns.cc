// Shape functions of the array ops: constants, joins and splits, slicing, reshaping.
// Operands that say how to reshape (axes, sizes, permutations) give exact shapes when
// their values are known while the graph is built, and only the rank, or nothing,
// otherwise.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "../kernels/range_spec.h"
#include "shape_fn_context.h"
#include "shape_fns.h"

namespace opgen {
namespace {

// The rank two sources agree on (-1: unknown); `what` names them when they differ.
int64_t MergeRank(int64_t a, int64_t b, const std::string& what) {
  if (a >= 0 && b >= 0 && a != b)
    Fail(what + " differ: " + std::to_string(a) + " and " + std::to_string(b));
  return a >= 0 ? a : b;
}

void Unchanged(ShapeFnContext& c) { c.SetOutput(0, c.Input(0)); }
void Scalar(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({})); }
void NoOutputs(ShapeFnContext&) {}

void Const(ShapeFnContext& c) {
  PartialShape shape;
  try {
    shape = c.AttrTensorShape("value");
  } catch (const ShapeError&) {
    shape = PartialShape::Unknown();  // a value the runtime cannot read (e.g. strings)
  }
  c.SetOutput(0, shape);
}

void Placeholder(ShapeFnContext& c) { c.SetOutput(0, c.AttrShape("shape")); }

// The output is what may be fed: any tensor of the `shape` attr, which the default input
// must fit.
void PlaceholderWithDefault(ShapeFnContext& c) {
  const PartialShape shape = c.AttrShape("shape");
  MergeShapes(c.Input(0), shape, "the input does not have the shape of attr 'shape'");
  c.SetOutput(0, shape);
}

// The length of a 1-D operand (-1: unknown); another rank throws.
int64_t VectorLength(ShapeFnContext& c, int i, const char* what) {
  PartialShape s = c.InputWithRank(i, 1, what);
  return s.dims[0];
}

// ConcatV2 (values, then the axis) and Concat (the axis, then `n` values from `first`).
void JoinShape(ShapeFnContext& c, int axis_index, int first) {
  const int n = c.num_inputs() - 1;
  c.InputWithRank(axis_index, 0, "axis");
  std::optional<std::vector<int64_t>> axis = c.InputInts(axis_index);
  int64_t rank = -1;
  for (int i = first; i < first + n; ++i)
    rank = MergeRank(rank, c.Input(i).rank(), "the ranks of the inputs");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  if (!axis) return c.SetOutput(0, PartialShape::UnknownDims(rank));
  const int64_t a = CanonicalAxis((*axis)[0], rank, "axis");
  PartialShape out = PartialShape::UnknownDims(rank);
  int64_t joined = 0;
  for (int i = first; i < first + n; ++i) {
    PartialShape s = c.Input(i);
    if (!s.rank_known) {
      joined = kUnknownDim;
      continue;
    }
    joined = (joined < 0 || s.dims[a] < 0) ? kUnknownDim : joined + s.dims[a];
    for (int64_t k = 0; k < rank; ++k)
      if (k != a)
        out.dims[k] = MergeDim(out.dims[k], s.dims[k],
                               "input " + std::to_string(i) + " dimension " + std::to_string(k) +
                                   " does not match the other inputs");
  }
  out.dims[a] = joined;
  c.SetOutput(0, out);
}
void Concat(ShapeFnContext& c) { JoinShape(c, c.num_inputs() - 1, 0); }
void ConcatV1(ShapeFnContext& c) { JoinShape(c, 0, 1); }

void Pack(ShapeFnContext& c) {
  PartialShape merged;
  for (int i = 0; i < c.num_inputs(); ++i)
    merged = MergeShapes(merged, c.Input(i), "Pack inputs must have one shape");
  if (!merged.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  const int64_t a = CanonicalAxis(c.AttrInt("axis"), merged.rank() + 1, "axis");
  merged.dims.insert(merged.dims.begin() + a, c.num_inputs());
  c.SetOutput(0, merged);
}

void Unpack(ShapeFnContext& c) {
  PartialShape s = c.Input(0);
  if (s.rank_known) {
    const int64_t a = CanonicalAxis(c.AttrInt("axis"), s.rank(), "axis");
    MergeDim(s.dims[a], c.AttrInt("num"), "dimension " + std::to_string(a) + " against num");
    s.dims.erase(s.dims.begin() + a);
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, s);
}

void Slice(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  std::optional<std::vector<int64_t>> begin = c.InputInts(1), size = c.InputInts(2);
  int64_t rank = MergeRank(in.rank(), VectorLength(c, 1, "begin"),
                           "the rank of input and the length of begin");
  rank = MergeRank(rank, VectorLength(c, 2, "size"), "the rank of input and the length of size");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::UnknownDims(rank);
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t dim = in.rank_known ? in.dims[k] : kUnknownDim;
    const int64_t b = begin ? (*begin)[k] : kUnknownDim;
    if (begin && (b < 0 || (dim >= 0 && b > dim)))
      Fail("begin " + std::to_string(b) + " is out of range for dimension " + std::to_string(k) +
           " of size " + DimToString(dim));
    if (!size) continue;
    const int64_t sz = (*size)[k];
    if (sz < -1)
      Fail("size " + std::to_string(sz) + " of dimension " + std::to_string(k) + " is below -1");
    if (sz == -1) {
      out.dims[k] = (begin && dim >= 0) ? dim - b : kUnknownDim;
    } else {
      if (begin && dim >= 0 && sz > dim - b)  // (b is in [0, dim]; b + sz can overflow)
        Fail("a slice of " + std::to_string(sz) + " from " + std::to_string(b) + " of dimension " +
             std::to_string(k) + " exceeds its size " + std::to_string(dim));
      out.dims[k] = sz;
    }
  }
  c.SetOutput(0, out);
}

// Length of Python's slice [begin:end:stride] of `dim` elements; `begin_set`/`end_set`
// false means the bound was left out (a mask bit).
int64_t SliceLength(int64_t dim, int64_t begin, bool begin_set, int64_t end, bool end_set,
                    int64_t stride) {
  auto clamp = [dim](int64_t i, int64_t lo, int64_t hi) {
    if (i < 0) i += dim;
    return std::min(std::max(i, lo), hi);
  };
  if (stride > 0) {
    const int64_t b = begin_set ? clamp(begin, 0, dim) : 0;
    const int64_t e = end_set ? clamp(end, 0, dim) : dim;
    return e > b ? (e - b + stride - 1) / stride : 0;
  }
  const int64_t b = begin_set ? clamp(begin, -1, dim - 1) : dim - 1;
  const int64_t e = end_set ? clamp(end, -1, dim - 1) : -1;
  return b > e ? (b - e - stride - 1) / -stride : 0;
}

void StridedSlice(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  std::optional<std::vector<int64_t>> begin = c.InputInts(1), end = c.InputInts(2),
                                      strides = c.InputInts(3);
  if (!in.rank_known || !begin || !end || !strides) return c.SetOutput(0, PartialShape::Unknown());
  const size_t n = begin->size();
  if (end->size() != n || strides->size() != n)
    Fail("begin, end and strides have different lengths");
  const int64_t begin_mask = c.AttrInt("begin_mask"), end_mask = c.AttrInt("end_mask"),
                ellipsis_mask = c.AttrInt("ellipsis_mask"),
                new_axis_mask = c.AttrInt("new_axis_mask"),
                shrink_mask = c.AttrInt("shrink_axis_mask");
  auto bit = [](int64_t mask, size_t i) { return i < 63 && ((mask >> i) & 1); };
  int64_t indexed = 0;  // input dims the entries name, ellipsis aside
  int ellipses = 0;
  for (size_t i = 0; i < n; ++i) {
    if (bit(ellipsis_mask, i)) ++ellipses;
    else if (!bit(new_axis_mask, i)) ++indexed;
  }
  if (ellipses > 1) Fail("more than one ellipsis in ellipsis_mask");
  if (indexed > in.rank())
    Fail(std::to_string(indexed) + " indices for an input of rank " + std::to_string(in.rank()));
  PartialShape out = PartialShape::Of({});
  int64_t d = 0;  // next input dim
  for (size_t i = 0; i < n; ++i) {
    if (bit(ellipsis_mask, i)) {
      for (int64_t span = in.rank() - indexed; span > 0; --span) out.dims.push_back(in.dims[d++]);
      continue;
    }
    if (bit(new_axis_mask, i)) {
      out.dims.push_back(1);
      continue;
    }
    const int64_t dim = in.dims[d++], stride = (*strides)[i];
    if (stride == 0) Fail("stride of entry " + std::to_string(i) + " is 0");
    if (bit(shrink_mask, i)) {
      const int64_t index = (*begin)[i];
      if (stride < 0) Fail("only stride 1 allowed on non-range indexing (entry " + std::to_string(i) + ")");
      if (dim >= 0 && (index < -dim || index >= dim))
        Fail("index " + std::to_string(index) + " is out of range for dimension " +
             std::to_string(d - 1) + " of size " + std::to_string(dim));
      continue;
    }
    out.dims.push_back(dim < 0 ? kUnknownDim
                               : SliceLength(dim, (*begin)[i], !bit(begin_mask, i), (*end)[i],
                                             !bit(end_mask, i), stride));
  }
  while (d < in.rank()) out.dims.push_back(in.dims[d++]);
  c.SetOutput(0, out);
}

void Pad(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const PartialShape paddings_shape = c.InputWithRank(1, 2, "paddings");
  MergeDim(paddings_shape.dims[1], 2, "paddings' second dimension");
  std::optional<std::vector<int64_t>> pads = c.InputInts(1);
  int64_t rank = MergeRank(in.rank(), paddings_shape.dims[0],
                           "the rank of input and the rows of paddings");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::UnknownDims(rank);
  for (int64_t k = 0; pads && k < rank; ++k) {
    const int64_t before = (*pads)[2 * k], after = (*pads)[2 * k + 1];
    if (before < 0 || after < 0) Fail("paddings must not be negative");
    if (in.rank_known && in.dims[k] >= 0 &&
        (__builtin_add_overflow(in.dims[k], before, &out.dims[k]) ||
         __builtin_add_overflow(out.dims[k], after, &out.dims[k])))
      Fail("paddings " + std::to_string(before) + " and " + std::to_string(after) +
           " overflow int64 for dimension " + std::to_string(k));
  }
  c.SetOutput(0, out);
}

void Tile(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  std::optional<std::vector<int64_t>> multiples = c.InputInts(1);
  int64_t rank = MergeRank(in.rank(), VectorLength(c, 1, "multiples"),
                           "the rank of input and the length of multiples");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::UnknownDims(rank);
  for (int64_t k = 0; multiples && k < rank; ++k) {
    const int64_t m = (*multiples)[k], dim = in.rank_known ? in.dims[k] : kUnknownDim;
    if (m < 0) Fail("multiples must not be negative");
    if (m == 0 || dim < 0) {
      out.dims[k] = m == 0 ? 0 : kUnknownDim;
    } else if (__builtin_mul_overflow(dim, m, &out.dims[k])) {
      Fail("multiple " + std::to_string(m) + " overflows int64 for dimension " + std::to_string(k));
    }
  }
  c.SetOutput(0, out);
}

void Gather(ShapeFnContext& c) {
  const PartialShape params = c.Input(0), indices = c.Input(1);
  c.InputWithRank(2, 0, "axis");
  std::optional<std::vector<int64_t>> axis = c.InputInts(2);
  int64_t batch_dims = c.AttrInt("batch_dims");
  if (!params.rank_known || !indices.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > indices.rank())
    Fail("batch_dims " + std::to_string(c.AttrInt("batch_dims")) +
         " is out of range for indices of rank " + std::to_string(indices.rank()));
  if (!axis) {
    const int64_t rank = params.rank() + indices.rank() - 1 - batch_dims;
    return c.SetOutput(0, PartialShape::UnknownDims(rank));
  }
  const int64_t a = CanonicalAxis((*axis)[0], params.rank(), "axis");
  if (batch_dims > a) Fail("batch_dims must not exceed axis");
  PartialShape out = PartialShape::Of({params.dims.begin(), params.dims.begin() + a});
  for (int64_t k = 0; k < batch_dims; ++k)
    out.dims[k] = MergeDim(out.dims[k], indices.dims[k], "batch dimension " + std::to_string(k));
  out.dims.insert(out.dims.end(), indices.dims.begin() + batch_dims, indices.dims.end());
  out.dims.insert(out.dims.end(), params.dims.begin() + a + 1, params.dims.end());
  c.SetOutput(0, out);
}

// ParallelConcat: attr `shape`, whose first dim is the number of values, each
// [1] + shape[1:].
void ParallelConcat(ShapeFnContext& c) {
  PartialShape shape = c.AttrShape("shape");
  if (shape.rank_known) {
    if (shape.rank() < 1) Fail("attr shape must have at least one dimension");
    shape.dims[0] = MergeDim(shape.dims[0], c.num_inputs(), "shape[0] and the number of values");
    PartialShape each = shape;
    each.dims[0] = 1;
    for (int i = 0; i < c.num_inputs(); ++i)
      each = MergeShapes(each, c.Input(i), "value " + std::to_string(i) + " does not have shape [1] + shape[1:]");
    for (int64_t k = 1; k < shape.rank(); ++k) shape.dims[k] = each.dims[k];
  }
  c.SetOutput(0, shape);
}

// Gather (v1): along axis 0, out = indices.shape + params.shape[1:].
void GatherV1(ShapeFnContext& c) {
  const PartialShape params = c.InputWithRankAtLeast(0, 1, "params"), indices = c.Input(1);
  if (!params.rank_known || !indices.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = indices;
  out.dims.insert(out.dims.end(), params.dims.begin() + 1, params.dims.end());
  c.SetOutput(0, out);
}

// The number of steps of `delta` from `start` to before `limit`.
template <typename T>
int64_t RangeLength(T start, T limit, T delta) {
  int64_t n = 0;
  if (const char* error = kernels::RangeCount(start, limit, delta, &n)) Fail(error);
  return n;
}

void Range(ShapeFnContext& c) {
  for (int i = 0; i < 3; ++i) c.InputWithRank(i, 0, i == 0 ? "start" : i == 1 ? "limit" : "delta");
  const TF_DataType type = c.AttrType("Tidx");
  const bool integral = type != TF_FLOAT && type != TF_DOUBLE && type != TF_HALF &&
                        type != TF_BFLOAT16;
  if (integral) {
    std::optional<std::vector<int64_t>> s = c.InputInts(0), l = c.InputInts(1), d = c.InputInts(2);
    if (!s || !l || !d) return c.SetOutput(0, PartialShape::UnknownDims(1));
    return c.SetOutput(0, PartialShape::Of({RangeLength((*s)[0], (*l)[0], (*d)[0])}));
  }
  std::optional<std::vector<double>> s = c.InputDoubles(0), l = c.InputDoubles(1),
                                     d = c.InputDoubles(2);
  if (!s || !l || !d) return c.SetOutput(0, PartialShape::UnknownDims(1));
  c.SetOutput(0, PartialShape::Of({RangeLength((*s)[0], (*l)[0], (*d)[0])}));
}

void Reshape(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const int64_t length = VectorLength(c, 1, "shape");
  std::optional<std::vector<int64_t>> shape = c.InputInts(1);
  if (!shape)
    return c.SetOutput(0, length < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(length));
  PartialShape out = PartialShape::Of(*shape);
  int64_t inferred = -1, known_product = 1;
  for (size_t k = 0; k < out.dims.size(); ++k) {
    if (out.dims[k] == -1) {
      if (inferred >= 0) Fail("only one dimension of shape may be -1");
      inferred = static_cast<int64_t>(k);
    } else if (out.dims[k] < 0) {
      Fail("shape " + PartialShape::Of(*shape).ToString() + " has a negative dimension");
    } else if (__builtin_mul_overflow(known_product, out.dims[k], &known_product)) {
      Fail("shape " + PartialShape::Of(*shape).ToString() + " has more elements than int64 counts");
    }
  }
  const int64_t n = in.NumElements();
  const std::string mismatch = "cannot reshape a tensor of shape " + in.ToString() + " (" +
                               std::to_string(n) + " elements) into shape " +
                               PartialShape::Of(*shape).ToString();
  if (inferred < 0) {
    if (n >= 0 && n != known_product) Fail(mismatch);
  } else if (n >= 0 && known_product > 0) {
    if (n % known_product != 0) Fail(mismatch);
    out.dims[inferred] = n / known_product;
  }  // otherwise the -1 stays unknown
  c.SetOutput(0, out);
}

void Transpose(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  std::optional<std::vector<int64_t>> perm = c.InputInts(1);
  const int64_t rank = MergeRank(in.rank(), VectorLength(c, 1, "perm"),
                                 "the rank of x and the length of perm");
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  PartialShape out = PartialShape::UnknownDims(rank);
  if (perm) {
    std::vector<bool> seen(rank, false);
    for (int64_t k = 0; k < rank; ++k) {
      int64_t p = (*perm)[k];
      if (p < 0 && p >= -rank) p += rank;  // counts from the end, as the kernel takes it
      if (p < 0 || p >= rank || seen[p])
        Fail(PartialShape::Of(*perm).ToString() + " is not a permutation of " +
             std::to_string(rank) + " dimensions");
      seen[p] = true;
      if (in.rank_known) out.dims[k] = in.dims[p];
    }
  }
  c.SetOutput(0, out);
}

void ExpandDims(ShapeFnContext& c) {
  PartialShape in = c.Input(0);
  std::optional<std::vector<int64_t>> dim = c.InputInts(1);
  if (dim && dim->size() != 1) Fail("dim must hold one value, not " + std::to_string(dim->size()));
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (!dim) return c.SetOutput(0, PartialShape::UnknownDims(in.rank() + 1));
  const int64_t a = CanonicalAxis((*dim)[0], in.rank() + 1, "dim");
  in.dims.insert(in.dims.begin() + a, 1);
  c.SetOutput(0, in);
}

void Squeeze(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  const std::vector<int64_t> squeeze = c.AttrInts("squeeze_dims");
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<bool> drop(in.rank(), false);
  for (int64_t axis : squeeze) {
    const int64_t a = CanonicalAxis(axis, in.rank(), "squeeze dimension");
    if (in.dims[a] >= 0 && in.dims[a] != 1)
      Fail("cannot squeeze dimension " + std::to_string(a) + " of size " +
           std::to_string(in.dims[a]) + " in " + in.ToString());
    drop[a] = true;
  }
  PartialShape out = PartialShape::Of({});
  for (int64_t k = 0; k < in.rank(); ++k) {
    if (squeeze.empty()) {
      if (in.dims[k] < 0) return c.SetOutput(0, PartialShape::Unknown());  // 1 or not?
      if (in.dims[k] == 1) continue;
    } else if (drop[k]) {
      continue;
    }
    out.dims.push_back(in.dims[k]);
  }
  c.SetOutput(0, out);
}

void ShapeOf(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({c.Input(0).rank()})); }

// One [rank] vector per input.
void ShapeN(ShapeFnContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) c.SetOutput(i, PartialShape::Of({c.Input(i).rank()}));
}

// Pad's shape; constant_values is a scalar.
void PadV2(ShapeFnContext& c) {
  c.InputWithRank(2, 0, "constant_values");
  Pad(c);
}

// Two shape vectors in, the longer one's length out.
void BroadcastArgs(ShapeFnContext& c) {
  const int64_t a = c.InputWithRank(0, 1, "s0").dims[0], b = c.InputWithRank(1, 1, "s1").dims[0];
  c.SetOutput(0, PartialShape::Of({a < 0 || b < 0 ? kUnknownDim : std::max(a, b)}));
}

// The dims its `shape` operand holds, where known.
void Empty(ShapeFnContext& c) {
  const int64_t length = VectorLength(c, 0, "shape");
  std::optional<std::vector<int64_t>> dims = c.InputInts(0);
  if (!dims)
    return c.SetOutput(0, length < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(length));
  for (int64_t d : *dims)
    if (d < 0) Fail("Dimension " + std::to_string(d) + " must be >= 0");
  c.SetOutput(0, PartialShape::Of(*dims));
}

// [rank] for a scalar index, [rank, n] for a vector of n.
void UnravelIndex(ShapeFnContext& c) {
  const PartialShape indices = c.Input(0);
  const int64_t rank = c.InputWithRank(1, 1, "dims").dims[0];
  if (indices.rank() > 1) Fail("indices must be a scalar or a vector, got " + indices.ToString());
  if (!indices.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  c.SetOutput(0, indices.rank() == 0 ? PartialShape::Of({rank})
                                     : PartialShape::Of({rank, indices.dims[0]}));
}

// A variable's shape: a vector of unknown length while the graph is built.
void VariableShape(ShapeFnContext& c) { c.SetOutput(0, PartialShape::UnknownDims(1)); }

void Fill(ShapeFnContext& c) {
  // A scalar value, or a vector of one element as TensorFlow's kernel also takes.
  const PartialShape value = c.Input(1);
  if (value.rank_known && !(value.rank() == 0 ||
                            (value.rank() == 1 && (value.dims[0] == 1 || value.dims[0] < 0))))
    Fail("value must be a scalar, got shape " + value.ToString());
  const int64_t length = VectorLength(c, 0, "dims");
  std::optional<std::vector<int64_t>> dims = c.InputInts(0);
  if (!dims)
    return c.SetOutput(0, length < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(length));
  for (int64_t d : *dims)
    if (d < 0) Fail("dims " + PartialShape::Of(*dims).ToString() + " has a negative dimension");
  c.SetOutput(0, PartialShape::Of(*dims));
}

}  // namespace

namespace shape_fns {
const OpShapeFn kUnchanged = ShapeFn<Unchanged>;
const OpShapeFn kScalar = ShapeFn<Scalar>;
const OpShapeFn kNoOutputs = ShapeFn<NoOutputs>;
const OpShapeFn kConst = ShapeFn<Const>;
const OpShapeFn kPlaceholder = ShapeFn<Placeholder>;
const OpShapeFn kPlaceholderWithDefault = ShapeFn<PlaceholderWithDefault>;
const OpShapeFn kConcat = ShapeFn<Concat>;
const OpShapeFn kConcatV1 = ShapeFn<ConcatV1>;
const OpShapeFn kGatherV1 = ShapeFn<GatherV1>;
extern const OpShapeFn kParallelConcat = ShapeFn<ParallelConcat>;  // declared in array_ops.cc
const OpShapeFn kPack = ShapeFn<Pack>;
const OpShapeFn kUnpack = ShapeFn<Unpack>;
const OpShapeFn kSlice = ShapeFn<Slice>;
const OpShapeFn kStridedSlice = ShapeFn<StridedSlice>;
const OpShapeFn kPad = ShapeFn<Pad>;
const OpShapeFn kTile = ShapeFn<Tile>;
const OpShapeFn kGather = ShapeFn<Gather>;
const OpShapeFn kRange = ShapeFn<Range>;
const OpShapeFn kReshape = ShapeFn<Reshape>;
const OpShapeFn kTranspose = ShapeFn<Transpose>;
const OpShapeFn kExpandDims = ShapeFn<ExpandDims>;
const OpShapeFn kSqueeze = ShapeFn<Squeeze>;
const OpShapeFn kShape = ShapeFn<ShapeOf>;
const OpShapeFn kFill = ShapeFn<Fill>;
const OpShapeFn kShapeN = ShapeFn<ShapeN>;
const OpShapeFn kPadV2 = ShapeFn<PadV2>;
const OpShapeFn kBroadcastArgs = ShapeFn<BroadcastArgs>;
const OpShapeFn kVariableShape = ShapeFn<VariableShape>;
const OpShapeFn kEmpty = ShapeFn<Empty>;
const OpShapeFn kUnravelIndex = ShapeFn<UnravelIndex>;
}  // namespace shape_fns

}  // namespace opgen
