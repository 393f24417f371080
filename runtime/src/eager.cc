// Eager execution: TFE_Context, tensor handles, and ops run one at a time on the
// kernel the registry picks.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "eager_kernel_cache.h"
#include "function_call.h"
#include "function_library.h"
#include "kernel_registry.h"
#include "logging.h"
#include "node_attrs.h"
#include "op_registry.h"
#include "resource_mgr.h"
#include "opgen/c_api_ext.h"
#include "shape_check.h"
#include "tensorflow/c/eager/c_api.h"
#include "wire_format.h"


struct TFE_ContextOptions {};
// Owns the variables of the eager ops run in it (shared with the kernels resolved for
// it, which may outlive it).
struct TFE_Context {
  std::shared_ptr<opgen::ResourceMgr> resources = std::make_shared<opgen::ResourceMgr>();
  opgen::EagerKernelCache kernels;  // what TFE_Execute resolved (not function calls)
  std::mutex functions_mu;
  opgen::FunctionLibrary functions;  // under functions_mu
};

struct TFE_TensorHandle {
  TF_Tensor* tensor;  // owned; shares its buffer with whoever made the handle
  ~TFE_TensorHandle() { delete tensor; }
};

namespace {

// Everything TFE_Execute works out from an op before running its kernel; shared by the
// context's kernel cache and the OPGEN_EagerKernel handles resolved to it.
struct ResolvedKernel {
  const opgen::OpDef* def;
  const opgen::KernelDef* kernel;
  opgen::AttrMap attrs;  // complete and checked; outlives `instance`, which reads it
  std::vector<TF_DataType> input_types;  // flat
  std::vector<TF_DataType> output_types;
  std::shared_ptr<opgen::ResourceMgr> resources;  // the context's; outlives `instance`
  std::unique_ptr<opgen::KernelInstance> instance;  // created once, computed per call
  const opgen::Device* device;  // where it runs, for device-placement logging
  // For a function run by name: the function whose signature `def` is (kept alive).
  std::shared_ptr<const opgen::FunctionDefProto> function;
};

}  // namespace

struct OPGEN_EagerKernel {
  std::shared_ptr<const ResolvedKernel> k;
};

struct TFE_Op {
  TFE_Context* ctx;
  const opgen::OpDef* def;
  std::shared_ptr<const opgen::FunctionDefProto> function;  // set when `def` is its signature
  std::string device;
  std::vector<std::vector<TF_Tensor*>> inputs;  // one group per input arg; owned shares
  opgen::AttrMap attrs;
  std::string error;  // the first attr value a setter refused, reported by TFE_Execute

  ~TFE_Op() {
    for (auto& group : inputs)
      for (TF_Tensor* t : group) delete t;
  }
};

namespace {

opgen::AttrValue& SetAttr(TFE_Op* op, const char* name, opgen::AttrValue::Kind kind) {
  opgen::AttrValue& v = op->attrs[name];
  v = opgen::AttrValue();
  v.kind = kind;
  return v;
}

// Setters have no status: a value that is not a TF_DataType is remembered in
// op->error, which TFE_Execute reports.
bool CheckDataTypes(TFE_Op* op, const char* attr_name, const TF_DataType* values, int num_values) {
  for (int i = 0; i < num_values; ++i) {
    if (opgen::IsDataType(values[i])) continue;
    if (op->error.empty())
      op->error = op->def->name + ": attr '" + (attr_name ? attr_name : "") +
                  "': dtype value " + std::to_string(opgen::DataTypeBits(values[i])) +
                  " is not a TF_DataType";
    return false;
  }
  return true;
}

// A shape given as (dims, num_dims): dims >= -1 (-1: unknown), rank <= 254.
bool CheckShapeArg(TFE_Op* op, const char* attr_name, const int64_t* dims, int num_dims,
                   TF_Status* status) {
  std::string error;
  if (opgen::CheckPartialDims(dims, num_dims, &error)) return true;
  opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                   op->def->name + ": attr '" + attr_name + "': " + error);
  return false;
}

}  // namespace

