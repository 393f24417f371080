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
//   AddSymbolicGradients   graph gradients (TF_AddGradientsWithPrefix), as TensorFlow's
//   GradientDescentOptimizer, MomentumOptimizer, AdamOptimizer   ApplyGradients / Minimize
//                  build one train op over the ResourceApply* ops, as tf.compat.v1.train
//   Function       a FunctionDef traced from a C++ callable (Function::Define); CallFunction
//                  calls it (PartitionedCall) or a library function by name
//   ops::Cond      an If node over two branch functions, as tf.cond
//   ops::BuildWhileLoop  TensorFlow's while-loop builder: one While node (TF_NewWhile,
//                  TF_FinishWhile); TF_AbortWhile drops the loop when a builder throws
//
// Every C handle is owned by an RAII object. Every failure of the C API is thrown as
// opgen::Error, which carries TensorFlow's TF_Code; nothing here returns a status, not
// even where TensorFlow's C++ API does (BuildWhileLoop and its builder callbacks).
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
namespace internal {
struct ScopeAccess;
}  // namespace internal
class Optimizer;
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

  void AddInput(const Output& input) {
    CheckInput(input);
    TF_AddInput(desc_, input.c_output());
  }
  void AddInputList(const OutputList& inputs) {
    for (const Output& input : inputs) CheckInput(input);
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
  // An Output of another graph would corrupt both under TensorFlow's C API (it does not
  // check); a function or loop body reading the outer graph is the usual way to get one.
  void CheckInput(const Output& input) const {
    if (input.op().c_op() == nullptr)
      throw Error(TF_INVALID_ARGUMENT, "Node '" + name_ + "': an input is an empty Output");
    if (TF_GraphOperationByName(graph_, TF_OperationName(input.op().c_op())) != input.op().c_op())
      throw Error(TF_INVALID_ARGUMENT, "Node '" + name_ + "': input " + input.name() +
                                           " is not an operation of this graph (a function or loop body"
                                           " may read only its arguments)");
  }
  TF_Graph* graph_;
  std::string name_;
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
  friend class Variable;   // adds its initializer to initializers_
  friend class Optimizer;  // names the train op after its sub-scope (prefix_)
  friend Operation GlobalVariablesInitializer(const Scope& scope);
  friend struct internal::ScopeAccess;  // scopes over a while loop's graphs
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
    : graph_(scope.graph()), name_(name), desc_(nullptr) {
  for (const Operation& op : scope.control_deps()) {
    if (op.c_op() == nullptr || TF_GraphOperationByName(graph_, TF_OperationName(op.c_op())) != op.c_op())
      throw Error(TF_INVALID_ARGUMENT, "Node '" + name_ + "': a control dependency is not an operation of this graph");
  }
  desc_ = TF_NewOperation(graph_, op_type, name.c_str());
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

// ------------------------------------------------------------------------- gradients

namespace internal {

/// Throws unless `output` is an output of `graph` (TF_AddGradients cannot tell).
inline void CheckInGraph(TF_Graph* graph, const Output& output, const char* what) {
  if (output.op().c_op() == nullptr)
    throw Error(TF_INVALID_ARGUMENT, std::string("AddSymbolicGradients: an empty Output in ") + what);
  if (TF_GraphOperationByName(graph, output.op().name().c_str()) != output.op().c_op())
    throw Error(TF_INVALID_ARGUMENT, "AddSymbolicGradients: " + output.name() + " (in " + what +
                                         ") is not in the scope's graph");
}

inline void AddGradients(const Scope& scope, const OutputList& outputs, const OutputList& inputs,
                         const OutputList* grad_inputs, OutputList* grad_outputs) {
  if (grad_outputs == nullptr) throw Error(TF_INVALID_ARGUMENT, "AddSymbolicGradients: grad_outputs is null");
  std::vector<TF_Output> ys, xs, dys, dxs(inputs.size());
  for (const Output& y : outputs) {
    CheckInGraph(scope.graph(), y, "outputs");
    ys.push_back(y.c_output());
  }
  for (const Output& x : inputs) {
    CheckInGraph(scope.graph(), x, "inputs");
    xs.push_back(x.c_output());
  }
  if (grad_inputs != nullptr) {
    for (const Output& dy : *grad_inputs) {
      CheckInGraph(scope.graph(), dy, "grad_inputs");
      dys.push_back(dy.c_output());
    }
  }
  // The scope's naming gives the prefix: "gradients", "gradients_1", "layer/gradients"
  // (or the WithOpName name), so two calls never share one.
  std::string prefix = scope.GetUniqueNameForOp("gradients");
  Status status;
  TF_AddGradientsWithPrefix(scope.graph(), prefix.c_str(), ys.data(), static_cast<int>(ys.size()),
                            xs.data(), static_cast<int>(xs.size()),
                            grad_inputs != nullptr ? dys.data() : nullptr, status.get(), dxs.data());
  status.ThrowIfError();
  grad_outputs->clear();
  for (const TF_Output& dx : dxs)
    grad_outputs->push_back(dx.oper != nullptr ? Output(dx.oper, dx.index) : Output());
}

}  // namespace internal

/// TensorFlow's AddSymbolicGradients: adds to the scope's graph the gradients of the sum
/// of `outputs` with respect to each of `inputs`, `grad_inputs[i]` being the gradient fed
/// into `outputs[i]`; `*grad_outputs` gets one Output per input, an empty one (op() null)
/// for an input the outputs do not depend on. An input may be a Variable's handle(). The
/// nodes go under a name the scope makes unique ("gradients", "gradients_1", ...), through
/// TF_AddGradientsWithPrefix. Throws Error: TF_INVALID_ARGUMENT for a grad_inputs of
/// another length than outputs (or of the wrong dtype or shape), TF_NOT_FOUND for an op
/// on the path without a gradient function ("No gradient defined for op: ...").
inline void AddSymbolicGradients(const Scope& scope, const OutputList& outputs,
                                 const OutputList& inputs, const OutputList& grad_inputs,
                                 OutputList* grad_outputs) {
  if (grad_inputs.size() != outputs.size())
    throw Error(TF_INVALID_ARGUMENT, "Must specify a gradient input for each output: " +
                                         std::to_string(grad_inputs.size()) + " grad_inputs for " +
                                         std::to_string(outputs.size()) + " outputs");
  internal::AddGradients(scope, outputs, inputs, &grad_inputs, grad_outputs);
}

/// As above with ones fed into every output (OnesLike).
inline void AddSymbolicGradients(const Scope& scope, const OutputList& outputs,
                                 const OutputList& inputs, OutputList* grad_outputs) {
  internal::AddGradients(scope, outputs, inputs, nullptr, grad_outputs);
}

// ------------------------------------------------------- functions and control flow

namespace internal {

/// A root scope over `graph`, which the scope does not own (a while loop's cond or body
/// graph: TF_FinishWhile or TF_AbortWhile frees it, and with it what the scope points to).
struct ScopeAccess {
  static Scope Borrow(TF_Graph* graph) {
    Scope scope;
    scope.graph_ = std::shared_ptr<TF_Graph>(graph, [](TF_Graph*) {});
    scope.names_ = std::make_shared<Scope::Names>();
    scope.initializers_ = std::make_shared<std::vector<Operation>>();
    return scope;
  }
};

/// Throws TF_INVALID_ARGUMENT unless `output` is set and an output of `graph`.
inline void CheckOutputOf(TF_Graph* graph, const Output& output, const std::string& what) {
  if (output.op().c_op() == nullptr) throw Error(TF_INVALID_ARGUMENT, what + " is an empty Output");
  if (TF_GraphOperationByName(graph, output.op().name().c_str()) != output.op().c_op())
    throw Error(TF_INVALID_ARGUMENT, what + " (" + output.name() + ") is not in the graph being built");
}

/// Field 17 of the signature (field 1) of serialized FunctionDef bytes: OpDef.is_stateful.
/// The C API has no other way to ask; a malformed buffer reads as stateful.
inline bool SignatureIsStateful(const unsigned char* data, size_t size, int depth = 0) {
  size_t at = 0;
  auto varint = [&](uint64_t* value) {
    *value = 0;
    for (int shift = 0; at < size && shift < 64; shift += 7) {
      unsigned char byte = data[at++];
      *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  };
  while (at < size) {
    uint64_t key = 0, value = 0;
    if (!varint(&key)) return true;
    int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (wire == 0) {
      if (!varint(&value)) return true;
      if (depth == 1 && field == 17) return value != 0;
    } else if (wire == 2) {
      if (!varint(&value) || value > size - at) return true;
      if (depth == 0 && field == 1) return SignatureIsStateful(data + at, value, 1);
      at += value;
    } else if (wire == 1 || wire == 5) {
      at += wire == 1 ? 8 : 4;
    } else {
      return true;
    }
  }
  return false;
}

struct FunctionDeleter {
  void operator()(TF_Function* function) const { TF_DeleteFunction(function); }
};

}  // namespace internal

/// A function (TensorFlow's FunctionDef, an owned TF_Function) traced from C++: Define
/// calls `body` once, over a fresh graph holding one Placeholder per argument, and turns
/// what it built into a function (TF_GraphToFunction). The body may use only its
/// arguments and what it makes in the scope it gets: Outputs of other graphs are refused.
/// Functions the body calls (CallFunction, ops::Cond, ops::BuildWhileLoop inside it) come
/// along whenever the function is added to a graph. Copies share the TF_Function.
///
///   opgen::Function square_plus = opgen::Function::Define(
///       "square_plus", {TF_FLOAT, TF_FLOAT},
///       [](const opgen::Scope& s, const opgen::OutputList& a) -> opgen::OutputList {
///         return {ops::AddV2(s, ops::Mul(s, a[0], a[0]), a[1])};
///       });
///   opgen::OutputList z = opgen::CallFunction(root, square_plus, {x, y});
class Function {
 public:
  /// An argument: a dtype, and optionally the static shape its Placeholder gets.
  struct Arg {
    Arg(TF_DataType dtype, PartialTensorShape shape = PartialTensorShape::UnknownRank())
        : dtype(dtype), shape(std::move(shape)) {}
    TF_DataType dtype;
    PartialTensorShape shape;
  };
  /// Builds the function's result from its arguments (Placeholders "arg0", "arg1", ...).
  using Body = std::function<OutputList(const Scope& scope, const OutputList& args)>;

  /// Traces `body` into a function called `name` (with `append_hash_to_fn_name`, `name`
  /// and a suffix made from the function's contents, so that different functions never
  /// share a name). Throws what `body` throws, and Error: TF_INVALID_ARGUMENT for a result
  /// that is not of the function's graph, or what TF_GraphToFunction reports.
  static Function Define(const std::string& name, const std::vector<Arg>& args, const Body& body,
                         bool append_hash_to_fn_name = false) {
    Scope scope = Scope::NewRootScope();
    OutputList placeholders;
    for (size_t i = 0; i < args.size(); ++i) {
      internal::OperationBuilder placeholder(scope, "Placeholder", "arg" + std::to_string(i));
      placeholder.SetAttrType("dtype", args[i].dtype);
      placeholder.SetAttrShape("shape", args[i].shape);
      placeholders.push_back(Output(placeholder.Finish(), 0));
    }
    OutputList results = body(scope, placeholders);
    std::vector<TF_Output> c_args, c_results;
    for (const Output& arg : placeholders) c_args.push_back(arg.c_output());
    Function function;
    for (size_t i = 0; i < results.size(); ++i) {
      internal::CheckOutputOf(scope.graph(), results[i],
                              "function '" + name + "': result " + std::to_string(i));
      c_results.push_back(results[i].c_output());
      function.output_types_.push_back(results[i].type());
    }
    for (const Arg& arg : args) function.input_types_.push_back(arg.dtype);
    internal::Status status;
    TF_Function* traced = TF_GraphToFunction(
        scope.graph(), name.c_str(), append_hash_to_fn_name ? 1 : 0, -1, nullptr,
        static_cast<int>(c_args.size()), c_args.data(), static_cast<int>(c_results.size()),
        c_results.data(), nullptr, nullptr, nullptr, status.get());
    status.ThrowIfError();
    function.function_.reset(traced, internal::FunctionDeleter());
    function.dependencies_ = LibraryOf(scope.graph());
    TF_Buffer* def = TF_NewBuffer();
    TF_FunctionToFunctionDef(traced, def, status.get());
    function.stateful_ = TF_GetCode(status.get()) != TF_OK ||
                         internal::SignatureIsStateful(
                             static_cast<const unsigned char*>(def->data), def->length);
    TF_DeleteBuffer(def);
    return function;
  }

  std::string name() const { return TF_FunctionName(function_.get()); }
  TF_Function* c_function() const { return function_.get(); }
  const std::vector<TF_DataType>& input_types() const { return input_types_; }
  const std::vector<TF_DataType>& output_types() const { return output_types_; }
  /// Whether a stateful op (a variable update, a random op...) is inside: then calls go
  /// through StatefulPartitionedCall and If, else PartitionedCall and StatelessIf.
  bool stateful() const { return stateful_; }

  /// Adds the function, and those it calls, to the scope's graph (TF_GraphCopyFunction;
  /// adding it again is a no-op, another function of the same name an Error).
  void AddToGraph(const Scope& scope) const {
    internal::Status status;
    for (const auto& dependency : dependencies_) {
      TF_GraphCopyFunction(scope.graph(), dependency.get(), nullptr, status.get());
      status.ThrowIfError();
    }
    TF_GraphCopyFunction(scope.graph(), function_.get(), nullptr, status.get());
    status.ThrowIfError();
  }

 private:
  Function() = default;
  // Copies of the functions of `graph`'s library.
  static std::vector<std::shared_ptr<TF_Function>> LibraryOf(TF_Graph* graph) {
    std::vector<TF_Function*> functions(static_cast<size_t>(TF_GraphNumFunctions(graph)), nullptr);
    std::vector<std::shared_ptr<TF_Function>> owned;
    if (functions.empty()) return owned;
    internal::Status status;
    int count = TF_GraphGetFunctions(graph, functions.data(), static_cast<int>(functions.size()),
                                     status.get());
    for (int i = 0; i < count && TF_GetCode(status.get()) == TF_OK; ++i)
      owned.emplace_back(functions[static_cast<size_t>(i)], internal::FunctionDeleter());
    status.ThrowIfError();
    return owned;
  }

  std::shared_ptr<TF_Function> function_;
  std::vector<std::shared_ptr<TF_Function>> dependencies_;
  std::vector<TF_DataType> input_types_, output_types_;
  bool stateful_ = true;
};

namespace internal {

inline void CheckArguments(const Scope& scope, const OutputList& args,
                           const std::vector<TF_DataType>& types, const std::string& what) {
  if (args.size() != types.size())
    throw Error(TF_INVALID_ARGUMENT, what + " takes " + std::to_string(types.size()) +
                                         " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    CheckOutputOf(scope.graph(), args[i], what + ": argument " + std::to_string(i));
    if (args[i].type() != types[i])
      throw Error(TF_INVALID_ARGUMENT, what + ": argument " + std::to_string(i) + " is " +
                                           DataTypeName(args[i].type()) + ", not " +
                                           DataTypeName(types[i]));
  }
}

}  // namespace internal

/// Calls `function` on `inputs` in the scope's graph, adding it (and what it calls) to
/// the graph's library first: one PartitionedCall node (StatefulPartitionedCall for a
/// stateful function) named "PartitionedCall" (made unique, or the WithOpName name).
/// Returns its results. Throws Error (TF_INVALID_ARGUMENT) for inputs of another number
/// or dtype than the function's arguments. AddSymbolicGradients differentiates through it.
inline OutputList CallFunction(const Scope& scope, const Function& function, const InputList& inputs) {
  OutputList args = scope.AsOutputList(inputs);
  internal::CheckArguments(scope, args, function.input_types(), "function '" + function.name() + "'");
  function.AddToGraph(scope);
  const char* op_type = function.stateful() ? "StatefulPartitionedCall" : "PartitionedCall";
  internal::OperationBuilder call(scope, op_type, scope.GetUniqueNameForOp("PartitionedCall"));
  call.AddInputList(args);
  call.SetAttrTypeList("Tin", function.input_types());
  call.SetAttrTypeList("Tout", function.output_types());
  call.SetAttrFunc("f", function.name());
  Operation op = call.Finish();
  OutputList results;
  for (int i = 0; i < op.num_outputs(); ++i) results.push_back(op.output(i));
  return results;
}

/// Calls the function `function_name` of the scope's graph's library (added before, e.g.
/// by Function::AddToGraph) as TensorFlow's graphs do: one node whose op type is the
/// function's name, named after it (made unique). Returns its outputs. Throws Error
/// (TF_NOT_FOUND) when no function and no op has that name.
inline OutputList CallFunction(const Scope& scope, const std::string& function_name,
                               const InputList& inputs) {
  OutputList args = scope.AsOutputList(inputs);
  internal::OperationBuilder call(scope, function_name.c_str(), scope.GetUniqueNameForOp(function_name));
  for (const Output& arg : args) call.AddInput(arg);
  Operation op = call.Finish();
  OutputList results;
  for (int i = 0; i < op.num_outputs(); ++i) results.push_back(op.output(i));
  return results;
}

namespace internal {

// The If node `name` of ops::Cond.
inline OutputList BuildIf(const Scope& scope, const std::string& name, const Input& pred,
                          const InputList& inputs, const Function& then_branch,
                          const Function& else_branch) {
  Output condition = scope.AsOutput(pred);
  internal::CheckOutputOf(scope.graph(), condition, "Cond: pred");
  OutputList args = scope.AsOutputList(inputs);
  internal::CheckArguments(scope, args, then_branch.input_types(), "Cond: then_branch");
  internal::CheckArguments(scope, args, else_branch.input_types(), "Cond: else_branch");
  const std::vector<TF_DataType>& then_types = then_branch.output_types();
  const std::vector<TF_DataType>& else_types = else_branch.output_types();
  if (then_types.size() != else_types.size())
    throw Error(TF_INVALID_ARGUMENT, "Cond: then_branch returns " + std::to_string(then_types.size()) +
                                         " results and else_branch " + std::to_string(else_types.size()));
  for (size_t i = 0; i < then_types.size(); ++i) {
    if (then_types[i] != else_types[i])
      throw Error(TF_INVALID_ARGUMENT, "Cond: result " + std::to_string(i) + " is " +
                                           internal::DataTypeName(then_types[i]) + " in then_branch and " +
                                           internal::DataTypeName(else_types[i]) + " in else_branch");
  }
  then_branch.AddToGraph(scope);
  else_branch.AddToGraph(scope);
  bool stateful = then_branch.stateful() || else_branch.stateful();
  internal::OperationBuilder node(scope, stateful ? "If" : "StatelessIf", name);
  node.AddInput(condition);
  node.AddInputList(args);
  node.SetAttrTypeList("Tin", then_branch.input_types());
  node.SetAttrTypeList("Tout", then_types);
  node.SetAttrFunc("then_branch", then_branch.name());
  node.SetAttrFunc("else_branch", else_branch.name());
  Operation op = node.Finish();
  OutputList results;
  for (int i = 0; i < op.num_outputs(); ++i) results.push_back(op.output(i));
  return results;
}

}  // namespace internal

namespace ops {

/// then_branch(inputs) if `pred` else else_branch(inputs), as tf.cond builds it in a
/// graph: one If node (StatelessIf when neither branch is stateful), named "cond" (made
/// unique, or the WithOpName name), calling two functions of the graph's library.
/// `pred` is a scalar (a bool; a number or a string is true when nonzero or nonempty).
/// Both branches take `inputs` and must return the same number of results of the same
/// dtypes (else Error TF_INVALID_ARGUMENT). AddSymbolicGradients differentiates through it.
inline OutputList Cond(const Scope& scope, const Input& pred, const InputList& inputs,
                       const Function& then_branch, const Function& else_branch) {
  return internal::BuildIf(scope, scope.GetUniqueNameForOp("cond"), pred, inputs, then_branch, else_branch);
}

/// As above with the branches traced from C++ callables (Function::Body) over arguments
/// of the dtypes and static shapes of `inputs`, as functions "<node>_then_<hash>" and
/// "<node>_else_<hash>" (the node's name with '/' as '_'; the hash of the contents keeps
/// apart the branches of conds of one name in different graphs, e.g. in two functions).
inline OutputList Cond(const Scope& scope, const Input& pred, const InputList& inputs,
                       const Function::Body& then_fn, const Function::Body& else_fn) {
  OutputList args = scope.AsOutputList(inputs);
  std::vector<Function::Arg> specs;
  for (const Output& arg : args) specs.emplace_back(arg.type(), internal::StaticShape(scope.graph(), arg));
  // The node's name, taken now so that the functions are named after it.
  std::string node = scope.GetUniqueNameForOp("cond");
  std::string base = node;
  for (char& c : base) c = c == '/' ? '_' : c;
  Function then_branch = Function::Define(base + "_then", specs, then_fn, true);
  Function else_branch = Function::Define(base + "_else", specs, else_fn, true);
  return internal::BuildIf(scope, node, pred, InputList(args), then_branch, else_branch);
}

/// Builds the condition of a while loop: `*output`, a bool scalar, from the loop variables.
using CondGraphBuilderFn =
    std::function<void(const Scope& scope, const OutputList& inputs, Output* output)>;
/// Builds the body of a while loop: `*outputs`, the next value of each loop variable.
using BodyGraphBuilderFn =
    std::function<void(const Scope& scope, const OutputList& inputs, OutputList* outputs)>;

/// TensorFlow's BuildWhileLoop: `*outputs` = the loop variables `inputs` after repeating
/// body while cond holds, through TF_NewWhile and TF_FinishWhile (one functional While
/// node named `frame_name`, made unique; "while" when empty; the scope's device and
/// control dependencies do not reach it, TF_FinishWhile makes it). `cond` and `body` build in
/// scopes of graphs of their own, from the Placeholders they are given (one per loop
/// variable): they may not use Outputs of the outer graph, and the scopes are gone once
/// BuildWhileLoop returns. Where TensorFlow's version returns a Status, this one throws
/// Error, and the loop is dropped (TF_AbortWhile) when a builder throws: TF_INVALID_ARGUMENT
/// for an unset or non-bool condition, a body giving another number of outputs than there
/// are loop variables, or changing a loop variable's dtype. AddSymbolicGradients
/// differentiates through the loop.
inline void BuildWhileLoop(const Scope& scope, const OutputList& inputs, const CondGraphBuilderFn& cond,
                           const BodyGraphBuilderFn& body, const std::string& frame_name,
                           OutputList* outputs) {
  if (outputs == nullptr) throw Error(TF_INVALID_ARGUMENT, "BuildWhileLoop: outputs is null");
  std::vector<TF_Output> c_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    internal::CheckOutputOf(scope.graph(), inputs[i], "BuildWhileLoop: input " + std::to_string(i));
    c_inputs.push_back(inputs[i].c_output());
  }
  std::string name = scope.GetUniqueNameForOp(frame_name.empty() ? "while" : frame_name);
  internal::Status status;
  TF_WhileParams params =
      TF_NewWhile(scope.graph(), c_inputs.data(), static_cast<int>(c_inputs.size()), status.get());
  status.ThrowIfError();
  const size_t n = inputs.size();
  try {
    OutputList cond_inputs, body_inputs, body_outputs;
    for (size_t i = 0; i < n; ++i) {
      cond_inputs.push_back(Output(params.cond_inputs[i].oper, params.cond_inputs[i].index));
      body_inputs.push_back(Output(params.body_inputs[i].oper, params.body_inputs[i].index));
    }
    Output cond_output;
    cond(internal::ScopeAccess::Borrow(params.cond_graph), cond_inputs, &cond_output);
    internal::CheckOutputOf(params.cond_graph, cond_output, "BuildWhileLoop: cond's output");
    if (cond_output.type() != TF_BOOL)
      throw Error(TF_INVALID_ARGUMENT, "BuildWhileLoop: cond's output is " +
                                           internal::DataTypeName(cond_output.type()) + ", not bool");
    body(internal::ScopeAccess::Borrow(params.body_graph), body_inputs, &body_outputs);
    if (body_outputs.size() != n)
      throw Error(TF_INVALID_ARGUMENT, "BuildWhileLoop: body gave " + std::to_string(body_outputs.size()) +
                                           " outputs for " + std::to_string(n) + " loop variables");
    for (size_t i = 0; i < n; ++i) {
      internal::CheckOutputOf(params.body_graph, body_outputs[i],
                              "BuildWhileLoop: body's output " + std::to_string(i));
      if (body_outputs[i].type() != inputs[i].type())
        throw Error(TF_INVALID_ARGUMENT, "BuildWhileLoop: body changed loop variable " + std::to_string(i) +
                                             " from " + internal::DataTypeName(inputs[i].type()) + " to " +
                                             internal::DataTypeName(body_outputs[i].type()));
      params.body_outputs[i] = body_outputs[i].c_output();
    }
    params.cond_output = cond_output.c_output();
  } catch (...) {
    TF_AbortWhile(&params);
    throw;
  }
  params.name = name.c_str();
  std::vector<TF_Output> results(n);
  TF_FinishWhile(&params, status.get(), results.data());  // frees the two graphs, also on failure
  status.ThrowIfError();
  outputs->clear();
  for (const TF_Output& result : results) outputs->push_back(Output(result.oper, result.index));
}

}  // namespace ops

// ------------------------------------------------------------------------ optimizers

/// A gradient and the variable it updates; an empty gradient leaves the variable alone.
using GradAndVar = std::pair<Output, Variable>;

/// The base of the optimizers, as Python's opgen.train (tf.compat.v1.train) builds them in
/// a graph: ApplyGradients returns the train op, a NoOp named after the optimizer
/// ("GradientDescent", made unique) whose control inputs are one ResourceApply* per
/// variable (under "<name>/update_<variable>") and what follows them (Adam's beta powers).
/// Hyperparameters are float32 constants "<name>/<hyperparameter>", cast to a variable of
/// another dtype. Slots are zero-initialized Variables named "<variable>/<name>" in the
/// scope given (TensorFlow's names from the root scope), made on the first ApplyGradients
/// for a variable; their initializers join GlobalVariablesInitializer, so build the train
/// op first. Variables need a fully known shape. Throws Error (TF_INVALID_ARGUMENT) as
/// Python raises: no pairs, no gradient at all, a gradient of another dtype.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  const std::string& name() const { return name_; }

  Operation ApplyGradients(const Scope& scope, const std::vector<GradAndVar>& grads_and_vars) {
    if (grads_and_vars.empty()) throw Error(TF_INVALID_ARGUMENT, "No variables provided.");
    std::vector<GradAndVar> checked;
    std::string names;
    for (const GradAndVar& pair : grads_and_vars) {
      const Variable& var = pair.second;
      names += (names.empty() ? "'" : ", '") + var.name() + "'";
      if (var.handle().op().c_op() == nullptr || TF_GraphOperationByName(scope.graph(), var.name().c_str()) != var.handle().op().c_op())
        throw Error(TF_INVALID_ARGUMENT, "variable '" + var.name() + "' is not in the scope's graph");
      if (pair.first.op().c_op() == nullptr) continue;
      internal::CheckInGraph(scope.graph(), pair.first, "grads_and_vars");
      if (pair.first.type() != var.dtype())
        throw Error(TF_INVALID_ARGUMENT, "the gradient of variable '" + var.name() + "' (" +
                                             internal::DataTypeName(var.dtype()) + ") is " +
                                             internal::DataTypeName(pair.first.type()));
      checked.push_back(pair);
    }
    if (checked.empty())
      throw Error(TF_INVALID_ARGUMENT, "No gradients provided for any variable: [" + names + "].");
    Scope outer = scope.WithNoControlDependencies();
    std::vector<Variable> vars;
    for (const GradAndVar& pair : checked) vars.push_back(pair.second);
    CreateSlots(outer, vars);
    Scope train = outer.NewSubScope(name_);
    hyper_.clear();  // one set of hyperparameter constants per train op
    std::vector<Operation> deps;
    for (const GradAndVar& pair : checked) {
      std::string var_name = pair.second.name();
      for (char& c : var_name) c = c == '/' ? '_' : c;
      deps.push_back(Apply(train, train.NewSubScope("update_" + var_name), pair.first, pair.second));
    }
    for (const Operation& op : Finish(train, vars, deps)) deps.push_back(op);
    internal::OperationBuilder noop(outer.WithControlDependencies(deps), "NoOp", train.prefix_);
    return noop.Finish();
  }

  /// The gradients of `loss` with respect to `vars` (AddSymbolicGradients over their
  /// handles), applied.
  Operation Minimize(const Scope& scope, const Output& loss, const std::vector<Variable>& vars) {
    OutputList handles, grads;
    for (const Variable& var : vars) handles.push_back(var.handle());
    AddSymbolicGradients(scope, {loss}, handles, &grads);
    std::vector<GradAndVar> pairs;
    for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(grads[i], vars[i]);
    return ApplyGradients(scope, pairs);
  }

  /// The slot `slot` ("momentum", "m", "v") of `var`; throws TF_NOT_FOUND before the
  /// ApplyGradients that makes it.
  const Variable& GetSlot(const Variable& var, const std::string& slot) const {
    auto table = slots_.find(slot);
    if (table != slots_.end()) {
      auto found = table->second.find(var.handle().op().c_op());
      if (found != table->second.end()) return found->second;
    }
    throw Error(TF_NOT_FOUND, "variable '" + var.name() + "' has no slot '" + slot + "'");
  }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {
    if (name_.empty()) throw Error(TF_INVALID_ARGUMENT, "Must specify the optimizer name");
  }
  virtual void CreateSlots(const Scope& scope, const std::vector<Variable>& vars) {
    (void)scope;
    (void)vars;
  }
  /// The update of `var` by `grad`, built in `update` (`train` is the train op's scope).
  virtual Operation Apply(const Scope& train, const Scope& update, const Output& grad,
                          const Variable& var) = 0;
  /// What runs after every update (Adam's beta powers).
  virtual std::vector<Operation> Finish(const Scope& train, const std::vector<Variable>& vars,
                                        const std::vector<Operation>& updates) {
    (void)train;
    (void)vars;
    (void)updates;
    return {};
  }

  /// A zero-initialized slot of `var`, named "<var>/<op_name>".
  const Variable& ZerosSlot(const Scope& scope, const Variable& var, const std::string& slot,
                            const std::string& op_name) {
    auto& table = slots_[slot];
    auto found = table.find(var.handle().op().c_op());
    if (found != table.end()) return found->second;
    if (var.shape().unknown_rank())
      throw Error(TF_INVALID_ARGUMENT, "variable '" + var.name() + "' needs a known shape for its slots");
    for (int64_t d : var.shape().dims())
      if (d < 0) throw Error(TF_INVALID_ARGUMENT, "variable '" + var.name() + "' needs a known shape for its slots");
    Variable slot_var(scope.WithOpName(var.name() + "/" + op_name), var.dtype(), var.shape(),
                      Tensor(var.dtype(), var.shape().dims()));
    return table.emplace(var.handle().op().c_op(), slot_var).first->second;
  }

  /// Hyperparameter `name` as a scalar of `dtype`: a float32 Const in the train op's scope
  /// (once per train op), cast when `dtype` differs.
  Output Hyper(const Scope& train, const std::string& name, float value, TF_DataType dtype) {
    auto key = std::make_pair(name, dtype);
    auto found = hyper_.find(key);
    if (found != hyper_.end()) return found->second;
    Scope at = train.WithNoControlDependencies();
    internal::OperationBuilder constant(at, "Const", at.GetUniqueNameForOp(name));
    constant.SetAttrTensor("value", Tensor::Scalar(value));
    constant.SetAttrType("dtype", TF_FLOAT);
    Output result = Cast(at, Output(constant.Finish(), 0), dtype);
    hyper_.emplace(key, result);
    return result;
  }

  static Output Cast(const Scope& scope, const Output& value, TF_DataType dtype) {
    if (value.type() == dtype) return value;
    internal::OperationBuilder cast(scope, "Cast", scope.GetUniqueNameForOp("Cast"));
    cast.AddInput(value);
    cast.SetAttrType("DstT", dtype);
    return Output(cast.Finish(), 0);
  }

  /// An op of `op_type` in `scope` with `inputs` and bool attrs, e.g. a ResourceApply*.
  static Operation Build(const Scope& scope, const char* op_type, const OutputList& inputs,
                         const std::vector<std::pair<const char*, bool>>& attrs) {
    internal::OperationBuilder builder(scope, op_type, scope.GetUniqueNameForOp(op_type));
    for (const Output& input : inputs) builder.AddInput(input);
    for (const auto& attr : attrs) builder.SetAttrBool(attr.first, attr.second);
    return builder.Finish();
  }

  bool use_locking_ = false;

 private:
  std::string name_;
  // slot name -> the variable's VarHandleOp -> the slot
  std::unordered_map<std::string, std::unordered_map<TF_Operation*, Variable>> slots_;
  struct HyperHash {
    size_t operator()(const std::pair<std::string, TF_DataType>& key) const {
      return std::hash<std::string>()(key.first) * 31 + static_cast<size_t>(key.second);
    }
  };
  std::unordered_map<std::pair<std::string, TF_DataType>, Output, HyperHash> hyper_;
};

/// var -= learning_rate * gradient (ResourceApplyGradientDescent).
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(float learning_rate, bool use_locking = false,
                                    const std::string& name = "GradientDescent")
      : Optimizer(name), learning_rate_(learning_rate) {
    use_locking_ = use_locking;
  }

 protected:
  Operation Apply(const Scope& train, const Scope& update, const Output& grad,
                  const Variable& var) override {
    return Build(update, "ResourceApplyGradientDescent",
                 {var.handle(), Hyper(train, "learning_rate", learning_rate_, var.dtype()), grad},
                 {{"use_locking", use_locking_}});
  }

 private:
  float learning_rate_;
};

