// What the built-in shape functions are written against: a C++ view of the public
// shape-inference C API (tensorflow/c/ops.h plus opgen/c_api_ext.h), so that the
// built-in ops use exactly what a plugin can use. Shape algebra works on PartialShape
// values; a failed check throws ShapeError, which ShapeFn<> turns into a
// TF_INVALID_ARGUMENT status at the C boundary.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

namespace opgen {

constexpr int64_t kUnknownDim = -1;
// The most dimensions a tensor may have (TensorFlow's TensorShape limit).
constexpr int64_t kMaxRank = 254;

// A shape known in part: unknown rank, or dims where kUnknownDim is an unknown size.
struct PartialShape {
  bool rank_known = false;
  std::vector<int64_t> dims;

  static PartialShape Unknown() { return {}; }
  static PartialShape Of(std::vector<int64_t> dims) { return {true, std::move(dims)}; }
  // `rank` unknown dims; fails (ShapeError) for a rank no tensor can have: ranks come
  // from operand sizes, which callers control.
  static PartialShape UnknownDims(int64_t rank);
  int64_t rank() const { return rank_known ? static_cast<int64_t>(dims.size()) : -1; }
  // The element count, or -1 when a dim or the rank is unknown.
  int64_t NumElements() const;
  // "[2,?,3]", or "<unknown>" for an unknown rank.
  std::string ToString() const;
};

// An input combination a shape function rejects; the message says why.
class ShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
[[noreturn]] void Fail(const std::string& message);

// The node a shape function is called for, through the C API.
class ShapeFnContext {
 public:
  explicit ShapeFnContext(TF_ShapeInferenceContext* ctx);
  ~ShapeFnContext();
  ShapeFnContext(const ShapeFnContext&) = delete;
  ShapeFnContext& operator=(const ShapeFnContext&) = delete;

  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return num_outputs_; }

  PartialShape Input(int i);
  // Input `i`'s shape checked to have rank `rank` (an unknown rank becomes `rank` unknown
  // dims); `what` names the input in the message.
  PartialShape InputWithRank(int i, int64_t rank, const char* what);
  PartialShape InputWithRankAtLeast(int i, int64_t rank, const char* what);
  // The elements of input `i`, converted to int64 / double, when its value is known
  // while the graph is built; nullopt otherwise.
  std::optional<std::vector<int64_t>> InputInts(int i);
  std::optional<std::vector<double>> InputDoubles(int i);

  TF_DataType AttrType(const char* name);
  int64_t AttrInt(const char* name);
  bool AttrBool(const char* name);
  std::string AttrString(const char* name);
  std::vector<int64_t> AttrInts(const char* name);
  PartialShape AttrShape(const char* name);
  // The shape of the tensor held by a tensor attr.
  PartialShape AttrTensorShape(const char* name);
  // The shapes of a list(shape) attr.
  std::vector<PartialShape> AttrShapes(const char* name);

  void SetOutput(int i, const PartialShape& shape);

 private:
  // Throws ShapeError with the message of a failed C call.
  void Check();
  // The known value of input `i` as a tensor we own, or null.
  TF_Tensor* InputTensor(int i);

  TF_ShapeInferenceContext* ctx_;
  TF_Status* status_;
  int num_inputs_, num_outputs_;
};

// Adapts `Fn` to the C signature that TF_OpDefinitionBuilderSetShapeInferenceFunction
// takes; nothing is thrown across it.
template <void (*Fn)(ShapeFnContext&)>
void ShapeFn(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  try {
    ShapeFnContext c(ctx);
    Fn(c);
    TF_SetStatus(status, TF_OK, "");
  } catch (const ShapeError& e) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    TF_SetStatus(status, TF_INTERNAL, e.what());
  }
}

// ---- Shape algebra shared by the op families -----------------------------------------

// numpy broadcasting of two shapes; incompatible known dims throw. An unknown dim gives
// the other operand's dim when that is known and not 1, else an unknown dim.
PartialShape BroadcastShapes(const PartialShape& a, const PartialShape& b);
// Whether two shapes broadcast (false only for known dims that cannot).
bool Broadcastable(const PartialShape& a, const PartialShape& b);
// Two descriptions of one dim or shape combined; known values that differ throw, naming
// `what`.
int64_t MergeDim(int64_t a, int64_t b, const std::string& what);
PartialShape MergeShapes(const PartialShape& a, const PartialShape& b, const std::string& what);
// An axis in [-rank, rank) made non-negative; out of range throws, naming `what`.
int64_t CanonicalAxis(int64_t axis, int64_t rank, const std::string& what);
// "?" or the number.
std::string DimToString(int64_t dim);

}  // namespace opgen
