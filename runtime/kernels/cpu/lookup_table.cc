// CPU kernels of the lookup-table ops (../../ops/lookup_ops.cc). A table is a resource of
// the session's or eager context's resource manager (c_api_ext.h's kernel resources),
// made by HashTableV2 / MutableHashTableV2 and reached through its handle by the
// import, find, insert, remove, size and export kernels. Keys are int32, int64 or
// strings, values bool, int32, int64, float, double or string, as TensorFlow's: a scalar
// per key, or a tensor of value_shape (MutableHashTableOfTensorsV2). HashTable is filled
// once (an import of other data later is refused, as TensorFlow's initializable tables
// do); a mutable table's import replaces it, its insert updates it, its remove shrinks it.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../src/string_tensor.h"
#include "host_tensor_alloc.h"
#include "kernel_util.h"
#include "held_resource.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

// The type name table handles carry, as TensorFlow's do.
constexpr char kTableType[] = "tensorflow::lookup::LookupInterface";

struct Error {
  TF_Code code = TF_OK;
  std::string message;
};

// Element i of a tensor of C++ type T (std::string for TF_STRING).
template <typename T>
T Element(const TF_Tensor* t, int64_t i) {
  return static_cast<const T*>(TF_TensorData(t))[i];
}
template <>
std::string Element<std::string>(const TF_Tensor* t, int64_t i) {
  return std::string(StringElement(&StringElements(t)[i]));
}

template <typename T>
bool SetElement(TF_Tensor* t, int64_t i, const T& v) {
  static_cast<T*>(TF_TensorData(t))[i] = v;
  return true;
}
template <>
bool SetElement<std::string>(TF_Tensor* t, int64_t i, const std::string& v) {
  return AssignString(&MutableStringElements(t)[i], v);
}

// A new host tensor of `dtype` and `dims` (strings: owning empty elements).
TensorPtr NewTensor(TF_DataType dtype, const std::vector<int64_t>& dims) {
  if (dtype == TF_STRING) return TensorPtr(NewStringTensor(dims));
  return TensorPtr(NewHostTensor(dtype, dims));
}

// What every table does, whatever its key and value types. Each key holds width()
// values: one (HashTable, MutableHashTable) or a tensor of value_shape
// (MutableHashTableOfTensors).
class Table {
 public:
  // `value_shape` null: a scalar per key; else a MutableHashTableOfTensors'.
  Table(TF_DataType key_dtype, TF_DataType value_dtype, bool is_mutable,
        const std::vector<int64_t>* value_shape)
      : key_dtype_(key_dtype), value_dtype_(value_dtype), mutable_(is_mutable),
        of_tensors_(value_shape != nullptr),
        value_shape_(value_shape != nullptr ? *value_shape : std::vector<int64_t>{}) {}
  virtual ~Table() = default;

  TF_DataType key_dtype() const { return key_dtype_; }
  TF_DataType value_dtype() const { return value_dtype_; }
  bool is_mutable() const { return mutable_; }
  bool of_tensors() const { return of_tensors_; }
  const std::vector<int64_t>& value_shape() const { return value_shape_; }
  int64_t width() const { return NumElements(value_shape_); }

  Error CheckKeyType(const TF_Tensor* keys) const {
    if (TF_TensorType(keys) != key_dtype_)
      return {TF_INVALID_ARGUMENT, "Key must be type " + kernels::DTypeName(key_dtype_) +
                                       " but got " + kernels::DTypeName(TF_TensorType(keys))};
    return {};
  }
  // Dtype checks of TensorFlow's lookup interface, with its messages.
  Error CheckTypes(const TF_Tensor* keys, const TF_Tensor* values) const {
    Error e = CheckKeyType(keys);
    if (e.code == TF_OK && TF_TensorType(values) != value_dtype_)
      return {TF_INVALID_ARGUMENT, "Value must be type " + kernels::DTypeName(value_dtype_) +
                                       " but got " + kernels::DTypeName(TF_TensorType(values))};
    return e;
  }

