// OpKernel, OpKernelConstruction, OpKernelContext and REGISTER_KERNEL_BUILDER for C++
// custom ops built against opgen. A kernel class reaches the runtime as the three C
// callbacks of TF_NewKernelBuilder (create, compute, delete), made for it here; its
// contexts wrap TF_OpKernelConstruction / TF_OpKernelContext.
#ifndef TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
#define TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "opgen/c_api_ext.h"
#include "opgen/cuda_stream.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/opgen_registry.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"
#include "unsupported/Eigen/CXX11/Tensor"

#ifndef OPGEN_UNSUPPORTED_EIGEN_CXX11_TENSOR_
#error "unsupported/Eigen/CXX11/Tensor came from a real Eigen, not opgen's device shim: put opgen's include folder (opgen config --cflags) before Eigen's"
#endif

namespace tensorflow {

class AsyncOpKernel;
class OpKernel;

namespace opgen_detail {
template <typename F>
Status CallC(F f) {
  TF_Status* status = TF_NewStatus();
  f(status);
  Status result = Status::FromC(status);
  TF_DeleteStatus(status);
  return result;
}
// What input() returns for a bad index (after failing the kernel). Hidden: one per plugin.
__attribute__((visibility("hidden"))) inline const Tensor& EmptyTensor() {
  static const Tensor* const empty = new Tensor();
  return *empty;
}
// Where each named arg starts among the flat inputs (or outputs), and how many it holds.
struct ArgRanges {
  bool known = false;
  std::vector<std::pair<std::string, std::pair<int, int>>> ranges;  // name -> [start, stop)
  Status Find(const std::string& name, int* start, int* stop) const {
    if (!known)
      return errors::Unimplemented("arg '", name, "' cannot be found by name: the op was not "
                                   "registered by this plugin's REGISTER_OP");
    for (const auto& r : ranges)
      if (r.first == name) { *start = r.second.first; *stop = r.second.second; return OkStatus(); }
    return errors::InvalidArgument("Unknown input or output name '", name, "'");
  }
};
}  // namespace opgen_detail

class OpKernelConstruction {
 public:
  OpKernelConstruction(TF_OpKernelConstruction* ctx, const std::string& op) : ctx_(ctx), op_(op) {}
  OpKernelConstruction(const OpKernelConstruction&) = delete;

