// ParseExampleV2, ParseExample (v1) and ParseSingleExample: serialized tf.Example protos
// (read by example_proto.h) into dense, sparse and ragged tensors, with TensorFlow's
// checks and messages; ParseTensor / SerializeTensor over the runtime's TensorProto
// reader and writer (../../src/wire_format.h). Host only: string tensors are host data,
// as in TensorFlow.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/attr_list_shapes.h"
#include "../../src/string_tensor.h"
#include "../../src/wire_format.h"
#include "example_proto.h"
#include "kernel_util.h"
#include "parallel.h"
#include "opgen/c_api_ext.h"
#include "preprocessing_kernels.h"
#include "tensorflow/c/tf_buffer.h"

namespace opgen {
namespace cpu {
namespace {

using example::Feature;
using example::FeatureMap;
using example::Kind;

enum class Variant { kV2, kV1, kSingle };

// The node's attrs, read once.
struct Config {
  Variant variant;
  int64_t num_sparse = 0;
  std::vector<TF_DataType> sparse_types, dense_types, ragged_types, split_types;
  std::vector<ListShape> dense_shapes;
  std::vector<std::string> sparse_keys, dense_keys;   // ParseSingleExample's attrs
};

std::vector<TF_DataType> TypeListAttr(TF_OpKernelConstruction* ctx, const char* name,
                                      TF_Status* s) {
  int32_t count = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &count, &total, s);
  std::vector<TF_DataType> types(static_cast<size_t>(std::max(count, 0)));
  if (TF_GetCode(s) == TF_OK && count > 0)
    TF_OpKernelConstruction_GetAttrTypeList(ctx, name, types.data(), count, s);
  return types;
}

std::vector<std::string> StringListAttr(TF_OpKernelConstruction* ctx, const char* name,
                                        TF_Status* s) {
  int32_t count = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, name, &count, &total, s);
  std::vector<std::string> out;
  if (TF_GetCode(s) != TF_OK || count <= 0) return out;
  std::vector<char*> values(static_cast<size_t>(count));
  std::vector<size_t> lengths(static_cast<size_t>(count));
  std::vector<char> storage(static_cast<size_t>(std::max(total, 1)));
  TF_OpKernelConstruction_GetAttrStringList(ctx, name, values.data(), lengths.data(), count,
                                            storage.data(), storage.size(), s);
  for (int32_t i = 0; TF_GetCode(s) == TF_OK && i < count; ++i)
    out.emplace_back(values[i], lengths[i]);
  return out;
}

void CheckConfig(const Config& c, TF_Status* s) {
  if (TF_GetCode(s) != TF_OK) return;
  std::string error;
  if (c.dense_shapes.size() != c.dense_types.size())
    error = "len(dense_shapes) != len(Tdense): " + std::to_string(c.dense_shapes.size()) +
            " vs. " + std::to_string(c.dense_types.size());
  if (static_cast<int64_t>(c.sparse_types.size()) != c.num_sparse)
    error = "len(sparse_types) != num_sparse: " + std::to_string(c.sparse_types.size()) +
            " vs. " + std::to_string(c.num_sparse);
  if (c.ragged_types.size() != c.split_types.size())
    error = "len(ragged_value_types) != len(ragged_split_types)";
  if (c.variant == Variant::kSingle &&
      (static_cast<int64_t>(c.sparse_keys.size()) != c.num_sparse ||
       c.dense_keys.size() != c.dense_types.size()))
    error = "len(sparse_keys) must be num_sparse and len(dense_keys) len(Tdense)";
  for (size_t d = 0; error.empty() && d < c.dense_shapes.size(); ++d) {
    const ListShape& shape = c.dense_shapes[d];
    if (shape.unknown_rank) error = "dense_shapes[" + std::to_string(d) + "] has unknown rank";
    for (size_t k = 0; error.empty() && k < shape.dims.size(); ++k)
      if (shape.dims[k] < (k == 0 ? -1 : 0))
        error = "dense_shapes[" + std::to_string(d) + "] has unknown dimensions: only the "
                "first may be -1 (a variable-length feature)";
  }
  if (!error.empty()) TF_SetStatus(s, TF_INVALID_ARGUMENT, error.c_str());
}

template <Variant kVariant>
void* CreateParse(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* c = new Config;
  c->variant = kVariant;
  const char* sparse_count = kVariant == Variant::kV1 ? "Nsparse" : "num_sparse";
  TF_OpKernelConstruction_GetAttrInt64(ctx, sparse_count, &c->num_sparse, s.get());
  if (TF_GetCode(s.get()) == TF_OK) c->sparse_types = TypeListAttr(ctx, "sparse_types", s.get());
  if (TF_GetCode(s.get()) == TF_OK) c->dense_types = TypeListAttr(ctx, "Tdense", s.get());
  if (kVariant == Variant::kV2) {
    if (TF_GetCode(s.get()) == TF_OK) c->ragged_types = TypeListAttr(ctx, "ragged_value_types", s.get());
    if (TF_GetCode(s.get()) == TF_OK) c->split_types = TypeListAttr(ctx, "ragged_split_types", s.get());
  }
  if (kVariant == Variant::kSingle) {
    if (TF_GetCode(s.get()) == TF_OK) c->sparse_keys = StringListAttr(ctx, "sparse_keys", s.get());
    if (TF_GetCode(s.get()) == TF_OK) c->dense_keys = StringListAttr(ctx, "dense_keys", s.get());
  }
  if (TF_GetCode(s.get()) == TF_OK) {
    TF_Buffer* raw = OPGEN_OpKernelConstructionGetAttrValue(ctx, "dense_shapes", s.get());
    if (TF_GetCode(s.get()) == TF_OK) {
      if (!ListShapesFromAttrValue(
              std::string_view(static_cast<const char*>(raw->data), raw->length),
              &c->dense_shapes))
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "dense_shapes is not a list of shapes");
      TF_DeleteBuffer(raw);
    }
  }
  CheckConfig(*c, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete c;
    return nullptr;
  }
  return c;
}
void DeleteParse(void* c) { delete static_cast<Config*>(c); }