  // Under mu(): the table's contents.
  std::mutex& mu() { return mu_; }
  virtual int64_t size() const = 0;
  // Import (HashTable: fill once; the mutable tables: replace), insert (update) and
  // remove (the mutable tables only).
  virtual Error Import(const TF_Tensor* keys, const TF_Tensor* values) = 0;
  virtual Error Insert(const TF_Tensor* keys, const TF_Tensor* values) = 0;
  virtual Error Remove(const TF_Tensor* keys) = 0;
  // out[i] = table[keys[i]] (width() values each), else the default: one row for every
  // key, or a row per key when `per_key_default`.
  virtual Error Find(const TF_Tensor* keys, const TF_Tensor* defaults, bool per_key_default,
                     TF_Tensor* out) const = 0;
  virtual Error Export(TensorPtr* keys, TensorPtr* values) const = 0;

 protected:
  bool initialized_ = false;

 private:
  TF_DataType key_dtype_, value_dtype_;
  bool mutable_, of_tensors_;
  std::vector<int64_t> value_shape_;
  std::mutex mu_;
};

std::string ToText(const std::string& s) { return s; }
template <typename T>
std::string ToText(const T& v) {
  return std::to_string(v);
}

// Keys in slots with their rows of `width` values side by side; a removed key's slot
// takes the last one, so the rows stay dense.
template <typename K, typename V>
struct Slots {
  // bools kept as bytes: a std::vector<bool> has no rows to point at
  using Cell = std::conditional_t<std::is_same_v<V, bool>, unsigned char, V>;
  int64_t width = 1;
  std::vector<K> keys;
  std::vector<Cell> values;
  std::unordered_map<K, int64_t> slot;

  const Cell* Row(const K& key) const {
    auto it = slot.find(key);
    return it == slot.end() ? nullptr : &values[it->second * width];
  }
  // Sets key's row from `row`; false when the key was there already (row overwritten
  // only with `overwrite`).
  bool Put(const K& key, const Cell* row, bool overwrite) {
    auto [it, inserted] = slot.emplace(key, static_cast<int64_t>(keys.size()));
    if (inserted) {
      keys.push_back(key);
      values.insert(values.end(), row, row + width);
    } else if (overwrite) {
      std::copy(row, row + width, values.begin() + it->second * width);
    }
    return inserted;
  }
  void Erase(const K& key) {
    auto it = slot.find(key);
    if (it == slot.end()) return;
    const int64_t at = it->second, last = static_cast<int64_t>(keys.size()) - 1;
    slot.erase(it);
    if (at != last) {
      keys[at] = keys[last];
      std::copy(values.begin() + last * width, values.begin() + (last + 1) * width,
                values.begin() + at * width);
      slot[keys[at]] = at;
    }
    keys.pop_back();
    values.resize(static_cast<size_t>(last) * width);
  }
};

template <typename K, typename V>
class TypedTable : public Table {
 public:
  TypedTable(TF_DataType key, TF_DataType value, bool is_mutable,
             const std::vector<int64_t>* shape)
      : Table(key, value, is_mutable, shape) {
    slots_.width = width();
  }

  int64_t size() const override { return static_cast<int64_t>(slots_.keys.size()); }

  Error Import(const TF_Tensor* keys, const TF_Tensor* values) override {
    if (is_mutable()) {
      slots_ = Slots<K, V>{width(), {}, {}, {}};
      return Insert(keys, values);
    }
    if (initialized_) {
      // TensorFlow 2.21 lets an initializer run again and keeps the table as it is when
      // the new data has as many entries (it compares the sizes only), else refuses.
      if (TF_TensorElementCount(keys) != size())
        return {TF_FAILED_PRECONDITION, "Table was already initialized with different data."};
      return {};
    }
    Slots<K, V> fresh{width(), {}, {}, {}};  // a HashTable's values are scalars
    const int64_t n = TF_TensorElementCount(keys);
    for (int64_t i = 0; i < n; ++i) {
      K key = Element<K>(keys, i);
      const typename Slots<K, V>::Cell value = Element<V>(values, i);
      if (!fresh.Put(key, &value, false) && !(*fresh.Row(key) == value))
        return {TF_FAILED_PRECONDITION, "HashTable has different value for same key. Key " +
                                            ToText(key) + " has " + ToText(*fresh.Row(key)) +
                                            " and trying to add value " + ToText(value)};
    }
    slots_ = std::move(fresh);
    initialized_ = true;
    return {};
  }

