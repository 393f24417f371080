// SaveV2, RestoreV2, MergeV2Checkpoints: the operands are checked here, the files are
// the tensor-bundle module's (../../src/tensor_bundle.h). Host-only: checkpoint files
// are read and written by the CPU, as in TensorFlow.
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "../../src/tensor_bundle.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// The elements of string input `i`, which must have `rank` (-1: any); false after
// reporting the failure.
bool StringInput(TF_OpKernelContext* ctx, int i, const char* what, int rank,
                 std::vector<std::string>* out, const char* op) {
  TensorPtr t = Input(ctx, i);
  if (!t) return false;
  if (TF_TensorType(t.get()) != TF_STRING) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + what + " must be a string tensor");
    return false;
  }
  if (rank >= 0 && TF_NumDims(t.get()) != rank) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": " + what + " must be " + (rank == 0 ? "a scalar" : "a vector") +
             ", got shape " + ShapeString(Dims(t.get())));
    return false;
  }
  const TF_TString* s = StringElements(t.get());
  const int64_t n = TF_TensorElementCount(t.get());
  out->clear();
  for (int64_t k = 0; k < n; ++k) out->emplace_back(StringElement(&s[k]));
  return true;
}

// prefix, tensor_names and shape_and_slices of SaveV2 / RestoreV2, checked.
bool NamesAndSlices(TF_OpKernelContext* ctx, const char* op, std::string* prefix,
                    std::vector<std::string>* names) {
  std::vector<std::string> prefixes, slices;
  if (!StringInput(ctx, 0, "prefix", 0, &prefixes, op) ||
      !StringInput(ctx, 1, "tensor_names", 1, names, op) ||
      !StringInput(ctx, 2, "shape_and_slices", 1, &slices, op))
    return false;
  *prefix = prefixes[0];
  if (slices.size() != names->size()) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": shape_and_slices has " + std::to_string(slices.size()) +
             " entries, tensor_names " + std::to_string(names->size()));
    return false;
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    if (!slices[i].empty()) {
      Fail(ctx, TF_UNIMPLEMENTED,
           std::string(op) + ": tensor '" + (*names)[i] + "' has the slice spec '" + slices[i] +
               "'; only whole tensors are supported");
      return false;
    }
  }
  return true;
}

void SaveV2Compute(void*, TF_OpKernelContext* ctx) {
  std::string prefix;
  std::vector<std::string> names;
  if (!NamesAndSlices(ctx, "SaveV2", &prefix, &names)) return;
  const int count = TF_NumInputs(ctx) - 3;
  if (count != static_cast<int>(names.size())) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "SaveV2: " + std::to_string(names.size()) + " tensor_names for " + std::to_string(count) +
             " tensors");
    return;
  }
  std::vector<TensorPtr> held;
  std::vector<const TF_Tensor*> tensors;
  for (int i = 0; i < count; ++i) {
    held.push_back(Input(ctx, 3 + i));
    if (!held.back()) return;
    tensors.push_back(held.back().get());
  }
  StatusPtr s = NewStatus();
  if (!bundle::Write(prefix, names, tensors, s.get())) TF_OpKernelContext_Failure(ctx, s.get());
}

void RestoreV2Compute(void*, TF_OpKernelContext* ctx) {
  std::string prefix;
  std::vector<std::string> names;
  if (!NamesAndSlices(ctx, "RestoreV2", &prefix, &names)) return;
  if (static_cast<int>(names.size()) != TF_NumOutputs(ctx)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "RestoreV2: " + std::to_string(names.size()) + " tensor_names for " +
             std::to_string(TF_NumOutputs(ctx)) + " dtypes");
    return;
  }
  StatusPtr s = NewStatus();
  bundle::Reader reader;
  if (!reader.Open(prefix, s.get())) return TF_OpKernelContext_Failure(ctx, s.get());
  for (size_t i = 0; i < names.size(); ++i) {
    const bundle::Entry* entry = reader.Find(names[i], s.get());
    if (entry == nullptr) return TF_OpKernelContext_Failure(ctx, s.get());
    const TF_DataType want = TF_ExpectedOutputDataType(ctx, static_cast<int>(i));
    if (entry->dtype != want) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "RestoreV2: tensor '" + names[i] + "' of checkpoint " + prefix + " has dtype " +
               kernels::DTypeName(entry->dtype) + ", but dtypes[" + std::to_string(i) + "] is " +
               kernels::DTypeName(want));
      return;
    }
    TensorPtr value(reader.ReadTensor(names[i], *entry, s.get()));
    if (!value) return TF_OpKernelContext_Failure(ctx, s.get());
    TF_SetOutput(ctx, static_cast<int>(i), value.get(), s.get());
    if (TF_GetCode(s.get()) != TF_OK) return TF_OpKernelContext_Failure(ctx, s.get());
  }
}

struct MergeAttrs {
  bool delete_old_dirs = true;
  bool allow_missing_files = false;
};

void* CreateMerge(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new MergeAttrs;
  attrs->delete_old_dirs = kernels::BoolAttr(ctx, "delete_old_dirs", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    attrs->allow_missing_files = kernels::BoolAttr(ctx, "allow_missing_files", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    delete attrs;
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return attrs;
}

void DeleteMerge(void* attrs) { delete static_cast<MergeAttrs*>(attrs); }

void MergeCompute(void* state, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const MergeAttrs*>(state);
  std::vector<std::string> sources, destination;
  if (!StringInput(ctx, 0, "checkpoint_prefixes", -1, &sources, "MergeV2Checkpoints") ||
      !StringInput(ctx, 1, "destination_prefix", 0, &destination, "MergeV2Checkpoints"))
    return;
  StatusPtr s = NewStatus();
  if (!bundle::Merge(sources, destination[0], attrs->delete_old_dirs, attrs->allow_missing_files,
                     s.get()))
    TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterCheckpointKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"SaveV2", {}, {}, SaveV2Compute}, status);
  RegisterKernel(kDevice, {"RestoreV2", {}, {}, RestoreV2Compute}, status);
  RegisterKernel(kDevice, {"MergeV2Checkpoints", {}, {}, MergeCompute, CreateMerge, DeleteMerge},
      status);
}

}  // namespace cpu
}  // namespace opgen