extern "C" {

TFE_ContextOptions* TFE_NewContextOptions(void) { return new TFE_ContextOptions(); }
void TFE_DeleteContextOptions(TFE_ContextOptions* options) { delete options; }

TFE_Context* TFE_NewContext(const TFE_ContextOptions* opts, TF_Status* status) {
  if (!opgen::EnsureRuntimeInitialized(status)) return nullptr;
  opgen::ClearStatus(status);
  return new TFE_Context();
}
void TFE_DeleteContext(TFE_Context* ctx) { delete ctx; }

void TFE_ContextClearCaches(TFE_Context* ctx) {
  if (ctx == nullptr) return;
  ctx->kernels.Clear();
  ctx->resources->NextSeedGeneration();  // held kernels start their sequences over too
}

int64_t OPGEN_ContextNumCachedKernels(TFE_Context* ctx) {
  return ctx == nullptr ? 0 : static_cast<int64_t>(ctx->kernels.size());
}

TFE_TensorHandle* TFE_NewTensorHandle(const TF_Tensor* t, TF_Status* status) {
  if (t == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TFE_NewTensorHandle: tensor is NULL");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return new TFE_TensorHandle{t->Share()};
}

void TFE_DeleteTensorHandle(TFE_TensorHandle* h) { delete h; }
TF_DataType TFE_TensorHandleDataType(TFE_TensorHandle* h) { return h->tensor->dtype; }

int TFE_TensorHandleNumDims(TFE_TensorHandle* h, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"h", h}})) return -1;
  opgen::ClearStatus(status);
  return static_cast<int>(h->tensor->dims.size());
}

int64_t TFE_TensorHandleNumElements(TFE_TensorHandle* h, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"h", h}})) return -1;
  opgen::ClearStatus(status);
  return opgen::NumElements(h->tensor->dims);
}

int64_t TFE_TensorHandleDim(TFE_TensorHandle* h, int dim_index, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"h", h}})) return -1;
  if (dim_index < 0 || static_cast<size_t>(dim_index) >= h->tensor->dims.size()) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "dimension " + std::to_string(dim_index) + " out of range for a tensor of rank " +
                         std::to_string(h->tensor->dims.size()));
    return -1;
  }
  opgen::ClearStatus(status);
  return h->tensor->dims[dim_index];
}

const char* TFE_TensorHandleDeviceName(TFE_TensorHandle* h, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"h", h}})) return nullptr;
  opgen::ClearStatus(status);
  return opgen::DeviceOf(h->tensor)->name().c_str();
}

const char* TFE_TensorHandleBackingDeviceName(TFE_TensorHandle* h, TF_Status* status) {
  return TFE_TensorHandleDeviceName(h, status);
}

TFE_TensorHandle* TFE_TensorHandleCopyToDevice(TFE_TensorHandle* h, TFE_Context* ctx,
                                               const char* device_name, TF_Status* status) {
  if (h == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TFE_TensorHandleCopyToDevice: handle is NULL");
    return nullptr;
  }
  TF_Tensor* copy = OPGEN_TensorCopyToDevice(h->tensor, device_name, status);
  return copy == nullptr ? nullptr : new TFE_TensorHandle{copy};
}

TF_Tensor* TFE_TensorHandleResolve(TFE_TensorHandle* h, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"h", h}})) return nullptr;
  try {
    return opgen::CopyTensorTo(h->tensor, opgen::CpuDevice(), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

TF_Tensor* OPGEN_TensorHandleTensor(TFE_TensorHandle* h, TF_Status* status) {
  if (h == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "OPGEN_TensorHandleTensor: handle is NULL");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return h->tensor->Share();
}

TFE_Op* TFE_NewOp(TFE_Context* ctx, const char* op_or_function_name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"ctx", ctx}, {"op_or_function_name", op_or_function_name}}) ||
      !opgen::EnsureRuntimeInitialized(status))
    return nullptr;
  const opgen::OpDef* def = opgen::OpRegistry::Global().Find(op_or_function_name);
  std::shared_ptr<const opgen::FunctionDefProto> function;
  if (def == nullptr) {
    std::lock_guard<std::mutex> lock(ctx->functions_mu);
    auto it = ctx->functions.functions().find(op_or_function_name);
    if (it != ctx->functions.functions().end()) {
      function = it->second;
      def = &function->signature;
    }
  }
  if (def == nullptr) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     opgen::OpNotRegisteredMessage(op_or_function_name, ""));
    return nullptr;
  }
  opgen::ClearStatus(status);
  auto* op = new TFE_Op();
  op->ctx = ctx;
  op->def = def;
  op->function = std::move(function);
  return op;
}