  // ---- attrs ----
  Status GetAttr(const std::string& n, int32_t* v) { return C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrInt32(ctx_, n.c_str(), v, s); }); }
  Status GetAttr(const std::string& n, int64_t* v) { return C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrInt64(ctx_, n.c_str(), v, s); }); }
  Status GetAttr(const std::string& n, float* v) { return C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrFloat(ctx_, n.c_str(), v, s); }); }
  Status GetAttr(const std::string& n, bool* v) {
    TF_Bool b = 0;
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrBool(ctx_, n.c_str(), &b, s); }));
    *v = b != 0;
    return OkStatus();
  }
  Status GetAttr(const std::string& n, DataType* v) {
    TF_DataType t = TF_FLOAT;
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrType(ctx_, n.c_str(), &t, s); }));
    *v = static_cast<DataType>(t);
    return OkStatus();
  }
  Status GetAttr(const std::string& n, std::string* v) {
    int32_t list_size = 0, total = 0;
    TF_RETURN_IF_ERROR(Size(n, &list_size, &total));
    std::string value(static_cast<size_t>(total > 0 ? total : 0), '\0');
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrString(ctx_, n.c_str(), &value[0], value.size(), s); }));
    *v = std::move(value);
    return OkStatus();
  }
  Status GetAttr(const std::string& n, Tensor* v) {
    TF_Tensor* t = nullptr;
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrTensor(ctx_, n.c_str(), &t, s); }));
    *v = Tensor::FromC(t);
    return OkStatus();
  }
  // A shape attr; as a TensorShape it must be fully defined (TensorFlow fails on an
  // unknown rank or dim, as this does).
  Status GetAttr(const std::string& n, PartialTensorShape* v) {
    int32_t list_size = 0, rank = 0;
    TF_RETURN_IF_ERROR(Size(n, &list_size, &rank));
    if (rank < 0) {
      *v = PartialTensorShape();
      return OkStatus();
    }
    std::vector<int64_t> dims(static_cast<size_t>(rank));
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) {
      TF_OpKernelConstruction_GetAttrTensorShape(ctx_, n.c_str(), dims.data(), dims.size(), s);
    }));
    *v = PartialTensorShape(dims);
    return OkStatus();
  }
  Status GetAttr(const std::string& n, TensorShape* v) {
    PartialTensorShape partial;
    TF_RETURN_IF_ERROR(GetAttr(n, &partial));
    if (partial.unknown_rank())
      return errors::InvalidArgument("Attr '", n, "' has an unknown rank: a TensorShape needs a "
                                     "fully defined shape");
    if (!partial.AsTensorShape(v))
      return errors::InvalidArgument("Attr '", n, "' has an unknown dim: ", partial.DebugString(),
                                     "; a TensorShape needs a fully defined shape");
    return OkStatus();
  }
  // A func attr: the function's name and the attrs it is instantiated with.
  Status GetAttr(const std::string& n, NameAttrList* v) {
    TF_Buffer* buffer = nullptr;
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { buffer = TF_OpKernelConstruction_GetAttrFunction(ctx_, n.c_str(), s); }));
    const std::string bytes(static_cast<const char*>(buffer->data), buffer->length);
    TF_DeleteBuffer(buffer);
    if (!v->ParseFromString(bytes))
      return errors::Internal("Attr '", n, "' is not a valid NameAttrList");
    return OkStatus();
  }
  // A list(func) attr: each function's name and attrs. TensorFlow's C API has no getter
  // for it: OPGEN_OpKernelConstructionGetAttrValue gives the whole AttrValue.
  Status GetAttr(const std::string& n, std::vector<NameAttrList>* v) {
    TF_Buffer* buffer = nullptr;
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { buffer = OPGEN_OpKernelConstructionGetAttrValue(ctx_, n.c_str(), s); }));
    AttrValue value;
    const bool parsed = opgen_wire::ParseAttrValue(buffer->data, buffer->length, &value);
    TF_DeleteBuffer(buffer);
    if (!parsed) return errors::Internal("Attr '", n, "' is not a valid AttrValue");
    if (!opgen_wire::IsFuncList(value))
      return errors::InvalidArgument("Attr '", n, "' of ", op_, " is not a list(func)");
    *v = value.list().func();
    return OkStatus();
  }
  Status GetAttr(const std::string& n, std::vector<int32_t>* v) { return List(n, v, TF_OpKernelConstruction_GetAttrInt32List); }
  Status GetAttr(const std::string& n, std::vector<int64_t>* v) { return List(n, v, TF_OpKernelConstruction_GetAttrInt64List); }
  Status GetAttr(const std::string& n, std::vector<float>* v) { return List(n, v, TF_OpKernelConstruction_GetAttrFloatList); }
  Status GetAttr(const std::string& n, std::vector<DataType>* v) {
    std::vector<TF_DataType> raw;
    TF_RETURN_IF_ERROR(List(n, &raw, TF_OpKernelConstruction_GetAttrTypeList));
    v->assign(raw.size(), DT_INVALID);
    for (size_t i = 0; i < raw.size(); ++i) (*v)[i] = static_cast<DataType>(raw[i]);
    return OkStatus();
  }
  Status GetAttr(const std::string& n, std::vector<bool>* v) {
    std::vector<TF_Bool> raw;
    TF_RETURN_IF_ERROR(List(n, &raw, TF_OpKernelConstruction_GetAttrBoolList));
    v->assign(raw.begin(), raw.end());
    return OkStatus();
  }
  Status GetAttr(const std::string& n, std::vector<std::string>* v) {
    int32_t count = 0, total = 0;
    TF_RETURN_IF_ERROR(Size(n, &count, &total));
    std::vector<char*> values(static_cast<size_t>(count > 0 ? count : 0));
    std::vector<size_t> lengths(values.size());
    std::vector<char> storage(static_cast<size_t>(total > 0 ? total : 1));
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) {
      TF_OpKernelConstruction_GetAttrStringList(ctx_, n.c_str(), values.data(), lengths.data(), count,
                                                storage.data(), storage.size(), s);
    }));
    v->clear();
    for (size_t i = 0; i < values.size(); ++i) v->emplace_back(values[i], lengths[i]);
    return OkStatus();
  }
  bool HasAttr(const std::string& n) const {
    TF_Status* s = TF_NewStatus();
    const bool has = TF_OpKernelConstruction_HasAttr(ctx_, n.c_str(), s);
    TF_DeleteStatus(s);
    return has;
  }

  // ---- failure ----
  void SetStatus(const Status& status) {
    if (status.ok()) return;
    status_.Update(status);
    TF_Status* s = TF_NewStatus();
    status.CopyTo(s);
    TF_OpKernelConstruction_Failure(ctx_, s);
    TF_DeleteStatus(s);
  }
  void CtxFailure(const Status& s) { SetStatus(s); }
  void CtxFailure(const char*, int, const Status& s) { SetStatus(s); }
  void CtxFailureWithWarning(const Status& s) { SetStatus(s); }
  void CtxFailureWithWarning(const char*, int, const Status& s) { SetStatus(s); }
  const Status& status() const { return status_; }

  std::string name() const {
    const TF_StringView n = TF_OpKernelConstruction_GetName(ctx_);
    return std::string(n.data, n.len);
  }
  const std::string& type_string() const { return op_; }
  TF_OpKernelConstruction* c_context() const { return ctx_; }

 private:
  template <typename F>
  static Status C(F f) { return opgen_detail::CallC(f); }
  Status Size(const std::string& n, int32_t* list_size, int32_t* total) {
    return C([&](TF_Status* s) { TF_OpKernelConstruction_GetAttrSize(ctx_, n.c_str(), list_size, total, s); });
  }
  template <typename T, typename Getter>
  Status List(const std::string& n, std::vector<T>* v, Getter getter) {
    int32_t count = 0, total = 0;
    TF_RETURN_IF_ERROR(Size(n, &count, &total));
    if (count < 0) return errors::InvalidArgument("Attr ", n, " is not a list");
    std::vector<T> values(static_cast<size_t>(count));
    TF_RETURN_IF_ERROR(C([&](TF_Status* s) { getter(ctx_, n.c_str(), values.data(), count, s); }));
    *v = std::move(values);
    return OkStatus();
  }

  TF_OpKernelConstruction* ctx_;
  std::string op_;
  Status status_;
};

