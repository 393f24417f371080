// CPU kernels of TensorFlow 1's TensorArray ops (../../ops/tensor_array_ops.cc). An array
// is a resource of the session's (or eager context's) resource manager, a new one per
// TensorArrayV3 run, reached through its handle by the other kernels. Elements are held,
// not copied, and written once; with clear_after_read a read gives the element away.
// The checks and messages follow TensorFlow's. Fixed-size dtypes only (no strings).
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "host_tensor_alloc.h"
#include "kernel_util.h"
#include "held_resource.h"
#include "opgen/c_api_ext.h"
#include "tensor_add.h"

namespace opgen {
namespace cpu {
namespace {

constexpr char kArrayType[] = "tensorflow::TensorArray";

using Held = std::shared_ptr<TF_Tensor>;

Held Hold(TF_Tensor* t) { return Held(t, TF_DeleteTensor); }

struct Error {
  TF_Code code = TF_OK;
  std::string message;
  bool ok() const { return code == TF_OK; }
};

Error Invalid(std::string message) { return {TF_INVALID_ARGUMENT, std::move(message)}; }

// A shape with unknown dims (-1), or of unknown rank.
struct Shape {
  bool rank_known = false;
  std::vector<int64_t> dims;

  bool FullyDefined() const {
    if (!rank_known) return false;
    for (int64_t d : dims)
      if (d < 0) return false;
    return true;
  }
  bool CompatibleWith(const std::vector<int64_t>& other) const {
    if (!rank_known) return true;
    if (dims.size() != other.size()) return false;
    for (size_t k = 0; k < dims.size(); ++k)
      if (dims[k] >= 0 && dims[k] != other[k]) return false;
    return true;
  }
  std::string ToString() const {
    if (!rank_known) return "<unknown>";
    std::string s = "[";
    for (size_t k = 0; k < dims.size(); ++k)
      s += (k ? "," : "") + (dims[k] < 0 ? std::string("?") : std::to_string(dims[k]));
    return s + "]";
  }
};

// A shape attr (unknown rank allowed) read at construction.
bool ReadShapeAttr(TF_OpKernelConstruction* ctx, const char* name, Shape* shape, TF_Status* s) {
  int32_t list_size = 0, rank = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &list_size, &rank, s);
  if (TF_GetCode(s) != TF_OK) return false;
  shape->rank_known = rank >= 0;
  shape->dims.assign(rank > 0 ? static_cast<size_t>(rank) : 0, 0);
  if (rank > 0) TF_OpKernelConstruction_GetAttrTensorShape(ctx, name, shape->dims.data(), rank, s);
  return TF_GetCode(s) == TF_OK;
}

TF_Tensor* NewZeros(TF_DataType dtype, const std::vector<int64_t>& dims) { return NewZeroHostTensor(dtype, dims); }

// How an array takes writes: a forward array once per element; a gradient array
// (TensorArrayGradV3's) sums the partial gradients written to one element, and reads an
// element nobody wrote as zeros of its forward element's shape.
struct ArrayKind {
  bool aggregate_writes = false;
  bool is_grad = false;
};

class TensorArray {
 public:
  TensorArray(std::string name, TF_DataType dtype, Shape element_shape, int32_t size,
              bool dynamic_size, bool clear_after_read, bool identical_shapes,
              ArrayKind kind = {})
      : name_(std::move(name)), dtype_(dtype), element_shape_(std::move(element_shape)),
        slots_(static_cast<size_t>(size)), dynamic_size_(dynamic_size),
        clear_after_read_(clear_after_read), identical_shapes_(identical_shapes), kind_(kind) {}

  std::mutex& mu() { return mu_; }
  const std::string& name() const { return name_; }
  // The step container it lives in, where its gradient arrays go too (an eager op runs
  // as a step of its own, so a gradient op's own step container is not the array's).
  const std::string& container() const { return container_; }
  void set_container(std::string container) { container_ = std::move(container); }
  TF_DataType dtype() const { return dtype_; }
  int32_t size() const { return static_cast<int32_t>(slots_.size()); }
  bool dynamic_size() const { return dynamic_size_; }
  bool identical_shapes() const { return identical_shapes_; }
  bool aggregate_writes() const { return kind_.aggregate_writes; }
  const Shape& element_shape() const { return element_shape_; }

  // Under mu(). Once its gradient array exists, the array may not grow; and one whose
  // writes were summed has no gradient (which partial write would it go to?).
  void DisableDynamicSize() { dynamic_size_ = false; }
  bool GradientsAllowed() const { return !gradients_disallowed_; }

