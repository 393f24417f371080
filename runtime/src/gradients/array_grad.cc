// Gradients of the ops that move, copy or rename values, with TensorFlow's formulas (its
// array_grad.py): Identity, IdentityN, Reshape, ExpandDims, Squeeze, Transpose,
// ReadVariableOp (whose gradient reaches the variable's handle unchanged, as in
// TensorFlow: gradients "with respect to a variable" are those with respect to its
// handle), concatenation and splitting, slicing and padding, Tile, GatherV2 (TensorFlow's
// IndexedSlices, made dense with UnsortedSegmentSum), BroadcastTo, Fill, the cumulative
// ops, Einsum, MatrixBandPart, and the block rearrangements and resizes of images.
#include <string>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

void IdentityGrad(GradBuilder& b) { b.Set(0, b.grad(0)); }

void IdentityNGrad(GradBuilder& b) {
  for (int i = 0; i < b.num_inputs(); ++i)
    if (b.needs(i)) b.Set(i, b.grad(i));
}

// Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back.
void ReshapeGrad(GradBuilder& b) {
  b.Set(0, b.Op("Reshape", {b.grad(0), b.ShapeOf(b.input(0))}));
}

// The gradient transposed by the inverse permutation: a constant when perm is one, else
// the indices that sort perm (TopKV2 of -perm). ConjugateTranspose's conjugates it back
// (its own op again).
template <const char* kOp>
void TransposeGrad(GradBuilder& b) {
  const TF_Output perm = b.input(1);
  std::vector<int64_t> p;
  TF_Output inverse;
  if (GradBuilder::ConstInts(perm, &p)) {
    std::vector<int32_t> inv(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] >= 0 && p[i] < static_cast<int64_t>(p.size())) inv[p[i]] = static_cast<int32_t>(i);
    inverse = b.Int32s(inv);
  } else {
    const TF_Output p32 = b.Op("Cast", {perm}, {{"DstT", TF_INT32}});
    TF_Operation* top = b.Node("TopKV2", {b.Op("Neg", {p32}), b.Op("Size", {p32})});
    if (!b.ok()) return;
    inverse = TF_Output{top, 1};
  }
  b.Set(0, b.Op(kOp, {b.grad(0), inverse}));
}
constexpr char kTranspose[] = "Transpose", kConjugateTranspose[] = "ConjugateTranspose";

// ReverseV2: the incoming gradient reversed over the same axes (the axes get none).
void ReverseV2Grad(GradBuilder& b) { b.Set(0, b.Op("ReverseV2", {b.grad(0), b.input(1)})); }
// Reverse (TF1-era, a bool flag per dim): the same, over the same flags.
void ReverseGrad(GradBuilder& b) { b.Set(0, b.Op("Reverse", {b.grad(0), b.input(1)})); }

// A 1-D or scalar integer tensor as int32 (shapes here are int32).
TF_Output ToInt32(GradBuilder& b, TF_Output t) {
  return GradBuilder::dtype(t) == TF_INT32 ? t : b.Op("Cast", {t}, {{"DstT", TF_INT32}});
}

// ---- concatenation and splitting ----

// ConcatV2(values..., axis): each value's slice of the gradient, where ConcatOffset puts it.
// Concat (TF1-era) has the axis first: `first` is the first value's input index.
template <bool kAxisFirst>
void ConcatGrad(GradBuilder& b) {
  const int n = b.num_inputs() - 1, first = kAxisFirst ? 1 : 0;
  std::vector<TF_Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(b.ShapeOf(b.input(first + i)));
  TF_Operation* offsets = b.Node("ConcatOffset", {ToInt32(b, b.input(kAxisFirst ? 0 : n)), shapes});
  if (!b.ok()) return;
  for (int i = 0; i < n; ++i)
    if (b.needs(first + i))
      b.Set(first + i, b.Op("Slice", {b.grad(0), TF_Output{offsets, i}, shapes[i]}));
}

