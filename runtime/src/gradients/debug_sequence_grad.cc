// Gradients of the debugging and sequence ops (TensorFlow's, written here): checks and
// copies pass the gradient through, Roll and ReverseSequence undo themselves on it,
// SparseToDense gathers it at the indices. Assert, PrintV2, StringFormat, LinSpace, the
// Unique family and ListDiff carry none, as in TensorFlow.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

void PassThrough(GradBuilder& b) { b.Set(0, b.grad(0)); }

// The gradient is checked too, under a message that says it was the gradient.
void CheckNumericsGrad(GradBuilder& b) {
  const std::string message = b.AttrString("message");
  b.Set(0, b.Op(TF_OperationOpType(b.op()), {b.grad(0)},
                {{"message", "Not a number (NaN) or infinity (Inf) values detected in "
                             "gradient. " + message}}));
}

void RollGrad(GradBuilder& b) { b.Set(0, b.Op("Roll", {b.grad(0), b.Op("Neg", {b.input(1)}), b.input(2)})); }

void ReverseSequenceGrad(GradBuilder& b) {
  b.Set(0, b.Op("ReverseSequence", {b.grad(0), b.input(1)},
                {{"seq_dim", b.AttrInt("seq_dim")}, {"batch_dim", b.AttrInt("batch_dim")}}));
}

// SparseToDense(indices, shape, values, default): values get the gradient at their
// indices (row-major offsets gathered from the flat gradient), the default the rest.
void SparseToDenseGrad(GradBuilder& b) {
  const TF_Output indices = b.input(0), shape = b.input(1), values = b.input(2);
  const TF_Output g = b.grad(0);
  const TF_Output rank = b.Op("Shape", {shape}, {{"out_type", b.dtype(shape)}});
  const TF_Output minus_one = b.Op("Cast", {b.Int32s({-1})}, {{"DstT", b.dtype(shape)}});
  const TF_Output rows = b.Op("Reshape", {indices, b.Op("ConcatV2", {std::vector<TF_Output>{minus_one, rank}, b.Int32(0)})});
  const TF_Output strides = b.Op("Cumprod", {shape, b.Int32(0)},
                                 {{"exclusive", true}, {"reverse", true}});
  const TF_Output offsets = b.Op("Sum", {b.Op("Mul", {rows, strides}), b.Int32(1)});
  const TF_Output flat = b.Op("Reshape", {g, b.Int32s({-1})});
  const TF_Output picked = b.Op("GatherV2", {flat, offsets, b.Int32(0)});
  const TF_Output all = b.Op("Sum", {flat, b.Int32(0)});
  b.Set(2, b.SumToShapeOf(picked, values));
  b.Set(3, b.Op("Sub", {all, b.Op("Sum", {picked, b.Int32(0)})}));
}

}  // namespace

void RegisterDebugSequenceGradients() {
  RegisterGrad("CheckNumerics", CheckNumericsGrad);
  RegisterGrad("CheckNumericsV2", CheckNumericsGrad);
  RegisterGrad("EnsureShape", PassThrough);
  RegisterGrad("Roll", RollGrad);
  RegisterGrad("ReverseSequence", ReverseSequenceGrad);
  RegisterGrad("SparseToDense", SparseToDenseGrad);
  for (const char* op : {"Assert", "PrintV2", "StringFormat", "LinSpace", "Unique", "UniqueV2",
                         "UniqueWithCounts", "UniqueWithCountsV2", "ListDiff"})
    RegisterNoGrad(op);
}

}  // namespace gradients
}  // namespace opgen