Kind KindOf(TF_DataType t) {
  return t == TF_FLOAT ? Kind::kFloat : t == TF_INT64 ? Kind::kInt64 : Kind::kBytes;
}
const char* KindName(Kind k) {
  return k == Kind::kFloat ? "float" : k == Kind::kInt64 ? "int64" : "string";
}

// Output `index`: allocated by the context, but for strings, which are made here and
// handed over by Publish once written (the context allocates no string elements).
TensorPtr NewOutput(TF_OpKernelContext* ctx, int index, TF_DataType dtype,
                    const std::vector<int64_t>& dims) {
  if (dtype != TF_STRING) return kernels::AllocateOutput(ctx, index, dtype, dims);
  TensorPtr out(NewStringTensor(dims));
  if (!out) Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  return out;
}

bool Publish(TF_OpKernelContext* ctx, int index, const TensorPtr& t) {
  if (TF_TensorType(t.get()) != TF_STRING) return true;
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, index, t.get(), s.get());
  if (TF_GetCode(s.get()) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s.get());
  return false;
}

// Copies feature `f`'s values (of the output's dtype) to out[at ...].
void PutValues(TF_Tensor* out, int64_t at, const Feature& f) {
  switch (TF_TensorType(out)) {
    case TF_FLOAT: std::copy(f.floats.begin(), f.floats.end(), Data<float>(out) + at); break;
    case TF_INT64: std::copy(f.ints.begin(), f.ints.end(), Data<int64_t>(out) + at); break;
    default: {
      TF_TString* o = MutableStringElements(out) + at;
      for (size_t i = 0; i < f.bytes.size(); ++i) AssignString(&o[i], f.bytes[i]);
    }
  }
}

// Writes out[from, to) from `source` (`count` elements, each repeated when count is 1;
// zero / empty when it has none).
void PutFrom(TF_Tensor* out, int64_t from, int64_t to, const TF_Tensor* source) {
  const int64_t count = TF_TensorElementCount(source);
  for (int64_t i = from; i < to; ++i) {
    const int64_t j = count == 0 ? -1 : count == 1 ? 0 : (i - from) % count;
    switch (TF_TensorType(out)) {
      case TF_FLOAT: Data<float>(out)[i] = j < 0 ? 0.f : Data<float>(source)[j]; break;
      case TF_INT64: Data<int64_t>(out)[i] = j < 0 ? 0 : Data<int64_t>(source)[j]; break;
      default:
        AssignString(&MutableStringElements(out)[i],
                     j < 0 ? std::string_view() : StringElement(&StringElements(source)[j]));
    }
  }
}