// The outputs' gradients concatenated back along the axis.
std::vector<TF_Output> OutputGrads(GradBuilder& b) {
  std::vector<TF_Output> grads;
  for (int i = 0; i < b.num_outputs(); ++i) grads.push_back(b.grad(i));
  return grads;
}
void SplitGrad(GradBuilder& b) {  // Split(axis, value)
  if (b.needs(1)) b.Set(1, b.Op("ConcatV2", {OutputGrads(b), b.input(0)}));
}
void SplitVGrad(GradBuilder& b) {  // SplitV(value, size_splits, axis)
  if (b.needs(0)) b.Set(0, b.Op("ConcatV2", {OutputGrads(b), b.input(2)}));
}

void PackGrad(GradBuilder& b) {
  const int n = b.num_inputs();
  TF_Operation* parts = b.Node("Unpack", {b.grad(0)}, {{"num", static_cast<int64_t>(n)},
                                                       {"axis", b.AttrInt("axis")}});
  if (!b.ok()) return;
  for (int i = 0; i < n; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{parts, i});
}
void UnpackGrad(GradBuilder& b) {
  b.Set(0, b.Op("Pack", {OutputGrads(b)}, {{"axis", b.AttrInt("axis")}}));
}

// ---- slicing and padding ----

// Slice(x, begin, size): the gradient padded back with begin before and the rest after.
void SliceGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), begin = ToInt32(b, b.input(1));
  const TF_Output after =
      b.Op("Sub", {b.Op("Sub", {b.ShapeOf(x), begin}), b.ShapeOf(b.output(0))});
  const TF_Output paddings = b.Op("Pack", {std::vector<TF_Output>{begin, after}}, {{"axis", 1}});
  b.Set(0, b.Op("Pad", {b.grad(0), paddings}));
}

