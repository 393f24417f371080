// ShapeFnContext over the public C API, and the shape algebra the families share.
#include "shape_fn_context.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "../src/attr_list_shapes.h"
#include "opgen/c_api_ext.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_tensor.h"

namespace opgen {

int64_t PartialShape::NumElements() const {
  if (!rank_known) return -1;
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;  // unknown, or past int64
  }
  return n;
}

std::string DimToString(int64_t dim) { return dim < 0 ? "?" : std::to_string(dim); }

std::string PartialShape::ToString() const {
  if (!rank_known) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + DimToString(dims[i]);
  return s + "]";
}

void Fail(const std::string& message) { throw ShapeError(message); }

PartialShape PartialShape::UnknownDims(int64_t rank) {
  if (rank < 0 || rank > kMaxRank)
    Fail("rank " + std::to_string(rank) + " is not between 0 and " + std::to_string(kMaxRank));
  return Of(std::vector<int64_t>(static_cast<size_t>(rank), kUnknownDim));
}

// ---- ShapeFnContext ------------------------------------------------------------------

namespace {

struct ShapeHandle {
  TF_ShapeHandle* h = TF_NewShapeHandle();
  ShapeHandle() = default;
  explicit ShapeHandle(TF_ShapeHandle* handle) : h(handle) {}
  ~ShapeHandle() { TF_DeleteShapeHandle(h); }
  ShapeHandle(const ShapeHandle&) = delete;
  ShapeHandle& operator=(const ShapeHandle&) = delete;
};

struct TensorDeleter {
  void operator()(TF_Tensor* t) const { TF_DeleteTensor(t); }
};
using TensorPtr = std::unique_ptr<TF_Tensor, TensorDeleter>;

template <typename Out, typename In>
void AppendAs(const void* data, int64_t n, std::vector<Out>* out) {
  const In* p = static_cast<const In*>(data);
  for (int64_t i = 0; i < n; ++i) out->push_back(static_cast<Out>(p[i]));
}

// The elements of an integer or floating tensor as `Out`; false for other dtypes.
template <typename Out>
bool TensorValues(TF_Tensor* t, std::vector<Out>* out) {
  const int64_t n = TF_TensorElementCount(t);
  const void* data = TF_TensorData(t);
  switch (TF_TensorType(t)) {
    case TF_INT8: AppendAs<Out, int8_t>(data, n, out); return true;
    case TF_INT16: AppendAs<Out, int16_t>(data, n, out); return true;
    case TF_INT32: AppendAs<Out, int32_t>(data, n, out); return true;
    case TF_INT64: AppendAs<Out, int64_t>(data, n, out); return true;
    case TF_UINT8: AppendAs<Out, uint8_t>(data, n, out); return true;
    case TF_UINT16: AppendAs<Out, uint16_t>(data, n, out); return true;
    case TF_UINT32: AppendAs<Out, uint32_t>(data, n, out); return true;
    case TF_UINT64: AppendAs<Out, uint64_t>(data, n, out); return true;
    case TF_FLOAT: AppendAs<Out, float>(data, n, out); return true;
    case TF_DOUBLE: AppendAs<Out, double>(data, n, out); return true;
    default: return false;
  }
}

PartialShape FromHandle(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* h) {
  if (!TF_ShapeInferenceContextRankKnown(ctx, h)) return PartialShape::Unknown();
  PartialShape s = PartialShape::Of({});
  TF_DimensionHandle* dim = TF_NewDimensionHandle();
  for (int64_t i = 0, rank = TF_ShapeInferenceContextRank(ctx, h); i < rank; ++i) {
    TF_ShapeInferenceContextDim(ctx, h, i, dim);
    s.dims.push_back(TF_DimensionHandleValueKnown(dim) ? TF_DimensionHandleValue(dim)
                                                       : kUnknownDim);
  }
  TF_DeleteDimensionHandle(dim);
  return s;
}

}  // namespace

ShapeFnContext::ShapeFnContext(TF_ShapeInferenceContext* ctx)
    : ctx_(ctx),
      status_(TF_NewStatus()),
      num_inputs_(static_cast<int>(TF_ShapeInferenceContextNumInputs(ctx))),
      num_outputs_(static_cast<int>(OPGEN_ShapeInferenceContextNumOutputs(ctx))) {}

