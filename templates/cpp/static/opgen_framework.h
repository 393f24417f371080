// Part of opgen's C++ API, the same for every OpList: `opgen generate --lang cpp`
// copies this file unchanged. Do not edit the copy: regenerate instead.
//
// The framework the generated ops (opgen_ops.h) build on: a header-only C++17 layer over
// TensorFlow's C API (tensorflow/c/c_api.h), shaped like TensorFlow's C++ API.
//
//   Scope          a graph plus a name scope (TensorFlow's unique naming: "MatMul",
//                  "MatMul_1", "layer/MatMul"), a device and control dependencies
//   Output         one output of an operation; OutputList a std::vector of them
//   Input          what an op argument accepts: an Output, an op object, a Tensor or a
//                  constant (a scalar, or nested braces {{1.f, 2.f}, {3.f, 4.f}})
//                  that becomes a Const operation
//   Tensor         a shared, immutable TF_Tensor
//   ClientSession  runs the scope's graph: Run(feeds, fetches)
//   Variable       a resource variable (VarHandleOp): Read, Assign, AssignAdd, AssignSub,
//                  Initializer; GlobalVariablesInitializer runs every initializer of a graph
//
// Every C handle is owned by an RAII object. Every failure of the C API is thrown as
// opgen::Error, which carries TensorFlow's TF_Code; nothing here returns a status.
// The graph lives as long as any Scope or ClientSession made from it; Output and
// Operation values point into it.
#ifndef OPGEN_GENERATED_FRAMEWORK_H_
#define OPGEN_GENERATED_FRAMEWORK_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorflow/c/c_api.h"

namespace opgen {

/// A failure reported by TensorFlow's C API: its TF_Code and message.
class Error : public std::runtime_error {
 public:
  Error(TF_Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  TF_Code code() const noexcept { return code_; }

 private:
  TF_Code code_;
};

namespace internal {

/// An owned TF_Status; ThrowIfError turns a failure into opgen::Error.
class Status {
 public:
  Status() : status_(TF_NewStatus()) {
    if (status_ == nullptr) throw std::bad_alloc();
  }
  ~Status() { TF_DeleteStatus(status_); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  TF_Status* get() const { return status_; }
  void ThrowIfError() const {
    if (TF_GetCode(status_) != TF_OK) throw Error(TF_GetCode(status_), TF_Message(status_));
  }

 private:
  TF_Status* status_;
};

struct GraphDeleter {
  void operator()(TF_Graph* graph) const { TF_DeleteGraph(graph); }
};

struct TensorDeleter {
  void operator()(TF_Tensor* tensor) const {
    if (tensor != nullptr) TF_DeleteTensor(tensor);
  }
};

}  // namespace internal

/// The TF_DataType of a C++ element type: bool, floating point and integer types.
template <typename T>
constexpr TF_DataType DataTypeOf() {
  static_assert(std::is_arithmetic<T>::value, "only arithmetic types map to a TF_DataType");
  if constexpr (std::is_same<T, bool>::value) {
    return TF_BOOL;
  } else if constexpr (std::is_floating_point<T>::value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float and double only");
    return sizeof(T) == 4 ? TF_FLOAT : TF_DOUBLE;
  } else if constexpr (std::is_signed<T>::value) {
    return sizeof(T) == 1 ? TF_INT8 : sizeof(T) == 2 ? TF_INT16 : sizeof(T) == 4 ? TF_INT32 : TF_INT64;
  } else {
    return sizeof(T) == 1 ? TF_UINT8 : sizeof(T) == 2 ? TF_UINT16 : sizeof(T) == 4 ? TF_UINT32 : TF_UINT64;
  }
}

/// A shape that may be partly unknown: -1 dims are unknown; UnknownRank() has no dims.
class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // a scalar
  PartialTensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit PartialTensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  static PartialTensorShape UnknownRank() {
    PartialTensorShape shape;
    shape.unknown_rank_ = true;
    return shape;
  }
  bool unknown_rank() const { return unknown_rank_; }
  /// -1 for an unknown rank, as TF_SetAttrShape takes it.
  int num_dims() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = false;
};

/// A TF_Tensor shared between copies and never modified after it is made.
class Tensor {
 public:
  /// An empty tensor (no TF_Tensor): as an optional attr, "the OpDef's default".
  Tensor() = default;
  /// Takes ownership of `tensor`.
  explicit Tensor(TF_Tensor* tensor) : tensor_(tensor, internal::TensorDeleter()) {}
  /// A zero-filled tensor of `dtype` and `dims` (fixed-size element types only).
  Tensor(TF_DataType dtype, const std::vector<int64_t>& dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    size_t bytes = TF_DataTypeSize(dtype) * static_cast<size_t>(count);
    TF_Tensor* tensor = TF_AllocateTensor(dtype, dims.data(), static_cast<int>(dims.size()), bytes);
    if (tensor == nullptr) throw Error(TF_INVALID_ARGUMENT, "cannot allocate a tensor of that type");
    if (bytes > 0) std::memset(TF_TensorData(tensor), 0, bytes);
    tensor_.reset(tensor, internal::TensorDeleter());
  }
  /// A tensor of `dims` holding `values` in row-major order.
  template <typename T>
  static Tensor FromValues(const std::vector<T>& values, const std::vector<int64_t>& dims) {
    Tensor tensor(DataTypeOf<T>(), dims);
    if (static_cast<size_t>(tensor.NumElements()) != values.size())
      throw Error(TF_INVALID_ARGUMENT, "a tensor of " + std::to_string(tensor.NumElements()) +
                                           " elements cannot hold " + std::to_string(values.size()) + " values");
    T* data = static_cast<T*>(TF_TensorData(tensor.c_tensor()));
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
    return tensor;
  }
  template <typename T>
  static Tensor Scalar(T value) { return FromValues(std::vector<T>{value}, {}); }

