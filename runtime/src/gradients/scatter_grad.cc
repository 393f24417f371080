// Gradients of the n-d gathers and scatters, DynamicStitch / DynamicPartition and the
// segment reductions, with TensorFlow's formulas: GatherNd <-> ScatterNd, TensorScatter* (the updated slices'
// gradient gathered back), the max/min/prod reductions (the gradient shared among the
// elements that reached the result), the sorted and sparse ones. TensorFlow gives the
// sparse reductions' data an IndexedSlices gradient when sparse_gradient is set; here it
// is always dense (UnsortedSegmentSum of the picked rows).
#include <string>
#include <vector>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// x's shape as a tensor of `dtype` (the index type ScatterNd wants).
TF_Output ShapeAs(GradBuilder& b, TF_Output x, TF_DataType dtype) {
  return b.Op("Shape", {x}, {{"out_type", dtype}});
}

// `mask` ([n...]) reshaped to broadcast against `like` ([n..., inner...]).
TF_Output LeadingMask(GradBuilder& b, TF_Output mask, TF_Output like) {
  const TF_Output inner_ones = b.Op(
      "OnesLike", {b.Op("Slice", {b.Op("Shape", {like}),
                                   b.Op("ExpandDims", {b.Op("Rank", {mask}), b.Int32(0)}),
                                   b.Int32s({-1})})});
  const TF_Output shape = b.Op(
      "ConcatV2", {std::vector<TF_Output>{b.Op("Shape", {mask}), inner_ones}, b.Int32(0)});
  return b.Op("Reshape", {mask, shape});
}

void GatherNdGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output indices = b.input(1);
  b.Set(0, b.Op("ScatterNd", {indices, b.grad(0), ShapeAs(b, b.input(0), b.dtype(indices))}));
}

void ScatterNdGrad(GradBuilder& b) {
  if (b.needs(1)) b.Set(1, b.Op("GatherNd", {b.grad(0), b.input(0)}));
}

// TensorScatterUpdate: the overwritten slices get none of the gradient.
void TensorScatterUpdateGrad(GradBuilder& b) {
  const TF_Output indices = b.input(1), g = b.grad(0);
  if (b.needs(0))
    b.Set(0, b.Op("TensorScatterUpdate", {g, indices, b.Op("ZerosLike", {b.input(2)})}));
  if (b.needs(2)) b.Set(2, b.Op("GatherNd", {g, indices}));
}

void TensorScatterAddGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.grad(0));
  if (b.needs(2)) b.Set(2, b.Op("GatherNd", {b.grad(0), b.input(1)}));
}

void TensorScatterSubGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.grad(0));
  if (b.needs(2)) b.Set(2, b.Op("Neg", {b.Op("GatherNd", {b.grad(0), b.input(1)})}));
}

// TensorScatterMax/Min: the gradient shared among the tensor element and the updates
// that equal the result.
void TensorScatterMinOrMaxGrad(GradBuilder& b) {
  const TF_Output tensor = b.input(0), indices = b.input(1), updates = b.input(2);
  const TF_Output out = b.output(0), g = b.grad(0);
  const TF_DataType t = b.dtype(g);
  const TF_Output x_hit = b.Op("Cast", {b.Op("Equal", {tensor, out})}, {{"DstT", t}});
  const TF_Output y_hit =
      b.Op("Cast", {b.Op("Equal", {updates, b.Op("GatherNd", {out, indices})})}, {{"DstT", t}});
  const TF_Output hits = b.Op(
      "AddV2", {x_hit, b.Op("ScatterNd", {indices, y_hit, ShapeAs(b, tensor, b.dtype(indices))})});
  const TF_Output shared = b.Op("DivNoNan", {g, hits});
  if (b.needs(0)) b.Set(0, b.Op("Mul", {shared, x_hit}));
  if (b.needs(2)) b.Set(2, b.Op("Mul", {b.Op("GatherNd", {shared, indices}), y_hit}));
}