  // Under mu(), on a new gradient array: element i of `forward` written means element i
  // here reads as zeros of that element's shape (`prepend` + its shape) until written.
  void CopyShapesFrom(const TensorArray& forward, const std::vector<int64_t>& prepend) {
    for (size_t i = 0; i < forward.slots_.size() && i < slots_.size(); ++i) {
      if (!forward.slots_[i].written) continue;
      slots_[i].shape = prepend;
      slots_[i].shape.insert(slots_[i].shape.end(), forward.slots_[i].shape.begin(),
                             forward.slots_[i].shape.end());
      slots_[i].written = true;  // a virtual zero tensor: no value yet
    }
  }

  // Under mu(). Checks the write of `value` to element `index`; Store makes it.
  Error CheckWrite(int32_t index, const TF_Tensor* value) const {
    if (TF_TensorType(value) != dtype_)
      return Invalid("TensorArray dtype is " + kernels::DTypeName(dtype_) +
                     " but Op is trying to write dtype " + kernels::DTypeName(TF_TensorType(value)) + ".");
    if (index < 0 || (!dynamic_size_ && index >= size()))
      return Invalid(Prefix() + "Tried to write to index " + std::to_string(index) +
                     " but array is not resizeable and size is: " + std::to_string(size()));
    if (!element_shape_.CompatibleWith(Dims(value)))
      return Invalid(Prefix() + "Could not write to TensorArray index " + std::to_string(index) +
                     " because the value shape is " + ShapeString(Dims(value)) +
                     " which is incompatible with the TensorArray's inferred element shape: " +
                     element_shape_.ToString() + " (consider setting infer_shape=False).");
    if (index >= size()) return {};
    const Slot& slot = slots_[index];
    if (slot.read)
      return Invalid(Prefix() + "Could not write to TensorArray index " + std::to_string(index) +
                     " because it has already been read.");
    if (slot.written && !kind_.aggregate_writes)
      return Invalid(Prefix() + "Could not write to TensorArray index " + std::to_string(index) +
                     " because it has already been written to.");
    if (slot.written && slot.shape != Dims(value))
      return Invalid(Prefix() + "Could not aggregate to TensorArray index " + std::to_string(index) +
                     " because the existing shape is " + ShapeString(slot.shape) +
                     " but the new input shape is " + ShapeString(Dims(value)) + ".");
    return {};
  }
  // Under mu(), after CheckWrite. A second write to an element of a gradient array adds
  // to the first (into a copy the array owns: the first value may be someone's input).
  Error Store(int32_t index, Held value) {
    if (index >= size()) slots_.resize(static_cast<size_t>(index) + 1);
    if (identical_shapes_) element_shape_ = Shape{true, Dims(value.get())};
    Slot& slot = slots_[index];
    if (slot.written && slot.value && TF_TensorElementCount(slot.value.get()) > 0) {
      if (!slot.owned) {
        Held copy = CopyOf(slot.value.get());
        if (!copy) return {TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element"};
        slot.value = std::move(copy);
        slot.owned = true;
      }
      if (!AddTensorInto(slot.value.get(), value.get()))
        return {TF_UNIMPLEMENTED, Prefix() + "cannot sum writes of " +
                                      kernels::DTypeName(dtype_) + " elements"};
      gradients_disallowed_ = true;
      return {};
    }
    slot.shape = Dims(value.get());
    slot.value = std::move(value);
    slot.owned = false;
    slot.written = true;
    return {};
  }

  // Under mu(): checks a read of element `index` (Take makes it).
  Error CheckRead(int32_t index) const {
    if (index < 0 || (!kind_.is_grad && index >= size()))
      return Invalid("Tried to read from index " + std::to_string(index) +
                     " but array size is: " + std::to_string(size()));
    if (index < size() && slots_[index].cleared)
      return Invalid(Prefix() + "Could not read index " + std::to_string(index) +
                     " twice because it was cleared after a previous read (perhaps try setting "
                     "clear_after_read = false?).");
    Shape unused;
    if (!Unwritten(index) || ZeroShape(index, &unused)) return {};
    return Invalid(Prefix() + "Could not read from TensorArray index " + std::to_string(index) +
                   ".  Furthermore, the element shape is not fully defined: " +
                   element_shape_.ToString() +
                   ".  It is possible you are working with a resizeable TensorArray and "
                   "stop_gradients is not allowing the gradients to be written.  If you set "
                   "the full element_shape property on the forward TensorArray, the proper "
                   "all-zeros tensor will be returned instead of incurring this error.");
  }
  // Under mu(), after CheckRead: the element (zeros for an unwritten one, which counts as
  // written from then on), cleared when it should be.
  Held Take(int32_t index) {
    if (Unwritten(index)) {
      Shape zero_shape;
      ZeroShape(index, &zero_shape);
      if (index >= size()) {  // a gradient array: every new element reads as zeros
        const size_t old = slots_.size();
        slots_.resize(static_cast<size_t>(index) + 1);
        for (size_t i = old; i < slots_.size(); ++i) {
          slots_[i].shape = zero_shape.dims;
          slots_[i].written = true;
        }
      }
      slots_[index].shape = zero_shape.dims;
      slots_[index].written = true;
    }
    Slot& slot = slots_[index];
    if (!slot.value) {
      TF_Tensor* zeros = NewZeros(dtype_, slot.shape);
      if (zeros == nullptr) return nullptr;
      slot.value = Hold(zeros);
      slot.owned = true;
    }
    Held value = slot.value;
    if (clear_after_read_) {
      slot.value.reset();
      slot.cleared = true;
    }
    slot.read = true;
    return value;
  }

 private:
  struct Slot {
    Held value;                  // null: unwritten, cleared, or zeros not made yet
    std::vector<int64_t> shape;  // of the written value (kept when the value is cleared)
    bool written = false;
    bool read = false;
    bool cleared = false;
    bool owned = false;          // `value` is the array's own copy (sums write into it)
  };
  std::string Prefix() const { return "TensorArray " + name_ + ": "; }

  bool Unwritten(int32_t index) const {
    return index >= size() || !slots_[index].written;
  }
  // The shape an unwritten element reads as: a gradient element's own (from its forward
  // element), else the array's when fully known.
  bool ZeroShape(int32_t index, Shape* shape) const {
    if (kind_.is_grad && index < size() && !slots_[index].shape.empty()) {
      *shape = Shape{true, slots_[index].shape};
      return true;
    }
    if (!element_shape_.FullyDefined()) return false;
    *shape = element_shape_;
    return true;
  }
  static Held CopyOf(const TF_Tensor* t) {
    const std::vector<int64_t> dims = Dims(t);
    TF_Tensor* copy = TF_AllocateTensor(TF_TensorType(t), dims.data(), static_cast<int>(dims.size()),
                                        TF_TensorByteSize(t));
    if (copy == nullptr) return nullptr;
    if (TF_TensorByteSize(t)) std::memcpy(TF_TensorData(copy), TF_TensorData(t), TF_TensorByteSize(t));
    return Hold(copy);
  }

  std::mutex mu_;
  std::string name_;
  std::string container_;
  TF_DataType dtype_;
  Shape element_shape_;
  std::vector<Slot> slots_;
  bool dynamic_size_, clear_after_read_, identical_shapes_;
  ArrayKind kind_;
  bool gradients_disallowed_ = false;
};

// ---- TensorArrayV3 ----------------------------------------------------------------

struct CreateAttrs {
  TF_DataType dtype = TF_FLOAT;
  Shape element_shape;
  bool dynamic_size = false, clear_after_read = true, identical_shapes = false;
  std::string name;  // tensor_array_name, else the node's
};

void* NewCreateAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new CreateAttrs();
  TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &a->dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK) ReadShapeAttr(ctx, "element_shape", &a->element_shape, s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->dynamic_size = kernels::BoolAttr(ctx, "dynamic_size", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    a->clear_after_read = kernels::BoolAttr(ctx, "clear_after_read", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    a->identical_shapes = kernels::BoolAttr(ctx, "identical_element_shapes", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->name = kernels::StringAttr(ctx, "tensor_array_name", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  if (a->name.empty()) {
    const TF_StringView node = TF_OpKernelConstruction_GetName(ctx);
    a->name.assign(node.data, node.len);
  }
  return a;
}

void DeleteCreateAttrs(void* a) { delete static_cast<CreateAttrs*>(a); }

struct MakeArgs {
  const CreateAttrs* attrs;
  std::string name;
  int32_t size;
  std::string container;
};

void* MakeArray(void* arg, TF_Status*) {
  const auto* m = static_cast<const MakeArgs*>(arg);
  const CreateAttrs& a = *m->attrs;
  auto* array = new TensorArray(m->name, a.dtype, a.element_shape, m->size, a.dynamic_size,
                                a.clear_after_read, a.identical_shapes);
  array->set_container(m->container);
  return array;
}

// Arrays live per step, as TensorFlow's: a session run frees the arrays it made when it
// ends. This is the container OPGEN_STEP_CONTAINER names in step `step_id` (c_api_ext.h),
// spelled out so that a gradient array joins its forward array's step.
std::string StepContainerName(int64_t step_id) { return "__opgen_step_" + std::to_string(step_id); }

void DeleteArray(void* array) { delete static_cast<TensorArray*>(array); }

void CreateCompute(void* p, TF_OpKernelContext* ctx) {
  static std::atomic<uint64_t> counter{0};
  const auto* a = static_cast<const CreateAttrs*>(p);
  const TF_Tensor* size = BorrowInput(ctx, 0);
  if (size == nullptr) return;
  if (TF_NumDims(size) != 0) return Fail(ctx, TF_INVALID_ARGUMENT, "TensorArray size must be scalar, but had shape: " + ShapeString(Dims(size)));
  const int32_t n = *Data<int32_t>(size);
  if (n < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "Size should be >= 0.");
  // Every run makes a new array, as TensorFlow's per-step arrays.
  const std::string container = StepContainerName(TF_StepId(ctx));
  MakeArgs m{a, a->name + "_" + std::to_string(counter++), n, container};
  StatusPtr s = NewStatus();
  OPGEN_KernelCreateResourceHandle(ctx, 0, container.c_str(), m.name.c_str(), kArrayType, &MakeArray, &m,
                                   &DeleteArray, s.get());
  if (TF_GetCode(s.get()) != TF_OK) return TF_OpKernelContext_Failure(ctx, s.get());
  TensorPtr flow = AllocateOutput<float>(ctx, 1, {});
  if (flow) *Data<float>(flow) = 0.0f;
}

// ---- The ops on an array --------------------------------------------------------------

// The tensorarray input 0 names, held while the kernel runs.
class HeldArray : public HeldResource<TensorArray> {
 public:
  explicit HeldArray(TF_OpKernelContext* ctx) : HeldResource<TensorArray>(ctx, kArrayType) {}
};

// The flow output: the flow input passed on (its value means nothing).
void PassFlow(TF_OpKernelContext* ctx, int flow_in) {
  const TF_Tensor* in = BorrowInput(ctx, flow_in);
  if (in == nullptr) return;
  TensorPtr out = AllocateOutput<float>(ctx, 0, {});
  if (out) *Data<float>(out) = TF_NumDims(in) == 0 ? *Data<float>(in) : 0.0f;
}

bool Report(TF_OpKernelContext* ctx, const Error& e) {
  if (e.ok()) return true;
  Fail(ctx, e.code, e.message);
  return false;
}

struct DtypeAttr {
  TF_DataType dtype = TF_FLOAT;
  Shape element_shape;  // Gather's element_shape, Concat's element_shape_except0
};

template <const char* kShapeAttr>
void* NewDtypeAttr(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new DtypeAttr();
  if (TF_OpKernelConstruction_HasAttr(ctx, "dtype", s.get()))
    TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &a->dtype, s.get());
  else
    TF_OpKernelConstruction_GetAttrType(ctx, "T", &a->dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK && kShapeAttr[0] != '\0')
    ReadShapeAttr(ctx, kShapeAttr, &a->element_shape, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
void DeleteDtypeAttr(void* a) { delete static_cast<DtypeAttr*>(a); }

constexpr char kNoShape[] = "";
constexpr char kElementShape[] = "element_shape";
constexpr char kExcept0[] = "element_shape_except0";

Error CheckReadDtype(const TensorArray& array, TF_DataType wanted) {
  if (array.dtype() == wanted) return {};
  return Invalid("TensorArray dtype is " + kernels::DTypeName(array.dtype()) +
                 " but Op requested dtype " + kernels::DTypeName(wanted) + ".");
}

bool ScalarIndex(TF_OpKernelContext* ctx, int i, int32_t* index) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "TensorArray index must be scalar, but had shape: " + ShapeString(Dims(t)));
    return false;
  }
  *index = *Data<int32_t>(t);
  return true;
}

void WriteCompute(void*, TF_OpKernelContext* ctx) {
  HeldArray held(ctx);
  TensorArray* array = held.get();
  int32_t index = 0;
  if (array == nullptr || !ScalarIndex(ctx, 1, &index)) return;
  TensorPtr value = Input(ctx, 2);
  if (!value) return;
  {
    std::lock_guard<std::mutex> lock(array->mu());
    if (!Report(ctx, array->CheckWrite(index, value.get())) ||
        !Report(ctx, array->Store(index, Hold(value.release()))))
      return;
  }
  PassFlow(ctx, 3);
}

void ReadCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const DtypeAttr*>(p);
  HeldArray held(ctx);
  TensorArray* array = held.get();
  int32_t index = 0;
  if (array == nullptr || !ScalarIndex(ctx, 1, &index)) return;
  Held value;
  {
    std::lock_guard<std::mutex> lock(array->mu());
    if (!Report(ctx, CheckReadDtype(*array, a->dtype)) || !Report(ctx, array->CheckRead(index))) return;
    value = array->Take(index);
  }
  if (!value) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element");
  TF_SetOutput(ctx, 0, value.get(), ThreadStatus());
  if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
}

// Reads elements `indices` (all checked first, so a failing read clears nothing).
bool ReadMany(TF_OpKernelContext* ctx, TensorArray* array, TF_DataType dtype,
              const std::vector<int64_t>& indices, std::vector<Held>* values) {
  std::lock_guard<std::mutex> lock(array->mu());
  if (!Report(ctx, CheckReadDtype(*array, dtype))) return false;
  for (int64_t i : indices) {
    if (i > INT32_MAX || i < INT32_MIN)
      return Report(ctx, Invalid("Tried to read from index " + std::to_string(i) +
                                 " but array size is: " + std::to_string(array->size())));
    if (!Report(ctx, array->CheckRead(static_cast<int32_t>(i)))) return false;
  }
  for (int64_t i : indices) {
    values->push_back(array->Take(static_cast<int32_t>(i)));
    if (!values->back()) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element");
      return false;
    }
  }
  return true;
}

// An empty array's element shape: the op's attr merged with the array's; fully known.
bool EmptyShape(TF_OpKernelContext* ctx, const TensorArray& array, const Shape& attr,
                const char* what, const char* doing, std::vector<int64_t>* dims) {
  Shape shape = attr.rank_known ? attr : array.element_shape();
  if (!shape.FullyDefined()) {
    Fail(ctx, TF_UNIMPLEMENTED,
         std::string("TensorArray has size zero, but ") + what + " " + shape.ToString() +
             " is not fully defined. Currently only static shapes are supported when " + doing +
             " zero-size TensorArrays.");
    return false;
  }
  *dims = shape.dims;
  return true;
}

void GatherCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const DtypeAttr*>(p);
  HeldArray held(ctx);
  TensorArray* array = held.get();
  if (array == nullptr) return;
  const TF_Tensor* indices_t = BorrowInput(ctx, 1);
  if (indices_t == nullptr) return;
  if (TF_NumDims(indices_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "indices must be a vector, but had shape: " + ShapeString(Dims(indices_t)));
  const std::vector<int64_t> indices = IndexValues(indices_t);
  std::vector<Held> values;
  std::vector<int64_t> element;
  if (indices.empty()) {
    if (!EmptyShape(ctx, *array, a->element_shape, "element shape", "packing", &element)) return;
  } else {
    if (!ReadMany(ctx, array, a->dtype, indices, &values)) return;
    element = Dims(values[0].get());
    for (size_t k = 1; k < values.size(); ++k) {
      if (Dims(values[k].get()) != element)
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "TensorArray has inconsistent shapes.  Index 0 has shape: " + ShapeString(element) +
                        " but index " + std::to_string(k) + " has shape: " + ShapeString(Dims(values[k].get())));
    }
  }
  std::vector<int64_t> out_dims{static_cast<int64_t>(indices.size())};
  out_dims.insert(out_dims.end(), element.begin(), element.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, a->dtype, out_dims);
  if (!out) return;
  const size_t bytes = static_cast<size_t>(NumElements(element)) * TF_DataTypeSize(a->dtype);
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  for (size_t k = 0; k < values.size() && bytes; ++k)
    std::memcpy(dst + k * bytes, TF_TensorData(values[k].get()), bytes);
}

void ConcatCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const DtypeAttr*>(p);
  HeldArray held(ctx);
  TensorArray* array = held.get();
  if (array == nullptr) return;
  std::vector<int64_t> all;
  {
    std::lock_guard<std::mutex> lock(array->mu());
    for (int32_t i = 0; i < array->size(); ++i) all.push_back(i);
  }
  std::vector<Held> values;
  std::vector<int64_t> rest;
  if (all.empty()) {
    if (!EmptyShape(ctx, *array, a->element_shape, "element_shape_except0", "concatenating", &rest)) return;
  } else if (!ReadMany(ctx, array, a->dtype, all, &values)) {
    return;
  }
  int64_t rows = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    const std::vector<int64_t> dims = Dims(values[k].get());
    if (dims.empty())
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Concat saw a scalar shape at index " + std::to_string(k) +
                      " but requires at least vectors.  Did you mean to call pack?");
    const std::vector<int64_t> tail(dims.begin() + 1, dims.end());
    if (k == 0) rest = tail;
    if (tail != rest)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: " +
                      ShapeString(rest) + " but index " + std::to_string(k) +
                      " has (excepting dimension 0) shape: " + ShapeString(tail));
    rows += dims[0];
  }
  std::vector<int64_t> out_dims{rows};
  out_dims.insert(out_dims.end(), rest.begin(), rest.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, a->dtype, out_dims);
  TensorPtr lengths = AllocateOutput<int64_t>(ctx, 1, {static_cast<int64_t>(values.size())});
  if (!out || !lengths) return;
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  for (size_t k = 0; k < values.size(); ++k) {
    const size_t bytes = TF_TensorByteSize(values[k].get());
    if (bytes) std::memcpy(dst, TF_TensorData(values[k].get()), bytes);
    dst += bytes;
    Data<int64_t>(lengths)[k] = Dims(values[k].get())[0];
  }
}

