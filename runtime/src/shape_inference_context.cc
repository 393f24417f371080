// The shape-inference functions of the C API: TensorFlow's (tensorflow/c/ops.h) and
// opgen's additions (opgen/c_api_ext.h). Handles are plain values; only the context
// refers to the node, and only while its shape function runs.
#include "shape_inference_context.h"

#include <algorithm>
#include <string>

#include "core_types.h"
#include "opgen/c_api_ext.h"
#include "wire_format.h"

namespace {

using opgen::AttrValue;
using opgen::SetStatus;
using opgen::Shape;

Shape KnownShape(std::vector<int64_t> dims) {
  Shape s;
  s.unknown_rank = false;
  s.dims = std::move(dims);
  return s;
}

bool CheckIndex(int64_t i, size_t size, const char* what, TF_Status* status) {
  if (i >= 0 && static_cast<size_t>(i) < size) return true;
  SetStatus(status, TF_INVALID_ARGUMENT,
            std::string(what) + " index " + std::to_string(i) + " is out of range: the node has " +
                std::to_string(size));
  return false;
}

const char* KindName(AttrValue::Kind kind) {
  switch (kind) {
    case AttrValue::kString: return "string";
    case AttrValue::kInt: return "int";
    case AttrValue::kFloat: return "float";
    case AttrValue::kBool: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kFunc: return "func";
    case AttrValue::kListInt: return "list(int)";
    case AttrValue::kNone: return "no value";
    default: return "a list or placeholder";
  }
}

// The attr `name` of the node when it has `kind`; else null with `status` set.
const AttrValue* FindAttr(TF_ShapeInferenceContext* ctx, const char* name, AttrValue::Kind kind,
                          TF_Status* status) {
  const std::string attr_name = name != nullptr ? name : "";
  auto it = ctx->attrs->find(attr_name);
  if (it == ctx->attrs->end()) {
    SetStatus(status, TF_INVALID_ARGUMENT, "the node has no attr '" + attr_name + "'");
    return nullptr;
  }
  // An empty list reads back as list(string); it is an empty list of any kind.
  const bool empty_list = it->second.IsList() && it->second.ListSize() == 0;
  if (it->second.kind != kind && !(empty_list && kind >= AttrValue::kListString)) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "attr '" + attr_name + "' is " + KindName(it->second.kind) + ", not " +
                  KindName(kind));
    return nullptr;
  }
  opgen::ClearStatus(status);
  return &it->second;
}

// Python-style index into `rank` items: negative counts from the end.
int64_t Wrap(int64_t i, int64_t rank) { return i < 0 ? i + rank : i; }

void CheckRank(TF_ShapeHandle* handle, int64_t rank, TF_ShapeHandle* result, const char* relation,
               bool ok, TF_Status* status) {
  if (!ok) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string("shape must be rank ") + relation + std::to_string(rank) + " but is " +
                  opgen::ShapeToString(handle->shape.dims) + " (rank " +
                  std::to_string(handle->shape.dims.size()) + ")");
    return;
  }
  result->shape = handle->shape;
  opgen::ClearStatus(status);
}

}  // namespace

extern "C" {

int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* ctx) {
  return static_cast<int64_t>(ctx->inputs->size());
}

TF_ShapeHandle* TF_NewShapeHandle(void) { return new TF_ShapeHandle(); }
void TF_DeleteShapeHandle(TF_ShapeHandle* handle) { delete handle; }
TF_DimensionHandle* TF_NewDimensionHandle(void) { return new TF_DimensionHandle(); }
void TF_DeleteDimensionHandle(TF_DimensionHandle* handle) { delete handle; }

void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                      TF_Status* status) {
  if (!CheckIndex(i, ctx->inputs->size(), "input", status)) return;
  handle->shape = (*ctx->inputs)[i].shape;
  opgen::ClearStatus(status);
}

