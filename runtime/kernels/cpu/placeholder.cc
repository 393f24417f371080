// Placeholder (fails: a session must feed it) and PlaceholderWithDefault (passes its
// input through). Registered without dtype constraints: both work for every dtype.
#include <string>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// The message, built once at construction, that a run which did not feed the node gets.
void* CreatePlaceholder(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_DataType dtype = TF_FLOAT;
  TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &dtype, s.get());
  TF_StringView name = TF_OpKernelConstruction_GetName(ctx);
  std::string dtype_name = "unknown";
  if (TF_GetCode(s.get()) == TF_OK) {
    static const char* const kNames[] = {"invalid", "float", "double", "int32", "uint8", "int16",
                                         "int8", "string", "complex64", "int64", "bool"};
    dtype_name = dtype >= 0 && dtype <= 10 ? kNames[dtype] : "dtype " + std::to_string(dtype);
  }
  return new std::string("You must feed a value for placeholder tensor '" +
                         std::string(name.data, name.len) + "' with dtype " + dtype_name);
}

void DeletePlaceholder(void* message) { delete static_cast<std::string*>(message); }

void PlaceholderCompute(void* message, TF_OpKernelContext* ctx) {
  Fail(ctx, TF_INVALID_ARGUMENT, *static_cast<std::string*>(message));
}

void PlaceholderWithDefaultCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, input.get(), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterPlaceholderKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"Placeholder", {}, {}, PlaceholderCompute, CreatePlaceholder,
      DeletePlaceholder}, status);
  RegisterKernel(kDevice, {"PlaceholderV2", {}, {}, PlaceholderCompute, CreatePlaceholder,
      DeletePlaceholder}, status);
  RegisterKernel(kDevice, {"PlaceholderWithDefault", {}, {}, PlaceholderWithDefaultCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