// Rows of `x` at `ids`, zeros where an id is negative (a dropped row).
TF_Output GatherDropNegatives(GradBuilder& b, TF_Output x, TF_Output ids) {
  const TF_Output zero = b.Op("ZerosLike", {ids});
  const TF_Output rows = b.Op("GatherV2", {x, b.Op("Maximum", {ids, zero}), b.Int32(0)});
  const TF_Output kept = LeadingMask(b, b.Op("GreaterEqual", {ids, zero}), rows);
  return b.Op("SelectV2", {kept, rows, b.Op("ZerosLike", {rows})});
}

// Max/min reductions over (data, ids) into `num` segments: each element equal to its
// segment's result gets the segment's gradient over how many did.
TF_Output SegmentMinOrMax(GradBuilder& b, TF_Output data, TF_Output ids, TF_Output num) {
  const TF_Output out = b.output(0), g = b.grad(0);
  const TF_Output zero = b.Op("ZerosLike", {ids});
  const TF_Output picked = b.Op("GatherV2", {out, b.Op("Maximum", {ids, zero}), b.Int32(0)});
  const TF_Output kept = LeadingMask(b, b.Op("GreaterEqual", {ids, zero}), data);
  const TF_Output selected = b.Op("LogicalAnd", {b.Op("Equal", {data, picked}), kept});
  const TF_Output count = b.Op(
      "UnsortedSegmentSum", {b.Op("Cast", {selected}, {{"DstT", b.dtype(g)}}), ids, num});
  const TF_Output shared = GatherDropNegatives(b, b.Op("DivNoNan", {g, count}), ids);
  return b.Op("SelectV2", {selected, shared, b.Op("ZerosLike", {data})});
}

// Products: d out / d x is the product of the others; where x is a segment's only zero,
// the product of its non-zero elements; with two or more zeros, 0.
TF_Output SegmentProd(GradBuilder& b, TF_Output data, TF_Output ids, TF_Output num) {
  const TF_Output out = b.output(0), g = b.grad(0);
  const TF_Output is_zero = b.Op("Equal", {data, b.Op("ZerosLike", {data})});
  const TF_Output zeros = b.Op(
      "UnsortedSegmentSum", {b.Op("Cast", {is_zero}, {{"DstT", TF_INT32}}), ids, num});
  const TF_Output g_kept = b.Op(
      "SelectV2", {b.Op("Greater", {zeros, b.Op("OnesLike", {zeros})}), b.Op("ZerosLike", {g}), g});
  const TF_Output non_zero = b.Op("SelectV2", {is_zero, b.Op("OnesLike", {data}), data});
  const TF_Output non_zero_prod = b.Op("UnsortedSegmentProd", {non_zero, ids, num});
  const TF_Output others = b.Op("SelectV2", {
      is_zero, GatherDropNegatives(b, non_zero_prod, ids),
      b.Op("Div", {GatherDropNegatives(b, out, ids), non_zero})});
  return b.Op("Mul", {GatherDropNegatives(b, g_kept, ids), others});
}

TF_Output OutputRows(GradBuilder& b) {
  return b.Op("Reshape", {b.Op("Slice", {b.Op("Shape", {b.output(0)}), b.Int32s({0}), b.Int32s({1})}),
                          b.Int32s({})});
}

void UnsortedSegmentMinOrMaxGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, SegmentMinOrMax(b, b.input(0), b.input(1), b.input(2)));
}

void UnsortedSegmentProdGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, SegmentProd(b, b.input(0), b.input(1), b.input(2)));
}

void SegmentMinOrMaxGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, SegmentMinOrMax(b, b.input(0), b.input(1), OutputRows(b)));
}

void SegmentProdGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, SegmentProd(b, b.input(0), b.input(1), OutputRows(b)));
}

void SegmentSumGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("GatherV2", {b.grad(0), b.input(1), b.Int32(0)}));
}

