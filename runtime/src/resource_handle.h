// TensorFlow's ResourceHandleProto (tensorflow/core/framework/resource_handle.proto,
// same field numbers): what a DT_RESOURCE tensor holds. At the C API a resource tensor
// is a scalar whose bytes are the serialized proto, as TensorFlow's own C API hands
// resource tensors across it, so every language binding can pass handles around as
// plain tensors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core_types.h"
#include "op_def.h"

namespace opgen {

struct ResourceHandle {
  std::string device;           // 1: the device whose resource manager holds it
  std::string container;        // 2
  std::string name;             // 3
  uint64_t hash_code = 0;       // 4: of the resource's type
  std::string maybe_type_name;  // 5: "tensorflow::Var"
  // 6: DtypeAndShape {dtype = 1; shape = 2 (TensorShapeProto)}
  std::vector<std::pair<TF_DataType, Shape>> dtypes_and_shapes;
};

// The type name and hash TensorFlow's variables carry in their handles.
extern const char kVariableTypeName[];
uint64_t VariableTypeHash();

std::string SerializeResourceHandle(const ResourceHandle& handle);
// False with `*error` set for bytes that are not a ResourceHandleProto.
bool ParseResourceHandle(std::string_view bytes, ResourceHandle* out, std::string* error);

// A new scalar DT_RESOURCE host tensor holding `handle`; the caller owns it.
TF_Tensor* NewResourceTensor(const ResourceHandle& handle);
// The handle a DT_RESOURCE scalar holds; false with `*error` set for another dtype, a
// non-scalar or bytes that do not parse.
bool ReadResourceTensor(const TF_Tensor* tensor, ResourceHandle* out, std::string* error);

}  // namespace opgen
