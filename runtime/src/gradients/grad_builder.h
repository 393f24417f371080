// GradBuilder: a small C++17 layer for writing gradient functions, over the public C API
// only (tensorflow/c/c_api.h and opgen/gradients.h), so a plugin could use it as is.
//
//   // d(x * y) = (dz * y, x * dz), each summed back to its input's shape
//   void MulGrad(GradBuilder& b) {
//     b.SetBroadcastGrads(b.Op("Mul", {b.grad(0), b.input(1)}),
//                         b.Op("Mul", {b.input(0), b.grad(0)}));
//   }
//   ...
//   RegisterGrad("Mul", MulGrad);   // builtin_gradients.h, from a family's Register*()
//
// Reading the forward op:  input(i), output(i), grad(i) (the gradient of output i, always
//   a tensor), needs(i) (whether input i wants a gradient), dtype(t), AttrBool/AttrInt/
//   AttrType/AttrInts/AttrFloat/AttrString/AttrStrings, HasAttr, StaticShape(t, &dims), ConstInts(t, &values) (the value
//   of a Const input).
// Emitting nodes (named "<scope><op type>", unique, on the forward op's device):
//   Op("Mul", {a, b}, {{"transpose_a", true}}) -> output 0; Node(...) -> the operation;
//   an input list is a std::vector<TF_Output> ({a, b} inside braces makes one input each).
//   Type attrs inferred from inputs (T, N) need not be given.
//   Constants: Scalar(value, dtype), Int32s({..}), Int32(v).
// Compounds: ShapeOf(x) (a constant when known, else Shape), SumToShapeOf(g, x) (reduce a broadcast gradient to x's shape: static shapes
//   fold to at most one Sum + Reshape, else BroadcastGradientArgs + Sum + Reshape),
//   SetBroadcastGrads(gx, gy) (inputs 0 and 1), KeptDimsShape(x, axes) (x's shape with the
//   reduced axes set to 1), Set(i, g).
// Errors: the first failure is kept in the status; later calls then do nothing and return
//   {nullptr, -1}, so a function reads straight through and checks nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "opgen/gradients.h"
#include "tensorflow/c/c_api.h"

namespace opgen {
namespace gradients {

// One input arg: a tensor, or a list of tensors (for `N * T` / list(type) args).
struct In {
  In(TF_Output t) : tensors{t} {}  // NOLINT: implicit on purpose
  In(std::vector<TF_Output> list) : tensors(std::move(list)), is_list(true) {}  // NOLINT
  std::vector<TF_Output> tensors;
  bool is_list = false;
};

// One attr value to set on a new node.
struct Attr {
  enum Kind { kBool, kInt, kFloat, kType, kInts, kString, kStrings };
  Attr(const char* n, bool v) : name(n), kind(kBool), i(v) {}
  Attr(const char* n, int v) : name(n), kind(kInt), i(v) {}
  Attr(const char* n, int64_t v) : name(n), kind(kInt), i(v) {}
  Attr(const char* n, float v) : name(n), kind(kFloat), f(v) {}
  Attr(const char* n, TF_DataType v) : name(n), kind(kType), type(v) {}
  Attr(const char* n, std::vector<int64_t> v) : name(n), kind(kInts), ints(std::move(v)) {}
  Attr(const char* n, std::string v) : name(n), kind(kString), str(std::move(v)) {}
  Attr(const char* n, const char* v) : name(n), kind(kString), str(v) {}  // not a bool
  Attr(const char* n, std::vector<std::string> v)
      : name(n), kind(kStrings), strs(std::move(v)) {}
  const char* name;
  Kind kind;
  int64_t i = 0;
  float f = 0;
  TF_DataType type = TF_FLOAT;
  std::vector<int64_t> ints;
  std::string str;
  std::vector<std::string> strs;
};

class GradBuilder {
 public:
  GradBuilder(OPGEN_GradientContext* ctx, TF_Status* status)
      : ctx_(ctx), status_(status), op_(OPGEN_GradientContextOperation(ctx)),
        graph_(OPGEN_GradientContextGraph(ctx)) {}