// SegmentMean: each row gets its segment's gradient over the segment's size.
void SegmentMeanGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output g = b.grad(0), ids = b.input(1);
  const TF_Output ones = b.Op("OnesLike", {b.Op("Cast", {ids}, {{"DstT", b.dtype(g)}})});
  const TF_Output count = LeadingMask(b, b.Op("SegmentSum", {ones, ids}), g);
  b.Set(0, b.Op("GatherV2", {b.Op("Div", {g, count}), ids, b.Int32(0)}));
}

// SparseSegment{Sum,Mean,SqrtN}(data, indices, ids): row indices[i] of data gets
// segment ids[i]'s gradient (over the segment's size, or its square root), summed.
void SparseSegmentGrad(GradBuilder& b, const char* scale) {
  if (!b.needs(0)) return;
  const TF_Output data = b.input(0), indices = b.input(1), ids = b.input(2), g = b.grad(0);
  TF_Output rows = b.Op("GatherV2", {g, ids, b.Int32(0)});
  if (scale != nullptr) {
    const TF_Output ones = b.Op("OnesLike", {b.Op("Cast", {ids}, {{"DstT", b.dtype(g)}})});
    const TF_Output rows_g = b.Op("Reshape", {b.Op("Slice", {b.Op("Shape", {g}), b.Int32s({0}), b.Int32s({1})}),
                                              b.Int32s({})});
    TF_Output count = b.Op("UnsortedSegmentSum", {ones, ids, rows_g});
    if (std::string(scale) == "sqrt") count = b.Op("Sqrt", {count});
    const TF_Output weight = b.Op("GatherV2", {count, ids, b.Int32(0)});
    rows = b.Op("Div", {rows, LeadingMask(b, weight, rows)});
  }
  const TF_Output n = b.Op("Reshape", {b.Op("Slice", {b.Op("Shape", {data}), b.Int32s({0}), b.Int32s({1})}),
                                       b.Int32s({})});
  b.Set(0, b.Op("UnsortedSegmentSum", {rows, indices, n}));
}

void SparseSegmentSumGrad(GradBuilder& b) { SparseSegmentGrad(b, nullptr); }
void SparseSegmentMeanGrad(GradBuilder& b) { SparseSegmentGrad(b, "mean"); }
void SparseSegmentSqrtNGrad(GradBuilder& b) { SparseSegmentGrad(b, "sqrt"); }

// DynamicStitch: each data tensor gets the merged gradient's rows at its indices (as
// TensorFlow's, a duplicate index's overwritten rows get the gradient too).
void DynamicStitchGrad(GradBuilder& b) {
  const int n = b.num_inputs() / 2;
  for (int m = 0; m < n; ++m)
    if (b.needs(n + m)) b.Set(n + m, b.Op("GatherV2", {b.grad(0), b.input(m), b.Int32(0)}));
}

// DynamicPartition: the outputs' gradients stitched back to where their rows came from.
void DynamicPartitionGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output data = b.input(0), parts = b.input(1);
  const TF_Output parts_shape = b.Op("Shape", {parts});
  const TF_Output positions = b.Op(
      "Reshape", {b.Op("Range", {b.Int32(0), b.Op("Size", {parts}), b.Int32(1)}), parts_shape});
  const int n = b.num_outputs();
  TF_Operation* split =
      b.Node("DynamicPartition", {positions, parts}, {{"num_partitions", int64_t{n}}});
  if (!b.ok()) return;
  std::vector<TF_Output> where, grads;
  for (int i = 0; i < n; ++i) {
    where.push_back(TF_Output{split, i});
    grads.push_back(b.grad(i));
  }
  const TF_Output merged = b.Op("ParallelDynamicStitch", {where, grads});
  b.Set(0, b.Op("Reshape", {merged, b.Op("Shape", {data})}));
}