// The tensors of one list input (TensorFlow's OpInputList).
class OpInputList {
 public:
  OpInputList() = default;
  int size() const { return static_cast<int>(tensors_.size()); }
  const Tensor& operator[](int i) const { return *tensors_[static_cast<size_t>(i)]; }
  auto begin() const { return Iter{tensors_.begin()}; }
  auto end() const { return Iter{tensors_.end()}; }

 private:
  struct Iter {
    std::vector<const Tensor*>::const_iterator it;
    const Tensor& operator*() const { return **it; }
    Iter& operator++() { ++it; return *this; }
    bool operator!=(const Iter& o) const { return it != o.it; }
  };
  std::vector<const Tensor*> tensors_;
  friend class OpKernelContext;
};

class OpKernelContext;

// The outputs of one list output (TensorFlow's OpOutputList): allocate or set each, then
// reach it with operator[] (mutable_output).
class OpOutputList {
 public:
  OpOutputList() = default;
  int size() const { return stop_ - start_; }
  inline Tensor* operator[](int i);
  inline DataType expected_output_dtype(int i) const;
  bool required(int) const { return true; }
  inline Status allocate(int i, const TensorShape& shape, Tensor** output);
  inline void set(int i, const Tensor& tensor);

 private:
  OpKernelContext* ctx_ = nullptr;
  int start_ = 0, stop_ = 0;
  friend class OpKernelContext;
};

