// REGISTER_OP for C++ custom ops built against opgen: TensorFlow's spec strings, shape
// function, flags and doc, registered through the C op-definition API when the plugin
// is loaded.
#ifndef TENSORFLOW_CORE_FRAMEWORK_OP_H_
#define TENSORFLOW_CORE_FRAMEWORK_OP_H_

#include <string>
#include <utility>

#include "tensorflow/core/framework/opgen_registry.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"

namespace tensorflow {
namespace register_op {

// The C API takes a plain function pointer for a shape function; each REGISTER_OP gets its
// own (Tag is a type unique to that use of the macro) which calls the std::function kept here.
template <typename Tag>
struct ShapeFnSlot {
  static OpShapeInferenceFn& fn() {
    static OpShapeInferenceFn f;
    return f;
  }
  static void Thunk(TF_ShapeInferenceContext* ctx, TF_Status* status) {
    shape_inference::InferenceContext c(ctx);
    Status s;
#if defined(__cpp_exceptions)
    try {
      s = fn()(&c);
    } catch (const std::exception& e) {
      s = errors::Internal("shape function threw: ", e.what());
    }
#else
    s = fn()(&c);
#endif
    if (s.ok()) s = c.Finish();
    s.CopyTo(status);
  }
};

class OpDefBuilderBase {
 public:
  explicit OpDefBuilderBase(std::string name) { spec_.name = std::move(name); }
  const opgen_registry::OpSpec& spec() const { return spec_; }

 protected:
  opgen_registry::OpSpec spec_;
};

template <typename Tag>
class OpDefBuilderWrapper : public OpDefBuilderBase {
 public:
  explicit OpDefBuilderWrapper(const char* name) : OpDefBuilderBase(name) {}
  OpDefBuilderWrapper& Attr(std::string spec) { spec_.attrs.push_back(std::move(spec)); return *this; }
  OpDefBuilderWrapper& Input(std::string spec) { spec_.inputs.push_back(std::move(spec)); return *this; }
  OpDefBuilderWrapper& Output(std::string spec) { spec_.outputs.push_back(std::move(spec)); return *this; }
  OpDefBuilderWrapper& SetIsStateful() { spec_.stateful = true; return *this; }
  OpDefBuilderWrapper& SetIsCommutative() { spec_.commutative = true; return *this; }
  OpDefBuilderWrapper& SetIsAggregate() { spec_.aggregate = true; return *this; }
  OpDefBuilderWrapper& SetAllowsUninitializedInput() { spec_.allows_uninitialized = true; return *this; }
  OpDefBuilderWrapper& SetDoNotOptimize() { return SetIsStateful(); }
  OpDefBuilderWrapper& Deprecated(int version, std::string explanation) {
    spec_.deprecated_version = version;
    spec_.deprecation = std::move(explanation);
    return *this;
  }
  OpDefBuilderWrapper& Doc(std::string text) { spec_.doc = std::move(text); return *this; }
  OpDefBuilderWrapper& SetShapeFn(OpShapeInferenceFn fn) {
    ShapeFnSlot<Tag>::fn() = std::move(fn);
    spec_.shape_fn = &ShapeFnSlot<Tag>::Thunk;
    return *this;
  }
};

// Registers the op when constructed (at the plugin's load, as a static initializer).
struct OpDefBuilderReceiver {
  OpDefBuilderReceiver(const OpDefBuilderBase& builder) {  // NOLINT: implicit as in TensorFlow
    opgen_registry::RegisterOp(builder.spec());
  }
};

}  // namespace register_op
}  // namespace tensorflow

#define REGISTER_OP(name) OPGEN_REGISTER_OP_UNIQ_HELPER(__COUNTER__, name)
#define OPGEN_REGISTER_OP_UNIQ_HELPER(ctr, name) OPGEN_REGISTER_OP_UNIQ(ctr, name)
#define OPGEN_REGISTER_OP_UNIQ(ctr, name)                                               \
  namespace {                                                                           \
  struct opgen_op_tag_##ctr {};                                                         \
  }                                                                                     \
  static ::tensorflow::register_op::OpDefBuilderReceiver register_op##ctr               \
      __attribute__((unused)) =                                                         \
          ::tensorflow::register_op::OpDefBuilderWrapper<opgen_op_tag_##ctr>(name)

#endif  // TENSORFLOW_CORE_FRAMEWORK_OP_H_