  bool empty() const { return tensor_ == nullptr; }
  TF_Tensor* c_tensor() const { return tensor_.get(); }
  TF_DataType dtype() const { return TF_TensorType(Get()); }
  int dims() const { return TF_NumDims(Get()); }
  int64_t dim(int index) const { return TF_Dim(Get(), index); }
  std::vector<int64_t> shape() const {
    std::vector<int64_t> result;
    for (int i = 0; i < dims(); ++i) result.push_back(dim(i));
    return result;
  }
  int64_t NumElements() const { return TF_TensorElementCount(Get()); }
  /// The elements; throws when T is not the tensor's element type.
  template <typename T>
  const T* data() const {
    if (DataTypeOf<T>() != dtype()) throw Error(TF_INVALID_ARGUMENT, "tensor element type mismatch");
    return static_cast<const T*>(TF_TensorData(Get()));
  }
  template <typename T>
  std::vector<T> ToVector() const {
    const T* values = data<T>();
    return std::vector<T>(values, values + NumElements());
  }

 private:
  TF_Tensor* Get() const {
    if (tensor_ == nullptr) throw Error(TF_FAILED_PRECONDITION, "the tensor is empty");
    return tensor_.get();
  }
  std::shared_ptr<TF_Tensor> tensor_;
};

class Output;

/// An operation of a graph (not owned: the graph owns it).
class Operation {
 public:
  Operation() = default;
  explicit Operation(TF_Operation* op) : op_(op) {}
  TF_Operation* c_op() const { return op_; }
  std::string name() const { return TF_OperationName(op_); }
  std::string op_type() const { return TF_OperationOpType(op_); }
  std::string device() const { return TF_OperationDevice(op_); }
  int num_outputs() const { return TF_OperationNumOutputs(op_); }
  inline Output output(int index) const;

 private:
  TF_Operation* op_ = nullptr;
};

/// Output `index` of an operation.
class Output {
 public:
  Output() = default;
  Output(TF_Operation* op, int index) : op_(op), index_(index) {}
  Output(const Operation& op, int index) : op_(op.c_op()), index_(index) {}
  Operation op() const { return Operation(op_); }
  int index() const { return index_; }
  TF_Output c_output() const { return TF_Output{op_, index_}; }
  TF_DataType type() const { return TF_OperationOutputType(c_output()); }
  /// "name:index", as TensorFlow names tensors.
  std::string name() const { return op().name() + ":" + std::to_string(index_); }
  bool operator==(const Output& other) const { return op_ == other.op_ && index_ == other.index_; }
  bool operator!=(const Output& other) const { return !(*this == other); }