class OpKernelContext {
 public:
  OpKernelContext(TF_OpKernelContext* ctx, const OpKernel* kernel);
  OpKernelContext(const OpKernelContext&) = delete;

  int num_inputs() const { return TF_NumInputs(ctx_); }
  int num_outputs() const { return TF_NumOutputs(ctx_); }
  DataType input_dtype(int i) const { return static_cast<DataType>(TF_InputDatatype(ctx_, i)); }
  DataType expected_output_dtype(int i) const { return static_cast<DataType>(TF_ExpectedOutputDataType(ctx_, i)); }
  int64_t step_id() const { return TF_StepId(ctx_); }

  // Input `index` among the flat inputs (list inputs flattened).
  const Tensor& input(int index) {
    if (index < 0 || index >= num_inputs()) {
      SetStatus(errors::OutOfRange("input index ", index, " out of range [0, ", num_inputs(), ")"));
      return opgen_detail::EmptyTensor();
    }
    Tensor& slot = inputs_[static_cast<size_t>(index)];
    if (!slot.IsInitialized()) {
      TF_Tensor* t = nullptr;
      Status s = opgen_detail::CallC([&](TF_Status* st) { TF_GetInput(ctx_, index, &t, st); });
      if (!s.ok()) SetStatus(s);
      else slot = Tensor::FromC(t);
    }
    return slot;
  }
  Status input(const std::string& name, const Tensor** tensor);
  Status input_list(const std::string& name, OpInputList* list);

  Status allocate_output(int index, const TensorShape& shape, Tensor** out) {
    const DataType dtype = expected_output_dtype(index);
    const size_t element_bytes = opgen_detail::ElementBytes(dtype);
    if (element_bytes == 0)
      return errors::Unimplemented("allocate_output: outputs of type ", DataTypeString(dtype),
                                   " are not supported by opgen's C++ API");
    const size_t bytes = static_cast<size_t>(shape.num_elements()) * element_bytes;
    TF_Tensor* t = nullptr;
    TF_RETURN_IF_ERROR(opgen_detail::CallC([&](TF_Status* s) {
      t = TF_AllocateOutput(ctx_, index, static_cast<TF_DataType>(dtype), shape.dim_sizes().data(),
                            shape.dims(), bytes, s);
    }));
    *out = Keep(index, Tensor::FromC(t));
    return OkStatus();
  }
  Status allocate_output(const std::string& name, const TensorShape& shape, Tensor** out);
  Status output_list(const std::string& name, OpOutputList* list);
  // Output `index` as allocated or set so far in this Compute; nullptr before that.
  Tensor* mutable_output(int index) {
    if (index < 0 || static_cast<size_t>(index) >= output_slots_.size()) return nullptr;
    return output_slots_[static_cast<size_t>(index)];
  }
  bool output_required(int) const { return true; }
  Status forward_input_or_allocate_output(std::initializer_list<int> candidates, int output_index,
                                          const TensorShape& shape, Tensor** out,
                                          int* forwarded_input = nullptr) {
    std::vector<int> c(candidates);
    int forwarded = -1;
    TF_Tensor* t = nullptr;
    TF_RETURN_IF_ERROR(opgen_detail::CallC([&](TF_Status* s) {
      t = TF_ForwardInputOrAllocateOutput(ctx_, c.data(), static_cast<int>(c.size()), output_index,
                                          shape.dim_sizes().data(), shape.dims(), &forwarded, s);
    }));
    if (forwarded_input) *forwarded_input = forwarded;
    *out = Keep(output_index, Tensor::FromC(t));
    return OkStatus();
  }
  Status allocate_temp(DataType type, const TensorShape& shape, Tensor* out) {
    TF_Tensor* t = nullptr;
    TF_RETURN_IF_ERROR(opgen_detail::CallC([&](TF_Status* s) {
      t = TF_AllocateTemp(ctx_, static_cast<TF_DataType>(type), shape.dim_sizes().data(), shape.dims(),
                          nullptr, s);
    }));
    *out = Tensor::FromC(t);
    return OkStatus();
  }
  void set_output(int index, const Tensor& tensor) {
    Status s = opgen_detail::CallC([&](TF_Status* st) { TF_SetOutput(ctx_, index, tensor.c_tensor(), st); });
    if (!s.ok()) SetStatus(s);
    else Keep(index, tensor);  // shares the buffer: writes through mutable_output reach it
  }
  Status set_output(const std::string& name, const Tensor& tensor);

