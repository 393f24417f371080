// shape_inference::InferenceContext for C++ custom ops built against opgen. Shapes and
// dims live in the plugin, in the context's arena; they are read from and written to the
// runtime through the C shape-inference API (tensorflow/c/ops.h and the OPGEN_
// extensions of opgen/c_api_ext.h), so no C++ object crosses the library boundary.
#ifndef TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_
#define TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"

namespace tensorflow {
namespace shape_inference {

class InferenceContext;

struct DimRep {
  int64_t value;  // -1: unknown
};
struct ShapeRep {
  int64_t rank;  // -1: unknown
  std::vector<const DimRep*> dims;
};

class DimensionHandle {
 public:
  DimensionHandle() = default;
  bool SameHandle(DimensionHandle d) const { return ptr_ == d.ptr_; }
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  explicit DimensionHandle(const DimRep* p) : ptr_(p) {}
  const DimRep* ptr_ = nullptr;
  friend class InferenceContext;
};

class ShapeHandle {
 public:
  ShapeHandle() = default;
  bool SameHandle(ShapeHandle s) const { return ptr_ == s.ptr_; }
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  explicit ShapeHandle(const ShapeRep* p) : ptr_(p) {}
  const ShapeRep* ptr_ = nullptr;
  friend class InferenceContext;
};

// A dim handle or a known size, as TensorFlow's shape functions pass either.
struct DimensionOrConstant {
  DimensionOrConstant(DimensionHandle d) : dim(d) {}  // NOLINT: implicit as in TensorFlow
  DimensionOrConstant(int64_t v) : val(v) {}          // NOLINT
  DimensionOrConstant(int v) : val(v) {}              // NOLINT
  DimensionOrConstant(long long v) : val(static_cast<int64_t>(v)) {}  // NOLINT
  DimensionHandle dim;
  int64_t val = -1;
};

class InferenceContext {
 public:
  static constexpr int64_t kUnknownDim = -1;
  static constexpr int32_t kUnknownRank = -1;

  explicit InferenceContext(TF_ShapeInferenceContext* ctx) : ctx_(ctx) {
    const int64_t n = TF_ShapeInferenceContextNumInputs(ctx);
    TF_Status* status = TF_NewStatus();
    TF_ShapeHandle* handle = TF_NewShapeHandle();
    for (int64_t i = 0; i < n; ++i) {
      TF_ShapeInferenceContextGetInput(ctx, static_cast<int>(i), handle, status);
      inputs_.push_back(TF_GetCode(status) == TF_OK ? FromC(handle) : UnknownShape());
    }
    TF_DeleteShapeHandle(handle);
    TF_DeleteStatus(status);
    outputs_.resize(static_cast<size_t>(OPGEN_ShapeInferenceContextNumOutputs(ctx)));
  }
  InferenceContext(const InferenceContext&) = delete;
  InferenceContext& operator=(const InferenceContext&) = delete;

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  ShapeHandle input(int64_t idx) const {
    return idx >= 0 && idx < num_inputs() ? inputs_[static_cast<size_t>(idx)] : ShapeHandle();
  }
  ShapeHandle output(int64_t idx) const {
    return idx >= 0 && idx < num_outputs() ? outputs_[static_cast<size_t>(idx)] : ShapeHandle();
  }
  void set_output(int idx, ShapeHandle shape) {
    if (idx < 0 || idx >= num_outputs()) {
      deferred_.Update(errors::InvalidArgument("set_output: output ", idx, " out of range [0, ",
                                               num_outputs(), ")"));
      return;
    }
    outputs_[static_cast<size_t>(idx)] = shape;
    written_.push_back(idx);
  }

  // The value of input `idx` when known while the graph is built (a Const), else nullptr.
  const Tensor* input_tensor(int idx) {
    TF_Tensor* t = nullptr;
    TF_Status* status = TF_NewStatus();
    OPGEN_ShapeInferenceContextGetInputTensor(ctx_, idx, &t, status);
    TF_DeleteStatus(status);
    if (t == nullptr) return nullptr;
    tensors_.push_back(Tensor::FromC(t));
    return &tensors_.back();
  }