 private:
  TF_Operation* op_ = nullptr;
  int index_ = 0;
};

inline Output Operation::output(int index) const { return Output(op_, index); }

struct OutputHash {
  size_t operator()(const Output& output) const {
    return std::hash<const void*>()(output.op().c_op()) * 31 + static_cast<size_t>(output.index());
  }
};

using OutputList = std::vector<Output>;

/// An op argument: an Output, or a constant that becomes a Const operation.
class Input {
 public:
  /// A constant value: a scalar, a Tensor, or nested braces of equal-shaped values.
  class Initializer {
   public:
    template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
    Initializer(const T& value) : tensor_(Tensor::Scalar(value)) {}
    Initializer(const Tensor& tensor) : tensor_(tensor) {}
    template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
    Initializer(std::initializer_list<T> values)
        : tensor_(Tensor::FromValues(std::vector<T>(values), {static_cast<int64_t>(values.size())})) {}
    /// Stacks `rows`, which must share element type and shape, along a new first dim.
    Initializer(std::initializer_list<Initializer> rows) {
      if (rows.size() == 0) throw Error(TF_INVALID_ARGUMENT, "an empty {} has no element type");
      const Tensor& first = rows.begin()->tensor_;
      std::vector<int64_t> dims = first.shape();
      size_t row_bytes = TF_TensorByteSize(first.c_tensor());
      for (const Initializer& row : rows) {
        if (row.tensor_.dtype() != first.dtype() || row.tensor_.shape() != dims)
          throw Error(TF_INVALID_ARGUMENT, "initializer rows differ in element type or shape");
      }
      if (TF_DataTypeSize(first.dtype()) == 0)
        throw Error(TF_UNIMPLEMENTED, "only fixed-size element types stack into a constant");
      dims.insert(dims.begin(), static_cast<int64_t>(rows.size()));
      Tensor stacked(first.dtype(), dims);
      char* out = static_cast<char*>(TF_TensorData(stacked.c_tensor()));
      for (const Initializer& row : rows) {
        std::memcpy(out, TF_TensorData(row.tensor_.c_tensor()), row_bytes);
        out += row_bytes;
      }
      tensor_ = stacked;
    }
    const Tensor& tensor() const { return tensor_; }

   private:
    Tensor tensor_;
  };

  Input(const Output& output) : output_(output) {}
  Input(const Tensor& tensor) : constant_(tensor) {}
  Input(const Initializer& init) : constant_(init.tensor()) {}
  template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  Input(const T& value) : constant_(Tensor::Scalar(value)) {}
  Input(std::initializer_list<Initializer> rows) : constant_(Initializer(rows).tensor()) {}

  bool is_constant() const { return !constant_.empty(); }
  const Output& output() const { return output_; }
  const Tensor& constant() const { return constant_; }

 private:
  Output output_;
  Tensor constant_;
};

/// A list argument: an OutputList, or braces of Inputs.
class InputList {
 public:
  InputList(const OutputList& outputs) : inputs_(outputs.begin(), outputs.end()) {}
  InputList(std::initializer_list<Input> inputs) : inputs_(inputs) {}
  InputList(std::vector<Input> inputs) : inputs_(std::move(inputs)) {}
  const std::vector<Input>& inputs() const { return inputs_; }

 private:
  std::vector<Input> inputs_;
};

class Scope;
class Variable;
inline Operation GlobalVariablesInitializer(const Scope& scope);

namespace internal {

/// One operation being described. Finish adds it to the graph; if it is destroyed
/// unfinished (an exception on the way), it is finished with the error ignored: the C
/// API has no other way to release a description.
class OperationBuilder {
 public:
  inline OperationBuilder(const Scope& scope, const char* op_type, const std::string& name);
  ~OperationBuilder() {
    if (desc_ != nullptr) {
      TF_Status* scratch = TF_NewStatus();
      TF_FinishOperation(desc_, scratch);
      TF_DeleteStatus(scratch);
    }
  }
  OperationBuilder(const OperationBuilder&) = delete;
  OperationBuilder& operator=(const OperationBuilder&) = delete;