void TFE_DeleteOp(TFE_Op* op) { delete op; }

const char* TFE_OpGetName(const TFE_Op* op, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"op", op}})) return nullptr;
  opgen::ClearStatus(status);
  return op->def->name.c_str();
}

void TFE_OpSetDevice(TFE_Op* op, const char* device_name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"op", op}})) return;
  std::string type;
  int ordinal = 0;
  const std::string name = device_name ? device_name : "";
  if (!name.empty() && !opgen::ParseDeviceName(name, &type, &ordinal)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("Malformed device name '") + device_name + "'");
    return;
  }
  op->device = device_name ? device_name : "";
  opgen::ClearStatus(status);
}

void TFE_OpAddInput(TFE_Op* op, TFE_TensorHandle* input, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"op", op}})) return;
  if (input == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, op->def->name + ": input handle is NULL");
    return;
  }
  op->inputs.push_back({input->tensor->Share()});
  opgen::ClearStatus(status);
}

void TFE_OpAddInputList(TFE_Op* op, TFE_TensorHandle** inputs, int num_inputs, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"op", op}, {"inputs", opgen::ArrayArg(inputs, num_inputs)}}))
    return;
  std::vector<TF_Tensor*> group;
  for (int i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      for (TF_Tensor* t : group) delete t;
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, op->def->name + ": input handle is NULL");
      return;
    }
    group.push_back(inputs[i]->tensor->Share());
  }
  op->inputs.push_back(std::move(group));
  opgen::ClearStatus(status);
}