  bool ok() const { return TF_GetCode(status_) == TF_OK; }
  TF_Status* status() const { return status_; }
  TF_Operation* op() const { return op_; }
  TF_Graph* graph() const { return graph_; }
  int num_inputs() const { return TF_OperationNumInputs(op_); }
  int num_outputs() const { return TF_OperationNumOutputs(op_); }
  TF_Output input(int i) const { return TF_OperationInput(TF_Input{op_, i}); }
  TF_Output output(int i) const { return TF_Output{op_, i}; }
  TF_Output grad(int i) const { return OPGEN_GradientContextOutputGrad(ctx_, i); }
  bool needs(int i) const { return OPGEN_GradientContextInputNeedsGrad(ctx_, i) != 0; }
  // The name scope of this op's gradient nodes ("gradients/MatMul_grad/").
  const char* name_scope() const { return OPGEN_GradientContextNameScope(ctx_); }
  static TF_DataType dtype(TF_Output t) { return TF_OperationOutputType(t); }

  // ---- attrs of the forward op (a missing attr fails the status) ----
  bool AttrBool(const char* name) {
    unsigned char v = 0;
    if (ok()) TF_OperationGetAttrBool(op_, name, &v, status_);
    return v != 0;
  }
  int64_t AttrInt(const char* name) {
    int64_t v = 0;
    if (ok()) TF_OperationGetAttrInt(op_, name, &v, status_);
    return v;
  }
  float AttrFloat(const char* name) {
    float v = 0;
    if (ok()) TF_OperationGetAttrFloat(op_, name, &v, status_);
    return v;
  }
  TF_DataType AttrType(const char* name) {
    TF_DataType v = TF_FLOAT;
    if (ok()) TF_OperationGetAttrType(op_, name, &v, status_);
    return v;
  }
  std::string AttrString(const char* name) {
    if (!ok()) return {};
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(op_, name, status_);
    if (!ok() || m.total_size <= 0) return {};
    std::string v(static_cast<size_t>(m.total_size), '\0');
    TF_OperationGetAttrString(op_, name, &v[0], v.size(), status_);
    return v;
  }
  // Whether the forward op has attr `name` (an optional attr of some op versions).
  bool HasAttr(const char* name) const {
    TF_Status* s = TF_NewStatus();
    TF_OperationGetAttrMetadata(op_, name, s);
    const bool has = TF_GetCode(s) == TF_OK;
    TF_DeleteStatus(s);
    return has;
  }
  std::vector<std::string> AttrStrings(const char* name) {
    if (!ok()) return {};
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(op_, name, status_);
    if (!ok() || m.list_size <= 0) return {};
    std::vector<void*> values(m.list_size);
    std::vector<size_t> lengths(m.list_size);
    std::string storage(static_cast<size_t>(m.total_size), '\0');
    TF_OperationGetAttrStringList(op_, name, values.data(), lengths.data(),
                                  static_cast<int>(m.list_size), &storage[0], storage.size(),
                                  status_);
    std::vector<std::string> out;
    if (!ok()) return out;
    for (int64_t i = 0; i < m.list_size; ++i)
      out.emplace_back(static_cast<const char*>(values[i]), lengths[i]);
    return out;
  }
  std::vector<int64_t> AttrInts(const char* name) {
    if (!ok()) return {};
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(op_, name, status_);
    if (!ok() || m.list_size <= 0) return {};
    std::vector<int64_t> v(m.list_size);
    TF_OperationGetAttrIntList(op_, name, v.data(), static_cast<int>(v.size()), status_);
    return v;
  }