  void AddInput(const Output& input) { TF_AddInput(desc_, input.c_output()); }
  void AddInputList(const OutputList& inputs) {
    std::vector<TF_Output> outputs;
    for (const Output& input : inputs) outputs.push_back(input.c_output());
    TF_AddInputList(desc_, outputs.data(), static_cast<int>(outputs.size()));
  }
  void SetAttrInt(const char* name, int64_t value) { TF_SetAttrInt(desc_, name, value); }
  void SetAttrFloat(const char* name, float value) { TF_SetAttrFloat(desc_, name, value); }
  void SetAttrBool(const char* name, bool value) { TF_SetAttrBool(desc_, name, value ? 1 : 0); }
  void SetAttrType(const char* name, TF_DataType value) { TF_SetAttrType(desc_, name, value); }
  void SetAttrString(const char* name, const std::string& value) {
    TF_SetAttrString(desc_, name, value.data(), value.size());
  }
  void SetAttrFunc(const char* name, const std::string& value) {
    TF_SetAttrFuncName(desc_, name, value.data(), value.size());
  }
  void SetAttrShape(const char* name, const PartialTensorShape& value) {
    TF_SetAttrShape(desc_, name, value.dims().data(), value.num_dims());
  }
  void SetAttrTensor(const char* name, const Tensor& value) {
    Status status;
    TF_SetAttrTensor(desc_, name, value.c_tensor(), status.get());
    status.ThrowIfError();
  }
  void SetAttrIntList(const char* name, const std::vector<int64_t>& values) {
    TF_SetAttrIntList(desc_, name, values.data(), static_cast<int>(values.size()));
  }
  void SetAttrFloatList(const char* name, const std::vector<float>& values) {
    TF_SetAttrFloatList(desc_, name, values.data(), static_cast<int>(values.size()));
  }
  void SetAttrBoolList(const char* name, const std::vector<bool>& values) {
    std::vector<unsigned char> bytes(values.begin(), values.end());
    TF_SetAttrBoolList(desc_, name, bytes.data(), static_cast<int>(bytes.size()));
  }
  void SetAttrTypeList(const char* name, const std::vector<TF_DataType>& values) {
    TF_SetAttrTypeList(desc_, name, values.data(), static_cast<int>(values.size()));
  }
  void SetAttrStringList(const char* name, const std::vector<std::string>& values) {
    std::vector<const void*> data;
    std::vector<size_t> lengths;
    for (const std::string& value : values) {
      data.push_back(value.data());
      lengths.push_back(value.size());
    }
    TF_SetAttrStringList(desc_, name, data.data(), lengths.data(), static_cast<int>(values.size()));
  }
  void SetAttrShapeList(const char* name, const std::vector<PartialTensorShape>& values) {
    std::vector<const int64_t*> dims;
    std::vector<int> num_dims;
    for (const PartialTensorShape& value : values) {
      dims.push_back(value.dims().data());
      num_dims.push_back(value.num_dims());
    }
    TF_SetAttrShapeList(desc_, name, dims.data(), num_dims.data(), static_cast<int>(values.size()));
  }
  void SetAttrTensorList(const char* name, const std::vector<Tensor>& values) {
    std::vector<TF_Tensor*> tensors;
    for (const Tensor& value : values) tensors.push_back(value.c_tensor());
    Status status;
    TF_SetAttrTensorList(desc_, name, tensors.data(), static_cast<int>(tensors.size()), status.get());
    status.ThrowIfError();
  }
  /// list(func): the C API takes it only as AttrValue bytes,
  /// AttrValue{list: ListValue{func: [NameAttrList{name}]}} (fields 1, 9 and 1).
  void SetAttrFuncList(const char* name, const std::vector<std::string>& values) {
    std::string list;
    for (const std::string& value : values) {
      std::string entry = "\x0a" + Varint(value.size()) + value;
      list += "\x4a" + Varint(entry.size()) + entry;
    }
    std::string proto = "\x0a" + Varint(list.size()) + list;
    Status status;
    TF_SetAttrValueProto(desc_, name, proto.data(), proto.size(), status.get());
    status.ThrowIfError();
  }

  Operation Finish() {
    Status status;
    TF_OperationDescription* desc = desc_;
    desc_ = nullptr;
    TF_Operation* op = TF_FinishOperation(desc, status.get());
    status.ThrowIfError();
    return Operation(op);
  }

 private:
  static std::string Varint(uint64_t value) {
    std::string out;
    while (value >= 0x80) {
      out += static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    out += static_cast<char>(value);
    return out;
  }
  TF_OperationDescription* desc_;
};

/// The outputs of list output `arg`, from flat index *index on; advances *index.
inline OutputList ListOutputs(const Operation& op, const char* arg, int* index) {
  Status status;
  int length = TF_OperationOutputListLength(op.c_op(), arg, status.get());
  status.ThrowIfError();
  OutputList outputs;
  for (int i = 0; i < length; ++i) outputs.push_back(Output(op, (*index)++));
  return outputs;
}

}  // namespace internal

/// Where new operations go: a graph, a name scope, a device, control dependencies.
/// Copies are cheap; With* return a changed copy and leave this one alone.
class Scope {
 public:
  /// A new, empty graph and its root scope.
  static Scope NewRootScope() {
    TF_Graph* graph = TF_NewGraph();
    if (graph == nullptr) throw std::bad_alloc();
    Scope scope;
    scope.graph_ = std::shared_ptr<TF_Graph>(graph, internal::GraphDeleter());
    scope.names_ = std::make_shared<Names>();
    scope.initializers_ = std::make_shared<std::vector<Operation>>();
    return scope;
  }

