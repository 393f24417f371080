// Built-in ops that move or reshape data without arithmetic.
#include "op_table.h"

namespace opgen {

void RegisterArrayOps(TF_Status* status) {
  RegisterOps({
      {"Identity", {"T: type"}, {"input: T"}, {"output: T"},
       "Returns its input unchanged.",
       "The output shares the input's buffer; no data is copied.",
       {{"input", "Any tensor."}, {"output", "The same tensor."}}},
      {"NoOp", {}, {}, {}, "Does nothing.",
       "Useful as a placeholder for control edges.", {}},
      {"Reshape", {"T: type", "Tshape: {int32, int64} = DT_INT32"}, {"tensor: T", "shape: Tshape"},
       {"output: T"}, "Gives `tensor` a new shape with the same number of elements.",
       "One entry of `shape` may be -1; it is inferred. The data is shared, not copied.",
       {{"tensor", "The values."}, {"shape", "The new shape (1-D)."},
        {"output", "`tensor` with shape `shape`."}}},
      {"Transpose", {"T: type", "Tperm: {int32, int64} = DT_INT32"}, {"x: T", "perm: Tperm"},
       {"y: T"}, "Permutes the dimensions of `x`.",
       "Output dimension `i` is input dimension `perm[i]`.",
       {{"x", "The values."}, {"perm", "A permutation of `[0, rank(x))`."},
        {"y", "The transposed values."}}},
      {"ExpandDims", {"T: type", "Tdim: {int32, int64} = DT_INT32"}, {"input: T", "dim: Tdim"},
       {"output: T"}, "Inserts a dimension of size 1 at index `dim`.",
       "`dim` may be negative, counting from the end (-1 appends).",
       {{"input", "The values."}, {"dim", "Where to insert (a scalar)."},
        {"output", "`input` with one more dimension."}}},
      {"Squeeze", {"T: type", "squeeze_dims: list(int) >= 0 = []"}, {"input: T"}, {"output: T"},
       "Removes dimensions of size 1.",
       "With `squeeze_dims` empty, every size-1 dimension goes; otherwise only those listed.",
       {{"input", "The values."}, {"output", "`input` without the squeezed dimensions."},
        {"squeeze_dims", "Dimensions to remove; each must have size 1."}}},
      {"Shape", {"T: type", "out_type: {int32, int64} = DT_INT32"}, {"input: T"},
       {"output: out_type"}, "Returns the shape of `input` as a 1-D tensor.", "",
       {{"input", "Any tensor."}, {"output", "Its dimensions."}}},
      {"Size", {"T: type", "out_type: {int32, int64} = DT_INT32"}, {"input: T"},
       {"output: out_type"}, "Returns the number of elements of `input`.", "",
       {{"input", "Any tensor."}, {"output", "The element count (a scalar)."}}},
      {"Rank", {"T: type"}, {"input: T"}, {"output: int32"},
       "Returns the number of dimensions of `input`.", "",
       {{"input", "Any tensor."}, {"output", "The rank (a scalar)."}}},
      {"ZerosLike", {"T: type"}, {"x: T"}, {"y: T"}, "Returns zeros shaped like `x`.", "",
       {{"x", "A tensor giving shape and dtype."}, {"y", "Zeros."}}},
      {"OnesLike",
       {"T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, "
        "uint64, complex64, complex128, bool}"},
       {"x: T"}, {"y: T"}, "Returns ones shaped like `x`.", "",
       {{"x", "A tensor giving shape and dtype."}, {"y", "Ones."}}},
      {"Fill", {"T: type", "index_type: {int32, int64} = DT_INT32"},
       {"dims: index_type", "value: T"}, {"output: T"},
       "Returns a tensor of shape `dims` with every element `value`.", "",
       {{"dims", "The output shape (1-D)."}, {"value", "The fill value (a scalar)."},
        {"output", "The filled tensor."}}},
  }, status);
}

}  // namespace opgen