  // ---- what the graph knows statically ----
  // true with `dims` when the rank and every dim of `t` are known.
  bool StaticShape(TF_Output t, std::vector<int64_t>* dims) const {
    TF_Status* s = TF_NewStatus();
    const int rank = TF_GraphGetTensorNumDims(graph_, t, s);
    bool known = TF_GetCode(s) == TF_OK && rank >= 0;
    if (known) {
      dims->assign(rank, 0);
      if (rank > 0) TF_GraphGetTensorShape(graph_, t, dims->data(), rank, s);
      known = TF_GetCode(s) == TF_OK;
      for (int64_t d : *dims) known = known && d >= 0;
    }
    TF_DeleteStatus(s);
    return known;
  }
  // The rank of `t`, -1 when unknown.
  int Rank(TF_Output t) const {
    TF_Status* s = TF_NewStatus();
    const int rank = TF_GraphGetTensorNumDims(graph_, t, s);
    const bool good = TF_GetCode(s) == TF_OK;
    TF_DeleteStatus(s);
    return good ? rank : -1;
  }
  // true with the values when `t` is the output of an integer Const.
  static bool ConstInts(TF_Output t, std::vector<int64_t>* values) {
    if (t.oper == nullptr || std::strcmp(TF_OperationOpType(t.oper), "Const") != 0) return false;
    TF_Status* s = TF_NewStatus();
    TF_Tensor* value = nullptr;
    TF_OperationGetAttrTensor(t.oper, "value", &value, s);
    bool good = TF_GetCode(s) == TF_OK && value != nullptr;
    if (good) {
      const int64_t n = TF_TensorElementCount(value);
      values->resize(n);
      if (TF_TensorType(value) == TF_INT32) {
        const int32_t* p = static_cast<const int32_t*>(TF_TensorData(value));
        for (int64_t i = 0; i < n; ++i) (*values)[i] = p[i];
      } else if (TF_TensorType(value) == TF_INT64) {
        const int64_t* p = static_cast<const int64_t*>(TF_TensorData(value));
        for (int64_t i = 0; i < n; ++i) (*values)[i] = p[i];
      } else {
        good = false;
      }
    }
    if (value != nullptr) TF_DeleteTensor(value);
    TF_DeleteStatus(s);
    return good;
  }

  // ---- emitting nodes ----
  TF_Operation* Node(const char* type, std::initializer_list<In> inputs,
                     std::initializer_list<Attr> attrs = {}) {
    return Node(type, std::vector<In>(inputs), std::vector<Attr>(attrs));
  }
  TF_Operation* Node(const char* type, const std::vector<In>& inputs,
                     const std::vector<Attr>& attrs) {
    if (!ok()) return nullptr;
    for (const In& in : inputs)
      for (const TF_Output& t : in.tensors)
        if (t.oper == nullptr) {
          TF_SetStatus(status_, TF_INTERNAL,
                       (std::string("a missing tensor as input of ") + type).c_str());
          return nullptr;
        }
    TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx_, type, nullptr);
    for (const In& in : inputs) {
      if (in.is_list) TF_AddInputList(d, in.tensors.data(), static_cast<int>(in.tensors.size()));
      else TF_AddInput(d, in.tensors[0]);
    }
    for (const Attr& a : attrs) {
      switch (a.kind) {
        case Attr::kBool: TF_SetAttrBool(d, a.name, static_cast<unsigned char>(a.i)); break;
        case Attr::kInt: TF_SetAttrInt(d, a.name, a.i); break;
        case Attr::kFloat: TF_SetAttrFloat(d, a.name, a.f); break;
        case Attr::kType: TF_SetAttrType(d, a.name, a.type); break;
        case Attr::kInts:
          TF_SetAttrIntList(d, a.name, a.ints.data(), static_cast<int>(a.ints.size()));
          break;
        case Attr::kString: TF_SetAttrString(d, a.name, a.str.data(), a.str.size()); break;
        case Attr::kStrings: {
          std::vector<const void*> values;
          std::vector<size_t> lengths;
          for (const std::string& v : a.strs) {
            values.push_back(v.data());
            lengths.push_back(v.size());
          }
          TF_SetAttrStringList(d, a.name, values.data(), lengths.data(),
                               static_cast<int>(values.size()));
          break;
        }
      }
    }
    return TF_FinishOperation(d, status_);
  }
  TF_Output Op(const char* type, std::initializer_list<In> inputs,
               std::initializer_list<Attr> attrs = {}) {
    TF_Operation* o = Node(type, inputs, attrs);
    return o != nullptr ? TF_Output{o, 0} : TF_Output{nullptr, -1};
  }
  TF_Output Op(const char* type, const std::vector<In>& inputs, const std::vector<Attr>& attrs) {
    TF_Operation* o = Node(type, inputs, attrs);
    return o != nullptr ? TF_Output{o, 0} : TF_Output{nullptr, -1};
  }
  // The forward op's attrs named in `names` that it has, to pass on to a gradient op.
  std::vector<Attr> CopyAttrs(std::initializer_list<const char*> names) {
    std::vector<Attr> out;
    for (const char* n : names) {
      if (!ok() || !HasAttr(n)) continue;
      TF_AttrMetadata m = TF_OperationGetAttrMetadata(op_, n, status_);
      if (!ok()) break;
      if (m.is_list) out.emplace_back(n, AttrInts(n));
      else if (m.type == TF_ATTR_STRING) out.emplace_back(n, AttrString(n));
      else if (m.type == TF_ATTR_BOOL) out.emplace_back(n, AttrBool(n));
      else if (m.type == TF_ATTR_INT) out.emplace_back(n, AttrInt(n));
      else if (m.type == TF_ATTR_FLOAT) out.emplace_back(n, AttrFloat(n));
      else if (m.type == TF_ATTR_TYPE) out.emplace_back(n, AttrType(n));
    }
    return out;
  }