// The batch being parsed and how its messages name an example.
struct Batch {
  bool scalar;                              // one example, no batch dimension
  std::vector<std::string_view> serialized;
  std::vector<std::string_view> names;      // empty, or one per example
  std::vector<FeatureMap> features;

  std::string Name(size_t i) const {
    return names.empty() ? "<unknown>" : std::string(names[i]);
  }
  // "Name: n, Key: k, Index: i.  " for a batch, "Key: k.  " for one example.
  std::string Where(const std::string& key, size_t i) const {
    if (scalar) return "Key: " + key + ".  ";
    return "Name: " + Name(i) + ", Key: " + key + ", Index: " + std::to_string(i) + ".  ";
  }
  std::vector<int64_t> Dims() const {
    return scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(serialized.size())};
  }
  const Feature* Find(size_t i, const std::string& key) const {
    auto it = features[i].find(key);
    return it == features[i].end() || it->second.kind == Kind::kNone ? nullptr : &it->second;
  }
};

bool ParseDense(TF_OpKernelContext* ctx, const Batch& b, const std::string& key,
                TF_DataType dtype, const ListShape& shape, const TF_Tensor* def, int index,
                int64_t b_num_sparse) {
  const Kind want = KindOf(dtype);
  const bool variable = !shape.dims.empty() && shape.dims[0] == -1;
  const std::vector<int64_t> defaults = Dims(def);
  const int64_t default_count = TF_TensorElementCount(def);
  if (!variable && default_count != 0 && defaults != shape.dims) {
    const std::string d = std::to_string(index - 3 * b_num_sparse);
    Fail(ctx, TF_INVALID_ARGUMENT, "def_value[" + d + "].shape() == " + ShapeString(defaults) +
                                       " is not compatible with dense_shapes_[" + d + "] == " +
                                       ShapeString(shape.dims));
    return false;
  }
  if (variable && default_count != 1) {
    std::string shown = "[?";
    for (size_t k = 1; k < shape.dims.size(); ++k) shown += "," + std::to_string(shape.dims[k]);
    const std::string d = std::to_string(index - 3 * b_num_sparse);
    Fail(ctx, TF_INVALID_ARGUMENT,
         "dense_shape[" + d + "] is a variable length shape: " + shown +
             "], therefore def_value[" + d + "] must contain a single element (the padding "
             "element).  But its shape is: " + ShapeString(defaults));
    return false;
  }
  std::vector<int64_t> inner(shape.dims.begin() + (variable ? 1 : 0), shape.dims.end());
  const int64_t stride = NumElements(inner);
  std::vector<int64_t> rows(b.serialized.size(), 0);
  for (size_t i = 0; i < b.serialized.size(); ++i) {
    const Feature* f = b.Find(i, key);
    if (f == nullptr) {
      if (!variable && default_count == 0) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             (b.scalar ? "" : "Name: " + b.Name(i) + ", ") + "Feature: " + key +
                 " (data type: " + KindName(want) + ") is required but could not be found.");
        return false;
      }
      continue;
    }
    if (f->kind != want) {
      Fail(ctx, TF_INVALID_ARGUMENT, b.Where(key, i) + "Data types don't match. Data type: " +
                                         KindName(f->kind) + " but expected type: " + KindName(want));
      return false;
    }
    const int64_t count = static_cast<int64_t>(f->size());
    if (!variable && count != stride) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           b.Where(key, i) + "Number of " + KindName(want) + " values != expected.  Values size: " +
               std::to_string(count) + " but output shape: " + ShapeString(shape.dims));
      return false;
    }
    if (variable && (stride == 0 ? count != 0 : count % stride != 0)) {
      std::string shown = "[?";
      for (int64_t d : inner) shown += "," + std::to_string(d);
      Fail(ctx, TF_INVALID_ARGUMENT,
           b.scalar ? "Error while parsing feature with key " + key +
                          ": number of elements should be divisible by " +
                          std::to_string(stride) + ", found " + std::to_string(count) + " instead"
                    : b.Where(key, i) + "Number of " + KindName(want) +
                          " values is not a multiple of stride length. Saw " +
                          std::to_string(count) + " values but output shape is: " + shown + "]");
      return false;
    }
    rows[i] = stride == 0 ? 0 : count / stride;
  }
  std::vector<int64_t> dims = b.Dims();
  if (variable) dims.push_back(rows.empty() ? 0 : *std::max_element(rows.begin(), rows.end()));
  dims.insert(dims.end(), inner.begin(), inner.end());
  TensorPtr out = NewOutput(ctx, index, dtype, dims);
  if (!out) return false;
  const int64_t per_example = variable ? dims[b.scalar ? 0 : 1] * stride : stride;
  for (size_t i = 0; i < b.serialized.size(); ++i) {
    const int64_t at = static_cast<int64_t>(i) * per_example;
    const Feature* f = b.Find(i, key);
    int64_t written = 0;
    if (f != nullptr) {
      PutValues(out.get(), at, *f);
      written = static_cast<int64_t>(f->size());
    }
    if (written < per_example) PutFrom(out.get(), at + written, at + per_example, def);
  }
  return Publish(ctx, index, out);
}

