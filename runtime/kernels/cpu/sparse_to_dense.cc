// SparseToDense: the default everywhere, then the values at their offsets (operands
// checked by ../sparse_to_dense_spec.h, shared with the CUDA twin). Strings are copied
// one by one (their structs own heap memory).
#include <cstring>

#include "../../src/string_tensor.h"
#include "../sparse_to_dense_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

void StringsCompute(TF_OpKernelContext* ctx, const kernels::SparseToDensePlan& p) {
  TensorPtr out(NewStringTensor(p.dims));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "SparseToDense: out of memory for strings");
  TF_TString* y = MutableStringElements(out.get());
  const std::string_view fill = StringElement(StringElements(p.fill.get()));
  const TF_TString* values = StringElements(p.values.get());
  bool ok = true;
  for (int64_t i = 0; i < NumElements(p.dims) && ok; ++i) ok = AssignString(&y[i], fill);
  for (size_t i = 0; i < p.offsets.size() && ok; ++i)
    ok = AssignString(&y[p.offsets[i]], StringElement(&values[p.one_value ? 0 : i]));
  if (!ok) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "SparseToDense: out of memory for strings");
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, out.get(), s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

void SparseToDenseCompute(void* attrs, TF_OpKernelContext* ctx) {
  kernels::SparseToDensePlan p;
  if (!kernels::PlanSparseToDense(ctx, *static_cast<bool*>(attrs), &p)) return;
  const TF_DataType type = TF_TensorType(p.values.get());
  if (type == TF_STRING) return StringsCompute(ctx, p);
  TensorPtr out = kernels::AllocateOutput(ctx, 0, type, p.dims);
  if (!out) return;
  const size_t width = TF_DataTypeSize(type);
  char* y = static_cast<char*>(TF_TensorData(out.get()));
  const char* fill = static_cast<const char*>(TF_TensorData(p.fill.get()));
  const char* values = static_cast<const char*>(TF_TensorData(p.values.get()));
  for (int64_t i = 0; i < NumElements(p.dims); ++i) std::memcpy(y + i * width, fill, width);
  for (size_t i = 0; i < p.offsets.size(); ++i)
    std::memcpy(y + p.offsets[i] * width, values + (p.one_value ? 0 : i) * width, width);
}

}  // namespace

void RegisterSparseToDenseKernels(TF_Status* status) {
  std::vector<TF_DataType> types(std::begin(kAllFixedSizeTypes), std::end(kAllFixedSizeTypes));
  types.push_back(TF_STRING);
  for (TF_DataType t : types)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"SparseToDense", {{"T", t}, {"Tindices", index}}, {},
                               SparseToDenseCompute, kernels::CreateValidateIndices,
                               kernels::DeleteValidateIndices}, status);
}

}  // namespace cpu
}  // namespace opgen