  // ---- constants ----
  TF_Output ConstTensor(TF_DataType type, const std::vector<int64_t>& dims, const void* data,
                        size_t bytes) {
    if (!ok()) return TF_Output{nullptr, -1};
    TF_Tensor* t = TF_AllocateTensor(type, dims.data(), static_cast<int>(dims.size()), bytes);
    if (bytes > 0) std::memcpy(TF_TensorData(t), data, bytes);
    TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx_, "Const", nullptr);
    TF_SetAttrType(d, "dtype", type);
    TF_SetAttrTensor(d, "value", t, status_);
    TF_DeleteTensor(t);
    TF_Operation* o = TF_FinishOperation(d, status_);
    return ok() ? TF_Output{o, 0} : TF_Output{nullptr, -1};
  }
  TF_Output Int32s(const std::vector<int32_t>& v) {
    return ConstTensor(TF_INT32, {static_cast<int64_t>(v.size())}, v.data(), v.size() * 4);
  }
  TF_Output Int32(int32_t v) { return ConstTensor(TF_INT32, {}, &v, 4); }
  TF_Output Bools(const std::vector<bool>& v) {
    std::vector<unsigned char> bytes(v.begin(), v.end());
    return ConstTensor(TF_BOOL, {static_cast<int64_t>(v.size())}, bytes.data(), bytes.size());
  }
  // A scalar `value` of `type` (a floating-point or complex type): made as a double or
  // float constant, cast where the type has no exact C++ twin here.
  TF_Output Scalar(double value, TF_DataType type) {
    if (type == TF_DOUBLE) return ConstTensor(TF_DOUBLE, {}, &value, 8);
    const float f = static_cast<float>(value);
    TF_Output c = ConstTensor(TF_FLOAT, {}, &f, 4);
    return type == TF_FLOAT ? c : Op("Cast", {c}, {{"DstT", type}});
  }
  // A scalar of `t`'s dtype.
  TF_Output ScalarLike(double value, TF_Output t) { return Scalar(value, dtype(t)); }