  // ---- reading shapes and dims ----
  static bool RankKnown(ShapeHandle s) { return s.ptr_ && s.ptr_->rank >= 0; }
  static int32_t Rank(ShapeHandle s) { return s.ptr_ ? static_cast<int32_t>(s.ptr_->rank) : kUnknownRank; }
  static bool ValueKnown(DimensionHandle d) { return d.ptr_ && d.ptr_->value >= 0; }
  static int64_t Value(DimensionOrConstant d) { return d.dim.IsSet() ? d.dim.ptr_->value : d.val; }
  DimensionHandle Dim(ShapeHandle s, int64_t idx) {
    if (!RankKnown(s)) return UnknownDim();
    const int64_t rank = s.ptr_->rank;
    if (idx < 0) idx += rank;
    if (idx < 0 || idx >= rank) return UnknownDim();
    return DimensionHandle(s.ptr_->dims[static_cast<size_t>(idx)]);
  }
  DimensionHandle DimKnownRank(ShapeHandle s, int64_t idx) { return Dim(s, idx); }
  static bool FullyDefined(ShapeHandle s) {
    if (!RankKnown(s)) return false;
    for (const DimRep* d : s.ptr_->dims) if (d->value < 0) return false;
    return true;
  }
  DimensionHandle NumElements(ShapeHandle s) {
    if (!FullyDefined(s)) return UnknownDim();
    int64_t n = 1;
    for (const DimRep* d : s.ptr_->dims) n *= d->value;
    return MakeDim(n);
  }
  std::string DebugString(ShapeHandle s) const {
    if (!RankKnown(s)) return "?";
    std::string out = "[";
    for (size_t i = 0; i < s.ptr_->dims.size(); ++i)
      out += (i ? "," : "") + DebugString(DimensionHandle(s.ptr_->dims[i]));
    return out + "]";
  }
  std::string DebugString(DimensionHandle d) const {
    return ValueKnown(d) ? std::to_string(d.ptr_->value) : "?";
  }

  // ---- making shapes and dims ----
  DimensionHandle UnknownDim() { return MakeDim(kUnknownDim); }
  DimensionHandle MakeDim(DimensionOrConstant d) {
    if (d.dim.IsSet()) return d.dim;
    dims_.push_back(DimRep{d.val < 0 ? -1 : d.val});
    return DimensionHandle(&dims_.back());
  }
  ShapeHandle UnknownShape() {
    shapes_.push_back(ShapeRep{-1, {}});
    return ShapeHandle(&shapes_.back());
  }
  ShapeHandle UnknownShapeOfRank(int64_t rank) {
    std::vector<DimensionHandle> dims;
    for (int64_t i = 0; i < rank; ++i) dims.push_back(UnknownDim());
    return MakeShape(dims);
  }
  ShapeHandle Scalar() { return MakeShape({}); }
  ShapeHandle Vector(DimensionOrConstant d) { return MakeShape({d}); }
  ShapeHandle Matrix(DimensionOrConstant d0, DimensionOrConstant d1) { return MakeShape({d0, d1}); }
  ShapeHandle MakeShape(std::initializer_list<DimensionOrConstant> dims) {
    ShapeRep rep{static_cast<int64_t>(dims.size()), {}};
    for (const DimensionOrConstant& d : dims) rep.dims.push_back(MakeDim(d).ptr_);
    shapes_.push_back(rep);
    return ShapeHandle(&shapes_.back());
  }
  ShapeHandle MakeShape(const std::vector<DimensionHandle>& dims) {
    ShapeRep rep{static_cast<int64_t>(dims.size()), {}};
    for (DimensionHandle d : dims) rep.dims.push_back(d.IsSet() ? d.ptr_ : UnknownDim().ptr_);
    shapes_.push_back(rep);
    return ShapeHandle(&shapes_.back());
  }
  // The shape whose dims are the values of 1-D int32/int64 input `idx` (-1: unknown); when
  // the value is not known, a shape of unknown dims (as many as the input has elements).
  Status MakeShapeFromShapeTensor(int idx, ShapeHandle* out) {
    const Tensor* t = input_tensor(idx);
    if (t == nullptr) {
      ShapeHandle in;
      TF_RETURN_IF_ERROR(WithRank(input(idx), 1, &in));
      const DimensionHandle n = Dim(in, 0);
      *out = ValueKnown(n) ? UnknownShapeOfRank(Value(n)) : UnknownShape();
      return OkStatus();
    }
    if (t->dims() != 1) return errors::InvalidArgument("Input tensor must be rank 1, but was rank ", t->dims());
    std::vector<DimensionHandle> dims;
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      const int64_t v = t->dtype() == DT_INT32 ? t->flat<int32>()(i)
                        : t->dtype() == DT_INT64 ? t->flat<int64_t>()(i) : -2;
      if (v == -2 && t->dtype() != DT_INT32 && t->dtype() != DT_INT64)
        return errors::InvalidArgument("Input tensor must be int32 or int64, but was ", DataTypeString(t->dtype()));
      if (v < -1) return errors::InvalidArgument("Invalid value in tensor used for shape: ", v);
      dims.push_back(MakeDim(v));
    }
    *out = MakeShape(dims);
    return OkStatus();
  }