// A new tensor of rows [begin, begin + count) of `value`.
TF_Tensor* Rows(const TF_Tensor* value, int64_t begin, int64_t count) {
  std::vector<int64_t> dims = Dims(value);
  const size_t row_bytes = dims[0] == 0 ? 0 : TF_TensorByteSize(value) / static_cast<size_t>(dims[0]);
  dims[0] = count;
  TF_Tensor* t = TF_AllocateTensor(TF_TensorType(value), dims.data(), static_cast<int>(dims.size()),
                                   row_bytes * static_cast<size_t>(count));
  if (t != nullptr && row_bytes * count)
    std::memcpy(TF_TensorData(t), static_cast<const char*>(TF_TensorData(value)) + begin * row_bytes,
                row_bytes * static_cast<size_t>(count));
  return t;
}

// Writes `pieces` to elements `indices`: to a forward array all checked before any is
// written; to a gradient array one after another, so that repeated indices sum.
bool WriteMany(TF_OpKernelContext* ctx, TensorArray* array, const std::vector<int64_t>& indices,
               std::vector<Held> pieces) {
  std::lock_guard<std::mutex> lock(array->mu());
  for (size_t k = 0; k < indices.size(); ++k) {
    const int64_t i = indices[k];
    if (i > INT32_MAX || i < INT32_MIN)
      return Report(ctx, Invalid("Tried to write to index " + std::to_string(i) +
                                 " but array is not resizeable and size is: " + std::to_string(array->size())));
    if (array->aggregate_writes()) {
      if (!Report(ctx, array->CheckWrite(static_cast<int32_t>(i), pieces[k].get())) ||
          !Report(ctx, array->Store(static_cast<int32_t>(i), std::move(pieces[k]))))
        return false;
      continue;
    }
    if (!Report(ctx, array->CheckWrite(static_cast<int32_t>(i), pieces[k].get()))) return false;
    for (size_t j = 0; j < k; ++j)
      if (indices[j] == i)
        return Report(ctx, Invalid("Could not write to TensorArray index " + std::to_string(i) +
                                   " because it has already been written to."));
  }
  if (array->aggregate_writes()) return true;
  for (size_t k = 0; k < indices.size(); ++k)
    if (!Report(ctx, array->Store(static_cast<int32_t>(indices[k]), std::move(pieces[k])))) return false;
  return true;
}