// Each example's list of `key`, type-checked; nullptr entries for missing features.
bool Lists(TF_OpKernelContext* ctx, const Batch& b, const std::string& key, TF_DataType dtype,
           std::vector<const Feature*>* lists) {
  const Kind want = KindOf(dtype);
  lists->assign(b.serialized.size(), nullptr);
  for (size_t i = 0; i < b.serialized.size(); ++i) {
    const Feature* f = b.Find(i, key);
    if (f != nullptr && f->kind != want) {
      Fail(ctx, TF_INVALID_ARGUMENT, b.Where(key, i) + "Data types don't match. Expected type: " +
                                         KindName(want) + ", Actual type: " + KindName(f->kind));
      return false;
    }
    (*lists)[i] = f;
  }
  return true;
}

bool ParseSparse(TF_OpKernelContext* ctx, const Batch& b, const std::string& key,
                 TF_DataType dtype, int64_t num_sparse, int index) {
  std::vector<const Feature*> lists;
  if (!Lists(ctx, b, key, dtype, &lists)) return false;
  int64_t total = 0, longest = 0;
  for (const Feature* f : lists) {
    const int64_t n = f ? static_cast<int64_t>(f->size()) : 0;
    total += n;
    longest = std::max(longest, n);
  }
  const int64_t rank = b.scalar ? 1 : 2;
  TensorPtr indices = kernels::AllocateOutput(ctx, index, TF_INT64, {total, rank});
  TensorPtr values = indices ? NewOutput(ctx, int(num_sparse) + index, dtype, {total}) : nullptr;
  std::vector<int64_t> dense_shape = b.Dims();
  dense_shape.push_back(longest);
  TensorPtr shape = values ? kernels::AllocateOutput(ctx, int(2 * num_sparse) + index, TF_INT64, {rank})
                           : nullptr;
  if (!shape) return false;
  std::copy(dense_shape.begin(), dense_shape.end(), Data<int64_t>(shape));
  int64_t* ix = Data<int64_t>(indices);
  int64_t at = 0;
  for (size_t i = 0; i < lists.size(); ++i) {
    if (lists[i] == nullptr) continue;
    const int64_t n = static_cast<int64_t>(lists[i]->size());
    PutValues(values.get(), at, *lists[i]);
    for (int64_t j = 0; j < n; ++j, ++at) {
      if (!b.scalar) *ix++ = static_cast<int64_t>(i);
      *ix++ = j;
    }
  }
  return Publish(ctx, int(num_sparse) + index, values);
}

bool ParseRagged(TF_OpKernelContext* ctx, const Batch& b, const std::string& key,
                 TF_DataType dtype, TF_DataType split_type, int values_index, int splits_index) {
  std::vector<const Feature*> lists;
  if (!Lists(ctx, b, key, dtype, &lists)) return false;
  std::vector<int64_t> splits{0};
  for (const Feature* f : lists) splits.push_back(splits.back() + (f ? int64_t(f->size()) : 0));
  TensorPtr values = NewOutput(ctx, values_index, dtype, {splits.back()});
  if (!values) return false;
  const int64_t num_splits = b.scalar ? 0 : static_cast<int64_t>(splits.size());
  TensorPtr out_splits = kernels::AllocateOutput(ctx, splits_index, split_type, {num_splits});
  if (!out_splits) return false;
  for (size_t i = 0; i < lists.size(); ++i)
    if (lists[i] != nullptr) PutValues(values.get(), splits[i], *lists[i]);
  for (int64_t i = 0; i < num_splits; ++i) {
    if (split_type == TF_INT32) {
      Data<int32_t>(out_splits)[i] = static_cast<int32_t>(splits[i]);
    } else {
      Data<int64_t>(out_splits)[i] = splits[i];
    }
  }
  return Publish(ctx, values_index, values);
}