void TFE_OpSetAttrString(TFE_Op* op, const char* attr_name, const void* value, size_t length) {
  SetAttr(op, attr_name, opgen::AttrValue::kString).s.assign(static_cast<const char*>(value), length);
}
void TFE_OpSetAttrInt(TFE_Op* op, const char* attr_name, int64_t value) {
  SetAttr(op, attr_name, opgen::AttrValue::kInt).i = value;
}
void TFE_OpSetAttrFloat(TFE_Op* op, const char* attr_name, float value) {
  SetAttr(op, attr_name, opgen::AttrValue::kFloat).f = value;
}
void TFE_OpSetAttrBool(TFE_Op* op, const char* attr_name, unsigned char value) {
  SetAttr(op, attr_name, opgen::AttrValue::kBool).b = value != 0;
}
void TFE_OpSetAttrFunction(TFE_Op* op, const char* attr_name, const TFE_Op* value) {
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kFunc);
  if (value == nullptr) return;
  v.s = value->def->name;
  // The attrs set on `value` bind its function (a NameAttrList's attrs), as in TF.
  if (!value->attrs.empty()) v.func_attr = std::make_shared<const opgen::AttrMap>(value->attrs);
}
void TFE_OpSetAttrFunctionList(TFE_Op* op, const char* attr_name, const TFE_Op** value,
                               int num_values) {
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kListFunc);
  for (int i = 0; i < num_values; ++i) {
    if (value == nullptr || value[i] == nullptr) {
      if (op->error.empty())
        op->error = op->def->name + ": attr '" + (attr_name ? attr_name : "") +
                    "': function " + std::to_string(i) + " is NULL";
      continue;
    }
    v.list_s.push_back(value[i]->def->name);
    v.list_func_attr.push_back(
        value[i]->attrs.empty() ? nullptr
                                : std::make_shared<const opgen::AttrMap>(value[i]->attrs));
  }
}
void TFE_OpSetAttrFunctionName(TFE_Op* op, const char* attr_name, const char* data,
                               size_t length) {
  SetAttr(op, attr_name, opgen::AttrValue::kFunc).s.assign(data, length);
}
void TFE_ContextAddFunctionDef(TFE_Context* ctx, const char* serialized_function_def,
                               size_t size, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}}) ||
      (size > 0 && !opgen::CheckNotNull(status, __func__,
                                        {{"serialized_function_def", serialized_function_def}})))
    return;
  TF_Function* f = TF_FunctionImportFunctionDef(serialized_function_def, size, status);
  if (f == nullptr) return;
  TFE_ContextAddFunction(ctx, f, status);
  TF_DeleteFunction(f);
}
void TFE_ContextAddFunction(TFE_Context* ctx, TF_Function* function, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"function", function}}) ||
      !opgen::EnsureRuntimeInitialized(status))
    return;
  std::lock_guard<std::mutex> lock(ctx->functions_mu);
  if (ctx->functions.Add(function->def, status)) opgen::ClearStatus(status);
}
void TFE_ContextRemoveFunction(TFE_Context* ctx, const char* name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"ctx", ctx}, {"name", name}})) return;
  std::lock_guard<std::mutex> lock(ctx->functions_mu);
  if (ctx->functions.Remove(name)) {
    opgen::ClearStatus(status);
    return;
  }
  opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                   std::string("Tried to remove non-existent function '") + name + "'.");
}
unsigned char TFE_ContextHasFunction(TFE_Context* ctx, const char* name) {
  if (ctx == nullptr || name == nullptr) return 0;
  std::lock_guard<std::mutex> lock(ctx->functions_mu);
  return ctx->functions.Find(name) != nullptr ? 1 : 0;
}
void TFE_OpSetAttrType(TFE_Op* op, const char* attr_name, TF_DataType value) {
  if (!CheckDataTypes(op, attr_name, &value, 1)) return;
  SetAttr(op, attr_name, opgen::AttrValue::kType).type = value;
}
void TFE_OpSetAttrShape(TFE_Op* op, const char* attr_name, const int64_t* dims,
                        const int num_dims, TF_Status* out_status) {
  if (!opgen::CheckNotNull(out_status, "TFE_OpSetAttrShape", {{"op", op}, {"attr_name", attr_name}}) ||
      !CheckShapeArg(op, attr_name, dims, num_dims, out_status))
    return;
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kShape);
  v.shape.unknown_rank = num_dims < 0;
  if (num_dims > 0) v.shape.dims.assign(dims, dims + num_dims);
  opgen::ClearStatus(out_status);
}
void TFE_OpSetAttrTensor(TFE_Op* op, const char* attr_name, TF_Tensor* tensor, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"op", op}, {"attr_name", attr_name}, {"tensor", tensor}}))
    return;
  std::string bytes;
  if (!opgen::SerializeTensorProto(tensor, &bytes)) {
    opgen::SetStatus(status, TF_UNIMPLEMENTED,
                     op->def->name + ": attr '" + attr_name + "' needs a tensor of a fixed-size dtype");
    return;
  }
  SetAttr(op, attr_name, opgen::AttrValue::kTensor).tensor_proto = std::move(bytes);
  opgen::ClearStatus(status);
}
void TFE_OpSetAttrStringList(TFE_Op* op, const char* attr_name, const void* const* values,
                             const size_t* lengths, int num_values) {
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kListString);
  for (int i = 0; i < num_values; ++i)
    v.list_s.emplace_back(static_cast<const char*>(values[i]), lengths[i]);
}
void TFE_OpSetAttrIntList(TFE_Op* op, const char* attr_name, const int64_t* values, int num_values) {
  SetAttr(op, attr_name, opgen::AttrValue::kListInt).list_i.assign(values, values + num_values);
}
void TFE_OpSetAttrFloatList(TFE_Op* op, const char* attr_name, const float* values, int num_values) {
  SetAttr(op, attr_name, opgen::AttrValue::kListFloat).list_f.assign(values, values + num_values);
}
void TFE_OpSetAttrBoolList(TFE_Op* op, const char* attr_name, const unsigned char* values,
                           int num_values) {
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kListBool);
  for (int i = 0; i < num_values; ++i) v.list_b.push_back(values[i] != 0);
}
void TFE_OpSetAttrTypeList(TFE_Op* op, const char* attr_name, const TF_DataType* values,
                           int num_values) {
  if (!CheckDataTypes(op, attr_name, values, num_values)) return;
  SetAttr(op, attr_name, opgen::AttrValue::kListType).list_type.assign(values, values + num_values);
}
void TFE_OpSetAttrShapeList(TFE_Op* op, const char* attr_name, const int64_t** dims,
                            const int* num_dims, int num_values, TF_Status* out_status) {
  if (!opgen::CheckNotNull(out_status, "TFE_OpSetAttrShapeList", {{"op", op}, {"attr_name", attr_name}}))
    return;
  if (num_values > 0 && (dims == nullptr || num_dims == nullptr)) {
    opgen::SetStatus(out_status, TF_INVALID_ARGUMENT,
                     op->def->name + ": attr '" + attr_name + "': dims or num_dims is NULL");
    return;
  }
  for (int i = 0; i < num_values; ++i)
    if (!CheckShapeArg(op, attr_name, dims[i], num_dims[i], out_status)) return;
  opgen::AttrValue& v = SetAttr(op, attr_name, opgen::AttrValue::kListShape);
  for (int i = 0; i < num_values; ++i) {
    opgen::Shape s;
    s.unknown_rank = num_dims[i] < 0;
    if (num_dims[i] > 0) s.dims.assign(dims[i], dims[i] + num_dims[i]);
    v.list_shape.push_back(std::move(s));
  }
  opgen::ClearStatus(out_status);
}