  /// The next operation made in the returned scope is called `name` (made unique).
  Scope WithOpName(const std::string& name) const {
    Scope scope = *this;
    scope.op_name_ = name;
    return scope;
  }
  /// Operations made in the returned scope are named "<this scope>/<child>/...";
  /// `child` is made unique among this scope's names.
  Scope NewSubScope(const std::string& child) const {
    Scope scope = *this;
    std::string unique = UniqueName(child.empty() ? "scope" : child);
    scope.prefix_ = prefix_.empty() ? unique : prefix_ + "/" + unique;
    scope.names_ = std::make_shared<Names>();
    scope.op_name_.clear();
    return scope;
  }
  Scope WithDevice(const std::string& device) const {
    Scope scope = *this;
    scope.device_ = device;
    return scope;
  }
  /// Operations made in the returned scope run after `ops` (added to any already set).
  Scope WithControlDependencies(const std::vector<Operation>& ops) const {
    Scope scope = *this;
    scope.control_deps_.insert(scope.control_deps_.end(), ops.begin(), ops.end());
    return scope;
  }
  Scope WithControlDependencies(const Output& output) const {
    return WithControlDependencies(std::vector<Operation>{output.op()});
  }
  Scope WithNoControlDependencies() const {
    Scope scope = *this;
    scope.control_deps_.clear();
    return scope;
  }

  TF_Graph* graph() const { return graph_.get(); }
  std::shared_ptr<TF_Graph> graph_as_shared_ptr() const { return graph_; }
  const std::string& device() const { return device_; }
  const std::vector<Operation>& control_deps() const { return control_deps_; }

  /// The full name for an operation: the WithOpName name, else `default_name`, made
  /// unique in this scope ("MatMul", "MatMul_1", ...) and prefixed with the scope's path.
  std::string GetUniqueNameForOp(const std::string& default_name) const {
    return Full(UniqueName(op_name_.empty() ? default_name : op_name_));
  }

  /// `input` as an Output of this graph: a constant becomes a Const operation.
  Output AsOutput(const Input& input) const {
    if (!input.is_constant()) return input.output();
    Scope scope = WithOpName("");
    internal::OperationBuilder builder(scope, "Const", scope.GetUniqueNameForOp("Const"));
    builder.SetAttrTensor("value", input.constant());
    builder.SetAttrType("dtype", input.constant().dtype());
    return Output(builder.Finish(), 0);
  }
  OutputList AsOutputList(const InputList& inputs) const {
    OutputList outputs;
    for (const Input& input : inputs.inputs()) outputs.push_back(AsOutput(input));
    return outputs;
  }

 private:
  friend class Variable;  // adds its initializer to initializers_
  friend Operation GlobalVariablesInitializer(const Scope& scope);
  Scope() = default;

  // Names handed out at one level of the scope tree; shared by the copies of a scope.
  struct Names {
    std::unordered_map<std::string, int> counts;
  };

  // `base` if free, else `base_1`, `base_2`... (skipping names taken in this scope or,
  // with the scope's path in front, in the graph).
  std::string UniqueName(const std::string& base) const {
    std::string candidate = base;
    bool seen = names_->counts.count(base) != 0;
    int& count = names_->counts[base];
    if (seen || Taken(candidate)) {
      do {
        candidate = base + "_" + std::to_string(++count);
      } while (names_->counts.count(candidate) != 0 || Taken(candidate));
      names_->counts[candidate] = 0;
    }
    return candidate;
  }
  std::string Full(const std::string& name) const {
    return prefix_.empty() ? name : prefix_ + "/" + name;
  }
  bool Taken(const std::string& name) const {
    return TF_GraphOperationByName(graph_.get(), Full(name).c_str()) != nullptr;
  }