  void SetStatus(const Status& status) {
    if (status.ok()) return;
    status_.Update(status);
    TF_Status* s = TF_NewStatus();
    status.CopyTo(s);
    TF_OpKernelContext_Failure(ctx_, s);
    TF_DeleteStatus(s);
  }
  void CtxFailure(const Status& s) { SetStatus(s); }
  void CtxFailure(const char*, int, const Status& s) { SetStatus(s); }
  void CtxFailureWithWarning(const Status& s) { SetStatus(s); }
  void CtxFailureWithWarning(const char*, int, const Status& s) { SetStatus(s); }
  const Status& status() const { return status_; }

  // The cudaStream_t (as void*) a GPU kernel queues its work on; nullptr on the CPU.
  // opgen's replacement for eigen_gpu_device().stream().
  void* gpu_stream() {
    TF_Status* s = TF_NewStatus();
    SP_Stream stream = TF_GetStream(ctx_, s);
    TF_DeleteStatus(s);
    return OPGEN_CudaStreamOf(stream);
  }
  int device_id() const { return TF_GetDeviceId(ctx_); }
  // The device a guide-style functor takes: Eigen::ThreadPoolDevice (or DefaultDevice) on
  // the CPU, Eigen::GpuDevice, whose stream() is gpu_stream(), on a GPU. These are opgen's
  // device shims (unsupported/Eigen/CXX11/Tensor), not Eigen's: no expressions.
  template <typename EigenDeviceType>
  const EigenDeviceType& eigen_device() const { return EigenDevice(static_cast<const EigenDeviceType*>(nullptr)); }
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const { return cpu_device_; }
  const Eigen::GpuDevice& eigen_gpu_device() const { return EigenDevice(static_cast<const Eigen::GpuDevice*>(nullptr)); }
  TF_OpKernelContext* c_context() const { return ctx_; }

 private:
  Tensor* Keep(int index, Tensor t) {
    outputs_.push_back(std::move(t));
    if (index >= 0 && static_cast<size_t>(index) < output_slots_.size())
      output_slots_[static_cast<size_t>(index)] = &outputs_.back();
    return &outputs_.back();
  }
  const Eigen::ThreadPoolDevice& EigenDevice(const Eigen::ThreadPoolDevice*) const { return cpu_device_; }
  const Eigen::DefaultDevice& EigenDevice(const Eigen::DefaultDevice*) const { return default_device_; }
  const Eigen::GpuDevice& EigenDevice(const Eigen::GpuDevice*) const {
    if (!gpu_device_made_) {  // asked once per Compute
      TF_Status* s = TF_NewStatus();
      SP_Stream stream = TF_GetStream(ctx_, s);
      TF_DeleteStatus(s);
      gpu_device_ = Eigen::GpuDevice(static_cast<Eigen::gpuStream_t>(OPGEN_CudaStreamOf(stream)), TF_GetDeviceId(ctx_));
      gpu_device_made_ = true;
    }
    return gpu_device_;
  }

