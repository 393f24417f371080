// FunctionList() -> (description: uint8, num_attrs: int32): list(func) attr `fs` read in
// a kernel's constructor as a std::vector<NameAttrList> (what ops calling one of several
// functions, such as a switch over branches, do before they instantiate them).
// `description` is the UTF-8 text "name(key=value,...);..." of each function with its
// attrs in key order; `num_attrs` has one count per function. The shape function reads
// the same attr to give `num_attrs` its length.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;

REGISTER_OP("FunctionList")
    .Output("description: uint8")
    .Output("num_attrs: int32")
    .Attr("fs: list(func)")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      std::vector<NameAttrList> fs;
      TF_RETURN_IF_ERROR(c->GetAttr("fs", &fs));
      c->set_output(0, c->Vector(shape_inference::InferenceContext::kUnknownDim));
      c->set_output(1, c->Vector(static_cast<int64_t>(fs.size())));
      return OkStatus();
    });

namespace {

std::string Describe(const NameAttrList& f);

std::string Describe(const AttrValue& v) {
  char number[32];
  switch (v.value_case()) {
    case AttrValue::kS: return "'" + v.s() + "'";
    case AttrValue::kI: return std::to_string(v.i());
    case AttrValue::kF: std::snprintf(number, sizeof number, "%g", v.f()); return number;
    case AttrValue::kB: return v.b() ? "true" : "false";
    case AttrValue::kType: return DataTypeString(v.type());
    case AttrValue::kFunc: return Describe(v.func());
    case AttrValue::kList: {
      std::string out = "[";
      for (int k = 0; k < v.list().i_size(); ++k) out += (k ? "," : "") + std::to_string(v.list().i(k));
      return out + "]";
    }
    default: return "?";
  }
}

// The function's name and attrs, sorted by key (TensorFlow's attr map is unordered).
std::string Describe(const NameAttrList& f) {
  std::vector<std::string> keys;
  for (const auto& entry : f.attr()) keys.push_back(entry.first);
  std::sort(keys.begin(), keys.end());
  std::string out = f.name() + "(";
  for (size_t k = 0; k < keys.size(); ++k)
    out += (k ? "," : "") + keys[k] + "=" + Describe(f.attr().at(keys[k]));
  return out + ")";
}

}  // namespace

class FunctionListOp : public OpKernel {
 public:
  explicit FunctionListOp(OpKernelConstruction* context) : OpKernel(context) {
    std::vector<NameAttrList> fs;
    OP_REQUIRES_OK(context, context->GetAttr("fs", &fs));
    for (const NameAttrList& f : fs) {
      OP_REQUIRES(context, !f.name().empty(),
                  errors::InvalidArgument("FunctionList needs function names, got an empty one"));
      description_ += (description_.empty() ? "" : ";") + Describe(f);
      num_attrs_.push_back(static_cast<int32>(f.attr().size()));
    }
  }

  void Compute(OpKernelContext* context) override {
    Tensor* description = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({static_cast<int64_t>(description_.size())}),
                                &description));
    auto bytes = description->flat<uint8>();
    for (size_t i = 0; i < description_.size(); ++i) bytes(i) = static_cast<uint8>(description_[i]);
    Tensor* num_attrs = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                1, TensorShape({static_cast<int64_t>(num_attrs_.size())}),
                                &num_attrs));
    auto counts = num_attrs->vec<int32>();
    for (size_t i = 0; i < num_attrs_.size(); ++i) counts(i) = num_attrs_[i];
  }

 private:
  std::string description_;
  std::vector<int32> num_attrs_;
};

REGISTER_KERNEL_BUILDER(Name("FunctionList").Device(DEVICE_CPU), FunctionListOp);
