#include "shape_check.h"

#include "core_types.h"

namespace opgen {
namespace {

// "[2,-5]" with the values as given (ShapeToString prints any negative dim as "?"),
// cut short after a few dims: the rank may be absurd.
std::string RawDims(const int64_t* dims, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i == 8) return s + ",... (" + std::to_string(n) + " dims)]";
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

bool Fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

bool RankTooLarge(const std::string& what, size_t rank, std::string* error) {
  return Fail(error, what + " of rank " + std::to_string(rank) + " has more than " +
                         std::to_string(kMaxShapeRank) + " dims");
}

}  // namespace

bool CheckPartialDims(const int64_t* dims, int num_dims, std::string* error) {
  if (num_dims > 0 && dims == nullptr)
    return Fail(error, "dims is NULL for a shape of rank " + std::to_string(num_dims));
  if (num_dims > kMaxShapeRank) return RankTooLarge("shape", static_cast<size_t>(num_dims), error);
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < -1)
      return Fail(error, "shape " + RawDims(dims, static_cast<size_t>(num_dims)) + " has dim " +
                             std::to_string(dims[i]) + " at index " + std::to_string(i) +
                             "; a dim must be >= -1 (-1 means unknown)");
  }
  return true;
}

bool CheckPartialShape(const Shape& shape, std::string* error) {
  if (shape.unknown_rank && !shape.dims.empty())
    return Fail(error, "shape has unknown_rank set and " + std::to_string(shape.dims.size()) +
                           " dims; a shape of unknown rank has no dims");
  if (shape.dims.size() > static_cast<size_t>(kMaxShapeRank))
    return RankTooLarge("shape", shape.dims.size(), error);
  return CheckPartialDims(shape.dims.data(), static_cast<int>(shape.dims.size()), error);
}

bool CheckTensorShape(const std::string& what, const std::vector<int64_t>& dims,
                      std::string* error) {
  if (dims.size() > static_cast<size_t>(kMaxShapeRank)) return RankTooLarge(what, dims.size(), error);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      return Fail(error, what + " " + RawDims(dims.data(), dims.size()) +
                             " has a negative dimension (" + std::to_string(dims[i]) +
                             " at index " + std::to_string(i) +
                             "); a tensor's dims must be >= 0");
  }
  if (NumElements(dims) < 0)
    return Fail(error, what + " " + RawDims(dims.data(), dims.size()) +
                           " has too many elements (more than 2^63 - 1)");
  return true;
}

}  // namespace opgen