  TF_OpKernelContext* ctx_;
  const OpKernel* kernel_;
  Eigen::ThreadPoolDevice cpu_device_;
  Eigen::DefaultDevice default_device_;
  mutable Eigen::GpuDevice gpu_device_;
  mutable bool gpu_device_made_ = false;
  std::vector<Tensor> inputs_;
  std::deque<Tensor> outputs_;  // pointers handed out stay valid
  std::vector<Tensor*> output_slots_;  // each output's latest, for mutable_output
  Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* context) : name_(context->name()), type_(context->type_string()) {
    ComputeArgRanges(context);
  }
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext* context) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  virtual bool IsExpensive() { return true; }

  const std::string& name() const { return name_; }
  const std::string& type_string() const { return type_; }
  const opgen_detail::ArgRanges& input_ranges() const { return inputs_; }
  const opgen_detail::ArgRanges& output_ranges() const { return outputs_; }

 private:
  void ComputeArgRanges(OpKernelConstruction* context) {
    const opgen_registry::OpSpec* op = opgen_registry::FindOp(type_);
    if (op == nullptr) return;
    auto get_int = [&](const std::string& attr, int64_t* n) { return context->GetAttr(attr, n).ok(); };
    auto get_list_size = [&](const std::string& attr, int* n) {
      int32_t size = 0, total = 0;
      Status s = opgen_detail::CallC([&](TF_Status* st) {
        TF_OpKernelConstruction_GetAttrSize(context->c_context(), attr.c_str(), &size, &total, st);
      });
      *n = size;
      return s.ok();
    };
    for (auto [args, ranges] : {std::make_pair(&op->inputs, &inputs_), std::make_pair(&op->outputs, &outputs_)}) {
      std::vector<std::pair<std::string, int>> sizes;
      if (!opgen_registry::ArgSizes(*op, *args, get_int, get_list_size, &sizes)) continue;
      int start = 0;
      for (const auto& [name, count] : sizes) {
        ranges->ranges.push_back({name, {start, start + count}});
        start += count;
      }
      ranges->known = true;
    }
  }

  std::string name_, type_;
  opgen_detail::ArgRanges inputs_, outputs_;
};

inline OpKernelContext::OpKernelContext(TF_OpKernelContext* ctx, const OpKernel* kernel)
    : ctx_(ctx), kernel_(kernel), inputs_(static_cast<size_t>(TF_NumInputs(ctx))),
      output_slots_(static_cast<size_t>(TF_NumOutputs(ctx)), nullptr) {}

inline Status OpKernelContext::input(const std::string& name, const Tensor** tensor) {
  int start = 0, stop = 0;
  TF_RETURN_IF_ERROR(kernel_->input_ranges().Find(name, &start, &stop));
  if (stop - start != 1)
    return errors::InvalidArgument("Expected one tensor for input '", name, "', but got ", stop - start);
  const Tensor& t = input(start);
  TF_RETURN_IF_ERROR(status_);
  *tensor = &t;
  return OkStatus();
}

inline Status OpKernelContext::input_list(const std::string& name, OpInputList* list) {
  int start = 0, stop = 0;
  TF_RETURN_IF_ERROR(kernel_->input_ranges().Find(name, &start, &stop));
  list->tensors_.clear();
  for (int i = start; i < stop; ++i) {
    const Tensor& t = input(i);
    TF_RETURN_IF_ERROR(status_);
    list->tensors_.push_back(&t);
  }
  return OkStatus();
}

inline Status OpKernelContext::allocate_output(const std::string& name, const TensorShape& shape, Tensor** out) {
  int start = 0, stop = 0;
  TF_RETURN_IF_ERROR(kernel_->output_ranges().Find(name, &start, &stop));
  if (stop - start != 1)
    return errors::InvalidArgument("Expected one tensor for output '", name, "', but got ", stop - start);
  return allocate_output(start, shape, out);
}