void StridedSliceGrad(GradBuilder& b) {
  const TF_DataType index = b.AttrType("Index");
  TF_Output shape = b.ShapeOf(b.input(0));
  if (index != TF_INT32) shape = b.Op("Cast", {shape}, {{"DstT", index}});
  b.Set(0, b.Op("StridedSliceGrad",
                {shape, b.input(1), b.input(2), b.input(3), b.grad(0)},
                b.CopyAttrs({"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                             "shrink_axis_mask"})));
}

// StridedSliceGrad(shape, begin, end, strides, dy) scatters dy into zeros: linear in dy,
// whose gradient is the same strided slice of g.
void StridedSliceGradGrad(GradBuilder& b) {
  if (!b.needs(4)) return;
  b.Set(4, b.Op("StridedSlice", {b.grad(0), b.input(1), b.input(2), b.input(3)},
                b.CopyAttrs({"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                             "shrink_axis_mask"})));
}

// TensorStridedSliceUpdate(x, begin, end, strides, value): x's gradient is g with the
// slice zeroed; value's is the slice of g, summed over the dims value was broadcast along.
void TensorStridedSliceUpdateGrad(GradBuilder& b) {
  const std::vector<Attr> masks = b.CopyAttrs(
      {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"});
  const TF_Output dy = b.Op("StridedSlice", {b.grad(0), b.input(1), b.input(2), b.input(3)}, masks);
  if (b.needs(0))
    b.Set(0, b.Op("TensorStridedSliceUpdate",
                  {b.grad(0), b.input(1), b.input(2), b.input(3), b.Op("ZerosLike", {dy})}, masks));
  if (b.needs(4)) b.Set(4, b.SumToShapeOf(dy, b.input(4)));
}

// Pad(x, paddings) and PadV2: the slice of the gradient at paddings[:, 0].
void PadGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), paddings = ToInt32(b, b.input(1));
  const TF_Output before =
      b.Op("Reshape", {b.Op("Slice", {paddings, b.Int32s({0, 0}), b.Int32s({-1, 1})}),
                       b.Int32s({-1})});
  b.Set(0, b.Op("Slice", {b.grad(0), before, b.ShapeOf(x)}));
}

// PreventGradient: asking for the gradient is the error its `message` explains
// (NOT_FOUND, Python's LookupError, as TensorFlow raises).
void PreventGradientGrad(GradBuilder& b) {
  const std::string message = b.AttrString("message");
  if (!b.ok()) return;
  TF_SetStatus(b.status(), TF_NOT_FOUND,
               ("Gradient explicitly disabled. Reason: " + message).c_str());
}

// GuaranteeConst: TensorFlow defines no gradient; asking for one is its LookupError.
void GuaranteeConstGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_NOT_FOUND,
               (std::string("No gradient defined for operation '") + TF_OperationName(b.op()) +
                "' (op type: GuaranteeConst)").c_str());
}

// MatrixBandPart is linear and its own adjoint: the gradient keeps the same band.
void MatrixBandPartGrad(GradBuilder& b) {
  b.Set(0, b.Op("MatrixBandPart", {b.grad(0), b.input(1), b.input(2)}));
}

void MirrorPadGrad(GradBuilder& b) {
  b.Set(0, b.Op("MirrorPadGrad", {b.grad(0), b.input(1)}, b.CopyAttrs({"mode"})));
}

// MirrorPadGrad folds the padding back in: its adjoint pads g again.
void MirrorPadGradGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("MirrorPad", {b.grad(0), b.input(1)}, b.CopyAttrs({"mode"})));
}

// UnsortedSegmentSum(data, ids, n): each data row gets its segment's gradient row, or
// zeros where its id is negative (dropped by the sum).
void UnsortedSegmentSumGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output ids = b.input(1), g = b.grad(0);
  const TF_Output zero = b.Op("ZerosLike", {ids});
  const TF_Output rows = b.Op("GatherV2", {g, b.Op("Maximum", {ids, zero}), b.Int32(0)});
  // the kept mask, reshaped to ids' shape followed by ones for g's inner dims
  const TF_Output inner_ones =
      b.Op("OnesLike", {b.Op("Slice", {b.Op("Shape", {g}), b.Int32s({1}), b.Int32s({-1})})});
  const TF_Output mask_shape =
      b.Op("ConcatV2", {std::vector<TF_Output>{b.Op("Shape", {ids}), inner_ones}, b.Int32(0)});
  const TF_Output kept = b.Op("Reshape", {b.Op("GreaterEqual", {ids, zero}), mask_shape});
  b.Set(0, b.Op("SelectV2", {kept, rows, b.Op("ZerosLike", {rows})}));
}

// ---- copies ----

// Tile(x, multiples): the gradient seen as [m0, s0, m1, s1, ...], summed over the m's.
void TileGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), multiples = ToInt32(b, b.input(1));
  const TF_Output split_shape = b.Op(
      "Reshape", {b.Op("Transpose", {b.Op("Pack", {std::vector<TF_Output>{multiples, b.ShapeOf(x)}}),
                                     b.Int32s({1, 0})}),
                  b.Int32s({-1})});
  TF_Output axes;
  const int rank = b.Rank(x);
  if (rank >= 0) {
    std::vector<int32_t> even;
    for (int d = 0; d < rank; ++d) even.push_back(2 * d);
    axes = b.Int32s(even);
  } else {
    axes = b.Op("Range", {b.Int32(0), b.Op("Size", {split_shape}), b.Int32(2)});
  }
  b.Set(0, b.Op("Reshape", {b.Op("Sum", {b.Op("Reshape", {b.grad(0), split_shape}), axes}),
                            b.ShapeOf(x)}));
}

void BroadcastToGrad(GradBuilder& b) { b.Set(0, b.SumToShapeOf(b.grad(0), b.input(0))); }

// Fill(dims, value): value gets the whole gradient's sum.
void FillGrad(GradBuilder& b) {
  const TF_Output g = b.grad(0);
  const TF_Output axes = b.Op("Range", {b.Int32(0), b.Op("Rank", {g}), b.Int32(1)});
  if (b.needs(1)) b.Set(1, b.Op("Sum", {g, axes}));
}

// GatherV2(params, indices, axis), batch_dims 0: the gradient rows summed into the
// rows of params' dimension `axis` they came from (UnsortedSegmentSum), which is moved
// first for the sum and back after.
// Gather (TF1-era: two inputs, no attr batch_dims) is the case axis 0.
void GatherV2Grad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output params = b.input(0), indices = b.input(1);
  const bool v1 = b.num_inputs() == 2;
  if (!v1 && b.AttrInt("batch_dims") != 0) {
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "the gradient of GatherV2 with batch_dims != 0 is not implemented");
    return;
  }
  std::vector<int64_t> axis_value;
  const int rank = b.Rank(params);
  if (v1) axis_value = {0};
  const bool const_axis =
      v1 || (GradBuilder::ConstInts(b.input(2), &axis_value) && axis_value.size() == 1);
  if (!const_axis || (rank < 0 && axis_value[0] != 0)) {
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "the gradient of GatherV2 needs a constant axis, and params of known rank "
                 "unless the axis is 0");
    return;
  }
  const int axis = static_cast<int>(axis_value[0] < 0 ? axis_value[0] + rank : axis_value[0]);
  const TF_Output shape = b.ShapeOf(params);
  // [outer..., -1, inner...]: the gradient with the indices' dims flattened to one.
  const TF_Output values_shape = b.Op(
      "ConcatV2", {std::vector<TF_Output>{b.Op("Slice", {shape, b.Int32s({0}), b.Int32s({axis})}),
                                          b.Int32s({-1}),
                                          b.Op("Slice", {shape, b.Int32s({axis + 1}), b.Int32s({-1})})},
                   b.Int32(0)});
  TF_Output values = b.Op("Reshape", {b.grad(0), values_shape});
  const TF_Output ids = b.Op("Reshape", {indices, b.Int32s({-1})});
  const TF_Output rows = b.Op("Slice", {shape, b.Int32s({axis}), b.Int32s({1})});
  const TF_Output num = b.Op("Reshape", {rows, b.Int32s({})});
  if (axis == 0) {
    b.Set(0, b.Op("UnsortedSegmentSum", {values, ids, num}));
    return;
  }
  std::vector<int32_t> to_front{axis}, back;
  for (int d = 0; d < rank; ++d)
    if (d != axis) to_front.push_back(d);
  for (int d = 1; d <= axis; ++d) back.push_back(d);
  back.push_back(0);
  for (int d = axis + 1; d < rank; ++d) back.push_back(d);
  values = b.Op("Transpose", {values, b.Int32s(to_front)});
  b.Set(0, b.Op("Transpose", {b.Op("UnsortedSegmentSum", {values, ids, num}), b.Int32s(back)}));
}