// ResourceGather(resource, indices): TensorFlow's gradient reaches the handle as
// IndexedSlices; here the rows are summed into a dense gradient of the variable's shape
// (UnsortedSegmentSum, as GatherV2's), which reaches the handle as ReadVariableOp's does.
void ResourceGatherGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  if (b.AttrInt("batch_dims") != 0) {
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "the gradient of ResourceGather with batch_dims != 0 is not implemented");
    return;
  }
  const TF_Output value = b.Op("ReadVariableOp", {b.input(0)}, {{"dtype", b.AttrType("dtype")}});
  const TF_Output shape = b.Op("Shape", {value});
  const TF_Output rows_shape = b.Op(
      "ConcatV2", {std::vector<TF_Output>{b.Int32s({-1}),
                                          b.Op("Slice", {shape, b.Int32s({1}), b.Int32s({-1})})},
                   b.Int32(0)});
  const TF_Output n = b.Op("Reshape", {b.Op("Slice", {shape, b.Int32s({0}), b.Int32s({1})}),
                                       b.Int32s({})});
  b.Set(0, b.Op("UnsortedSegmentSum", {b.Op("Reshape", {b.grad(0), rows_shape}),
                                       b.Op("Reshape", {b.input(1), b.Int32s({-1})}), n}));
}

// ResourceGatherNd(resource, indices): as GatherNd's, ScatterNd of the gradient into the
// variable's shape (TensorFlow gives IndexedSlices for [n, 1] indices; dense here, as
// ResourceGather's), reaching the handle as ReadVariableOp's does.
void ResourceGatherNdGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output indices = b.input(1);
  const TF_Output value = b.Op("ReadVariableOp", {b.input(0)}, {{"dtype", b.AttrType("dtype")}});
  b.Set(0, b.Op("ScatterNd", {indices, b.grad(0), ShapeAs(b, value, b.dtype(indices))}));
}

}  // namespace

void RegisterScatterGradients() {
  RegisterGrad("ResourceGatherNd", ResourceGatherNdGrad);
  RegisterGrad("ResourceGather", ResourceGatherGrad);
  RegisterGrad("DynamicStitch", DynamicStitchGrad);
  RegisterGrad("ParallelDynamicStitch", DynamicStitchGrad);
  RegisterGrad("DynamicPartition", DynamicPartitionGrad);
  RegisterGrad("GatherNd", GatherNdGrad);
  RegisterGrad("ScatterNd", ScatterNdGrad);
  RegisterGrad("TensorScatterUpdate", TensorScatterUpdateGrad);
  RegisterGrad("TensorScatterAdd", TensorScatterAddGrad);
  RegisterGrad("TensorScatterSub", TensorScatterSubGrad);
  RegisterGrad("TensorScatterMax", TensorScatterMinOrMaxGrad);
  RegisterGrad("TensorScatterMin", TensorScatterMinOrMaxGrad);
  RegisterGrad("UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad);
  RegisterGrad("UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad);
  RegisterGrad("UnsortedSegmentProd", UnsortedSegmentProdGrad);
  RegisterGrad("SegmentSum", SegmentSumGrad);
  RegisterGrad("SegmentMean", SegmentMeanGrad);
  RegisterGrad("SegmentMax", SegmentMinOrMaxGrad);
  RegisterGrad("SegmentMin", SegmentMinOrMaxGrad);
  RegisterGrad("SegmentProd", SegmentProdGrad);
  RegisterGrad("SparseSegmentSum", SparseSegmentSumGrad);
  RegisterGrad("SparseSegmentMean", SparseSegmentMeanGrad);
  RegisterGrad("SparseSegmentSqrtN", SparseSegmentSqrtNGrad);
  // (num_segments fixes the output's rows, which the gradient already reads from g)
  RegisterGrad("SparseSegmentSumWithNumSegments", SparseSegmentSumGrad);
  RegisterGrad("SparseSegmentMeanWithNumSegments", SparseSegmentMeanGrad);
  RegisterGrad("SparseSegmentSqrtNWithNumSegments", SparseSegmentSqrtNGrad);
}

}  // namespace gradients
}  // namespace opgen