  std::shared_ptr<TF_Graph> graph_;
  std::shared_ptr<Names> names_;
  // The initializers of the Variables made in the graph: shared by every scope of one root.
  std::shared_ptr<std::vector<Operation>> initializers_;
  std::string prefix_;
  std::string op_name_;
  std::string device_;
  std::vector<Operation> control_deps_;
};

namespace internal {

inline OperationBuilder::OperationBuilder(const Scope& scope, const char* op_type,
                                          const std::string& name)
    : desc_(TF_NewOperation(scope.graph(), op_type, name.c_str())) {
  if (desc_ == nullptr) throw std::bad_alloc();
  if (!scope.device().empty()) TF_SetDevice(desc_, scope.device().c_str());
  for (const Operation& op : scope.control_deps()) TF_AddControlInput(desc_, op.c_op());
}

}  // namespace internal

/// Runs the graph of a scope. The session keeps the graph alive.
class ClientSession {
 public:
  /// Values to feed: each Output gets a Tensor or a constant ({{1.f, 2.f}}, 3.f, ...).
  using FeedType = std::unordered_map<Output, Input::Initializer, OutputHash>;

  explicit ClientSession(const Scope& scope) : graph_(scope.graph_as_shared_ptr()) {
    internal::Status status;
    TF_SessionOptions* options = TF_NewSessionOptions();
    session_ = TF_NewSession(graph_.get(), options, status.get());
    TF_DeleteSessionOptions(options);
    status.ThrowIfError();
  }
  ~ClientSession() {
    TF_Status* status = TF_NewStatus();
    TF_CloseSession(session_, status);
    TF_DeleteSession(session_, status);
    TF_DeleteStatus(status);
  }
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;

  std::vector<Tensor> Run(const std::vector<Output>& fetches) const { return Run(FeedType(), fetches); }
  /// Feeds `feeds`, runs `targets` and what `fetches` need, returns the fetched values.
  std::vector<Tensor> Run(const FeedType& feeds, const std::vector<Output>& fetches,
                          const std::vector<Operation>& targets = {}) const {
    std::vector<TF_Output> feed_outputs, fetch_outputs;
    std::vector<TF_Tensor*> feed_values;
    for (const auto& feed : feeds) {
      feed_outputs.push_back(feed.first.c_output());
      feed_values.push_back(feed.second.tensor().c_tensor());
    }
    for (const Output& fetch : fetches) fetch_outputs.push_back(fetch.c_output());
    std::vector<TF_Operation*> target_ops;
    for (const Operation& op : targets) target_ops.push_back(op.c_op());
    std::vector<TF_Tensor*> results(fetches.size(), nullptr);
    internal::Status status;
    TF_SessionRun(session_, nullptr, feed_outputs.data(), feed_values.data(),
                  static_cast<int>(feed_values.size()), fetch_outputs.data(), results.data(),
                  static_cast<int>(results.size()), target_ops.data(),
                  static_cast<int>(target_ops.size()), nullptr, status.get());
    std::vector<Tensor> values;  // owns whatever came back, also on failure
    for (TF_Tensor* result : results) values.push_back(Tensor(result));
    status.ThrowIfError();
    return values;
  }