  Error Insert(const TF_Tensor* keys, const TF_Tensor* values) override {
    const int64_t n = TF_TensorElementCount(keys), w = width();
    std::vector<typename Slots<K, V>::Cell> row(static_cast<size_t>(w));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < w; ++j) row[j] = Element<V>(values, i * w + j);
      slots_.Put(Element<K>(keys, i), row.data(), true);
    }
    return {};
  }

  Error Remove(const TF_Tensor* keys) override {
    const int64_t n = TF_TensorElementCount(keys);
    for (int64_t i = 0; i < n; ++i) slots_.Erase(Element<K>(keys, i));
    return {};
  }

  Error Find(const TF_Tensor* keys, const TF_Tensor* defaults, bool per_key_default,
             TF_Tensor* out) const override {
    if (!is_mutable() && !initialized_) return {TF_FAILED_PRECONDITION, "Table not initialized."};
    const int64_t n = TF_TensorElementCount(keys), w = width();
    for (int64_t i = 0; i < n; ++i) {
      const auto* row = slots_.Row(Element<K>(keys, i));
      for (int64_t j = 0; j < w; ++j) {
        const V v = row != nullptr ? row[j] : Element<V>(defaults, (per_key_default ? i * w : 0) + j);
        if (!SetElement<V>(out, i * w + j, v))
          return {TF_RESOURCE_EXHAUSTED, "out of memory for a string"};
      }
    }
    return {};
  }

  Error Export(TensorPtr* keys, TensorPtr* values) const override {
    const int64_t n = size();
    std::vector<int64_t> value_dims{n};
    value_dims.insert(value_dims.end(), value_shape().begin(), value_shape().end());
    *keys = NewTensor(key_dtype(), {n});
    *values = NewTensor(value_dtype(), value_dims);
    if (!*keys || !*values) return {TF_RESOURCE_EXHAUSTED, "out of memory for a table's export"};
    for (int64_t i = 0; i < n; ++i)
      if (!SetElement<K>(keys->get(), i, slots_.keys[i]))
        return {TF_RESOURCE_EXHAUSTED, "out of memory for a table's export"};
    for (size_t i = 0; i < slots_.values.size(); ++i)
      if (!SetElement<V>(values->get(), static_cast<int64_t>(i), slots_.values[i]))
        return {TF_RESOURCE_EXHAUSTED, "out of memory for a table's export"};
    return {};
  }

 private:
  Slots<K, V> slots_;
};

// A new table for a key and value dtype; nullptr for a pair with no table.
template <typename K>
Table* NewTableFor(TF_DataType key, TF_DataType value, bool is_mutable,
                   const std::vector<int64_t>* shape) {
  switch (value) {
    case TF_BOOL: return new TypedTable<K, bool>(key, value, is_mutable, shape);
    case TF_INT32: return new TypedTable<K, int32_t>(key, value, is_mutable, shape);
    case TF_INT64: return new TypedTable<K, int64_t>(key, value, is_mutable, shape);
    case TF_FLOAT: return new TypedTable<K, float>(key, value, is_mutable, shape);
    case TF_DOUBLE: return new TypedTable<K, double>(key, value, is_mutable, shape);
    case TF_STRING: return new TypedTable<K, std::string>(key, value, is_mutable, shape);
    default: return nullptr;
  }
}

