// AsString and the string hash-bucket ops: what Keras' Hashing layer (and
// tf.strings.to_hash_bucket_*) run. OpDefs as TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// [dim0 of data, 8]; a known method must be "farmhash64".
void FingerprintShape(ShapeFnContext& c) {
  const PartialShape data = c.InputWithRankAtLeast(0, 1, "data");
  c.InputWithRank(1, 0, "method");
  c.SetOutput(0, PartialShape::Of({data.dims[0], 8}));
}

}  // namespace

void RegisterStringHashOps(TF_Status* status) {
  const std::pair<std::string, std::string> buckets_doc{"num_buckets", "The number of buckets."};
  RegisterOps({
      {"AsString",
       {"T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
        "uint64, complex64, complex128, bool, variant, string}",
        "precision: int = -1", "scientific: bool = false", "shortest: bool = false",
        "width: int = -1", "fill: string = ''"},
       {"input: T"}, {"output: string"}, shape_fns::kUnchanged,
       "Formats each element as a string, as printf would.",
       "Numbers print with printf's %d / %u / %f (%e with scientific, %g with shortest); "
       "fill is a printf flag (one of ' ', '+', '-', '0', '#') and width the field width. "
       "Complex numbers print as (real,imag), booleans as true / false.",
       {{"input", "The values to format."},
        {"output", "The formatted strings, of the input's shape."},
        {"precision", "Digits after the point for floating-point values (-1: printf's 6)."},
        {"scientific", "Exponent notation for floating-point values."},
        {"shortest", "The shorter of plain and exponent notation (%g)."},
        {"width", "Pad to at least this many characters (-1: no padding)."},
        {"fill", "The printf flag that pads: ' ', '+', '-', '0' or '#'."}}},
      {"StringToHashBucketFast", {"num_buckets: int >= 1"}, {"input: string"},
       {"output: int64"}, shape_fns::kUnchanged,
       "Hashes each string into [0, num_buckets) with the Fingerprint64 (FarmHash) hash.",
       "Stable across processes and versions; not meant to withstand chosen inputs.",
       {{"input", "The strings to hash."}, {"output", "The bucket of each string."},
        buckets_doc}},
      {"StringToHashBucketStrong", {"num_buckets: int >= 1", "key: list(int)"},
       {"input: string"}, {"output: int64"}, shape_fns::kUnchanged,
       "Hashes each string into [0, num_buckets) with SipHash-2-4 under a secret key.",
       "Slower than StringToHashBucketFast, but hard to collide without the key.",
       {{"input", "The strings to hash."}, {"output", "The bucket of each string."},
        buckets_doc, {"key", "The 128-bit key, two ints."}}},
      {"Fingerprint", {"T: type"}, {"data: T", "method: string"}, {"fingerprint: uint8"},
       ShapeFn<FingerprintShape>,
       "A 64-bit fingerprint of each row (the slices along the first dimension) of `data`.",
       "method \"farmhash64\": FarmHash's Fingerprint64 of the row's bytes, as 8 "
       "little-endian bytes. For strings: of the string when a row holds one, else of the "
       "concatenated fingerprints of the row's strings.",
       {{"data", "A tensor of rank >= 1."},
        {"method", "The fingerprint method, a scalar: only \"farmhash64\"."},
        {"fingerprint", "[rows, 8] bytes."}}},
  }, status);
}

}  // namespace opgen
