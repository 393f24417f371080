// Ops that gradient graphs use (runtime/src/gradients/): BroadcastGradientArgs and the
// fused element-wise gradients SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad,
// InvGrad.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Two vectors in, two vectors out of a length known only from the values.
void BroadcastGradientArgsShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "s0");
  c.InputWithRank(1, 1, "s1");
  c.SetOutput(0, PartialShape::UnknownDims(1));
  c.SetOutput(1, PartialShape::UnknownDims(1));
}

constexpr const char* kGradTypes = "T: {bfloat16, half, float, double, complex64, complex128}";

// z = dy * f'(x), written through y = f(x).
OpRegistration UnaryGradOp(const char* name, const char* summary) {
  return OpRegistration{
      name, {kGradTypes}, {"y: T", "dy: T"}, {"z: T"}, shape_fns::kSameShapes, summary,
      "`y` is the forward op's output and `dy` the gradient reaching it; both have one shape.",
      {{"y", "The forward op's output."}, {"dy", "The gradient of `y`."},
       {"z", "The gradient of the forward op's input."}}};
}

}  // namespace

void RegisterMathGradOps(TF_Status* status) {
  RegisterOps({
      {"BroadcastGradientArgs", {"T: {int32, int64} = DT_INT32"}, {"s0: T", "s1: T"},
       {"r0: T", "r1: T"}, ShapeFn<BroadcastGradientArgsShape>,
       "The axes to sum a broadcast gradient over, for each of two operand shapes.",
       "For operands of shapes `s0` and `s1` broadcast against each other, `r0` lists the "
       "axes of the broadcast shape along which operand 0 was repeated (missing leading "
       "dims, and dims of size 1 where the other is not), `r1` those of operand 1, both "
       "in increasing order. Incompatible shapes are an error.",
       {{"s0", "The shape of operand 0."}, {"s1", "The shape of operand 1."},
        {"r0", "Axes to reduce the gradient of operand 0 over."},
        {"r1", "Axes to reduce the gradient of operand 1 over."}}},
      UnaryGradOp("SigmoidGrad", "The gradient of sigmoid: `dy * y * (1 - y)`."),
      UnaryGradOp("TanhGrad", "The gradient of tanh: `dy * (1 - y * y)`."),
      UnaryGradOp("SqrtGrad", "The gradient of sqrt: `dy * 0.5 / y`."),
      UnaryGradOp("RsqrtGrad", "The gradient of rsqrt: `dy * -0.5 * y^3`."),
      UnaryGradOp("ReciprocalGrad", "The gradient of 1/x: `-dy * y * y`."),
      UnaryGradOp("InvGrad", "The gradient of Inv (1/x): `-dy * y * y`."),
  }, status);
}

}  // namespace opgen
