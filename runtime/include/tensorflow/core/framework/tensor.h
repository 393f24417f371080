// Tensor: a reference to a TF_Tensor of the C API, with TensorFlow's accessors. flat<T>(),
// vec<T>(), matrix<T>(), scalar<T>() and tensor<T, N>() return light row-major views
// (operator(), operator[], size(), data(), dimension(), setZero(), setConstant()) in place
// of Eigen::TensorMap; Eigen expressions (`.device(d) = a + b`) are not offered: write
// the loop over the view (docs/cpp_custom_ops.md).
#ifndef TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_
#define TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>

#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {

// A row-major view of N dims over memory the Tensor owns (TensorFlow's TTypes<T, N>::Tensor).
template <typename T, int N>
class TensorView {
 public:
  using Scalar = T;
  using Index = int64_t;
  TensorView(T* data, const std::array<int64_t, N>& dims) : data_(data), dims_(dims) {}

  T* data() const { return data_; }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }
  int64_t dimension(int i) const { return dims_[static_cast<size_t>(i)]; }
  const std::array<int64_t, N>& dimensions() const { return dims_; }
  static constexpr int rank() { return N; }
  static constexpr int NumDimensions = N;

  template <typename... Indices>
  T& operator()(Indices... indices) const {
    static_assert(sizeof...(Indices) == N, "a view of N dims takes N indices");
    const int64_t index[N > 0 ? N : 1] = {static_cast<int64_t>(indices)...};
    int64_t offset = 0;
    for (int i = 0; i < N; ++i) offset = offset * dims_[static_cast<size_t>(i)] + index[i];
    return data_[offset];
  }
  T& operator[](int64_t i) const { return data_[i]; }  // linear index

  // Eigen's `view.device(d) = expression` is not offered: stop with a message that says so.
  template <typename Device>
  TensorView& device(const Device&) {
    static_assert(sizeof(Device) == 0,
                  "opgen: Eigen tensor expressions (view.device(d) = ...) are not offered; write "
                  "the element loop over the view (CPU) or a CUDA kernel launched on "
                  "d.stream() (GPU); see docs/cpp_custom_ops.md");
    return *this;
  }
  TensorView& setZero() { return setConstant(T()); }
  TensorView& setConstant(const T& value) {
    const int64_t n = size();
    for (int64_t i = 0; i < n; ++i) data_[i] = value;
    return *this;
  }

 private:
  T* data_;
  std::array<int64_t, N> dims_;
};

template <typename T, int NDIMS = 1>
struct TTypes {
  using Tensor = TensorView<T, NDIMS>;
  using ConstTensor = TensorView<const T, NDIMS>;
  using Flat = TensorView<T, 1>;
  using ConstFlat = TensorView<const T, 1>;
  using Vec = TensorView<T, 1>;
  using ConstVec = TensorView<const T, 1>;
  using Matrix = TensorView<T, 2>;
  using ConstMatrix = TensorView<const T, 2>;
  using Scalar = TensorView<T, 0>;
  using ConstScalar = TensorView<const T, 0>;
};

namespace opgen_detail {
struct TensorDeleter {
  void operator()(TF_Tensor* t) const { TF_DeleteTensor(t); }
};
[[noreturn]] inline void TensorCheckFailed(const std::string& what) {
  std::fprintf(stderr, "Check failed: %s\n", what.c_str());
  std::abort();
}
}  // namespace opgen_detail

class Tensor {
 public:
  Tensor() = default;
  // A new host tensor (TF_AllocateTensor) of a fixed-size dtype or strings (empty).
  Tensor(DataType type, const TensorShape& shape) {
    const size_t bytes = static_cast<size_t>(shape.num_elements()) * opgen_detail::ElementBytes(type);
    Reset(TF_AllocateTensor(static_cast<TF_DataType>(type), shape.dim_sizes().data(),
                            shape.dims(), bytes));
  }
  // A string scalar, as TensorFlow's Tensor(tstring) makes.
  explicit Tensor(tstring scalar) : Tensor(DT_STRING, TensorShape()) { flat<tstring>()(0) = std::move(scalar); }
  explicit Tensor(const char* scalar) : Tensor(tstring(scalar)) {}
  // Takes ownership of `tensor` (one reference of the C API).
  static Tensor FromC(TF_Tensor* tensor) {
    Tensor t;
    t.Reset(tensor);
    return t;
  }