 private:
  std::shared_ptr<TF_Graph> graph_;
  TF_Session* session_ = nullptr;
};


// ----------------------------------------------------------------- resource variables

namespace internal {

/// TensorFlow's name of a dtype ("float32", "int64"), as messages give it.
inline std::string DataTypeName(TF_DataType dtype) {
  static const char* const names[] = {
      "invalid", "float32", "float64", "int32", "uint8", "int16", "int8", "string", "complex64",
      "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16",
      "complex128", "float16", "resource", "variant", "uint32", "uint64"};
  int index = static_cast<int>(dtype);
  if (index >= 0 && index < static_cast<int>(sizeof(names) / sizeof(names[0]))) return names[index];
  return "dtype " + std::to_string(index);
}

/// The static shape shape inference gave `output`; an unknown rank when it gave none.
inline PartialTensorShape StaticShape(TF_Graph* graph, const Output& output) {
  Status status;
  int rank = TF_GraphGetTensorNumDims(graph, output.c_output(), status.get());
  if (TF_GetCode(status.get()) != TF_OK || rank < 0) return PartialTensorShape::UnknownRank();
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  TF_GraphGetTensorShape(graph, output.c_output(), dims.data(), rank, status.get());
  if (TF_GetCode(status.get()) != TF_OK) return PartialTensorShape::UnknownRank();
  return PartialTensorShape(std::move(dims));
}

/// Whether a value of shape `b` may be stored in a variable of shape `a` (unknown dims and
/// ranks match anything).
inline bool ShapesCompatible(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return true;
  if (a.dims().size() != b.dims().size()) return false;
  for (size_t i = 0; i < a.dims().size(); ++i) {
    if (a.dims()[i] >= 0 && b.dims()[i] >= 0 && a.dims()[i] != b.dims()[i]) return false;
  }
  return true;
}

inline std::string ShapeString(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::string out = "(";
  for (size_t i = 0; i < shape.dims().size(); ++i) {
    if (i > 0) out += ", ";
    out += shape.dims()[i] < 0 ? "None" : std::to_string(shape.dims()[i]);
  }
  return out + (shape.dims().size() == 1 ? ",)" : ")");
}

}  // namespace internal

/// A resource variable, as TensorFlow's graph-mode ResourceVariable builds it: a
/// VarHandleOp whose value a ClientSession keeps between Run calls (one value per
/// session). The graph gets, for a variable named NAME (the scope's WithOpName, else
/// "Variable", made unique):
///   NAME                               VarHandleOp, shared_name NAME
///   NAME/Initializer/initial_value     Const, for a constant initial value
///   NAME/Assign                        AssignVariableOp: Initializer()
/// Read, Assign, AssignAdd and AssignSub add operations named by the scope they are given
/// (which must be of the variable's graph). A value of another dtype, or of a static shape
/// that cannot be the variable's, is refused here with TF_INVALID_ARGUMENT; reading a
/// variable no run has assigned fails in Run with TF_FAILED_PRECONDITION naming it.
///
///   Variable w(scope.WithOpName("w"), TF_FLOAT, {2}, {1.f, 2.f});
///   Output step = w.AssignAdd(scope, {0.5f, 0.5f});    // the value after the update
///   session.Run({}, {}, {GlobalVariablesInitializer(scope)});
///   session.Run({step});                                 // {1.5, 2.5}
class Variable {
 public:
  /// Optional attrs of the VarHandleOp; each setter returns a changed copy.
  struct Attrs {
    // User-provided, so that Attrs is no aggregate: braces go to the initial value.
    Attrs() {}
    /// The resource container ("" is the default one, "localhost").
    Attrs Container(const std::string& value) const {
      Attrs copy = *this;
      copy.container_ = value;
      return copy;
    }
    /// The name the variable's value is kept under; by default the VarHandleOp's name.
    /// Variables of one session with the same shared name share their value.
    Attrs SharedName(const std::string& value) const {
      Attrs copy = *this;
      copy.shared_name_ = value;
      return copy;
    }
    std::string container_;
    std::string shared_name_;
  };
  static Attrs Container(const std::string& value) { return Attrs().Container(value); }
  static Attrs SharedName(const std::string& value) { return Attrs().SharedName(value); }

  /// A variable of `dtype` and `shape` (-1 dims and UnknownRank() leave it open) without
  /// an initial value: Initializer() throws; assign it before reading it.
  Variable(const Scope& scope, TF_DataType dtype, const PartialTensorShape& shape,
           const Attrs& attrs = Attrs())
      : dtype_(dtype), shape_(shape) {
    Build(scope, attrs, nullptr);
  }
  /// A variable of `dtype` and `shape` whose Initializer() assigns `initial_value`.
  Variable(const Scope& scope, TF_DataType dtype, const PartialTensorShape& shape,
           const Input& initial_value, const Attrs& attrs = Attrs())
      : dtype_(dtype), shape_(shape) {
    Build(scope, attrs, &initial_value);
  }
  /// A variable of the dtype and static shape of `initial_value`.
  Variable(const Scope& scope, const Input& initial_value, const Attrs& attrs = Attrs()) {
    Output value = initial_value.is_constant() ? Output() : initial_value.output();
    dtype_ = value.op().c_op() != nullptr ? value.type() : initial_value.constant().dtype();
    shape_ = value.op().c_op() != nullptr ? internal::StaticShape(scope.graph(), value)
                                          : PartialTensorShape(initial_value.constant().shape());
    Build(scope, attrs, &initial_value);
  }

  /// The DT_RESOURCE scalar naming the variable: the input of the generated
  /// ReadVariableOp, AssignVariableOp... classes.
  Output handle() const { return handle_; }
  TF_DataType dtype() const { return dtype_; }
  const PartialTensorShape& shape() const { return shape_; }
  /// The VarHandleOp's name ("w", "layer/Variable_1").
  const std::string& name() const { return name_; }

  /// The operation assigning the initial value (run it once per session); throws
  /// TF_FAILED_PRECONDITION for a variable made without one.
  Operation Initializer() const {
    if (initializer_.c_op() == nullptr)
      throw Error(TF_FAILED_PRECONDITION, "variable '" + name_ + "' has no initial value");
    return initializer_;
  }

