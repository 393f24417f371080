// UnstackRows(value: T) -> (rows: num * T): the `num` rows of `value` (its first dim) as
// separate outputs, as tf.unstack along axis 0 gives them. Shows a list output: each
// allocated through an OpOutputList, or set from a temporary, then written through
// OpOutputList::operator[] (mutable_output).
#include <cstring>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;
using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

REGISTER_OP("UnstackRows")
    .Input("value: T")
    .Output("rows: num * T")
    .Attr("num: int >= 1")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      int64_t num = 0;
      TF_RETURN_IF_ERROR(c->GetAttr("num", &num));
      ShapeHandle value;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &value));
      DimensionHandle rows;
      TF_RETURN_IF_ERROR(c->WithValue(c->Dim(value, 0), num, &rows));
      ShapeHandle row;
      TF_RETURN_IF_ERROR(c->Subshape(value, 1, &row));
      for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, row);
      return OkStatus();
    });

template <typename T>
class UnstackRowsOp : public OpKernel {
 public:
  explicit UnstackRowsOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& value = context->input(0);
    OpOutputList rows;
    OP_REQUIRES_OK(context, context->output_list("rows", &rows));
    OP_REQUIRES(context, value.dims() >= 1 && value.dim_size(0) == rows.size(),
                errors::InvalidArgument("UnstackRows needs ", rows.size(), " rows, got shape ",
                                        value.shape().DebugString()));
    TensorShape row_shape;
    for (int d = 1; d < value.dims(); ++d) row_shape.AddDim(value.dim_size(d));
    // Every row but the last allocated in the list; the last set from a temporary.
    for (int i = 0; i + 1 < rows.size(); ++i) {
      Tensor* unused = nullptr;
      OP_REQUIRES_OK(context, rows.allocate(i, row_shape, &unused));
    }
    Tensor last;
    OP_REQUIRES_OK(context, context->allocate_temp(DataTypeToEnum<T>::v(), row_shape, &last));
    rows.set(rows.size() - 1, last);
    // Filled afterwards, through the outputs the list holds.
    const int64_t row_size = row_shape.num_elements();
    const T* in = value.flat<T>().data();
    for (int i = 0; i < rows.size(); ++i) {
      Tensor* row = rows[i];
      OP_REQUIRES(context, row != nullptr && row == context->mutable_output(i),
                  errors::Internal("UnstackRows: output ", i, " was not kept"));
      if (row_size > 0) std::memcpy(row->flat<T>().data(), in + i * row_size, row_size * sizeof(T));
    }
  }
};

#define REGISTER_CPU(T) \
  REGISTER_KERNEL_BUILDER(Name("UnstackRows").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnstackRowsOp<T>)
REGISTER_CPU(float);
REGISTER_CPU(double);
REGISTER_CPU(int32);
REGISTER_CPU(int64_t);
#undef REGISTER_CPU