OPGEN_EagerKernel* OPGEN_NewEagerKernel(TFE_Op* op, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"op", op}})) return nullptr;
  try {
    const opgen::OpDef& def = *op->def;
    if (!op->error.empty()) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, op->error);
      return nullptr;
    }
    opgen::InputDtypes input_dtypes;
    for (const auto& group : op->inputs) {
      input_dtypes.emplace_back();
      for (TF_Tensor* t : group) input_dtypes.back().push_back(t->dtype);
    }
    // Functions are left out: the context's library may change under the same key. So
    // are ops whose attrs are big (a Const's value): 4096 of them could hold gigabytes.
    std::string key;
    if (op->ctx != nullptr && op->function == nullptr) {
      key = opgen::EagerKernelCache::Key(def.name, op->device, input_dtypes, op->attrs);
    }
    if (!key.empty()) {
      if (auto cached = op->ctx->kernels.Find<ResolvedKernel>(key)) {
        opgen::ClearStatus(status);
        return new OPGEN_EagerKernel{std::move(cached)};
      }
    }
    auto resolved = std::make_shared<ResolvedKernel>();
    resolved->def = &def;
    for (const auto& group : input_dtypes)
      resolved->input_types.insert(resolved->input_types.end(), group.begin(), group.end());
    resolved->attrs = op->attrs;
    opgen::CompleteAttrs(def, input_dtypes, &resolved->attrs, status);
    if (status->code != TF_OK) return nullptr;
    resolved->output_types = opgen::OutputDtypes(def, resolved->attrs);
    const opgen::Device* device = nullptr;
    resolved->function = op->function;
    std::unique_ptr<opgen::FunctionLibrary> functions;
    const bool calls_functions = opgen::CallsFunctions(def, resolved->attrs);
    if (calls_functions && op->ctx != nullptr) {
      std::lock_guard<std::mutex> lock(op->ctx->functions_mu);
      functions = std::make_unique<opgen::FunctionLibrary>(op->ctx->functions);
    }
    if (op->function != nullptr) {  // a function run by name
      resolved->kernel = &opgen::FunctionCallKernel();
      device = opgen::CpuDevice();
    } else {
      resolved->kernel = opgen::PlaceKernel(op->device, def, resolved->attrs, &device, status);
    }
    if (resolved->kernel == nullptr) return nullptr;
    resolved->device = device;
    if (op->ctx != nullptr) resolved->resources = op->ctx->resources;
    resolved->instance = opgen::KernelInstance::Create(*resolved->kernel, def, def.name,
                                                       resolved->attrs, resolved->output_types,
                                                       status, device, resolved->resources.get(),
                                                       functions.get());
    if (resolved->instance == nullptr) return nullptr;
    std::shared_ptr<const ResolvedKernel> shared = std::move(resolved);
    // Another thread may have cached one meanwhile: then both use that one.
    if (!key.empty() && !calls_functions) shared = op->ctx->kernels.Insert(key, std::move(shared));
    return new OPGEN_EagerKernel{std::move(shared)};
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, op->def->name + ": " + e.what());
    return nullptr;
  }
}

