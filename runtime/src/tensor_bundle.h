// TensorFlow's tensor-bundle checkpoint format (what SaveV2 writes and RestoreV2 reads):
//   <prefix>.index                     a LevelDB table (sstable.h): key "" holds a
//                                      BundleHeaderProto, each tensor name a
//                                      BundleEntryProto (dtype, shape, shard, offset,
//                                      size, masked crc32c of the tensor's bytes)
//   <prefix>.data-NNNNN-of-MMMMM       the tensors' bytes, one file per shard
// A tensor's bytes are its little-endian elements, and its entry's crc32c is theirs. A
// string tensor's bytes are the varint64 lengths of its elements, a fixed32 masked
// crc32c, then the elements' bytes; both crcs run over each length as 4 little-endian
// bytes (not over the varints), the entry's continuing over the stored crc and the bytes
// (as TensorFlow computes them; tests compare with files TensorFlow writes). Files are written under temporary names and renamed, so a failed
// save leaves the previous checkpoint whole. Errors come as TF_Status codes and
// messages that name the tensor and the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

namespace opgen::bundle {

// Writes `tensors` (names unique and not empty; any order) as a one-shard bundle.
// Fixed-size dtypes and strings only. False with `status` set on failure.
bool Write(const std::string& prefix, const std::vector<std::string>& names,
           const std::vector<const TF_Tensor*>& tensors, TF_Status* status);

struct Entry {
  TF_DataType dtype = TF_FLOAT;
  std::vector<int64_t> dims;
  int32_t shard_id = 0;
  int64_t offset = 0, size = 0;
  uint32_t crc32c = 0;  // masked, as stored
  bool sliced = false;  // a partitioned variable's slices: not supported
};

class Reader {
 public:
  // Reads and checks <prefix>.index; false with `status` set (NOT_FOUND for a missing
  // file, DATA_LOSS for a corrupt one).
  bool Open(const std::string& prefix, TF_Status* status);
  // The entry of `name`; nullptr with NOT_FOUND when the checkpoint lacks it.
  const Entry* Find(const std::string& name, TF_Status* status) const;
  // A new tensor with the entry's value, its bytes checked against the entry's crc.
  TF_Tensor* ReadTensor(const std::string& name, const Entry& entry, TF_Status* status) const;
  int32_t num_shards() const { return num_shards_; }
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::string prefix_;
  int32_t num_shards_ = 1;
  std::map<std::string, Entry> entries_;
};

// MergeV2Checkpoints: the bundles at `sources` become one at `destination` (their data
// files renamed, shard ids renumbered, one index); their index files are deleted, and
// their directories too when `delete_old_dirs` (when empty). Sources whose index is
// missing are skipped when `allow_missing_files`.
bool Merge(const std::vector<std::string>& sources, const std::string& destination,
           bool delete_old_dirs, bool allow_missing_files, TF_Status* status);

std::string DataFileName(const std::string& prefix, int32_t shard, int32_t num_shards);

}  // namespace opgen::bundle
