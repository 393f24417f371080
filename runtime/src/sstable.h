// LevelDB's table format (an "SSTable"), as TensorFlow's tensor bundles keep their
// index: data blocks of prefix-compressed entries with restart points, each block
// followed by a type byte and a masked crc32c, an (empty) metaindex block, an index
// block of block handles, and a 48-byte footer ending in the table magic. Only
// uncompressed blocks, which is what TensorFlow writes for bundles.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opgen::sstable {

using Entries = std::vector<std::pair<std::string, std::string>>;

// The table's bytes for `entries`, whose keys must be strictly increasing (bytewise).
std::string Build(const Entries& entries);

// Every entry of the table in `file`, in key order; false with the reason in `*error`
// when the bytes are not such a table (bad magic, a block past the end, a checksum
// mismatch, a compressed block, malformed entries).
bool Read(std::string_view file, Entries* entries, std::string* error);

}  // namespace opgen::sstable
