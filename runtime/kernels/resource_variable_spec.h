// The resource-variable kernels, the same on every device: they pass handles and
// tensors to the runtime's variable API (c_api_ext.h, OPGEN_Kernel*Variable*), which
// keeps the values in the session's or eager context's resource manager. A device
// supplies only the element-wise arithmetic of AssignAdd/AssignSubVariableOp
// (`Update`). Handles stay in host memory on every device, as in TensorFlow.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "kernel_api_util.h"
#include "kernel_registration.h"
#include "opgen/c_api_ext.h"
#include "opgen/c_api_variable_shape.h"

namespace opgen {
namespace kernels {
namespace variables {

// Reports `s` as the kernel's failure when it holds one; true when it is OK.
inline bool Ok(TF_OpKernelContext* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

// VarHandleOp's attrs, read once per node.
struct HandleAttrs {
  std::string container, shared_name;
  TF_DataType dtype = TF_FLOAT;
  std::vector<int64_t> dims;
  int rank = -1;  // -1: unknown
};

inline void* CreateVarHandle(TF_OpKernelConstruction* ctx) {
  auto* a = new HandleAttrs();
  StatusPtr s = NewStatus();
  auto read_string = [&](const char* name, std::string* out) {
    int32_t list_size = 0, total = 0;
    TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &total, s.get());
    if (TF_GetCode(s.get()) != TF_OK || total <= 0) return;
    out->resize(static_cast<size_t>(total));
    TF_OpKernelConstruction_GetAttrString(ctx, name, &(*out)[0], out->size(), s.get());
  };
  read_string("container", &a->container);
  if (TF_GetCode(s.get()) == TF_OK) read_string("shared_name", &a->shared_name);
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &a->dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    int32_t list_size = 0;
    TF_OpKernelConstruction_GetAttrSize(ctx, "shape", &list_size, &a->rank, s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK && a->rank > 0) {
    a->dims.resize(static_cast<size_t>(a->rank));
    TF_OpKernelConstruction_GetAttrTensorShape(ctx, "shape", a->dims.data(), a->dims.size(),
                                               s.get());
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
inline void DeleteVarHandle(void* a) { delete static_cast<HandleAttrs*>(a); }

inline void VarHandleCompute(void* attrs, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const HandleAttrs*>(attrs);
  StatusPtr s = NewStatus();
  OPGEN_KernelSetVariableHandleOutput(ctx, 0, a->container.c_str(), a->shared_name.c_str(),
                                      a->dtype, a->dims.data(), a->rank, s.get());
  Ok(ctx, s.get());
}

inline void ReadVariableCompute(void*, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  TF_Tensor* value = OPGEN_KernelReadVariable(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), s.get());
  if (!Ok(ctx, s.get())) return;
  TF_SetOutput(ctx, 0, value, s.get());
  TF_DeleteTensor(value);
  Ok(ctx, s.get());
}

// VariableShape: the variable's shape as an `Out` vector, in host memory on every device.
template <typename Out>
void VariableShapeCompute(void*, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  std::vector<int64_t> dims(8);
  int rank = OPGEN_KernelVariableShape(ctx, 0, dims.data(), static_cast<int>(dims.size()), s.get());
  if (rank > static_cast<int>(dims.size())) {
    dims.resize(static_cast<size_t>(rank));
    rank = OPGEN_KernelVariableShape(ctx, 0, dims.data(), rank, s.get());
  }
  if (!Ok(ctx, s.get())) return;
  dims.resize(static_cast<size_t>(rank));
  TensorPtr out = AllocateOutput(ctx, 0, DtypeOf<Out>::value, {static_cast<int64_t>(rank)});
  if (!out) return;
  for (int d = 0; d < rank; ++d) {
    if (dims[d] > std::numeric_limits<Out>::max()) {
      Fail(ctx, TF_INVALID_ARGUMENT, "VariableShape: shape " + ShapeString(dims) +
                                         " does not fit the output type int32");
      return;
    }
    Data<Out>(out)[d] = static_cast<Out>(dims[d]);
  }
}

// AssignVariableOp's validate_shape, read once per node.
inline void* CreateAssign(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* validate_shape = new TF_Bool(0);
  TF_OpKernelConstruction_GetAttrBool(ctx, "validate_shape", validate_shape, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete validate_shape;
    return nullptr;
  }
  return validate_shape;
}
// Frees the bool attr that CreateAssign and CreateDestroy read.
inline void DeleteFlag(void* flag) { delete static_cast<TF_Bool*>(flag); }

inline void AssignCompute(void* validate_shape, TF_OpKernelContext* ctx) {
  const TF_Tensor* value = BorrowInput(ctx, 1);
  if (value == nullptr) return;
  StatusPtr s = NewStatus();
  OPGEN_KernelAssignVariable(ctx, 0, value, *static_cast<TF_Bool*>(validate_shape), s.get());
  Ok(ctx, s.get());
}

// What AssignAdd/AssignSubVariableOp hand to the device's update function.
struct UpdateArgs {
  TF_OpKernelContext* ctx;
  const TF_Tensor* delta;
};

// `Update<T>::Apply(ctx, old, delta, out, n)` writes old[i] + delta[i] (Sign > 0) or
// old[i] - delta[i] into out[0 .. n), on the kernel's device.
template <template <typename, int> class Update, typename T, int Sign>
struct AssignUpdate {
  static void Apply(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
    const auto* a = static_cast<const UpdateArgs*>(arg);
    const std::vector<int64_t> have = Dims(old_value), got = Dims(a->delta);
    if (have != got) {
      const std::string message = "Cannot update variable with shape " + ShapeString(have) +
                                  " using a Tensor with shape " + ShapeString(got) +
                                  ", shapes must be equal.";
      TF_SetStatus(s, TF_INVALID_ARGUMENT, message.c_str());
      return;
    }
    Update<T, Sign>::Apply(a->ctx, static_cast<const T*>(TF_TensorData(old_value)),
                           static_cast<const T*>(TF_TensorData(a->delta)),
                           static_cast<T*>(TF_TensorData(new_value)),
                           TF_TensorElementCount(old_value), s);
  }
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const TF_Tensor* delta = BorrowInput(ctx, 1);
    if (delta == nullptr) return;
    UpdateArgs args{ctx, delta};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariable(ctx, 0, DtypeOf<T>::value, &AssignUpdate::Apply, &args, s.get());
    Ok(ctx, s.get());
  }
};

inline void IsInitializedCompute(void*, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  const int initialized = OPGEN_KernelVariableIsInitialized(ctx, 0, s.get());
  if (!Ok(ctx, s.get())) return;
  TensorPtr out = AllocateOutput(ctx, 0, TF_BOOL, {});  // host memory on every device
  if (out) *static_cast<bool*>(TF_TensorData(out.get())) = initialized != 0;
}

// DestroyResourceOp's ignore_lookup_error, read once per node.
inline void* CreateDestroy(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* ignore = new TF_Bool(1);
  TF_OpKernelConstruction_GetAttrBool(ctx, "ignore_lookup_error", ignore, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete ignore;
    return nullptr;
  }
  return ignore;
}

inline void DestroyCompute(void* ignore, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  OPGEN_KernelDestroyResource(ctx, 0, *static_cast<TF_Bool*>(ignore), s.get());
  Ok(ctx, s.get());
}

// DisableCopyOnRead: opgen's variables have no copy-on-read mode to turn off.
inline void DisableCopyOnReadCompute(void*, TF_OpKernelContext*) {}

// The dtypes AssignAdd/AssignSubVariableOp run for on every device.
using UpdateTypes = Types<float, double, int32_t, int64_t>;

// Registers AssignAdd/AssignSubVariableOp's `op` (Sign 1 / -1) for each dtype of `Ts`,
// with `Update` doing the device's arithmetic. The family files name every op they
// register (tests/python_runtime/test_kernel_twins.py reads them).
template <template <typename, int> class Update, int Sign, typename... Ts>
void RegisterUpdateKernels(const char* device_type, const char* op, Types<Ts...>,
                           TF_Status* status) {
  (RegisterKernel(device_type, {op, {{"dtype", DtypeOf<Ts>::value}}, {"resource"},
                                &AssignUpdate<Update, Ts, Sign>::Compute}, status),
   ...);
}

}  // namespace variables
}  // namespace kernels
}  // namespace opgen
