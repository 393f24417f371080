// Einsum: the op and its shape function. The equation is parsed by the kernels' own
// parser (../kernels/einsum_spec.h), so graph building and the kernels agree on what an
// equation means and which ones are rejected.
#include "../kernels/einsum_spec.h"
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

void EinsumShape(ShapeFnContext& c) {
  kernels::EinsumEquation eq;
  std::string error;
  if (!kernels::ParseEinsum(c.AttrString("equation"), c.num_inputs(), &eq, &error)) Fail(error);
  std::vector<PartialShape> in;
  bool known = true, ranks_known = true;
  for (int i = 0; i < c.num_inputs(); ++i) {
    in.push_back(c.Input(i));
    ranks_known &= in.back().rank_known;
    known &= in.back().NumElements() >= 0;
  }
  if (known) {  // every dim known: the kernels' plan gives the output shape and the errors
    std::vector<std::vector<int64_t>> dims;
    for (const PartialShape& s : in) dims.push_back(s.dims);
    kernels::EinsumPlan plan;
    if (!kernels::PlanEinsum(eq, dims, &plan, &error)) Fail(error);
    return c.SetOutput(0, PartialShape::Of(plan.out_dims));
  }
  if (!ranks_known) return c.SetOutput(0, PartialShape::Unknown());
  // Ranks known: named output labels take a known size from any operand; broadcast
  // (ellipsis) dims stay unknown.
  std::vector<int64_t> size_of(kernels::kFirstBroadcastLabel, kUnknownDim);
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const int64_t named = static_cast<int64_t>(std::count_if(
        labels.begin(), labels.end(), [](int l) { return l != kernels::kEllipsisLabel; }));
    const int64_t covered = in[i].rank() - named;
    if (covered < 0 || (covered > 0 && named == static_cast<int64_t>(labels.size())))
      Fail("einsum: input " + std::to_string(i) + " has rank " + std::to_string(in[i].rank()) +
           " but its subscripts name " + std::to_string(named) + " dimensions");
    ellipsis_rank = std::max(ellipsis_rank, covered);
    int64_t d = 0;
    for (int l : labels) {
      if (l == kernels::kEllipsisLabel) {
        d += covered;
        continue;
      }
      if (in[i].dims[d] >= 0) size_of[l] = in[i].dims[d];
      ++d;
    }
  }
  std::vector<int64_t> out;
  for (int l : eq.output) {
    if (l == kernels::kEllipsisLabel) out.insert(out.end(), ellipsis_rank, kUnknownDim);
    else out.push_back(size_of[l]);
  }
  c.SetOutput(0, PartialShape::Of(out));
}

}  // namespace

void RegisterEinsumOp(TF_Status* status) {
  RegisterOps({
      {"Einsum", {"equation: string", "N: int >= 1", "T: type"}, {"inputs: N * T"}, {"output: T"},
       ShapeFn<EinsumShape>,
       "Tensor contraction over the labels of `equation`, as numpy's einsum.",
       "One or two inputs; `equation` is \"<labels>[,<labels>]-><labels>\" with letters as "
       "labels and at most one '...' per operand standing for broadcast dimensions. Labels "
       "shared by both inputs and missing from the output are summed over; a label repeated "
       "in one input takes its diagonal.",
       {{"inputs", "One or two tensors."}, {"output", "The contraction."},
        {"equation", "The subscripts, e.g. \"abc,cd->abd\"."}}},
  }, status);
}

}  // namespace opgen