// The strings of a string-vector (or scalar, with `scalar_ok`) input.
bool StringsOf(TF_OpKernelContext* ctx, const TF_Tensor* t, const char* what,
               std::vector<std::string>* out) {
  if (TF_NumDims(t) > 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string("Expected ") + what + " to be a vector, got shape: " +
                                       ShapeString(Dims(t)));
    return false;
  }
  const TF_TString* s = StringElements(t);
  for (int64_t i = 0; i < TF_TensorElementCount(t); ++i)
    out->emplace_back(StringElement(&s[i]));
  return true;
}

bool KeysMatch(TF_OpKernelContext* ctx, const char* what, size_t got, size_t want) {
  if (got == want) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, std::string("Expected len(") + what + ") == " +
                                     std::to_string(want) + ", got: " + std::to_string(got));
  return false;
}

void ParseCompute(void* state, TF_OpKernelContext* ctx) {
  const Config& c = *static_cast<Config*>(state);
  const size_t num_dense = c.dense_types.size(), num_ragged = c.ragged_types.size();
  const size_t num_sparse = static_cast<size_t>(c.num_sparse);
  TensorPtr serialized = Input(ctx, 0);
  if (!serialized) return;
  const int rank = TF_NumDims(serialized.get());
  if ((c.variant == Variant::kSingle && rank != 0) || (c.variant == Variant::kV1 && rank != 1) ||
      rank > 1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                std::string("Expected serialized to be a ") +
                    (c.variant == Variant::kSingle ? "scalar" : c.variant == Variant::kV1
                                                                    ? "vector"
                                                                    : "scalar or vector") +
                    ", got shape: " + ShapeString(Dims(serialized.get())));
  Batch b;
  b.scalar = rank == 0;
  const TF_TString* s = StringElements(serialized.get());
  for (int64_t i = 0; i < TF_TensorElementCount(serialized.get()); ++i)
    b.serialized.push_back(StringElement(&s[i]));

  std::vector<std::string> names, sparse_keys, dense_keys, ragged_keys;
  std::vector<TensorPtr> held;   // keeps the inputs that `names` and the keys come from
  int defaults_at = 1;
  if (c.variant == Variant::kSingle) {
    sparse_keys = c.sparse_keys;
    dense_keys = c.dense_keys;
  } else {
    held.push_back(Input(ctx, 1));
    if (!held.back() || !StringsOf(ctx, held.back().get(), "names", &names)) return;
    if (!names.empty() && names.size() != b.serialized.size())
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Expected names to be empty or have the shape of serialized: " +
                      std::to_string(names.size()) + " vs. " + std::to_string(b.serialized.size()));
    if (c.variant == Variant::kV2) {
      const char* what[] = {"sparse_keys", "dense_keys", "ragged_keys"};
      std::vector<std::string>* keys[] = {&sparse_keys, &dense_keys, &ragged_keys};
      for (int k = 0; k < 3; ++k) {
        held.push_back(Input(ctx, 2 + k));
        if (!held.back() || !StringsOf(ctx, held.back().get(), what[k], keys[k])) return;
      }
      defaults_at = 5;
    } else {
      for (size_t k = 0; k < num_sparse + num_dense; ++k) {
        held.push_back(Input(ctx, 2 + static_cast<int>(k)));
        if (!held.back()) return;
        if (!StringsOf(ctx, held.back().get(), k < num_sparse ? "sparse_keys" : "dense_keys",
                       k < num_sparse ? &sparse_keys : &dense_keys))
          return;
      }
      defaults_at = 2 + static_cast<int>(num_sparse + num_dense);
    }
  }
  if (!KeysMatch(ctx, "sparse_keys", sparse_keys.size(), num_sparse) ||
      !KeysMatch(ctx, "dense_keys", dense_keys.size(), num_dense) ||
      !KeysMatch(ctx, "ragged_keys", ragged_keys.size(), num_ragged))
    return;
  for (const std::string& n : names) b.names.push_back(n);

  example::KeySet wanted;
  for (const auto* keys : {&sparse_keys, &dense_keys, &ragged_keys})
    for (const std::string& key : *keys) wanted.insert(key);
  b.features.resize(b.serialized.size());
  // Examples parse independently; the first refused one (in batch order) is reported.
  std::vector<char> parsed(b.serialized.size(), 1);
  ParallelFor(static_cast<int64_t>(b.serialized.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      parsed[i] = example::ParseExample(b.serialized[i], wanted, &b.features[i]);
  }, 256);
  for (size_t i = 0; i < b.serialized.size(); ++i)
    if (!parsed[i])
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Could not parse example input, value: '" + std::string(b.serialized[i]) + "'");

  for (size_t k = 0; k < num_sparse; ++k)
    if (!ParseSparse(ctx, b, sparse_keys[k], c.sparse_types[k], c.num_sparse, int(k))) return;
  for (size_t d = 0; d < num_dense; ++d) {
    TensorPtr def = Input(ctx, defaults_at + static_cast<int>(d));
    if (!def || !ParseDense(ctx, b, dense_keys[d], c.dense_types[d], c.dense_shapes[d], def.get(),
                            static_cast<int>(3 * num_sparse + d), c.num_sparse))
      return;
  }
  const int first_ragged = static_cast<int>(3 * num_sparse + num_dense);
  for (size_t k = 0; k < num_ragged; ++k)
    if (!ParseRagged(ctx, b, ragged_keys[k], c.ragged_types[k], c.split_types[k],
                     first_ragged + int(k), first_ragged + int(num_ragged + k)))
      return;
}

