// LevelDB table writer and reader (sstable.h): what TensorFlow's tensor-bundle index
// needs, written from the format's description (block entries, restarts every 16
// entries, 256 KiB data blocks, block trailers, footer).
#include "sstable.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "crc32c.h"

namespace opgen::sstable {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kBlockTrailerSize = 5;  // type byte + fixed32 masked crc
constexpr size_t kMaxHandleSize = 20;    // two varint64s
constexpr size_t kFooterSize = 2 * kMaxHandleSize + 8;
constexpr int kRestartInterval = 16;
constexpr size_t kBlockSize = 256 * 1024;
constexpr char kNoCompression = 0;

void PutFixed32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian hosts
  out->append(b, 4);
}
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
uint32_t Fixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// Reads a varint from [*p, end); false when malformed or past the end.
bool GetVarint(const char** p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(*(*p)++);
    result |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

struct Handle {
  uint64_t offset = 0, size = 0;
};

class BlockBuilder {
 public:
  void Add(const std::string& key, const std::string& value) {
    size_t shared = 0;
    if (counter_ < kRestartInterval) {
      const size_t limit = std::min(last_key_.size(), key.size());
      while (shared < limit && last_key_[shared] == key[shared]) ++shared;
    } else {
      restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
      counter_ = 0;
    }
    PutVarint(&buffer_, shared);
    PutVarint(&buffer_, key.size() - shared);
    PutVarint(&buffer_, value.size());
    buffer_.append(key, shared, std::string::npos);
    buffer_.append(value);
    last_key_ = key;
    ++counter_;
    ++entries_;
  }
  size_t SizeEstimate() const { return buffer_.size() + 4 * (restarts_.size() + 1); }
  bool empty() const { return entries_ == 0; }
  const std::string& last_key() const { return last_key_; }
  std::string Finish() {
    std::string out = std::move(buffer_);
    for (uint32_t r : restarts_) PutFixed32(&out, r);
    PutFixed32(&out, static_cast<uint32_t>(restarts_.size()));
    *this = BlockBuilder();
    return out;
  }

 private:
  std::string buffer_;
  std::vector<uint32_t> restarts_{0};
  int counter_ = 0;
  size_t entries_ = 0;
  std::string last_key_;
};

Handle WriteBlock(std::string* file, const std::string& contents) {
  Handle h{file->size(), contents.size()};
  file->append(contents);
  file->push_back(kNoCompression);
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, &kNoCompression, 1);
  PutFixed32(file, crc32c::Mask(crc));
  return h;
}

std::string EncodeHandle(const Handle& h) {
  std::string out;
  PutVarint(&out, h.offset);
  PutVarint(&out, h.size);
  return out;
}

// The contents of the block `h` points at, its trailer checked.
bool ReadBlock(std::string_view file, const Handle& h, std::string_view* contents,
               std::string* error) {
  if (h.offset > file.size() || h.size > file.size() - h.offset ||
      file.size() - h.offset - h.size < kBlockTrailerSize) {
    *error = "a block lies past the end of the file (truncated?)";
    return false;
  }
  const char* p = file.data() + h.offset;
  const char type = p[h.size];
  uint32_t crc = crc32c::Extend(crc32c::Value(p, h.size), &type, 1);
  if (crc32c::Unmask(Fixed32(p + h.size + 1)) != crc) {
    *error = "block checksum mismatch (corrupted file)";
    return false;
  }
  if (type != kNoCompression) {
    *error = "compressed blocks are not supported";
    return false;
  }
  *contents = std::string_view(p, h.size);
  return true;
}

// Every entry of one block, appended to `out`.
bool ParseBlock(std::string_view block, Entries* out, std::string* error) {
  *error = "malformed block";
  if (block.size() < 4) return false;
  const uint32_t restarts = Fixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4) return false;
  const char* p = block.data();
  const char* end = block.data() + block.size() - 4 - 4 * size_t{restarts};
  std::string key;
  while (p < end) {
    uint64_t shared, unshared, value_size;
    if (!GetVarint(&p, end, &shared) || !GetVarint(&p, end, &unshared) ||
        !GetVarint(&p, end, &value_size) || shared > key.size() ||
        unshared > uint64_t(end - p) || value_size > uint64_t(end - p) - unshared)
      return false;
    key.resize(shared);
    key.append(p, unshared);
    p += unshared;
    out->emplace_back(key, std::string(p, value_size));
    p += value_size;
  }
  error->clear();
  return true;
}

bool DecodeHandle(std::string_view bytes, Handle* h) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  return GetVarint(&p, end, &h->offset) && GetVarint(&p, end, &h->size);
}

}  // namespace

std::string Build(const Entries& entries) {
  std::string file;
  BlockBuilder data, index;
  auto flush = [&] {
    const std::string last = data.last_key();
    const Handle h = WriteBlock(&file, data.Finish());
    // The block's last key separates it from the next: every key in it is <= last.
    index.Add(last, EncodeHandle(h));
  };
  for (const auto& [key, value] : entries) {
    data.Add(key, value);
    if (data.SizeEstimate() >= kBlockSize) flush();
  }
  if (!data.empty()) flush();
  const Handle metaindex = WriteBlock(&file, BlockBuilder().Finish());
  const Handle index_handle = WriteBlock(&file, index.Finish());
  std::string footer = EncodeHandle(metaindex) + EncodeHandle(index_handle);
  footer.resize(2 * kMaxHandleSize, '\0');
  PutFixed32(&footer, static_cast<uint32_t>(kTableMagic));
  PutFixed32(&footer, static_cast<uint32_t>(kTableMagic >> 32));
  file += footer;
  return file;
}

bool Read(std::string_view file, Entries* entries, std::string* error) {
  if (file.size() < kFooterSize) {
    *error = "too short to be a table (" + std::to_string(file.size()) + " bytes; truncated?)";
    return false;
  }
  const char* footer = file.data() + file.size() - kFooterSize;
  const uint64_t magic =
      uint64_t{Fixed32(footer + 2 * kMaxHandleSize)} |
      (uint64_t{Fixed32(footer + 2 * kMaxHandleSize + 4)} << 32);
  if (magic != kTableMagic) {
    *error = "not a table (bad magic number; truncated or corrupted?)";
    return false;
  }
  const char* p = footer;
  const char* end = footer + 2 * kMaxHandleSize;
  Handle metaindex, index;
  if (!GetVarint(&p, end, &metaindex.offset) || !GetVarint(&p, end, &metaindex.size) ||
      !GetVarint(&p, end, &index.offset) || !GetVarint(&p, end, &index.size)) {
    *error = "malformed table footer";
    return false;
  }
  std::string_view index_block;
  Entries handles;
  if (!ReadBlock(file, index, &index_block, error) || !ParseBlock(index_block, &handles, error))
    return false;
  entries->clear();
  for (const auto& [separator, encoded] : handles) {
    Handle h;
    std::string_view block;
    if (!DecodeHandle(encoded, &h)) {
      *error = "malformed block handle";
      return false;
    }
    if (!ReadBlock(file, h, &block, error) || !ParseBlock(block, entries, error)) return false;
  }
  for (size_t i = 1; i < entries->size(); ++i) {
    if ((*entries)[i - 1].first >= (*entries)[i].first) {
      *error = "keys out of order";
      return false;
    }
  }
  return true;
}

}  // namespace opgen::sstable