// TopKV2(x, k): each value's gradient back at the place in its row it was taken from
// (rows of x flattened, each index offset by its row's start; UnsortedSegmentSum).
void TopKV2Grad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output x = b.input(0), indices = ToInt32(b, b.output(1));
  const TF_Output shape = b.ShapeOf(x), size = b.Op("Size", {x});
  const TF_Output last = b.Op("StridedSlice", {shape, b.Int32s({-1}), b.Int32s({0}), b.Int32s({1})},
                              {{"end_mask", 1}, {"shrink_axis_mask", 1}});
  const TF_Output starts =
      b.Op("ExpandDims", {b.Op("Range", {b.Int32(0), size, last}), b.Int32(-1)});
  const TF_Output rows = b.Op("Reshape", {indices, b.Op("Pack", {std::vector<TF_Output>{
                                                  b.Op("Size", {starts}), b.Int32(-1)}})});
  const TF_Output ids = b.Op("Reshape", {b.Op("AddV2", {rows, starts}), b.Int32s({-1})});
  const TF_Output flat = b.Op("Reshape", {b.grad(0), b.Int32s({-1})});
  b.Set(0, b.Op("Reshape", {b.Op("UnsortedSegmentSum", {flat, ids, size}), shape}));
}

// Cumsum: the running sum of the gradient the other way.
void CumsumGrad(GradBuilder& b) {
  b.Set(0, b.Op("Cumsum", {b.grad(0), b.input(1)},
                {{"exclusive", b.AttrBool("exclusive")}, {"reverse", !b.AttrBool("reverse")}}));
}
// Cumprod (TensorFlow's formula, for x without zeros): cumsum(y * dy, reversed) / x.
void CumprodGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.output(0);
  const TF_Output sums = b.Op("Cumsum", {b.Op("Mul", {y, b.grad(0)}), b.input(1)},
                              {{"exclusive", b.AttrBool("exclusive")},
                               {"reverse", !b.AttrBool("reverse")}});
  b.Set(0, b.Op("RealDiv", {sums, x}));
}