  // ---- checks that refine ----
  Status WithRank(ShapeHandle s, int64_t rank, ShapeHandle* out) {
    if (!RankKnown(s)) { *out = UnknownShapeOfRank(rank); return OkStatus(); }
    if (Rank(s) != rank) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Shape must be rank ", rank, " but is rank ", Rank(s));
    }
    *out = s;
    return OkStatus();
  }
  Status WithRankAtLeast(ShapeHandle s, int64_t rank, ShapeHandle* out) {
    if (RankKnown(s) && Rank(s) < rank) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Shape must be at least rank ", rank, " but is rank ", Rank(s));
    }
    *out = s;
    return OkStatus();
  }
  Status WithRankAtMost(ShapeHandle s, int64_t rank, ShapeHandle* out) {
    if (RankKnown(s) && Rank(s) > rank) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Shape must be at most rank ", rank, " but is rank ", Rank(s));
    }
    *out = s;
    return OkStatus();
  }
  Status WithValue(DimensionHandle d, int64_t value, DimensionHandle* out) {
    if (!ValueKnown(d)) { *out = MakeDim(value); return OkStatus(); }
    if (Value(d) != value) {
      *out = DimensionHandle();
      return errors::InvalidArgument("Dimension must be ", value, " but is ", Value(d));
    }
    *out = d;
    return OkStatus();
  }
  Status Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out) {
    if (!ValueKnown(d1)) { *out = d0.IsSet() ? d0 : UnknownDim(); return OkStatus(); }
    if (!ValueKnown(d0)) { *out = d1; return OkStatus(); }
    if (Value(d0) != Value(d1)) {
      *out = DimensionHandle();
      return errors::InvalidArgument("Dimensions must be equal, but are ", Value(d0), " and ", Value(d1));
    }
    *out = d0;
    return OkStatus();
  }
  Status Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out) {
    if (!RankKnown(s1)) { *out = s0.IsSet() ? s0 : UnknownShape(); return OkStatus(); }
    if (!RankKnown(s0)) { *out = s1; return OkStatus(); }
    if (Rank(s0) != Rank(s1)) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Shapes must be equal rank, but are ", Rank(s0), " and ", Rank(s1));
    }
    std::vector<DimensionHandle> dims;
    for (int64_t i = 0; i < Rank(s0); ++i) {
      DimensionHandle d;
      Status s = Merge(Dim(s0, i), Dim(s1, i), &d);
      if (!s.ok()) {
        *out = ShapeHandle();
        return errors::InvalidArgument("Dimension ", i, " in both shapes must be equal, but are ",
                                       Value(Dim(s0, i)), " and ", Value(Dim(s1, i)), ". Shapes are ",
                                       DebugString(s0), " and ", DebugString(s1), ".");
      }
      dims.push_back(d);
    }
    *out = MakeShape(dims);
    return OkStatus();
  }
  Status Concatenate(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out) {
    if (!RankKnown(s0) || !RankKnown(s1)) { *out = UnknownShape(); return OkStatus(); }
    std::vector<DimensionHandle> dims;
    for (const DimRep* d : s0.ptr_->dims) dims.push_back(DimensionHandle(d));
    for (const DimRep* d : s1.ptr_->dims) dims.push_back(DimensionHandle(d));
    *out = MakeShape(dims);
    return OkStatus();
  }
  Status Subshape(ShapeHandle s, int64_t start, ShapeHandle* out) {
    return Subshape(s, start, INT64_MAX, out);
  }
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, ShapeHandle* out) {
    if (!RankKnown(s)) { *out = UnknownShape(); return OkStatus(); }
    const int64_t rank = Rank(s);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    if (end > rank) end = rank;
    if (start < 0 || start > rank || end < start)
      return errors::InvalidArgument("Subshape [", start, ", ", end, ") out of range of shape ", DebugString(s));
    std::vector<DimensionHandle> dims;
    for (int64_t i = start; i < end; ++i) dims.push_back(DimensionHandle(s.ptr_->dims[static_cast<size_t>(i)]));
    *out = MakeShape(dims);
    return OkStatus();
  }
  Status ReplaceDim(ShapeHandle s, int64_t idx, DimensionHandle d, ShapeHandle* out) {
    if (!RankKnown(s)) { *out = UnknownShape(); return OkStatus(); }
    if (idx < 0) idx += Rank(s);
    if (idx < 0 || idx >= Rank(s)) return errors::InvalidArgument("Out of range dim_index ", idx, " for shape ", DebugString(s));
    std::vector<DimensionHandle> dims;
    for (const DimRep* r : s.ptr_->dims) dims.push_back(DimensionHandle(r));
    dims[static_cast<size_t>(idx)] = d;
    *out = MakeShape(dims);
    return OkStatus();
  }
  Status Add(DimensionHandle a, DimensionOrConstant b, DimensionHandle* out) {
    const int64_t vb = Value(b);
    *out = ValueKnown(a) && vb >= 0 ? MakeDim(Value(a) + vb) : UnknownDim();
    return OkStatus();
  }
  Status Subtract(DimensionHandle a, DimensionOrConstant b, DimensionHandle* out) {
    const int64_t vb = Value(b);
    if (ValueKnown(a) && vb >= 0 && Value(a) < vb)
      return errors::InvalidArgument("Negative dimension size caused by subtracting ", vb, " from ", Value(a));
    *out = ValueKnown(a) && vb >= 0 ? MakeDim(Value(a) - vb) : UnknownDim();
    return OkStatus();
  }
  Status Multiply(DimensionHandle a, DimensionOrConstant b, DimensionHandle* out) {
    const int64_t vb = Value(b);
    *out = ValueKnown(a) && vb >= 0 ? MakeDim(Value(a) * vb) : UnknownDim();
    return OkStatus();
  }

  // ---- the node's attrs ----
  Status GetAttr(const std::string& name, int64_t* value) {
    return Call([&](TF_Status* s) { OPGEN_ShapeInferenceContextGetAttrInt(ctx_, name.c_str(), value, s); });
  }
  Status GetAttr(const std::string& name, int32_t* value) {
    int64_t v = 0;
    TF_RETURN_IF_ERROR(GetAttr(name, &v));
    *value = static_cast<int32_t>(v);
    return OkStatus();
  }
  Status GetAttr(const std::string& name, bool* value) {
    unsigned char v = 0;
    TF_RETURN_IF_ERROR(Call([&](TF_Status* s) { OPGEN_ShapeInferenceContextGetAttrBool(ctx_, name.c_str(), &v, s); }));
    *value = v != 0;
    return OkStatus();
  }
  Status GetAttr(const std::string& name, std::string* value) {
    const char* data = nullptr;
    size_t length = 0;
    TF_RETURN_IF_ERROR(Call([&](TF_Status* s) {
      OPGEN_ShapeInferenceContextGetAttrString(ctx_, name.c_str(), &data, &length, s);
    }));
    value->assign(data, length);
    return OkStatus();
  }
  Status GetAttr(const std::string& name, DataType* value) {
    TF_DataType v = TF_FLOAT;
    TF_RETURN_IF_ERROR(Call([&](TF_Status* s) { TF_ShapeInferenceContext_GetAttrType(ctx_, name.c_str(), &v, s); }));
    *value = static_cast<DataType>(v);
    return OkStatus();
  }
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
  Status GetAttr(const std::string& name, std::vector<Int>* value) {
    const int64_t* data = nullptr;
    int64_t n = 0;
    TF_RETURN_IF_ERROR(Call([&](TF_Status* s) {
      OPGEN_ShapeInferenceContextGetAttrIntList(ctx_, name.c_str(), &data, &n, s);
    }));
    value->assign(data, data + n);
    return OkStatus();
  }
  // A shape attr as a shape of this context (TensorFlow reads it as a PartialTensorShape).
  Status GetAttr(const std::string& name, ShapeHandle* value) {
    TF_ShapeHandle* handle = TF_NewShapeHandle();
    Status st = Call([&](TF_Status* s) { OPGEN_ShapeInferenceContextGetAttrShape(ctx_, name.c_str(), handle, s); });
    if (st.ok()) *value = FromC(handle);
    TF_DeleteShapeHandle(handle);
    return st;
  }
  Status GetAttr(const std::string& name, float* value) {
    return Call([&](TF_Status* s) { OPGEN_ShapeInferenceContextGetAttrFloat(ctx_, name.c_str(), value, s); });
  }
  // Lists of other kinds, func and list(func) attrs: read from the whole AttrValue.
  Status GetAttr(const std::string& name, std::vector<float>* value) {
    return ListAttr(name, "list(float)", value, [](const AttrValue::ListValue& l) { return l.f(); });
  }
  Status GetAttr(const std::string& name, std::vector<bool>* value) {
    return ListAttr(name, "list(bool)", value, [](const AttrValue::ListValue& l) { return l.b(); });
  }
  Status GetAttr(const std::string& name, std::vector<std::string>* value) {
    return ListAttr(name, "list(string)", value, [](const AttrValue::ListValue& l) { return l.s(); });
  }
  Status GetAttr(const std::string& name, std::vector<DataType>* value) {
    return ListAttr(name, "list(type)", value, [](const AttrValue::ListValue& l) { return l.type(); });
  }
  Status GetAttr(const std::string& name, std::vector<NameAttrList>* value) {
    return ListAttr(name, "list(func)", value, [](const AttrValue::ListValue& l) { return l.func(); });
  }
  Status GetAttr(const std::string& name, NameAttrList* value) {
    AttrValue v;
    TF_RETURN_IF_ERROR(GetAttrValue(name, &v));
    if (!v.has_func()) return errors::InvalidArgument("attr '", name, "' is not a func");
    *value = v.func();
    return OkStatus();
  }
  Status GetAttr(const std::string& name, PartialTensorShape* value) {
    ShapeHandle shape;
    TF_RETURN_IF_ERROR(GetAttr(name, &shape));
    if (!RankKnown(shape)) {
      *value = PartialTensorShape();
      return OkStatus();
    }
    std::vector<int64_t> dims;
    for (const DimRep* d : shape.ptr_->dims) dims.push_back(d->value);
    *value = PartialTensorShape(dims);
    return OkStatus();
  }
  Status GetAttr(const std::string& name, TensorShape* value) {
    PartialTensorShape partial;
    TF_RETURN_IF_ERROR(GetAttr(name, &partial));
    if (!partial.AsTensorShape(value))
      return errors::InvalidArgument("Attr '", name, "' is not a fully defined shape: ",
                                     partial.DebugString());
    return OkStatus();
  }
  Status MakeShapeFromPartialTensorShape(const PartialTensorShape& partial, ShapeHandle* out) {
    if (partial.unknown_rank()) {
      *out = UnknownShape();
      return OkStatus();
    }
    std::vector<DimensionHandle> dims;
    for (int64_t d : partial.dim_sizes()) dims.push_back(MakeDim(d));
    *out = MakeShape(dims);
    return OkStatus();
  }
  Status MakeShapeFromTensorShape(const TensorShape& shape, ShapeHandle* out) {
    return MakeShapeFromPartialTensorShape(PartialTensorShape(shape), out);
  }

  // For the thunk that runs a shape function: writes the outputs set to the runtime.
  Status Finish() {
    if (!deferred_.ok()) return deferred_;
    for (int idx : written_) {
      const ShapeRep* rep = outputs_[static_cast<size_t>(idx)].ptr_;
      std::vector<int64_t> dims;
      if (rep && rep->rank >= 0)
        for (const DimRep* d : rep->dims) dims.push_back(d->value);
      TF_ShapeHandle* handle = OPGEN_ShapeInferenceContextMakeShape(
          ctx_, dims.data(), rep && rep->rank >= 0 ? static_cast<int>(dims.size()) : -1);
      TF_RETURN_IF_ERROR(Call([&](TF_Status* s) { TF_ShapeInferenceContextSetOutput(ctx_, idx, handle, s); }));
      TF_DeleteShapeHandle(handle);
    }
    return OkStatus();
  }

 private:
  template <typename F>
  static Status Call(F f) {
    TF_Status* status = TF_NewStatus();
    f(status);
    Status result = Status::FromC(status);
    TF_DeleteStatus(status);
    return result;
  }
  Status GetAttrValue(const std::string& name, AttrValue* value) {
    TF_Buffer* buffer = nullptr;
    TF_RETURN_IF_ERROR(Call([&](TF_Status* s) {
      buffer = OPGEN_ShapeInferenceContextGetAttrValue(ctx_, name.c_str(), s);
    }));
    const bool parsed = opgen_wire::ParseAttrValue(buffer->data, buffer->length, value);
    TF_DeleteBuffer(buffer);
    if (!parsed) return errors::Internal("attr '", name, "' is not a valid AttrValue");
    return OkStatus();
  }
  template <typename T, typename Elements>
  Status ListAttr(const std::string& name, const char* kind, std::vector<T>* value, Elements elements) {
    AttrValue v;
    TF_RETURN_IF_ERROR(GetAttrValue(name, &v));
    if (!opgen_wire::IsListOf(v, elements(v.list()).size()))
      return errors::InvalidArgument("attr '", name, "' is not a ", kind);
    *value = elements(v.list());
    return OkStatus();
  }
  ShapeHandle FromC(TF_ShapeHandle* handle) {
    const int64_t rank = TF_ShapeInferenceContextRank(ctx_, handle);
    if (rank < 0) return UnknownShape();
    std::vector<DimensionHandle> dims;
    TF_DimensionHandle* dim = TF_NewDimensionHandle();
    for (int64_t i = 0; i < rank; ++i) {
      TF_ShapeInferenceContextDim(ctx_, handle, i, dim);
      dims.push_back(MakeDim(TF_DimensionHandleValueKnown(dim) ? TF_DimensionHandleValue(dim) : -1));
    }
    TF_DeleteDimensionHandle(dim);
    return MakeShape(dims);
  }

  TF_ShapeInferenceContext* ctx_;
  std::deque<DimRep> dims_;      // deques: handles point into them and stay valid
  std::deque<ShapeRep> shapes_;
  std::deque<Tensor> tensors_;
  std::vector<ShapeHandle> inputs_, outputs_;
  std::vector<int> written_;
  Status deferred_;
};

}  // namespace shape_inference

using OpShapeInferenceFn = std::function<Status(shape_inference::InferenceContext* c)>;

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_