inline Status OpKernelContext::set_output(const std::string& name, const Tensor& tensor) {
  int start = 0, stop = 0;
  TF_RETURN_IF_ERROR(kernel_->output_ranges().Find(name, &start, &stop));
  if (stop - start != 1)
    return errors::InvalidArgument("Expected one tensor for output '", name, "', but got ", stop - start);
  set_output(start, tensor);
  return status_;
}

inline Status OpKernelContext::output_list(const std::string& name, OpOutputList* list) {
  int start = 0, stop = 0;
  TF_RETURN_IF_ERROR(kernel_->output_ranges().Find(name, &start, &stop));
  list->ctx_ = this;
  list->start_ = start;
  list->stop_ = stop;
  return OkStatus();
}

inline Tensor* OpOutputList::operator[](int i) { return ctx_->mutable_output(start_ + i); }
inline DataType OpOutputList::expected_output_dtype(int i) const {
  return ctx_->expected_output_dtype(start_ + i);
}
inline Status OpOutputList::allocate(int i, const TensorShape& shape, Tensor** output) {
  if (i < 0 || i >= size())
    return errors::InvalidArgument("output list index ", i, " out of range [0, ", size(), ")");
  return ctx_->allocate_output(start_ + i, shape, output);
}
inline void OpOutputList::set(int i, const Tensor& tensor) {
  if (i < 0 || i >= size()) {
    ctx_->SetStatus(errors::InvalidArgument("output list index ", i, " out of range [0, ", size(), ")"));
    return;
  }
  ctx_->set_output(start_ + i, tensor);
}