void OPGEN_DeleteEagerKernel(OPGEN_EagerKernel* kernel) { delete kernel; }

int OPGEN_EagerKernelNumInputs(const OPGEN_EagerKernel* kernel) {
  return static_cast<int>(kernel->k->input_types.size());
}

int OPGEN_EagerKernelNumOutputs(const OPGEN_EagerKernel* kernel) {
  return static_cast<int>(kernel->k->output_types.size());
}

void OPGEN_EagerKernelExecute(const OPGEN_EagerKernel* handle, TF_Tensor* const* inputs,
                              int num_inputs, TF_Tensor** outputs, int num_outputs,
                              TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"kernel", handle}, {"inputs", opgen::ArrayArg(inputs, num_inputs)},
                            {"outputs", opgen::ArrayArg(outputs, num_outputs)}}))
    return;
  const ResolvedKernel* kernel = handle->k.get();
  const opgen::OpDef& def = *kernel->def;
  try {
    if (num_inputs != static_cast<int>(kernel->input_types.size())) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       def.name + ": expected " + std::to_string(kernel->input_types.size()) +
                           " input tensors, got " + std::to_string(num_inputs));
      return;
    }
    if (num_outputs < static_cast<int>(kernel->output_types.size())) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       def.name + " has " + std::to_string(kernel->output_types.size()) +
                           " outputs, but room for only " + std::to_string(num_outputs));
      return;
    }
    for (int i = 0; i < num_inputs; ++i) {
      if (inputs[i] == nullptr || inputs[i]->dtype != kernel->input_types[i]) {
        opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                         def.name + ": input tensor " + std::to_string(i) + " is " +
                             (inputs[i] ? opgen::DataTypeName(inputs[i]->dtype) : "NULL") +
                             ", the kernel was resolved for " +
                             opgen::DataTypeName(kernel->input_types[i]));
        return;
      }
    }
    for (int i = 0; i < num_outputs; ++i) outputs[i] = nullptr;
    if (opgen::LogDevicePlacement())  // on every run, as TensorFlow's eager executor logs
      opgen::Log(opgen::LogSeverity::kInfo,
                 "Executing op " + def.name + " in device " + kernel->device->name());
    kernel->instance->Compute(inputs, num_inputs, outputs, opgen::NextStepId(), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, def.name + ": " + e.what());
  }
}

void TFE_Execute(TFE_Op* op, TFE_TensorHandle** retvals, int* num_retvals, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"op", op}, {"num_retvals", num_retvals}}) ||
      !opgen::CheckNotNull(status, __func__, {{"retvals", opgen::ArrayArg(retvals, *num_retvals)}}))
    return;
  std::unique_ptr<OPGEN_EagerKernel> kernel(OPGEN_NewEagerKernel(op, status));
  if (kernel == nullptr) return;
  const int num_outputs = static_cast<int>(kernel->k->output_types.size());
  if (num_outputs > *num_retvals) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     op->def->name + " has " + std::to_string(num_outputs) +
                         " outputs, but room for only " + std::to_string(*num_retvals));
    return;
  }
  try {
    std::vector<TF_Tensor*> flat_inputs;
    for (const auto& group : op->inputs) flat_inputs.insert(flat_inputs.end(), group.begin(), group.end());
    std::vector<TF_Tensor*> outputs(num_outputs, nullptr);
    OPGEN_EagerKernelExecute(kernel.get(), flat_inputs.data(), static_cast<int>(flat_inputs.size()),
                             outputs.data(), num_outputs, status);
    if (status->code != TF_OK) return;
    for (int i = 0; i < num_outputs; ++i) retvals[i] = new TFE_TensorHandle{outputs[i]};
    *num_retvals = num_outputs;
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, op->def->name + ": " + e.what());
  }
}

}  // extern "C"