Table* NewTable(TF_DataType key, TF_DataType value, bool is_mutable,
                const std::vector<int64_t>* shape) {
  switch (key) {
    case TF_INT32: return NewTableFor<int32_t>(key, value, is_mutable, shape);
    case TF_INT64: return NewTableFor<int64_t>(key, value, is_mutable, shape);
    case TF_STRING: return NewTableFor<std::string>(key, value, is_mutable, shape);
    default: return nullptr;
  }
}

// The table-making ops' attrs, read once per node, and the name an unnamed table gets.
struct TableAttrs {
  std::string container, shared_name;
  TF_DataType key_dtype = TF_STRING, value_dtype = TF_INT64;
  bool is_mutable = false;
  bool of_tensors = false;           // MutableHashTableOfTensors: each key's values
  std::vector<int64_t> value_shape;  // have this shape
};

// The value_shape attr of MutableHashTableOfTensorsV2: fully defined, as TensorFlow wants.
void ReadValueShape(TF_OpKernelConstruction* ctx, TableAttrs* a, TF_Status* s) {
  int32_t list_size = 0, rank = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "value_shape", &list_size, &rank, s);
  if (TF_GetCode(s) != TF_OK) return;
  if (rank < 0) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "value_shape must be fully defined, got unknown rank");
    return;
  }
  a->value_shape.assign(static_cast<size_t>(rank), 0);
  TF_OpKernelConstruction_GetAttrTensorShape(ctx, "value_shape", a->value_shape.data(),
                                             a->value_shape.size(), s);
  for (int64_t d : a->value_shape)
    if (TF_GetCode(s) == TF_OK && d < 0)
      TF_SetStatus(s, TF_INVALID_ARGUMENT,
                   ("value_shape must be fully defined, got " + ShapeString(a->value_shape)).c_str());
}

