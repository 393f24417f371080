// The gradient of RaggedTensorToTensor, with TensorFlow's formula (its
// ragged_conversion_ops.py): each padded position came either from one of the ragged
// values or from default_value, so the dense gradient is split between the two.
// shape and the row partitions are indices: no gradient.
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// RaggedTensorToTensor(shape, values, default_value, row_partition_tensors...).
// Which value every padded position holds is found by padding the values' indices
// (Range(n)) the same way, with -1 for the default. Then
//   d values  = the gradient rows summed per index (UnsortedSegmentSum drops the -1s),
//   d default = the gradient where the index is -1, summed to default_value's shape.
void RaggedTensorToTensorGrad(GradBuilder& b) {
  if (!b.needs(1) && !b.needs(2)) return;
  const TF_Output values = b.input(1), default_value = b.input(2), g = b.grad(0);
  const std::vector<std::string> types = b.AttrStrings("row_partition_types");
  int ragged_rank = 0;
  for (const std::string& t : types) ragged_rank += t != "FIRST_DIM_SIZE";
  std::vector<TF_Output> row_partitions;  // the same ones, as one list input
  for (int i = 3; i < b.num_inputs(); ++i) row_partitions.push_back(b.input(i));

  const TF_Output g_shape = b.Op("Shape", {g});
  const TF_Output outer = b.Op("Slice", {g_shape, b.Int32s({0}), b.Int32s({1 + ragged_rank})});
  const TF_Output inner = b.Op("Slice", {g_shape, b.Int32s({1 + ragged_rank}), b.Int32s({-1})});
  const TF_Output num_values =
      b.Op("Reshape", {b.Op("Slice", {b.Op("Shape", {values}), b.Int32s({0}), b.Int32s({1})}),
                       b.Int32s({})});
  const TF_Output indices =
      b.Op("RaggedTensorToTensor",
           {outer, b.Op("Range", {b.Int32(0), num_values, b.Int32(1)}), b.Int32(-1),
            In(row_partitions)},
           {{"row_partition_types", types}});
  if (b.needs(1)) {
    const TF_Output rows = b.Op(
        "Reshape", {g, b.Op("ConcatV2", {std::vector<TF_Output>{b.Int32s({-1}), inner}, b.Int32(0)})});
    b.Set(1, b.Op("UnsortedSegmentSum",
                  {rows, b.Op("Reshape", {indices, b.Int32s({-1})}), num_values}));
  }
  if (b.needs(2)) {
    // the default's positions, shaped to broadcast over the values' inner dims
    const TF_Output mask_shape = b.Op(
        "ConcatV2", {std::vector<TF_Output>{outer, b.Op("OnesLike", {inner})}, b.Int32(0)});
    const TF_Output from_default =
        b.Op("Reshape", {b.Op("Less", {indices, b.Int32(0)}), mask_shape});
    b.Set(2, b.SumToShapeOf(b.Op("SelectV2", {from_default, g, b.Op("ZerosLike", {g})}),
                            default_value));
  }
}

}  // namespace

void RegisterRaggedGradients() { RegisterGrad("RaggedTensorToTensor", RaggedTensorToTensorGrad); }

}  // namespace gradients
}  // namespace opgen