ShapeFnContext::~ShapeFnContext() { TF_DeleteStatus(status_); }

void ShapeFnContext::Check() {
  if (TF_GetCode(status_) != TF_OK) Fail(TF_Message(status_));
}

PartialShape ShapeFnContext::Input(int i) {
  ShapeHandle h;
  TF_ShapeInferenceContextGetInput(ctx_, i, h.h, status_);
  Check();
  return FromHandle(ctx_, h.h);
}

PartialShape ShapeFnContext::InputWithRank(int i, int64_t rank, const char* what) {
  ShapeHandle h;
  TF_ShapeInferenceContextGetInput(ctx_, i, h.h, status_);
  Check();
  TF_ShapeInferenceContextWithRank(ctx_, h.h, rank, h.h, status_);
  if (TF_GetCode(status_) != TF_OK) Fail(std::string(what) + ": " + TF_Message(status_));
  return FromHandle(ctx_, h.h);
}

PartialShape ShapeFnContext::InputWithRankAtLeast(int i, int64_t rank, const char* what) {
  ShapeHandle h;
  TF_ShapeInferenceContextGetInput(ctx_, i, h.h, status_);
  Check();
  TF_ShapeInferenceContextWithRankAtLeast(ctx_, h.h, rank, h.h, status_);
  if (TF_GetCode(status_) != TF_OK) Fail(std::string(what) + ": " + TF_Message(status_));
  return FromHandle(ctx_, h.h);
}

TF_Tensor* ShapeFnContext::InputTensor(int i) {
  TF_Tensor* t = nullptr;
  OPGEN_ShapeInferenceContextGetInputTensor(ctx_, i, &t, status_);
  Check();
  return t;
}

std::optional<std::vector<int64_t>> ShapeFnContext::InputInts(int i) {
  TensorPtr t(InputTensor(i));
  std::vector<int64_t> values;
  if (!t || !TensorValues(t.get(), &values)) return std::nullopt;
  return values;
}

std::optional<std::vector<double>> ShapeFnContext::InputDoubles(int i) {
  TensorPtr t(InputTensor(i));
  std::vector<double> values;
  if (!t || !TensorValues(t.get(), &values)) return std::nullopt;
  return values;
}

TF_DataType ShapeFnContext::AttrType(const char* name) {
  TF_DataType v = TF_FLOAT;
  TF_ShapeInferenceContext_GetAttrType(ctx_, name, &v, status_);
  Check();
  return v;
}

int64_t ShapeFnContext::AttrInt(const char* name) {
  int64_t v = 0;
  OPGEN_ShapeInferenceContextGetAttrInt(ctx_, name, &v, status_);
  Check();
  return v;
}

bool ShapeFnContext::AttrBool(const char* name) {
  unsigned char v = 0;
  OPGEN_ShapeInferenceContextGetAttrBool(ctx_, name, &v, status_);
  Check();
  return v != 0;
}

std::string ShapeFnContext::AttrString(const char* name) {
  const char* data = nullptr;
  size_t len = 0;
  OPGEN_ShapeInferenceContextGetAttrString(ctx_, name, &data, &len, status_);
  Check();
  return std::string(data, len);
}

std::vector<int64_t> ShapeFnContext::AttrInts(const char* name) {
  const int64_t* values = nullptr;
  int64_t n = 0;
  OPGEN_ShapeInferenceContextGetAttrIntList(ctx_, name, &values, &n, status_);
  Check();
  return std::vector<int64_t>(values, values + n);
}

PartialShape ShapeFnContext::AttrShape(const char* name) {
  ShapeHandle h;
  OPGEN_ShapeInferenceContextGetAttrShape(ctx_, name, h.h, status_);
  Check();
  return FromHandle(ctx_, h.h);
}

PartialShape ShapeFnContext::AttrTensorShape(const char* name) {
  ShapeHandle h;
  OPGEN_ShapeInferenceContextGetAttrTensorShape(ctx_, name, h.h, status_);
  Check();
  return FromHandle(ctx_, h.h);
}

