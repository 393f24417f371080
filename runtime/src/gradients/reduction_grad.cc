// Gradients of the reductions (Sum, Mean, Prod, Max, Min, EuclideanNorm) and the matrix products (MatMul,
// BatchMatMulV2), as TensorFlow's math_grad.py computes them.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// The conjugate of a complex t; t itself otherwise.
TF_Output ConjIfComplex(GradBuilder& b, TF_Output t) {
  const TF_DataType type = GradBuilder::dtype(t);
  return type == TF_COMPLEX64 || type == TF_COMPLEX128 ? b.Op("Conj", {t}) : t;
}

// The reduced gradient spread back over the reduced axes.
TF_Output SpreadBack(GradBuilder& b, TF_Output g) {
  const TF_Output x = b.input(0);
  const TF_Output kept = b.Op("Reshape", {g, b.KeptDimsShape(x, b.input(1))});
  return b.Op("BroadcastTo", {kept, b.ShapeOf(x)});
}

void SumGrad(GradBuilder& b) { b.Set(0, SpreadBack(b, b.grad(0))); }

// Sum's gradient over the number of elements each output averaged.
void MeanGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), y = b.output(0);
  std::vector<int64_t> xs, ys;
  TF_Output factor;
  if (b.StaticShape(x, &xs) && b.StaticShape(y, &ys)) {
    int64_t nx = 1, ny = 1;
    for (int64_t d : xs) nx *= d;
    for (int64_t d : ys) ny *= d;
    factor = b.ScalarLike(static_cast<double>(nx / (ny > 0 ? ny : 1)), x);
  } else {
    const TF_Output count = b.Op("FloorDiv", {b.Op("Size", {x}),
                                              b.Op("Maximum", {b.Op("Size", {y}), b.Int32(1)})});
    factor = b.Op("Cast", {count}, {{"DstT", b.dtype(x)}});
  }
  b.Set(0, SpreadBack(b, b.Op("RealDiv", {b.grad(0), factor})));
}

// EuclideanNorm (TensorFlow's formula): x / (norm / dy), norm and dy with the reduced
// axes kept.
void EuclideanNormGrad(GradBuilder& b) {
  const TF_Output x = b.input(0);
  TF_Output norm = b.output(0), g = b.grad(0);
  if (!b.AttrBool("keep_dims")) {
    const TF_Output kept = b.KeptDimsShape(x, b.input(1));
    norm = b.Op("Reshape", {norm, kept});
    g = b.Op("Reshape", {g, kept});
  }
  b.Set(0, b.Op("RealDiv", {x, b.Op("RealDiv", {norm, g})}));
}

// The gradient shared evenly among the elements equal to the extreme.
void MinOrMaxGrad(GradBuilder& b) {
  const TF_Output x = b.input(0), axes = b.input(1);
  const TF_Output kept = b.KeptDimsShape(x, axes);
  const TF_Output y = b.Op("Reshape", {b.output(0), kept});
  const TF_Output g = b.Op("Reshape", {b.grad(0), kept});
  const TF_Output hits = b.Op("Cast", {b.Op("Equal", {x, y})}, {{"DstT", b.dtype(x)}});
  const TF_Output count = b.Op("Sum", {hits, axes}, {{"keep_dims", true}});
  b.Set(0, b.Op("Mul", {b.Op("RealDiv", {hits, count}), g}));
}