template <bool Mutable, bool OfTensors = false>
void* CreateTableOp(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new TableAttrs();
  a->is_mutable = Mutable;
  a->of_tensors = OfTensors;
  if (OfTensors) ReadValueShape(ctx, a, s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->container = kernels::StringAttr(ctx, "container", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->shared_name = kernels::StringAttr(ctx, "shared_name", s.get());
  bool node_name_sharing = false;
  if (TF_GetCode(s.get()) == TF_OK)
    node_name_sharing = kernels::BoolAttr(ctx, "use_node_name_sharing", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrType(ctx, "key_dtype", &a->key_dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrType(ctx, "value_dtype", &a->value_dtype, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  if (a->shared_name.empty()) {
    // TensorFlow then names the table after the node (use_node_name_sharing) or gives the
    // node's kernel a private one. A session may make several kernels of one node (one
    // per optimized plan), so opgen's private name is the node's too, marked apart: one
    // table per node and session (or eager context) either way.
    const TF_StringView name = TF_OpKernelConstruction_GetName(ctx);
    a->shared_name.assign(name.data, name.len);
    if (!node_name_sharing) a->shared_name = "_table_" + a->shared_name;
  }
  return a;
}

void DeleteTableOp(void* a) { delete static_cast<TableAttrs*>(a); }

void* MakeTable(void* arg, TF_Status* s) {
  const auto* a = static_cast<const TableAttrs*>(arg);
  Table* t = NewTable(a->key_dtype, a->value_dtype, a->is_mutable,
                      a->of_tensors ? &a->value_shape : nullptr);
  if (t == nullptr) {
    const std::string message = "no lookup table of " + kernels::DTypeName(a->key_dtype) +
                                " keys and " + kernels::DTypeName(a->value_dtype) + " values";
    TF_SetStatus(s, TF_UNIMPLEMENTED, message.c_str());
  }
  return t;
}

void DeleteTable(void* t) { delete static_cast<Table*>(t); }

bool Ok(TF_OpKernelContext* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

void TableOpCompute(void* attrs, TF_OpKernelContext* ctx) {
  auto* a = static_cast<TableAttrs*>(attrs);
  StatusPtr s = NewStatus();
  OPGEN_KernelCreateResourceHandle(ctx, 0, a->container.c_str(), a->shared_name.c_str(),
                                   kTableType, &MakeTable, a, &DeleteTable, s.get());
  Ok(ctx, s.get());
}

// The table input 0 names, held while the kernel runs.
class HeldTable : public HeldResource<Table> {
 public:
  explicit HeldTable(TF_OpKernelContext* ctx) : HeldResource<Table>(ctx, kTableType) {}
};

bool Report(TF_OpKernelContext* ctx, const Error& e) {
  if (e.code == TF_OK) return true;
  Fail(ctx, e.code, e.message);
  return false;
}

// keys' dims followed by the table's value_shape: the shape of their values.
std::vector<int64_t> ValuesDims(const Table& t, const TF_Tensor* keys) {
  std::vector<int64_t> dims = Dims(keys);
  dims.insert(dims.end(), t.value_shape().begin(), t.value_shape().end());
  return dims;
}

// Keys and their values (keys' shape, then value_shape), of the table's dtypes.
Error CheckKeysValues(const Table& t, const TF_Tensor* keys, const TF_Tensor* values) {
  Error e = t.CheckTypes(keys, values);
  if (e.code != TF_OK) return e;
  if (ValuesDims(t, keys) != Dims(values))
    return {TF_INVALID_ARGUMENT, "Expected shape " + ShapeString(ValuesDims(t, keys)) +
                                     " for value, got " + ShapeString(Dims(values))};
  return {};
}

// LookupTableImportV2 (and InitializeTableV2, which wants vectors: `vectors`).
template <bool Vectors>
void ImportCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  const TF_Tensor* keys = BorrowInput(ctx, 1);
  const TF_Tensor* values = keys ? BorrowInput(ctx, 2) : nullptr;
  if (values == nullptr) return;
  if (Vectors) {
    if (TF_NumDims(keys) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Keys must be a vector, but received shape" + ShapeString(Dims(keys)));
    if (TF_NumDims(values) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Values must be a vector, but received shape" + ShapeString(Dims(values)));
    if (TF_Dim(keys, 0) != TF_Dim(values, 0))
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Keys and values must have the same size " + std::to_string(TF_Dim(keys, 0)) +
                      " vs " + std::to_string(TF_Dim(values, 0)));
  }
  Table& t = *table.get();
  if (!Report(ctx, CheckKeysValues(t, keys, values))) return;
  std::lock_guard<std::mutex> lock(t.mu());
  Report(ctx, t.Import(keys, values));
}

void InsertCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  const TF_Tensor* keys = BorrowInput(ctx, 1);
  const TF_Tensor* values = keys ? BorrowInput(ctx, 2) : nullptr;
  if (values == nullptr) return;
  Table& t = *table.get();
  if (!t.is_mutable())
    return Fail(ctx, TF_UNIMPLEMENTED,
                "Insert not supported by InitializableLookupTable implementations");
  if (!Report(ctx, CheckKeysValues(t, keys, values))) return;
  std::lock_guard<std::mutex> lock(t.mu());
  Report(ctx, t.Insert(keys, values));
}

void FindCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  const TF_Tensor* keys = BorrowInput(ctx, 1);
  const TF_Tensor* defaults = keys ? BorrowInput(ctx, 2) : nullptr;
  if (defaults == nullptr) return;
  Table& t = *table.get();
  if (!Report(ctx, t.CheckTypes(keys, defaults))) return;
  const std::vector<int64_t> out_dims = ValuesDims(t, keys), default_dims = Dims(defaults);
  const bool per_key = default_dims == out_dims;
  if (!per_key && default_dims != t.value_shape())  // (TensorFlow words it two ways)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Expected shape " + ShapeString(t.value_shape()) + " or " +
                    ShapeString(out_dims) +
                    (t.of_tensors() ? " for default value, got "
                                    : " for argument 'default_value' but got ") +
                    ShapeString(default_dims));
  TensorPtr out = NewTensor(t.value_dtype(), out_dims);
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a table lookup");
  {
    std::lock_guard<std::mutex> lock(t.mu());
    // An initializable table uses the first default for every key, as TensorFlow's.
    if (!Report(ctx, t.Find(keys, defaults, per_key && t.is_mutable(), out.get()))) return;
  }
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, out.get(), s.get());
  Ok(ctx, s.get());
}

void RemoveCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  const TF_Tensor* keys = BorrowInput(ctx, 1);
  if (keys == nullptr) return;
  Table& t = *table.get();
  if (!Report(ctx, t.CheckKeyType(keys))) return;
  if (!t.is_mutable())
    return Fail(ctx, TF_UNIMPLEMENTED,
                "Remove not supported by InitializableLookupTable implementations");
  std::lock_guard<std::mutex> lock(t.mu());
  Report(ctx, t.Remove(keys));
}

void SizeCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  TensorPtr out = AllocateOutput<int64_t>(ctx, 0, {});
  if (!out) return;
  std::lock_guard<std::mutex> lock(table.get()->mu());
  *static_cast<int64_t*>(TF_TensorData(out.get())) = table.get()->size();
}