std::vector<PartialShape> ShapeFnContext::AttrShapes(const char* name) {
  TF_Buffer* raw = OPGEN_ShapeInferenceContextGetAttrValue(ctx_, name, status_);
  Check();
  std::vector<ListShape> shapes;
  const bool parsed = ListShapesFromAttrValue(
      std::string_view(static_cast<const char*>(raw->data), raw->length), &shapes);
  TF_DeleteBuffer(raw);
  if (!parsed) Fail(std::string("attr '") + name + "' is not a well-formed list(shape)");
  std::vector<PartialShape> out;
  for (const ListShape& s : shapes)
    out.push_back(s.unknown_rank ? PartialShape::Unknown() : PartialShape::Of(s.dims));
  return out;
}

void ShapeFnContext::SetOutput(int i, const PartialShape& shape) {
  ShapeHandle h(OPGEN_ShapeInferenceContextMakeShape(
      ctx_, shape.dims.data(), shape.rank_known ? static_cast<int>(shape.dims.size()) : -1));
  TF_ShapeInferenceContextSetOutput(ctx_, i, h.h, status_);
  Check();
}

// ---- Shape algebra -------------------------------------------------------------------

namespace {

// The broadcast of dims `a` and `b`; false when both are known and cannot broadcast.
bool BroadcastDim(int64_t a, int64_t b, int64_t* out) {
  if (a >= 0 && b >= 0) {
    if (a != b && a != 1 && b != 1) return false;
    *out = a == 1 ? b : a;
  } else if (a < 0 && b < 0) {
    *out = kUnknownDim;
  } else {
    const int64_t known = a < 0 ? b : a;
    *out = known == 1 ? kUnknownDim : known;  // 1 against ? gives whatever ? is
  }
  return true;
}

}  // namespace

bool Broadcastable(const PartialShape& a, const PartialShape& b) {
  if (!a.rank_known || !b.rank_known) return true;
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < a.dims.size() ? a.dims[a.dims.size() - 1 - k] : 1;
    const int64_t db = k < b.dims.size() ? b.dims[b.dims.size() - 1 - k] : 1;
    int64_t unused;
    if (!BroadcastDim(da, db, &unused)) return false;
  }
  return true;
}

PartialShape BroadcastShapes(const PartialShape& a, const PartialShape& b) {
  if (!a.rank_known || !b.rank_known) return PartialShape::Unknown();
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  PartialShape out = PartialShape::UnknownDims(static_cast<int64_t>(rank));
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < a.dims.size() ? a.dims[a.dims.size() - 1 - k] : 1;
    const int64_t db = k < b.dims.size() ? b.dims[b.dims.size() - 1 - k] : 1;
    if (!BroadcastDim(da, db, &out.dims[rank - 1 - k]))
      Fail("shapes " + a.ToString() + " and " + b.ToString() + " cannot broadcast: dimension " +
           std::to_string(da) + " against " + std::to_string(db));
  }
  return out;
}

int64_t MergeDim(int64_t a, int64_t b, const std::string& what) {
  if (a >= 0 && b >= 0 && a != b)
    Fail(what + ": " + std::to_string(a) + " and " + std::to_string(b) + " differ");
  return a >= 0 ? a : b;
}

PartialShape MergeShapes(const PartialShape& a, const PartialShape& b, const std::string& what) {
  if (!a.rank_known) return b;
  if (!b.rank_known) return a;
  if (a.dims.size() != b.dims.size())
    Fail(what + ": shapes " + a.ToString() + " and " + b.ToString() + " differ in rank");
  PartialShape out = a;
  for (size_t k = 0; k < a.dims.size(); ++k) {
    if (a.dims[k] >= 0 && b.dims[k] >= 0 && a.dims[k] != b.dims[k])
      Fail(what + ": shapes " + a.ToString() + " and " + b.ToString() + " differ");
    out.dims[k] = a.dims[k] >= 0 ? a.dims[k] : b.dims[k];
  }
  return out;
}

int64_t CanonicalAxis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    Fail(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace opgen