// d prod(x)/dx_i is the product of the others: exclusive cumulative products from both
// ends along the reduced axes, gathered in front (TensorFlow's formula, no division, so
// zeros are handled; conjugated for complex x). Needs x's shape and the axes known while the graph is built.
void ProdGrad(GradBuilder& b) {
  const TF_Output x = b.input(0);
  std::vector<int64_t> dims, axes;
  if (!b.StaticShape(x, &dims) || !GradBuilder::ConstInts(b.input(1), &axes)) {
    TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
                 "the gradient of Prod needs the input's shape and the axes known when the "
                 "graph is built");
    return;
  }
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes)
    if (a >= -rank && a < rank) reduced[a < 0 ? a + rank : a] = true;
  std::vector<int32_t> perm, inverse(rank), permuted_dims;
  int64_t reduced_count = 1, other_count = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int d = 0; d < rank; ++d)
      if (reduced[d] == (pass == 0)) {
        perm.push_back(d);
        permuted_dims.push_back(static_cast<int32_t>(dims[d]));
        (pass == 0 ? reduced_count : other_count) *= dims[d];
      }
  for (int i = 0; i < rank; ++i) inverse[perm[i]] = i;
  const TF_Output permuted = b.Op("Transpose", {x, b.Int32s(perm)});
  const TF_Output matrix = b.Op("Reshape", {permuted, b.Int32s({static_cast<int32_t>(reduced_count),
                                                                static_cast<int32_t>(other_count)})});
  const TF_Output left = b.Op("Cumprod", {matrix, b.Int32(0)}, {{"exclusive", true}});
  const TF_Output right =
      b.Op("Cumprod", {matrix, b.Int32(0)}, {{"exclusive", true}, {"reverse", true}});
  const TF_Output others = b.Op("Reshape", {ConjIfComplex(b, b.Op("Mul", {left, right})),
                                            b.Int32s(permuted_dims)});
  b.Set(0, b.Op("Mul", {SpreadBack(b, b.grad(0)), b.Op("Transpose", {others, b.Int32s(inverse)})}));
}

// For z = op(a) @ op(b) with op a transpose when the flag is set; complex operands are
// conjugated first (MatMul transposes without conjugating).
void MatMulGrad(GradBuilder& b) {
  const bool ta = b.AttrBool("transpose_a"), tb = b.AttrBool("transpose_b");
  const TF_Output a = ConjIfComplex(b, b.input(0)), w = ConjIfComplex(b, b.input(1));
  const TF_Output dz = b.grad(0);
  auto mm = [&b](TF_Output x, TF_Output y, bool tx, bool ty) {
    return b.Op("MatMul", {x, y}, {{"transpose_a", tx}, {"transpose_b", ty}});
  };
  if (b.needs(0)) b.Set(0, !ta ? (!tb ? mm(dz, w, false, true) : mm(dz, w, false, false))
                               : (!tb ? mm(w, dz, false, true) : mm(w, dz, true, true)));
  if (b.needs(1)) b.Set(1, !tb ? (!ta ? mm(a, dz, true, false) : mm(a, dz, false, false))
                               : (!ta ? mm(dz, a, true, false) : mm(dz, a, true, true)));
}

// As MatMul per matrix with adjoints for transposes (which conjugate complex operands as
// the formulas need), then each gradient summed over the batch dims its operand was
// broadcast along.
void BatchMatMulGrad(GradBuilder& b) {
  const bool ax = b.AttrBool("adj_x"), ay = b.AttrBool("adj_y");
  const TF_Output x = b.input(0), y = b.input(1), dz = b.grad(0);
  auto mm = [&b](TF_Output p, TF_Output q, bool ap, bool aq) {
    return b.Op("BatchMatMulV2", {p, q}, {{"adj_x", ap}, {"adj_y", aq}});
  };
  TF_Output gx = dz, gy = dz;
  if (b.needs(0)) gx = !ax ? (!ay ? mm(dz, y, false, true) : mm(dz, y, false, false))
                           : (!ay ? mm(y, dz, false, true) : mm(y, dz, true, true));
  if (b.needs(1)) gy = !ay ? (!ax ? mm(x, dz, true, false) : mm(x, dz, false, false))
                           : (!ax ? mm(dz, x, true, false) : mm(dz, x, true, true));
  b.SetBroadcastGrads(gx, gy);
}

}  // namespace

void RegisterReductionGradients() {
  RegisterGrad("Sum", SumGrad);
  RegisterGrad("Mean", MeanGrad);
  RegisterGrad("Prod", ProdGrad);
  RegisterGrad("Max", MinOrMaxGrad);
  RegisterGrad("Min", MinOrMaxGrad);
  RegisterGrad("EuclideanNorm", EuclideanNormGrad);
  RegisterGrad("MatMul", MatMulGrad);
  RegisterGrad("BatchMatMulV2", BatchMatMulGrad);
  RegisterGrad("BatchMatMul", BatchMatMulGrad);  // equal batch dims: nothing to sum
}

}  // namespace gradients
}  // namespace opgen
