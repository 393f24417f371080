// StringToHashBucketFast (Fingerprint64 modulo the bucket count) and
// StringToHashBucketStrong (SipHash-2-4 under the `key` attr); the hashes are
// string_hashes.h; Fingerprint (FarmHash per row, as bytes). Host only: string tensors are host data, as in TensorFlow.
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"
#include "string_hashes.h"

namespace opgen {
namespace cpu {
namespace {

struct BucketAttrs {
  uint64_t buckets;
  uint64_t key[2];
};

void* CreateBuckets(TF_OpKernelConstruction* ctx, bool keyed) {
  StatusPtr s = NewStatus();
  int64_t buckets = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "num_buckets", &buckets, s.get());
  std::vector<int64_t> key;
  if (keyed && TF_GetCode(s.get()) == TF_OK) {
    key = kernels::IntListAttr(ctx, "key", s.get());
    if (TF_GetCode(s.get()) == TF_OK && key.size() != 2)
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("StringToHashBucketStrong: Key must have 2 elements, got " +
                    std::to_string(key.size())).c_str());
  }
  if (TF_GetCode(s.get()) == TF_OK && buckets < 1)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "num_buckets must be at least 1");
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  auto* a = new BucketAttrs{static_cast<uint64_t>(buckets), {0, 0}};
  if (keyed) {
    a->key[0] = static_cast<uint64_t>(key[0]);
    a->key[1] = static_cast<uint64_t>(key[1]);
  }
  return a;
}
void* CreateFast(TF_OpKernelConstruction* ctx) { return CreateBuckets(ctx, false); }
void* CreateStrong(TF_OpKernelConstruction* ctx) { return CreateBuckets(ctx, true); }
void DeleteBuckets(void* a) { delete static_cast<BucketAttrs*>(a); }

template <bool kStrong>
void BucketCompute(void* state, TF_OpKernelContext* ctx) {
  const BucketAttrs& a = *static_cast<BucketAttrs*>(state);
  TensorPtr in = Input(ctx, 0);
  if (!in) return;
  TensorPtr out = AllocateOutput<int64_t>(ctx, 0, Dims(in.get()));
  if (!out) return;
  const TF_TString* s = StringElements(in.get());
  int64_t* o = Data<int64_t>(out);
  const int64_t n = TF_TensorElementCount(in.get());
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view bytes = StringElement(&s[i]);
    const uint64_t h = kStrong ? hashes::SipHash24(a.key, bytes) : hashes::Fingerprint64(bytes);
    o[i] = static_cast<int64_t>(h % a.buckets);
  }
}

// Fingerprint64 of `bytes` as 8 little-endian bytes at `out`.
void PutFingerprint(std::string_view bytes, uint8_t* out) {
  const uint64_t f = hashes::Fingerprint64(bytes);
  for (int k = 0; k < 8; ++k) out[k] = static_cast<uint8_t>(f >> (8 * k));
}

void FingerprintCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr data = Input(ctx, 0), method = Input(ctx, 1);
  if (!data || !method) return;
  if (TF_NumDims(method.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Fingerprint: `method` should be a scalar string: " +
                                              ShapeString(Dims(method.get())));
  const std::string_view name = StringElement(StringElements(method.get()));
  if (name != "farmhash64")
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Fingerprint: Unsupported fingerprint method: " + std::string(name));
  const std::vector<int64_t> dims = Dims(data.get());
  if (dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Fingerprint: `data` should have at least one dimension: []");
  const TF_DataType type = TF_TensorType(data.get());
  if (type == TF_VARIANT || type == TF_RESOURCE)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Fingerprint: data of type " +
                                              kernels::DTypeName(type) + " has no bytes to hash");
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_UINT8, {dims[0], 8});
  if (!out) return;
  uint8_t* o = Data<uint8_t>(out);
  const int64_t rows = dims[0];
  if (rows == 0) return;
  const int64_t per_row = TF_TensorElementCount(data.get()) / rows;
  if (type != TF_STRING) {
    const size_t row_bytes = static_cast<size_t>(per_row) * TF_DataTypeSize(type);
    const char* bytes = static_cast<const char*>(TF_TensorData(data.get()));
    for (int64_t r = 0; r < rows; ++r) PutFingerprint({bytes + r * row_bytes, row_bytes}, o + 8 * r);
    return;
  }
  const TF_TString* s = StringElements(data.get());
  std::vector<uint8_t> row(8 * per_row);
  for (int64_t r = 0; r < rows; ++r) {
    if (per_row == 1) {
      PutFingerprint(StringElement(&s[r]), o + 8 * r);
      continue;
    }
    for (int64_t j = 0; j < per_row; ++j) PutFingerprint(StringElement(&s[r * per_row + j]), &row[8 * j]);
    PutFingerprint({reinterpret_cast<const char*>(row.data()), row.size()}, o + 8 * r);
  }
}

}  // namespace

void RegisterStringHashKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StringToHashBucketFast", {}, {}, BucketCompute<false>, CreateFast,
                           DeleteBuckets}, status);
  RegisterKernel(kDevice, {"StringToHashBucketStrong", {}, {}, BucketCompute<true>, CreateStrong,
                           DeleteBuckets}, status);
  RegisterKernel(kDevice, {"Fingerprint", {}, {"method"}, FingerprintCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
