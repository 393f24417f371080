// A tensor attr's shared value: bytes and tensor, each made lazily from the other.
#include <atomic>
#include <cstring>
#include <mutex>

#include "core_types.h"
#include "op_def.h"
#include "wire_format.h"

namespace opgen {
namespace {
std::atomic<int64_t> conversions{0};
}  // namespace

struct TensorAttr::Rep {
  std::mutex mu;
  bool has_bytes = false;
  std::string bytes;
  TF_Tensor* tensor = nullptr;  // one reference, owned
  bool parsed = false;          // tensor (or error) known
  std::string error;
  ~Rep() { delete tensor; }
};

TensorAttr::TensorAttr(std::string bytes) : rep_(std::make_shared<Rep>()) {
  rep_->bytes = std::move(bytes);
  rep_->has_bytes = true;
}

TensorAttr TensorAttr::Read(std::string_view bytes) {
  // Smaller values stay bytes: parsing them could cost more than it saves, and a few
  // bytes of typed values may describe a huge splat.
  constexpr size_t kParseAtOnce = 4096;
  TF_DataType dtype;
  std::vector<int64_t> dims;
  std::string error;
  if (bytes.size() >= kParseAtOnce && ParseTensorProtoShape(bytes, &dtype, &dims, &error) &&
      TF_DataTypeSize(dtype) > 0 &&
      static_cast<uint64_t>(NumElements(dims)) * TF_DataTypeSize(dtype) <= bytes.size()) {
    TF_Tensor* t = ParseTensorProto(bytes, &error);
    if (t != nullptr && IsCanonicalTensorProto(bytes, t)) {
      TensorAttr out;
      out.rep_ = std::make_shared<Rep>();
      out.rep_->tensor = t;
      out.rep_->parsed = true;
      conversions.fetch_add(1, std::memory_order_relaxed);
      return out;
    }
    delete t;
  }
  return TensorAttr(std::string(bytes));
}

bool TensorAttr::FromTensor(const TF_Tensor& tensor, TensorAttr* out) {
  if (TF_DataTypeSize(tensor.dtype) == 0 && tensor.dtype != TF_STRING) return false;
  auto rep = std::make_shared<Rep>();
  rep->tensor = tensor.Share();
  rep->parsed = true;
  out->rep_ = std::move(rep);
  return true;
}

const std::string& TensorAttr::bytes() const {
  static const std::string kEmpty;
  if (rep_ == nullptr) return kEmpty;
  std::lock_guard<std::mutex> lock(rep_->mu);
  if (!rep_->has_bytes) {
    // FromTensor took only dtypes SerializeTensorProto writes.
    SerializeTensorProto(rep_->tensor, &rep_->bytes);
    rep_->has_bytes = true;
    conversions.fetch_add(1, std::memory_order_relaxed);
  }
  return rep_->bytes;
}

const TF_Tensor* TensorAttr::tensor(std::string* error) const {
  if (rep_ == nullptr) {
    *error = "the tensor attr holds no value";
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(rep_->mu);
  if (!rep_->parsed) {
    rep_->tensor = ParseTensorProto(rep_->bytes, &rep_->error);
    rep_->parsed = true;
    conversions.fetch_add(1, std::memory_order_relaxed);
  }
  if (rep_->tensor == nullptr) *error = rep_->error;
  return rep_->tensor;
}

bool TensorAttr::Header(TF_DataType* dtype, std::vector<int64_t>* dims, std::string* error,
                        bool full) const {
  if (rep_ != nullptr) {
    std::lock_guard<std::mutex> lock(rep_->mu);
    if (!rep_->has_bytes) {  // made from a tensor: nothing to check
      *dtype = rep_->tensor->dtype;
      *dims = rep_->tensor->dims;
      return true;
    }
  }
  return full ? ParseTensorProtoShape(bytes(), dtype, dims, error)
              : ParseTensorProtoHeader(bytes(), dtype, dims, error);
}

TF_Tensor* TensorAttr::NewCopy(std::string* error) const {
  if (rep_ != nullptr) {
    // Still bytes: parse them into the caller's tensor, rather than parse, keep and copy.
    // A few bytes can describe a splat of gigabytes, which the attr need not hold too.
    std::lock_guard<std::mutex> lock(rep_->mu);
    if (!rep_->parsed) {
      conversions.fetch_add(1, std::memory_order_relaxed);
      return ParseTensorProto(rep_->bytes, error);
    }
  }
  const TF_Tensor* t = tensor(error);
  if (t == nullptr) return nullptr;
  if (t->dtype == TF_STRING) return ParseTensorProto(bytes(), error);  // elements own heap data
  TF_Tensor* copy = TF_AllocateTensor(t->dtype, t->dims.data(), static_cast<int>(t->dims.size()),
                                      t->buffer->size());
  if (copy == nullptr) {
    *error = "cannot allocate the tensor";
    return nullptr;
  }
  if (t->buffer->size() > 0) std::memcpy(copy->buffer->data(), t->buffer->data(), t->buffer->size());
  return copy;
}

int64_t TensorAttr::Conversions() { return conversions.load(std::memory_order_relaxed); }

}  // namespace opgen