  /// The value when the returned output is computed (a ReadVariableOp).
  Output Read(const Scope& scope) const {
    CheckScope(scope, "read");
    internal::OperationBuilder builder(scope, "ReadVariableOp",
                                       scope.GetUniqueNameForOp("ReadVariableOp"));
    builder.AddInput(handle_);
    builder.SetAttrType("dtype", dtype_);
    return Output(builder.Finish(), 0);
  }
  /// Sets the value to `value`; returns the value read after the assignment (fetch it,
  /// or run its op as a target, to assign).
  Output Assign(const Scope& scope, const Input& value) const {
    return Update(scope, "AssignVariableOp", "assign", value);
  }
  /// Adds `delta` (same shape); returns the value after the addition.
  Output AssignAdd(const Scope& scope, const Input& delta) const {
    return Update(scope, "AssignAddVariableOp", "add", delta);
  }
  /// Subtracts `delta` (same shape); returns the value after the subtraction.
  Output AssignSub(const Scope& scope, const Input& delta) const {
    return Update(scope, "AssignSubVariableOp", "subtract", delta);
  }

 private:
  void Build(const Scope& scope, const Attrs& attrs, const Input* initial_value) {
    graph_ = scope.graph();
    name_ = scope.GetUniqueNameForOp("Variable");
    internal::OperationBuilder handle(scope, "VarHandleOp", name_);
    handle.SetAttrString("container", attrs.container_);
    handle.SetAttrString("shared_name", attrs.shared_name_.empty() ? name_ : attrs.shared_name_);
    handle.SetAttrString("debug_name", name_);
    handle.SetAttrType("dtype", dtype_);
    handle.SetAttrShape("shape", shape_);
    handle_ = Output(handle.Finish(), 0);
    if (initial_value == nullptr) return;
    Output value;
    if (initial_value->is_constant()) {
      internal::OperationBuilder constant(scope, "Const", name_ + "/Initializer/initial_value");
      constant.SetAttrTensor("value", initial_value->constant());
      constant.SetAttrType("dtype", initial_value->constant().dtype());
      value = Output(constant.Finish(), 0);
    } else {
      value = initial_value->output();
    }
    CheckValue(value, "assign");
    internal::OperationBuilder assign(scope, "AssignVariableOp", name_ + "/Assign");
    assign.AddInput(handle_);
    assign.AddInput(value);
    initializer_ = assign.Finish();
    scope.initializers_->push_back(initializer_);
  }

  void CheckScope(const Scope& scope, const char* what) const {
    if (scope.graph() != graph_)
      throw Error(TF_INVALID_ARGUMENT, std::string("cannot ") + what + " variable '" + name_ +
                                           "' in a scope of another graph");
  }

  void CheckValue(const Output& value, const char* what) const {
    if (value.type() != dtype_)
      throw Error(TF_INVALID_ARGUMENT, std::string("cannot ") + what + " a " +
                                           internal::DataTypeName(value.type()) +
                                           " value to variable '" + name_ + "' of dtype " +
                                           internal::DataTypeName(dtype_));
    PartialTensorShape shape = internal::StaticShape(graph_, value);
    if (!internal::ShapesCompatible(shape_, shape))
      throw Error(TF_INVALID_ARGUMENT, std::string("cannot ") + what + " a value of shape " +
                                           internal::ShapeString(shape) + " to variable '" +
                                           name_ + "' of shape " + internal::ShapeString(shape_));
  }

  Output Update(const Scope& scope, const char* op_type, const char* what,
                const Input& value) const {
    CheckScope(scope, what);
    Output operand = scope.AsOutput(value);
    CheckValue(operand, what);
    internal::OperationBuilder builder(scope, op_type, scope.GetUniqueNameForOp(op_type));
    builder.AddInput(handle_);
    builder.AddInput(operand);
    Operation update = builder.Finish();
    return Read(scope.WithControlDependencies(std::vector<Operation>{update}));
  }

  TF_Graph* graph_ = nullptr;
  std::string name_;
  TF_DataType dtype_ = TF_FLOAT;
  PartialTensorShape shape_;
  Output handle_;
  Operation initializer_;
};

/// One NoOp ("init", made unique) that runs the initializers of every Variable made in
/// the scope's graph (through any scope of its root) so far.
inline Operation GlobalVariablesInitializer(const Scope& scope) {
  Scope with_deps = scope.WithControlDependencies(*scope.initializers_);
  internal::OperationBuilder builder(with_deps, "NoOp", with_deps.GetUniqueNameForOp("init"));
  return builder.Finish();
}

}  // namespace opgen

#endif  // OPGEN_GENERATED_FRAMEWORK_H_