void ScatterCompute(void*, TF_OpKernelContext* ctx) {
  HeldArray held(ctx);
  TensorArray* array = held.get();
  if (array == nullptr) return;
  const TF_Tensor* indices_t = BorrowInput(ctx, 1);
  const TF_Tensor* value = BorrowInput(ctx, 2);
  if (indices_t == nullptr || value == nullptr) return;
  if (TF_NumDims(indices_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected indices to be a vector, but received shape: " + ShapeString(Dims(indices_t)));
  const std::vector<int64_t> indices = IndexValues(indices_t);
  const std::vector<int64_t> dims = Dims(value);
  if (dims.empty() || dims[0] != static_cast<int64_t>(indices.size()))
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Expected len(indices) == values.shape[0], but saw: " + std::to_string(indices.size()) +
                    " vs. " + (dims.empty() ? std::string("a scalar") : std::to_string(dims[0])));
  std::vector<Held> pieces;
  for (size_t k = 0; k < indices.size(); ++k) {
    TF_Tensor* row = Rows(value, static_cast<int64_t>(k), 1);
    if (row == nullptr) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element");
    std::vector<int64_t> element(dims.begin() + 1, dims.end());
    TF_Tensor* shaped = TF_AllocateTensor(TF_TensorType(value), element.data(), static_cast<int>(element.size()),
                                          TF_TensorByteSize(row));
    if (shaped == nullptr) {
      TF_DeleteTensor(row);
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element");
    }
    if (TF_TensorByteSize(row)) std::memcpy(TF_TensorData(shaped), TF_TensorData(row), TF_TensorByteSize(row));
    TF_DeleteTensor(row);
    pieces.push_back(Hold(shaped));
  }
  if (WriteMany(ctx, array, indices, std::move(pieces))) PassFlow(ctx, 3);
}

void SplitCompute(void*, TF_OpKernelContext* ctx) {
  HeldArray held(ctx);
  TensorArray* array = held.get();
  if (array == nullptr) return;
  const TF_Tensor* value = BorrowInput(ctx, 1);
  const TF_Tensor* lengths_t = BorrowInput(ctx, 2);
  if (value == nullptr || lengths_t == nullptr) return;
  const std::vector<int64_t> dims = Dims(value);
  if (dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected value to be at least a vector, but received shape: " + ShapeString(dims));
  if (TF_NumDims(lengths_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected lengths to be a vector, received shape: " + ShapeString(Dims(lengths_t)));
  const std::vector<int64_t> lengths = IndexValues(lengths_t);
  int64_t total = 0;
  for (int64_t n : lengths) {
    if (n < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "lengths must be non-negative, got " + std::to_string(n));
    total += n;
  }
  if (total != dims[0])
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is " +
                    std::to_string(total) + " and value's shape is: " + ShapeString(dims));
  {
    std::lock_guard<std::mutex> lock(array->mu());
    if (!array->dynamic_size() && static_cast<int64_t>(lengths.size()) != array->size())
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "TensorArray's size is not equal to the size of lengths (" + std::to_string(array->size()) +
                      " vs. " + std::to_string(lengths.size()) +
                      "), and the TensorArray is not marked as dynamically resizeable");
  }
  std::vector<Held> pieces;
  std::vector<int64_t> indices;
  int64_t begin = 0;
  for (size_t k = 0; k < lengths.size(); ++k) {
    TF_Tensor* rows = Rows(value, begin, lengths[k]);
    if (rows == nullptr) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorArray element");
    pieces.push_back(Hold(rows));
    indices.push_back(static_cast<int64_t>(k));
    begin += lengths[k];
  }
  if (WriteMany(ctx, array, indices, std::move(pieces))) PassFlow(ctx, 3);
}

void SizeCompute(void*, TF_OpKernelContext* ctx) {
  HeldArray held(ctx);
  TensorArray* array = held.get();
  if (array == nullptr) return;
  TensorPtr out = AllocateOutput<int32_t>(ctx, 0, {});
  if (!out) return;
  std::lock_guard<std::mutex> lock(array->mu());
  *Data<int32_t>(out) = array->size();
}

void CloseCompute(void*, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  OPGEN_KernelDestroyResource(ctx, 0, 0, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

// ---- TensorArrayGradV3 / TensorArrayGradWithShape ---------------------------------------

struct GradAttrs {
  std::string source;  // which gradient computation: one gradient array per source
};

void* NewGradAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new GradAttrs{kernels::StringAttr(ctx, "source", s.get())};
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
void DeleteGradAttrs(void* a) { delete static_cast<GradAttrs*>(a); }

struct MakeGradArgs {
  TensorArray* forward;
  std::string name;
  Shape element_shape;
  std::vector<int64_t> prepend;
};

void* MakeGradArray(void* arg, TF_Status*) {
  const auto* m = static_cast<const MakeGradArgs*>(arg);
  std::lock_guard<std::mutex> lock(m->forward->mu());
  auto* grad = new TensorArray(m->name, m->forward->dtype(), m->element_shape,
                               m->forward->size(), /*dynamic_size=*/false,
                               /*clear_after_read=*/true, m->forward->identical_shapes(),
                               ArrayKind{/*aggregate_writes=*/true, /*is_grad=*/true});
  grad->CopyShapesFrom(*m->forward, m->prepend);
  grad->set_container(m->forward->container());
  return grad;
}

// The gradient array of the array input 0 names, for gradient computation `source`: made
// on the first call (same size and dtype; written forward elements read as zeros of their
// shapes), the same array on later calls in the step.
void GradCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const GradAttrs*>(p);
  HeldArray held(ctx);
  TensorArray* forward = held.get();
  if (forward == nullptr) return;
  MakeGradArgs m{forward, forward->name() + "@" + a->source, {}, {}};
  const bool with_shape = TF_NumInputs(ctx) > 2;
  if (with_shape) {  // TensorArrayGradWithShape: elements of shape_to_prepend + the forward's
    const TF_Tensor* prepend = BorrowInput(ctx, 2);
    if (prepend == nullptr) return;
    if (TF_NumDims(prepend) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "shape must be a vector, got shape " + ShapeString(Dims(prepend)));
    m.prepend = IndexValues(prepend);
    for (int64_t d : m.prepend)
      if (d < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "Dimension " + std::to_string(d) + " must be >= 0");
  }
  {
    std::lock_guard<std::mutex> lock(forward->mu());
    forward->DisableDynamicSize();
    if (!forward->GradientsAllowed())
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Unable to create a gradients TensorArray for " + forward->name() +
                      ".  Perhaps you used the multiple_writes_aggregate flag on a previous write?  "
                      "Gradient calculation is impossible when multiple writes are performed to "
                      "the same index.");
    const Shape& element = forward->element_shape();
    if (!with_shape) {
      m.element_shape = element;
    } else if (element.rank_known) {
      m.element_shape.rank_known = true;
      m.element_shape.dims = m.prepend;
      m.element_shape.dims.insert(m.element_shape.dims.end(), element.dims.begin(), element.dims.end());
    }
  }
  StatusPtr s = NewStatus();
  OPGEN_KernelCreateResourceHandle(ctx, 0, forward->container().c_str(), m.name.c_str(), kArrayType, &MakeGradArray,
                                   &m, &DeleteArray, s.get());
  if (TF_GetCode(s.get()) != TF_OK) return TF_OpKernelContext_Failure(ctx, s.get());
  TensorPtr flow = AllocateOutput<float>(ctx, 1, {});
  if (flow) *Data<float>(flow) = 0.0f;
}

}  // namespace

void RegisterTensorArrayKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"TensorArrayV3", {{"dtype", t}}, {}, CreateCompute, NewCreateAttrs,
                             DeleteCreateAttrs}, status);
    RegisterKernel(kDevice, {"TensorArrayWriteV3", {{"T", t}}, {}, WriteCompute}, status);
    RegisterKernel(kDevice, {"TensorArrayScatterV3", {{"T", t}}, {}, ScatterCompute}, status);
    RegisterKernel(kDevice, {"TensorArraySplitV3", {{"T", t}}, {}, SplitCompute}, status);
    RegisterKernel(kDevice, {"TensorArrayReadV3", {{"dtype", t}}, {}, ReadCompute,
                             NewDtypeAttr<kNoShape>, DeleteDtypeAttr}, status);
    RegisterKernel(kDevice, {"TensorArrayGatherV3", {{"dtype", t}}, {}, GatherCompute,
                             NewDtypeAttr<kElementShape>, DeleteDtypeAttr}, status);
    RegisterKernel(kDevice, {"TensorArrayConcatV3", {{"dtype", t}}, {}, ConcatCompute,
                             NewDtypeAttr<kExcept0>, DeleteDtypeAttr}, status);
  }
  RegisterKernel(kDevice, {"TensorArraySizeV3", {}, {}, SizeCompute}, status);
  RegisterKernel(kDevice, {"TensorArrayCloseV3", {}, {}, CloseCompute}, status);
  RegisterKernel(kDevice, {"TensorArrayGradV3", {}, {}, GradCompute, NewGradAttrs, DeleteGradAttrs},
                 status);
  RegisterKernel(kDevice, {"TensorArrayGradWithShape", {}, {}, GradCompute, NewGradAttrs,
                           DeleteGradAttrs}, status);
}

}  // namespace cpu
}  // namespace opgen