  DataType dtype() const { return tensor_ ? static_cast<DataType>(TF_TensorType(tensor_.get())) : DT_FLOAT; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  size_t TotalBytes() const { return tensor_ ? TF_TensorByteSize(tensor_.get()) : 0; }
  size_t AllocatedBytes() const { return TotalBytes(); }
  bool IsInitialized() const { return tensor_ != nullptr; }
  bool IsAligned() const { return tensor_ && TF_TensorIsAligned(tensor_.get()); }
  bool IsSameSize(const Tensor& other) const { return shape_ == other.shape_; }
  bool SharesBufferWith(const Tensor& other) const {
    return tensor_ && other.tensor_ && TF_TensorData(tensor_.get()) == TF_TensorData(other.tensor_.get());
  }
  std::string DebugString() const {
    return "Tensor<type: " + DataTypeString(dtype()) + " shape: " + shape_.DebugString() + ">";
  }
  // Makes this tensor share `other`'s buffer with `shape` (same number of elements).
  bool CopyFrom(const Tensor& other, const TensorShape& shape) {
    if (other.NumElements() != shape.num_elements()) return false;
    *this = other;
    shape_ = shape;
    if (tensor_) {
      TF_Tensor* view = TF_AllocateTensor(TF_TensorType(other.tensor_.get()), shape.dim_sizes().data(),
                                          shape.dims(), 0);
      TF_Status* status = TF_NewStatus();
      TF_TensorBitcastFrom(other.tensor_.get(), TF_TensorType(other.tensor_.get()), view,
                           shape.dim_sizes().data(), shape.dims(), status);
      const bool ok = TF_GetCode(status) == TF_OK;
      TF_DeleteStatus(status);
      if (!ok) { TF_DeleteTensor(view); return false; }
      Reset(view);
    }
    return true;
  }

  // The C API tensor (still owned by this Tensor).
  TF_Tensor* c_tensor() const { return tensor_.get(); }

  template <typename T> T* data() const { return static_cast<T*>(raw()); }

  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() { return View<T, NDIMS>(shape_.dim_sizes(), NDIMS); }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor tensor() const { return View<const T, NDIMS>(shape_.dim_sizes(), NDIMS); }
  template <typename T> typename TTypes<T>::Flat flat() { return View<T, 1>({NumElements()}, 1); }
  template <typename T> typename TTypes<T>::ConstFlat flat() const { return View<const T, 1>({NumElements()}, 1); }
  template <typename T> typename TTypes<T>::Vec vec() { return tensor<T, 1>(); }
  template <typename T> typename TTypes<T>::ConstVec vec() const { return tensor<T, 1>(); }
  template <typename T> typename TTypes<T>::Matrix matrix() { return tensor<T, 2>(); }
  template <typename T> typename TTypes<T>::ConstMatrix matrix() const { return tensor<T, 2>(); }
  template <typename T> typename TTypes<T>::Scalar scalar() { return tensor<T, 0>(); }
  template <typename T> typename TTypes<T>::ConstScalar scalar() const { return tensor<T, 0>(); }
  // The dims folded into [prod(all but last), last] (a scalar gives [1, 1]).
  template <typename T> typename TTypes<T>::Matrix flat_inner_dims() {
    const int64_t last = dims() > 0 ? dim_size(dims() - 1) : 1;
    return View<T, 2>({last ? NumElements() / last : 0, last}, 2);
  }
  template <typename T> typename TTypes<T>::ConstMatrix flat_inner_dims() const {
    const int64_t last = dims() > 0 ? dim_size(dims() - 1) : 1;
    return View<const T, 2>({last ? NumElements() / last : 0, last}, 2);
  }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(const std::vector<int64_t>& new_sizes) {
    return View<T, NDIMS>(new_sizes, NDIMS);
  }

 private:
  void Reset(TF_Tensor* tensor) {
    tensor_.reset(tensor, opgen_detail::TensorDeleter());
    shape_.Clear();
    if (tensor)
      for (int d = 0; d < TF_NumDims(tensor); ++d) shape_.AddDim(TF_Dim(tensor, d));
  }
  void* raw() const { return tensor_ ? TF_TensorData(tensor_.get()) : nullptr; }

  // TensorFlow CHECK-fails on a view of the wrong dtype or rank; so does this.
  template <typename T, size_t NDIMS>
  TensorView<T, NDIMS> View(const std::vector<int64_t>& dims, size_t want_rank) const {
    using Plain = std::remove_const_t<T>;
    if (DataTypeToEnum<Plain>::v() != dtype())
      opgen_detail::TensorCheckFailed("Tensor of " + DataTypeString(dtype()) + " viewed as " +
                                      DataTypeString(DataTypeToEnum<Plain>::v()));
    if (dims.size() != want_rank)
      opgen_detail::TensorCheckFailed("Tensor of shape " + shape_.DebugString() + " viewed with " +
                                      std::to_string(want_rank) + " dims");
    std::array<int64_t, NDIMS> a{};
    int64_t count = 1;
    for (size_t i = 0; i < NDIMS; ++i) { a[i] = dims[i]; count *= dims[i]; }
    if (count != NumElements())
      opgen_detail::TensorCheckFailed("Tensor of shape " + shape_.DebugString() + " reshaped to a different size");
    return TensorView<T, NDIMS>(static_cast<T*>(raw()), a);
  }

  std::shared_ptr<TF_Tensor> tensor_;
  TensorShape shape_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_