// CumulativeLogsumexp (TensorFlow's formula): the gradient split by sign, each part's
// log scanned the other way against the output, then exp(. + x), the parts subtracted.
// Where a part is absent its log is the dtype's lowest value.
void CumulativeLogsumexpGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), axis = b.input(1), y = b.output(0), g = b.grad(0);
  const TF_DataType t = GradBuilder::dtype(g);
  const double lowest = t == TF_HALF ? -65504.0
                        : t == TF_BFLOAT16 ? -3.3895313892515355e38
                        : t == TF_FLOAT ? -3.4028234663852886e38 : -1.7976931348623157e308;
  const TF_Output zero = b.ScalarLike(0.0, g), low = b.ScalarLike(lowest, g);
  const std::vector<Attr> attrs = {{"exclusive", b.AttrBool("exclusive")},
                                   {"reverse", !b.AttrBool("reverse")}};
  auto part = [&](TF_Output log_part) {
    const TF_Output scan = b.Op("CumulativeLogsumexp", {b.Op("Sub", {log_part, y}), axis}, attrs);
    return b.Op("Exp", {b.Op("AddV2", {scan, x})});
  };
  const TF_Output pos = b.Op("SelectV2", {b.Op("Greater", {g, zero}), b.Op("Log", {g}), low});
  const TF_Output neg =
      b.Op("SelectV2", {b.Op("Less", {g, zero}), b.Op("Log", {b.Op("Neg", {g})}), low});
  b.Set(0, b.Op("Sub", {part(pos), part(neg)}));
}

// ---- Einsum: each input's gradient is an einsum of the output's gradient and the other
// input, to the input's labels; labels no other operand has (summed away in the forward
// op) are broadcast back. Ellipses and labels repeated in one operand are not handled.
void EinsumGrad(GradBuilder& b) {
  const std::string eq = b.AttrString("equation");
  const size_t arrow = eq.find("->");
  const int n = b.num_inputs();
  std::vector<std::string> in;
  std::string out;
  bool simple = arrow != std::string::npos && eq.find('.') == std::string::npos &&
                eq.find(' ') == std::string::npos;
  if (simple) {
    out = eq.substr(arrow + 2);
    const std::string lhs = eq.substr(0, arrow);
    const size_t comma = lhs.find(',');
    in.push_back(lhs.substr(0, comma));
    if (comma != std::string::npos) in.push_back(lhs.substr(comma + 1));
    simple = static_cast<int>(in.size()) == n;
    for (const std::string& labels : in)
      for (size_t k = 0; k < labels.size(); ++k)
        simple = simple && labels.find(labels[k], k + 1) == std::string::npos;
  }
  if (!simple) {
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 ("the gradient of Einsum '" + eq +
                  "' is not implemented (only one or two operands without '...' or repeated "
                  "labels)").c_str());
    return;
  }
  for (int i = 0; i < n; ++i) {
    if (!b.needs(i)) continue;
    const std::string other = n == 2 ? in[1 - i] : "";
    const std::string available = out + other;
    std::string kept;
    std::vector<int> missing;
    for (size_t k = 0; k < in[i].size(); ++k) {
      if (available.find(in[i][k]) != std::string::npos) kept += in[i][k];
      else missing.push_back(static_cast<int>(k));
    }
    const std::string grad_eq = out + (n == 2 ? "," + other : "") + "->" + kept;
    std::vector<TF_Output> operands{b.grad(0)};
    if (n == 2) operands.push_back(b.input(1 - i));
    TF_Output g = b.Op("Einsum", {operands}, {{"equation", grad_eq}});
    if (!missing.empty()) {
      for (int k : missing) g = b.Op("ExpandDims", {g, b.Int32(k)});
      g = b.Op("BroadcastTo", {g, b.ShapeOf(b.input(i))});
    }
    b.Set(i, g);
  }
}

// ---- images ----