// A kernel whose work finishes when it calls `done` (TensorFlow's AsyncOpKernel). The C
// API's kernels are synchronous, so Compute runs ComputeAsync and waits for `done`, as
// TensorFlow's own AsyncOpKernel::Compute does; the work may still run on another thread.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  typedef std::function<void()> DoneCallback;
  virtual void ComputeAsync(OpKernelContext* context, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() override { return this; }
  void Compute(OpKernelContext* context) final {
    std::mutex mu;
    std::condition_variable finished;
    bool done = false;
    ComputeAsync(context, [&] {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      finished.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    finished.wait(lock, [&] { return done; });
  }
};

namespace register_kernel {
// TensorFlow's KernelDefBuilder, as REGISTER_KERNEL_BUILDER's first argument spells it.
class Name {
 public:
  explicit Name(const char* op) { spec_.op = op; }
  Name& Device(const char* device) { spec_.device = device; return *this; }
  template <typename T>
  Name& TypeConstraint(const char* attr) { return TypeConstraint(attr, DataTypeToEnum<T>::v()); }
  Name& TypeConstraint(const char* attr, DataType type) { return TypeConstraint(attr, std::vector<DataType>{type}); }
  Name& TypeConstraint(const char* attr, std::vector<DataType> allowed) {
    spec_.type_constraints.emplace_back(attr, std::move(allowed));
    return *this;
  }
  Name& HostMemory(const char* arg) { spec_.host_memory.push_back(arg); return *this; }
  Name& Label(const char* label) { spec_.label = label; return *this; }
  Name& Priority(int32_t priority) { spec_.priority = priority; spec_.has_priority = true; return *this; }
  const opgen_registry::KernelSpec& spec() const { return spec_; }

 private:
  opgen_registry::KernelSpec spec_;
};
}  // namespace register_kernel

namespace opgen_detail {
// The C callbacks of a kernel class. Tag is unique to each REGISTER_KERNEL_BUILDER, so a
// class registered for two ops gets two sets of callbacks, each knowing its op.
template <typename Tag, typename Kernel>
struct KernelCallbacks {
  static std::string& op() {
    static std::string name;
    return name;
  }
  static void* Create(TF_OpKernelConstruction* c) {
    OpKernelConstruction context(c, op());
#if defined(__cpp_exceptions)
    try {
      return static_cast<OpKernel*>(new Kernel(&context));
    } catch (const std::exception& e) {
      context.SetStatus(errors::Internal("kernel constructor threw: ", e.what()));
      return nullptr;
    }
#else
    return static_cast<OpKernel*>(new Kernel(&context));
#endif
  }
  static void Compute(void* kernel, TF_OpKernelContext* c) {
    if (kernel == nullptr) return;
    OpKernel* k = static_cast<OpKernel*>(kernel);
    OpKernelContext context(c, k);
#if defined(__cpp_exceptions)
    try {
      k->Compute(&context);
    } catch (const std::exception& e) {
      context.SetStatus(errors::Internal("kernel threw: ", e.what()));
    }
#else
    k->Compute(&context);
#endif
  }
  static void Delete(void* kernel) { delete static_cast<OpKernel*>(kernel); }
};

template <typename Tag, typename Kernel>
bool RegisterKernelClass(const register_kernel::Name& builder, const char* class_name) {
  opgen_registry::KernelSpec spec = builder.spec();
  KernelCallbacks<Tag, Kernel>::op() = spec.op;
  spec.class_name = class_name;
  spec.create = &KernelCallbacks<Tag, Kernel>::Create;
  spec.compute = &KernelCallbacks<Tag, Kernel>::Compute;
  spec.destroy = &KernelCallbacks<Tag, Kernel>::Delete;
  opgen_registry::RegisterKernel(spec);
  return true;
}
}  // namespace opgen_detail

}  // namespace tensorflow

#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  OPGEN_REGISTER_KERNEL_UNIQ_HELPER(__COUNTER__, kernel_builder, __VA_ARGS__)
#define OPGEN_REGISTER_KERNEL_UNIQ_HELPER(ctr, kernel_builder, ...) \
  OPGEN_REGISTER_KERNEL_UNIQ(ctr, kernel_builder, __VA_ARGS__)
#define OPGEN_REGISTER_KERNEL_UNIQ(ctr, kernel_builder, ...)                                   \
  namespace {                                                                                  \
  struct opgen_kernel_tag_##ctr {};                                                            \
  }                                                                                            \
  static const bool opgen_kernel_registered_##ctr __attribute__((unused)) =                    \
      ::tensorflow::opgen_detail::RegisterKernelClass<opgen_kernel_tag_##ctr, __VA_ARGS__>(    \
          ::tensorflow::register_kernel::kernel_builder, #__VA_ARGS__)

#define OP_REQUIRES(CTX, EXP, STATUS)                 \
  do {                                                \
    if (!(EXP)) {                                     \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS)); \
      return;                                         \
    }                                                 \
  } while (0)

#define OP_REQUIRES_OK(CTX, ...)                                        \
  do {                                                                  \
    ::tensorflow::Status opgen_op_status_ = (__VA_ARGS__);              \
    if (!opgen_op_status_.ok()) {                                       \
      (CTX)->CtxFailureWithWarning(__FILE__, __LINE__, opgen_op_status_); \
      return;                                                           \
    }                                                                   \
  } while (0)

// In ComputeAsync: on failure, also call `done` before returning.
#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK)  \
  do {                                                 \
    if (!(EXP)) {                                      \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS)); \
      (CALLBACK)();                                    \
      return;                                          \
    }                                                  \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK)                        \
  do {                                                                    \
    ::tensorflow::Status opgen_op_status_ = (STATUS);                     \
    if (!opgen_op_status_.ok()) {                                         \
      (CTX)->CtxFailureWithWarning(__FILE__, __LINE__, opgen_op_status_); \
      (CALLBACK)();                                                       \
      return;                                                             \
    }                                                                     \
  } while (0)

#define OP_REQUIRES_OK_OR_SET_PAYLOAD(CTX, PAYLOAD_KEY, PAYLOAD_VALUE, STATUS) OP_REQUIRES_OK(CTX, STATUS)

#endif  // TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
