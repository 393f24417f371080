// Gradients of the SparseTensor ops (TensorFlow's, written here): the values of
// SparseReorder, SparseFillEmptyRows, SparseAdd and SparseSlice get the gradients of the
// entries they became, SparseReduceSum's the output gradient where they were summed,
// SparseTensorDenseMatMul's values and dense operand the matrix products' gradients.
// SparseReshape (no values input), SparseConcat and the *Grad ops carry none, as in
// TensorFlow. The SparseSegment*WithNumSegments gradients are scatter_grad.cc's.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

bool IsComplex(TF_DataType t) { return t == TF_COMPLEX64 || t == TF_COMPLEX128; }

TF_Output Conj(GradBuilder& b, TF_Output t) {
  return IsComplex(GradBuilder::dtype(t)) ? b.Op("Conj", {t}) : t;
}

// Column `c` of an [n, 2+] index matrix, as a vector.
TF_Output IndexColumn(GradBuilder& b, TF_Output indices, int c) {
  const TF_Output col = b.Op("Slice", {indices, b.Int32s({0, c}), b.Int32s({-1, 1})});
  return b.Op("Reshape", {col, b.Int32s({-1})});
}

// SparseReorder(indices, values, shape): output j came from input perm[j], which a
// reorder of the positions 0..n-1 finds; values get the gradient scattered back.
void SparseReorderGrad(GradBuilder& b) {
  if (!b.needs(1)) return;
  const TF_Output indices = b.input(0), shape = b.input(2), g = b.grad(1);
  const TF_Output n = b.Op("Size", {b.input(1)}, {{"out_type", TF_INT64}});
  const TF_Output positions =
      b.Op("Range", {b.Scalar(0, TF_INT64), n, b.Scalar(1, TF_INT64)});
  const TF_Output perm{b.Node("SparseReorder", {indices, positions, shape}), 1};
  b.Set(1, b.Op("GatherV2", {g, b.Op("InvertPermutation", {perm}), b.Int32(0)}));
}

// SparseFillEmptyRows: the values' gradient at their output entries, the default value's
// the sum over the added entries.
void SparseFillEmptyRowsGrad(GradBuilder& b) {
  TF_Operation* grad = b.Node("SparseFillEmptyRowsGrad", {b.output(3), b.grad(1)});
  b.Set(1, TF_Output{grad, 0});
  b.Set(3, TF_Output{grad, 1});
}

// SparseTensorDenseMatMul(a, b) = op(a) op(b): entry i of a at (m, k) of op(a) gets
// sum_j g[m, j] conj(op(b)[k, j]) (conjugated when adjoint_a); b gets op(a)^H g, transposed
// back (and conjugated) when adjoint_b.
void SparseTensorDenseMatMulGrad(GradBuilder& b) {
  const TF_Output indices = b.input(0), values = b.input(1), shape = b.input(2), dense = b.input(3);
  const TF_Output g = b.grad(0);
  const bool adj_a = b.AttrBool("adjoint_a"), adj_b = b.AttrBool("adjoint_b");
  if (b.needs(3)) {
    TF_Output db = b.Op("SparseTensorDenseMatMul", {indices, values, shape, g},
                        {{"adjoint_a", !adj_a}, {"adjoint_b", false}});
    if (adj_b) db = Conj(b, b.Op("Transpose", {db, b.Int32s({1, 0})}));
    b.Set(3, db);
  }
  if (b.needs(1)) {
    const TF_Output rows = IndexColumn(b, indices, adj_a ? 1 : 0);
    const TF_Output inner = IndexColumn(b, indices, adj_a ? 0 : 1);
    const TF_Output op_b = adj_b ? Conj(b, b.Op("Transpose", {dense, b.Int32s({1, 0})})) : dense;
    const TF_Output parts_g = b.Op("GatherV2", {g, rows, b.Int32(0)});
    const TF_Output parts_b = b.Op("GatherV2", {op_b, inner, b.Int32(0)});
    const TF_Output prod = adj_a ? b.Op("Mul", {Conj(b, parts_g), parts_b})
                                 : b.Op("Mul", {parts_g, Conj(b, parts_b)});
    b.Set(1, b.Op("Sum", {prod, b.Int32(1)}));
  }
}

// SparseAdd: each operand's values get the gradients of the sum entries they became.
void SparseAddGrad(GradBuilder& b) {
  TF_Operation* grad =
      b.Node("SparseAddGrad", {b.grad(1), b.input(0), b.input(3), b.output(0)});
  b.Set(1, TF_Output{grad, 0});
  b.Set(4, TF_Output{grad, 1});
}

// SparseSlice: the kept values get their output entries' gradients.
void SparseSliceGrad(GradBuilder& b) {
  b.Set(1, b.Op("SparseSliceGrad", {b.grad(1), b.input(0), b.input(3), b.output(0)}));
}

// SparseReduceSum: each value gets the output gradient at its coordinates with the
// reduced ones dropped: g reshaped to the kept-dims shape, gathered at indices // scale,
// where scale is the dense shape over the kept-dims shape (the reduced dims' sizes, else 1).
void SparseReduceSumGrad(GradBuilder& b) {
  const TF_Output indices = b.input(0), shape = b.input(2);
  const TF_Output rank = b.Op("Size", {shape});
  const TF_Output axes = b.Op("FloorMod", {b.Op("Reshape", {b.input(3), b.Int32s({-1, 1})}), rank});
  const TF_Output ones = b.Op("OnesLike", {b.Op("Cast", {b.Op("Reshape", {axes, b.Int32s({-1})})},
                                                 {{"DstT", TF_INT64}})});
  const TF_Output kept = b.Op("TensorScatterUpdate", {shape, axes, ones});
  const TF_Output g = b.Op("Reshape", {b.grad(0), kept});
  const TF_Output scale = b.Op("FloorDiv", {shape, kept});
  b.Set(1, b.Op("GatherNd", {g, b.Op("FloorDiv", {indices, scale})}));
}

}  // namespace

void RegisterSparseGradients() {
  RegisterGrad("SparseAdd", SparseAddGrad);
  RegisterGrad("SparseSlice", SparseSliceGrad);
  RegisterGrad("SparseReduceSum", SparseReduceSumGrad);
  RegisterNoGrad("SparseAddGrad");
  RegisterNoGrad("SparseSliceGrad");
  RegisterNoGrad("SparseConcat");
  RegisterGrad("SparseReorder", SparseReorderGrad);
  RegisterGrad("SparseFillEmptyRows", SparseFillEmptyRowsGrad);
  RegisterGrad("SparseTensorDenseMatMul", SparseTensorDenseMatMulGrad);
  RegisterNoGrad("SparseReshape");
  RegisterNoGrad("SparseFillEmptyRowsGrad");
}

}  // namespace gradients
}  // namespace opgen