// A scalar string output holding `bytes`.
void SetStringScalar(TF_OpKernelContext* ctx, std::string_view bytes) {
  TensorPtr out(NewStringTensor({}));
  if (!out || !AssignString(MutableStringElements(out.get()), bytes))
    return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, out.get(), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

void SerializeTensorCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr in = Input(ctx, 0);
  if (!in) return;
  std::string bytes;
  if (!SerializeTensorProto(in.get(), &bytes))
    return Fail(ctx, TF_UNIMPLEMENTED, "SerializeTensor: tensors of type " +
                                           kernels::DTypeName(TF_TensorType(in.get())) +
                                           " have no TensorProto encoding here");
  SetStringScalar(ctx, bytes);
}

void ParseTensorCompute(void* state, TF_OpKernelContext* ctx) {
  const TF_DataType want = *static_cast<TF_DataType*>(state);
  TensorPtr in = Input(ctx, 0);
  if (!in) return;
  if (TF_NumDims(in.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected `serialized` to be a scalar, got shape: " +
                                              ShapeString(Dims(in.get())));
  const std::string_view bytes = StringElement(StringElements(in.get()));
  std::string error;
  TensorPtr parsed(ParseTensorProto(bytes, &error));
  if (!parsed)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Could not parse `serialized` as TensorProto: '" + std::string(bytes) + "'");
  if (TF_TensorType(parsed.get()) != want)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Type mismatch between parsed tensor (" +
                    kernels::DTypeName(TF_TensorType(parsed.get())) + ") and dtype (" +
                    kernels::DTypeName(want) + ")");
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, parsed.get(), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

void* CreateParseTensor(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* type = new TF_DataType(TF_FLOAT);
  TF_OpKernelConstruction_GetAttrType(ctx, "out_type", type, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return type;
}
void DeleteParseTensor(void* type) { delete static_cast<TF_DataType*>(type); }

}  // namespace

void RegisterParseExampleKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"SerializeTensor", {}, {}, SerializeTensorCompute}, status);
  RegisterKernel(kDevice, {"ParseTensor", {}, {}, ParseTensorCompute, CreateParseTensor,
                           DeleteParseTensor}, status);
  RegisterKernel(kDevice, {"ParseExampleV2", {}, {}, ParseCompute, CreateParse<Variant::kV2>,
                           DeleteParse}, status);
  RegisterKernel(kDevice, {"ParseExample", {}, {}, ParseCompute, CreateParse<Variant::kV1>,
                           DeleteParse}, status);
  RegisterKernel(kDevice, {"ParseSingleExample", {}, {}, ParseCompute,
                           CreateParse<Variant::kSingle>, DeleteParse}, status);
}

}  // namespace cpu
}  // namespace opgen