void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                       TF_Status* status) {
  if (!CheckIndex(i, ctx->outputs.size(), "output", status)) return;
  ctx->outputs[i] = handle->shape;
  opgen::ClearStatus(status);
}

TF_ShapeHandle* TF_ShapeInferenceContextScalar(TF_ShapeInferenceContext* ctx) {
  return new TF_ShapeHandle{KnownShape({})};
}

TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext* ctx, size_t size) {
  return new TF_ShapeHandle{KnownShape({static_cast<int64_t>(size)})};
}

void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                          TF_DataType* val, TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kType, status)) *val = v->type;
}

int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle) {
  return handle->shape.unknown_rank ? -1 : static_cast<int64_t>(handle->shape.dims.size());
}

int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle) {
  return handle->shape.unknown_rank ? 0 : 1;
}

void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle,
                                      int64_t rank, TF_ShapeHandle* result, TF_Status* status) {
  if (handle->shape.unknown_rank && rank >= 0) {
    result->shape = KnownShape(std::vector<int64_t>(rank, -1));
    opgen::ClearStatus(status);
    return;
  }
  const int64_t r = TF_ShapeInferenceContextRank(ctx, handle);
  CheckRank(handle, rank, result, "", handle->shape.unknown_rank || r == rank, status);
}

void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle,
                                             int64_t rank, TF_ShapeHandle* result,
                                             TF_Status* status) {
  const int64_t r = TF_ShapeInferenceContextRank(ctx, handle);
  CheckRank(handle, rank, result, "at least ", handle->shape.unknown_rank || r >= rank, status);
}

void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle,
                                            int64_t rank, TF_ShapeHandle* result,
                                            TF_Status* status) {
  const int64_t r = TF_ShapeInferenceContextRank(ctx, handle);
  CheckRank(handle, rank, result, "at most ", handle->shape.unknown_rank || r <= rank, status);
}

void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle,
                                 int64_t i, TF_DimensionHandle* result) {
  const Shape& s = shape_handle->shape;
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  const int64_t index = Wrap(i, rank);
  result->value = (!s.unknown_rank && index >= 0 && index < rank) ? s.dims[index] : -1;
}

void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle,
                                      int64_t start, int64_t end, TF_ShapeHandle* result,
                                      TF_Status* status) {
  const Shape& s = shape_handle->shape;
  if (s.unknown_rank) {
    result->shape = Shape();
    opgen::ClearStatus(status);
    return;
  }
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  const int64_t b = std::min(Wrap(start, rank), rank), e = std::min(Wrap(end, rank), rank);
  if (b < 0 || e < 0 || b > e) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "subshape [" + std::to_string(start) + ":" + std::to_string(end) + "] of " +
                  opgen::ShapeToString(s.dims) + " is out of bounds");
    return;
  }
  result->shape = KnownShape(std::vector<int64_t>(s.dims.begin() + b, s.dims.begin() + e));
  opgen::ClearStatus(status);
}

void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  for (Shape& s : ctx->outputs) s = Shape();
  opgen::ClearStatus(status);
}

int TF_DimensionHandleValueKnown(TF_DimensionHandle* dim_handle) {
  return dim_handle->value >= 0 ? 1 : 0;
}
int64_t TF_DimensionHandleValue(TF_DimensionHandle* dim_handle) { return dim_handle->value; }

void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* first,
                                               TF_ShapeHandle* second, TF_ShapeHandle* result,
                                               TF_Status* status) {
  if (first->shape.unknown_rank || second->shape.unknown_rank) {
    result->shape = Shape();
  } else {
    std::vector<int64_t> dims = first->shape.dims;
    dims.insert(dims.end(), second->shape.dims.begin(), second->shape.dims.end());
    result->shape = KnownShape(std::move(dims));
  }
  opgen::ClearStatus(status);
}

// ---- opgen's additions ---------------------------------------------------------------

int64_t OPGEN_ShapeInferenceContextNumOutputs(TF_ShapeInferenceContext* ctx) {
  return static_cast<int64_t>(ctx->outputs.size());
}