/// accum = momentum * accum + gradient; var -= learning_rate * accum (or, with
/// use_nesterov, var -= learning_rate * (gradient + momentum * accum)): ResourceApplyMomentum,
/// the slot "momentum" named "<var>/Momentum".
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(float learning_rate, float momentum, bool use_locking = false,
                    const std::string& name = "Momentum", bool use_nesterov = false)
      : Optimizer(name), learning_rate_(learning_rate), momentum_(momentum), use_nesterov_(use_nesterov) {
    use_locking_ = use_locking;
  }

 protected:
  void CreateSlots(const Scope& scope, const std::vector<Variable>& vars) override {
    for (const Variable& var : vars) ZerosSlot(scope, var, "momentum", name());
  }
  Operation Apply(const Scope& train, const Scope& update, const Output& grad,
                  const Variable& var) override {
    return Build(update, "ResourceApplyMomentum",
                 {var.handle(), GetSlot(var, "momentum").handle(),
                  Hyper(train, "learning_rate", learning_rate_, var.dtype()), grad,
                  Hyper(train, "momentum", momentum_, var.dtype())},
                 {{"use_locking", use_locking_}, {"use_nesterov", use_nesterov_}});
  }

 private:
  float learning_rate_, momentum_;
  bool use_nesterov_;
};