  // ---- compounds ----
  // x's shape (int32): a constant when the graph knows it, else a Shape node.
  TF_Output ShapeOf(TF_Output x) {
    std::vector<int64_t> dims;
    if (StaticShape(x, &dims)) return Int32s(Narrow(dims));
    return Op("Shape", {x});
  }
  // `g`, a gradient of the broadcast shape of an op's operands, summed back to the shape
  // of operand `x`.
  TF_Output SumToShapeOf(TF_Output g, TF_Output x) {
    if (!ok()) return TF_Output{nullptr, -1};
    std::vector<int64_t> gs, xs;
    if (StaticShape(g, &gs) && StaticShape(x, &xs)) {
      if (gs == xs) return g;
      if (gs.size() < xs.size()) return Op("Reshape", {g, Int32s(Narrow(xs))});
      std::vector<int32_t> axes;
      const size_t lead = gs.size() - xs.size();
      for (size_t d = 0; d < gs.size(); ++d)
        if (d < lead || (xs[d - lead] == 1 && gs[d] != 1)) axes.push_back(static_cast<int32_t>(d));
      TF_Output summed = axes.empty() ? g : Op("Sum", {g, Int32s(axes)});
      return Op("Reshape", {summed, Int32s(Narrow(xs))});
    }
    TF_Output sx = Op("Shape", {x});
    TF_Operation* args = Node("BroadcastGradientArgs", {sx, Op("Shape", {g})});
    if (!ok()) return TF_Output{nullptr, -1};
    return Op("Reshape", {Op("Sum", {g, TF_Output{args, 0}}), sx});
  }
  // Sets inputs 0 and 1 to `gx` and `gy`, each summed to its operand's shape; skips an
  // input that needs no gradient.
  void SetBroadcastGrads(TF_Output gx, TF_Output gy) {
    if (needs(0)) Set(0, SumToShapeOf(gx, input(0)));
    if (needs(1)) Set(1, SumToShapeOf(gy, input(1)));
  }
  // The shape of `x` with the axes in `axes` (an int32/int64 tensor, scalar or vector,
  // negative counting from the end) set to 1: what a reduction with keep_dims gives.
  TF_Output KeptDimsShape(TF_Output x, TF_Output axes) {
    if (!ok()) return TF_Output{nullptr, -1};
    std::vector<int64_t> axis_values, dims;
    const int rank = Rank(x);
    if (rank >= 0 && ConstInts(axes, &axis_values)) {
      std::vector<bool> reduced(rank, false);
      for (int64_t a : axis_values)
        if (a >= -rank && a < rank) reduced[a < 0 ? a + rank : a] = true;
      if (StaticShape(x, &dims)) {
        for (int d = 0; d < rank; ++d) if (reduced[d]) dims[d] = 1;
        return Int32s(Narrow(dims));
      }
      TF_Output shape = Op("Shape", {x});
      return Op("SelectV2", {Bools(reduced), Op("OnesLike", {shape}), shape});
    }
    // Dynamic: one-hot rows of the (wrapped) axes, summed, mark the reduced dims.
    TF_Output shape = Op("Shape", {x});
    TF_Output r = Op("Size", {shape});
    TF_Output a = Op("Cast", {Op("Reshape", {axes, Int32s({-1})})}, {{"DstT", TF_INT32}});
    a = Op("FloorMod", {Op("AddV2", {a, r}), r});
    TF_Output hot = Op("OneHot", {a, r, Int32(1), Int32(0)});
    TF_Output mask = Op("Greater", {Op("Sum", {hot, Int32(0)}), Int32(0)});
    return Op("SelectV2", {mask, Op("OnesLike", {shape}), shape});
  }
  void Set(int i, TF_Output g) {
    if (ok()) OPGEN_GradientContextSetInputGrad(ctx_, i, g, status_);
  }

 private:
  static std::vector<int32_t> Narrow(const std::vector<int64_t>& v) {
    return std::vector<int32_t>(v.begin(), v.end());
  }

  OPGEN_GradientContext* ctx_;
  TF_Status* status_;
  TF_Operation* op_;
  TF_Graph* graph_;
};

// A gradient function written on the builder, and its registration as a built-in.
using GradFn = void (*)(GradBuilder& b);
void RegisterGrad(const char* op_type, GradFn fn);
void RegisterNoGrad(const char* op_type);

}  // namespace gradients
}  // namespace opgen
