// TensorShape: the dims of a tensor, held by value in the plugin.
#ifndef TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {

class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(const std::vector<int64_t>& dims) : dims_(dims) {}

  // Builds a shape, failing on a negative dim (TensorFlow's factory).
  template <typename Container>
  static Status BuildTensorShape(const Container& dims, TensorShape* out) {
    TensorShape shape;
    for (auto d : dims) TF_RETURN_IF_ERROR(shape.AddDimWithStatus(d));
    *out = shape;
    return OkStatus();
  }

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int d) const { return dims_.at(static_cast<size_t>(d < 0 ? d + dims() : d)); }
  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }
  void AddDim(int64_t size) { dims_.push_back(size); }
  Status AddDimWithStatus(int64_t size) {
    if (size < 0) return errors::InvalidArgument("Dimension ", size, " must be >= 0");
    dims_.push_back(size);
    return OkStatus();
  }
  void AppendShape(const TensorShape& other) {
    dims_.insert(dims_.end(), other.dims_.begin(), other.dims_.end());
  }
  void InsertDim(int d, int64_t size) { dims_.insert(dims_.begin() + d, size); }
  void set_dim(int d, int64_t size) { dims_.at(static_cast<size_t>(d)) = size; }
  void RemoveDim(int d) { dims_.erase(dims_.begin() + d); }
  void RemoveLastDims(int n) { dims_.resize(dims_.size() - static_cast<size_t>(n)); }
  void Clear() { dims_.clear(); }
  bool IsSameSize(const TensorShape& other) const { return dims_ == other.dims_; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }

  std::string DebugString() const {
    std::string s = "[";
    for (size_t i = 0; i < dims_.size(); ++i) s += (i ? "," : "") + std::to_string(dims_[i]);
    return s + "]";
  }

  friend bool operator==(const TensorShape& a, const TensorShape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const TensorShape& a, const TensorShape& b) { return a.dims_ != b.dims_; }

 private:
  std::vector<int64_t> dims_;
};

inline std::ostream& operator<<(std::ostream& os, const TensorShape& s) {
  return os << s.DebugString();
}

// A shape that may have an unknown rank or unknown dims (-1), as shape attrs and shape
// functions hold them.
class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  PartialTensorShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialTensorShape(const std::vector<int64_t>& dims) : known_rank_(true), dims_(dims) {
    for (int64_t& d : dims_) d = d < 0 ? -1 : d;
  }
  PartialTensorShape(const TensorShape& shape)  // NOLINT: implicit as in TensorFlow
      : known_rank_(true), dims_(shape.dim_sizes()) {}

  bool unknown_rank() const { return !known_rank_; }
  int dims() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim_size(int d) const { return dims_.at(static_cast<size_t>(d)); }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  bool IsFullyDefined() const {
    if (!known_rank_) return false;
    for (int64_t d : dims_)
      if (d < 0) return false;
    return true;
  }
  // The shape as a TensorShape, where it is fully defined.
  bool AsTensorShape(TensorShape* out) const {
    if (!IsFullyDefined()) return false;
    *out = TensorShape(dims_);
    return true;
  }
  std::string DebugString() const {
    if (!known_rank_) return "<unknown>";
    std::string s = "[";
    for (size_t i = 0; i < dims_.size(); ++i)
      s += (i ? "," : "") + (dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]));
    return s + "]";
  }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

inline std::ostream& operator<<(std::ostream& os, const PartialTensorShape& s) {
  return os << s.DebugString();
}

class TensorShapeUtils {
 public:
  static bool IsScalar(const TensorShape& s) { return s.dims() == 0; }
  static bool IsVector(const TensorShape& s) { return s.dims() == 1; }
  static bool IsVectorOrHigher(const TensorShape& s) { return s.dims() >= 1; }
  static bool IsMatrix(const TensorShape& s) { return s.dims() == 2; }
  static bool IsSquareMatrix(const TensorShape& s) {
    return s.dims() == 2 && s.dim_size(0) == s.dim_size(1);
  }
  static bool IsMatrixOrHigher(const TensorShape& s) { return s.dims() >= 2; }
  template <typename T>
  static Status MakeShape(const std::vector<T>& dims, TensorShape* out) {
    return TensorShape::BuildTensorShape(dims, out);
  }
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