/// Adam as ResourceApplyAdam computes it, with TF1's AdamOptimizer's state: slots "m"
/// ("<var>/Adam") and "v" ("<var>/Adam_1"), and float32 Variables "beta1_power" and
/// "beta2_power" (one pair per graph, starting at beta1 and beta2) multiplied by beta1 and
/// beta2 after each step's updates.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(float learning_rate = 0.001f, float beta1 = 0.9f, float beta2 = 0.999f,
                         float epsilon = 1e-8f, bool use_locking = false,
                         const std::string& name = "Adam")
      : Optimizer(name), learning_rate_(learning_rate), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {
    use_locking_ = use_locking;
  }

 protected:
  void CreateSlots(const Scope& scope, const std::vector<Variable>& vars) override {
    BetaPowers(scope);  // before the slots, as TensorFlow makes them
    for (const Variable& var : vars) {
      ZerosSlot(scope, var, "m", name());
      ZerosSlot(scope, var, "v", name() + "_1");
    }
  }
  Operation Apply(const Scope& train, const Scope& update, const Output& grad,
                  const Variable& var) override {
    const std::pair<Variable, Variable>& powers = BetaPowers(train);
    TF_DataType dtype = var.dtype();
    return Build(update, "ResourceApplyAdam",
                 {var.handle(), GetSlot(var, "m").handle(), GetSlot(var, "v").handle(),
                  Cast(update, powers.first.Read(update), dtype),
                  Cast(update, powers.second.Read(update), dtype),
                  Hyper(train, "learning_rate", learning_rate_, dtype),
                  Hyper(train, "beta1", beta1_, dtype), Hyper(train, "beta2", beta2_, dtype),
                  Hyper(train, "epsilon", epsilon_, dtype), grad},
                 {{"use_locking", use_locking_}});
  }
  std::vector<Operation> Finish(const Scope& train, const std::vector<Variable>& vars,
                                const std::vector<Operation>& updates) override {
    (void)vars;
    const std::pair<Variable, Variable>& powers = BetaPowers(train);
    Output beta1 = Hyper(train, "beta1", beta1_, TF_FLOAT);
    Output beta2 = Hyper(train, "beta2", beta2_, TF_FLOAT);
    Scope after = train.NewSubScope("update").WithControlDependencies(updates);
    return {ScaleBy(after, powers.first, beta1), ScaleBy(after, powers.second, beta2)};
  }

 private:
  // power = power * beta (an AssignVariableOp of a Mul of a read).
  static Operation ScaleBy(const Scope& scope, const Variable& power, const Output& beta) {
    internal::OperationBuilder mul(scope, "Mul", scope.GetUniqueNameForOp("mul"));
    mul.AddInput(power.Read(scope));
    mul.AddInput(beta);
    Output product(mul.Finish(), 0);
    return Build(scope, "AssignVariableOp", {power.handle(), product}, {});
  }
  const std::pair<Variable, Variable>& BetaPowers(const Scope& scope) {
    auto found = powers_.find(scope.graph());
    if (found != powers_.end()) return found->second;
    Scope root = scope.WithNoControlDependencies();
    Variable beta1_power(root.WithOpName("beta1_power"), Input(beta1_));
    Variable beta2_power(root.WithOpName("beta2_power"), Input(beta2_));
    return powers_.emplace(scope.graph(), std::make_pair(beta1_power, beta2_power)).first->second;
  }

  float learning_rate_, beta1_, beta2_, epsilon_;
  std::unordered_map<TF_Graph*, std::pair<Variable, Variable>> powers_;
};

}  // namespace opgen

#endif  // OPGEN_GENERATED_FRAMEWORK_H_