template <const char* kInverse>
void BlockRearrangeGrad(GradBuilder& b) {
  b.Set(0, b.Op(kInverse, {b.grad(0)}, b.CopyAttrs({"block_size", "data_format"})));
}
constexpr char kSpaceToDepth[] = "SpaceToDepth", kDepthToSpace[] = "DepthToSpace";

// SpaceToBatchND(x, block_shape, paddings) and BatchToSpaceND(x, block_shape, crops)
// undo each other.
template <const char* kInverse>
void SpaceBatchGrad(GradBuilder& b) {
  b.Set(0, b.Op(kInverse, {b.grad(0), b.input(1), b.input(2)}));
}
constexpr char kSpaceToBatchND[] = "SpaceToBatchND", kBatchToSpaceND[] = "BatchToSpaceND";

// SpaceToBatch / BatchToSpace (TF1-era): the inverse over the same paddings / crops and
// block_size.
template <const char* kInverse>
void SpaceBatchV1Grad(GradBuilder& b) {
  b.Set(0, b.Op(kInverse, {b.grad(0), b.input(1)}, {{"block_size", b.AttrInt("block_size")}}));
}
constexpr char kSpaceToBatch[] = "SpaceToBatch", kBatchToSpace[] = "BatchToSpace";

void ResizeBilinearGrad(GradBuilder& b) {
  b.Set(0, b.Op("ResizeBilinearGrad", {b.grad(0), b.input(0)},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}
// TensorFlow differentiates ResizeBicubic for float and double images only (its backprop
// kernel's types); other images get no gradient.
void ResizeBicubicGrad(GradBuilder& b) {
  const TF_DataType t = b.dtype(b.input(0));
  if (t != TF_FLOAT && t != TF_DOUBLE) return;
  b.Set(0, b.Op("ResizeBicubicGrad", {b.grad(0), b.input(0)},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}
void ResizeNearestNeighborGrad(GradBuilder& b) {
  const TF_Output size = b.Op("Slice", {b.ShapeOf(b.input(0)), b.Int32s({1}), b.Int32s({2})});
  b.Set(0, b.Op("ResizeNearestNeighborGrad", {b.grad(0), size},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}

// ScaleAndTranslate(images, size, scale, translation): only the images get a gradient.
void ScaleAndTranslateGrad(GradBuilder& b) {
  b.Set(0, b.Op("ScaleAndTranslateGrad", {b.grad(0), b.input(0), b.input(2), b.input(3)},
                b.CopyAttrs({"kernel_type", "antialias"})));
}

// The resize backprops are linear in their gradient input; their adjoints are the
// forward resizes to that input's size. TensorFlow registers no gradient for them: these
// are derived.
TF_Output SpatialSize(GradBuilder& b, TF_Output images) {
  return b.Op("Slice", {b.ShapeOf(images), b.Int32s({1}), b.Int32s({2})});
}
// ResizeBilinearGrad(grads (float32), original_image): original_image gives only a shape.
void ResizeBilinearGradGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output grads = b.input(0);
  b.Set(0, b.Op("ResizeBilinear", {b.grad(0), SpatialSize(b, grads)},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}
// ResizeBicubicGrad(grads (float32), original_image): as ResizeBilinearGrad.
void ResizeBicubicGradGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output grads = b.input(0);
  b.Set(0, b.Op("ResizeBicubic", {b.grad(0), SpatialSize(b, grads)},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}
// ResizeNearestNeighborGrad(grads, size).
void ResizeNearestNeighborGradGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output grads = b.input(0);
  b.Set(0, b.Op("ResizeNearestNeighbor", {b.grad(0), SpatialSize(b, grads)},
                b.CopyAttrs({"align_corners", "half_pixel_centers"})));
}
// ScaleAndTranslateGrad(grads, original_image, scale, translation) is the transpose of
// the forward resampling, so its adjoint is the forward op to the grads' size.
void ScaleAndTranslateGradGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  b.Set(0, b.Op("ScaleAndTranslate", {b.grad(0), SpatialSize(b, b.input(0)), b.input(2), b.input(3)},
                b.CopyAttrs({"kernel_type", "antialias"})));
}

}  // namespace

void RegisterArrayGradients() {
  RegisterGrad("Identity", IdentityGrad);
  RegisterGrad("IdentityN", IdentityNGrad);
  RegisterGrad("ReadVariableOp", IdentityGrad);
  RegisterGrad("Reshape", ReshapeGrad);
  RegisterGrad("ExpandDims", ReshapeGrad);
  RegisterGrad("Squeeze", ReshapeGrad);
  RegisterGrad("Transpose", TransposeGrad<kTranspose>);
  RegisterGrad("ConjugateTranspose", TransposeGrad<kConjugateTranspose>);
  RegisterGrad("ReverseV2", ReverseV2Grad);
  RegisterGrad("PlaceholderWithDefault", IdentityGrad);
  RegisterGrad("ConcatV2", ConcatGrad<false>);
  RegisterGrad("Concat", ConcatGrad<true>);
  RegisterGrad("Reverse", ReverseGrad);
  RegisterGrad("Gather", GatherV2Grad);
  RegisterGrad("Split", SplitGrad);
  RegisterGrad("SplitV", SplitVGrad);
  RegisterGrad("Pack", PackGrad);
  RegisterGrad("Unpack", UnpackGrad);
  RegisterGrad("Slice", SliceGrad);
  RegisterGrad("StridedSlice", StridedSliceGrad);
  RegisterGrad("Pad", PadGrad);
  RegisterGrad("PadV2", PadGrad);
  RegisterGrad("PreventGradient", PreventGradientGrad);
  RegisterGrad("GuaranteeConst", GuaranteeConstGrad);  // constant_values gets no gradient, as in TensorFlow
  RegisterGrad("MatrixBandPart", MatrixBandPartGrad);
  RegisterGrad("MirrorPad", MirrorPadGrad);
  RegisterGrad("Tile", TileGrad);
  RegisterGrad("BroadcastTo", BroadcastToGrad);
  RegisterGrad("Fill", FillGrad);
  RegisterGrad("GatherV2", GatherV2Grad);
  RegisterGrad("TopKV2", TopKV2Grad);
  RegisterGrad("Cumsum", CumsumGrad);
  RegisterGrad("CumulativeLogsumexp", CumulativeLogsumexpGrad);
  RegisterGrad("Cumprod", CumprodGrad);
  RegisterGrad("Einsum", EinsumGrad);
  RegisterGrad("SpaceToDepth", BlockRearrangeGrad<kDepthToSpace>);
  RegisterGrad("DepthToSpace", BlockRearrangeGrad<kSpaceToDepth>);
  RegisterGrad("SpaceToBatchND", SpaceBatchGrad<kBatchToSpaceND>);
  RegisterGrad("BatchToSpaceND", SpaceBatchGrad<kSpaceToBatchND>);
  RegisterGrad("SpaceToBatch", SpaceBatchV1Grad<kBatchToSpace>);
  RegisterGrad("BatchToSpace", SpaceBatchV1Grad<kSpaceToBatch>);
  RegisterGrad("ResizeBilinear", ResizeBilinearGrad);
  RegisterGrad("ResizeNearestNeighbor", ResizeNearestNeighborGrad);
  RegisterGrad("ResizeBicubic", ResizeBicubicGrad);
  RegisterGrad("StridedSliceGrad", StridedSliceGradGrad);
  RegisterGrad("TensorStridedSliceUpdate", TensorStridedSliceUpdateGrad);
  RegisterGrad("MirrorPadGrad", MirrorPadGradGrad);
  RegisterGrad("UnsortedSegmentSum", UnsortedSegmentSumGrad);
  RegisterGrad("ResizeBilinearGrad", ResizeBilinearGradGrad);
  RegisterGrad("ResizeNearestNeighborGrad", ResizeNearestNeighborGradGrad);
  RegisterGrad("ScaleAndTranslate", ScaleAndTranslateGrad);
  RegisterGrad("ScaleAndTranslateGrad", ScaleAndTranslateGradGrad);
  RegisterGrad("ResizeBicubicGrad", ResizeBicubicGradGrad);
}

}  // namespace gradients
}  // namespace opgen