void ExportCompute(void*, TF_OpKernelContext* ctx) {
  HeldTable table(ctx);
  if (table.get() == nullptr) return;
  Table& t = *table.get();
  if (TF_ExpectedOutputDataType(ctx, 0) != t.key_dtype() ||
      TF_ExpectedOutputDataType(ctx, 1) != t.value_dtype())
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "LookupTableExportV2: Tkeys and Tvalues are " +
                    kernels::DTypeName(TF_ExpectedOutputDataType(ctx, 0)) + " and " +
                    kernels::DTypeName(TF_ExpectedOutputDataType(ctx, 1)) +
                    ", the table's dtypes " + kernels::DTypeName(t.key_dtype()) + " and " +
                    kernels::DTypeName(t.value_dtype()));
  TensorPtr keys, values;
  {
    std::lock_guard<std::mutex> lock(t.mu());
    if (!Report(ctx, t.Export(&keys, &values))) return;
  }
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, keys.get(), s.get());
  if (Ok(ctx, s.get())) TF_SetOutput(ctx, 1, values.get(), s.get());
  Ok(ctx, s.get());
}

}  // namespace

void RegisterLookupTableKernels(TF_Status* status) {
  const std::pair<const char*, void* (*)(TF_OpKernelConstruction*)> table_ops[] = {
      {"HashTableV2", &CreateTableOp<false>},
      {"MutableHashTableV2", &CreateTableOp<true>},
      {"MutableHashTableOfTensorsV2", &CreateTableOp<true, true>}};
  for (const auto& [op, create] : table_ops)
    for (TF_DataType key : {TF_INT32, TF_INT64, TF_STRING})
      for (TF_DataType value : {TF_BOOL, TF_INT32, TF_INT64, TF_FLOAT, TF_DOUBLE, TF_STRING})
        RegisterKernel(kDevice, {op, {{"key_dtype", key}, {"value_dtype", value}}, {},
                                 TableOpCompute, create, DeleteTableOp},
                       status);
  RegisterKernel(kDevice, {"LookupTableImportV2", {}, {}, ImportCompute<false>}, status);
  RegisterKernel(kDevice, {"InitializeTableV2", {}, {}, ImportCompute<true>}, status);
  RegisterKernel(kDevice, {"LookupTableInsertV2", {}, {}, InsertCompute}, status);
  RegisterKernel(kDevice, {"LookupTableFindV2", {}, {}, FindCompute}, status);
  RegisterKernel(kDevice, {"LookupTableRemoveV2", {}, {}, RemoveCompute}, status);
  RegisterKernel(kDevice, {"LookupTableSizeV2", {}, {}, SizeCompute}, status);
  RegisterKernel(kDevice, {"LookupTableExportV2", {}, {}, ExportCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