TF_ShapeHandle* OPGEN_ShapeInferenceContextMakeShape(TF_ShapeInferenceContext* ctx,
                                                     const int64_t* dims, int num_dims) {
  if (num_dims < 0) return new TF_ShapeHandle();
  std::vector<int64_t> d(dims, dims + num_dims);
  for (int64_t& x : d) x = x < 0 ? -1 : x;
  return new TF_ShapeHandle{KnownShape(std::move(d))};
}

void OPGEN_ShapeInferenceContextGetInputTensor(TF_ShapeInferenceContext* ctx, int i,
                                               TF_Tensor** out, TF_Status* status) {
  *out = nullptr;
  if (!CheckIndex(i, ctx->inputs->size(), "input", status)) return;
  const TF_Tensor* value = (*ctx->inputs)[i].value;
  if (value != nullptr) *out = value->Share();
  opgen::ClearStatus(status);
}

void OPGEN_ShapeInferenceContextGetAttrInt(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                           int64_t* value, TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kInt, status)) *value = v->i;
}

void OPGEN_ShapeInferenceContextGetAttrFloat(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                             float* value, TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kFloat, status)) *value = v->f;
}

void OPGEN_ShapeInferenceContextGetAttrBool(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                            unsigned char* value, TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kBool, status)) *value = v->b;
}

void OPGEN_ShapeInferenceContextGetAttrString(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                              const char** value, size_t* length,
                                              TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kString, status)) {
    *value = v->s.data();
    *length = v->s.size();
  }
}

void OPGEN_ShapeInferenceContextGetAttrIntList(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                               const int64_t** values, int64_t* num_values,
                                               TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kListInt, status)) {
    *values = v->list_i.data();
    *num_values = static_cast<int64_t>(v->list_i.size());
  }
}

void OPGEN_ShapeInferenceContextGetAttrShape(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                             TF_ShapeHandle* result, TF_Status* status) {
  if (const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kShape, status)) {
    result->shape = v->shape;
    for (int64_t& d : result->shape.dims) d = d < 0 ? -1 : d;
  }
}

void OPGEN_ShapeInferenceContextGetAttrTensor(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                              TF_Tensor** value, TF_Status* status) {
  *value = nullptr;
  const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kTensor, status);
  if (v == nullptr) return;
  std::string error;
  *value = v->tensor_proto.NewCopy(&error);
  if (*value == nullptr)
    SetStatus(status, TF_INVALID_ARGUMENT, "attr '" + std::string(attr_name) + "': " + error);
}

void OPGEN_ShapeInferenceContextGetAttrTensorShape(TF_ShapeInferenceContext* ctx,
                                                   const char* attr_name, TF_ShapeHandle* result,
                                                   TF_Status* status) {
  const AttrValue* v = FindAttr(ctx, attr_name, AttrValue::kTensor, status);
  if (v == nullptr) return;
  TF_DataType dtype;
  std::vector<int64_t> dims;
  std::string error;
  if (!v->tensor_proto.Header(&dtype, &dims, &error, /*full=*/true)) {
    SetStatus(status, TF_INVALID_ARGUMENT, "attr '" + std::string(attr_name) + "': " + error);
    return;
  }
  result->shape = opgen::Shape{false, std::move(dims)};
}

TF_Buffer* OPGEN_ShapeInferenceContextGetAttrValue(TF_ShapeInferenceContext* ctx,
                                                   const char* attr_name, TF_Status* status) {
  const std::string name = attr_name != nullptr ? attr_name : "";
  auto it = ctx->attrs->find(name);
  if (it == ctx->attrs->end()) {
    SetStatus(status, TF_INVALID_ARGUMENT, "the node has no attr '" + name + "'");
    return nullptr;
  }
  opgen::ClearStatus(status);
  const std::string bytes = opgen::SerializeAttrValue(it->second);
  return TF_NewBufferFromString(bytes.data(), bytes.size());
}

}  // extern "C"
