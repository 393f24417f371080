// Tensor bundles (tensor_bundle.h): BundleHeaderProto / BundleEntryProto written and
// read with the runtime's own wire-format code, the index through sstable.h.
#include "tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core_types.h"
#include "crc32c.h"
#include "sstable.h"
#include "string_tensor.h"
#include "wire_reader.h"

namespace opgen::bundle {
namespace {

// The bundle format version TensorFlow writes (kTensorBundleVersion) and the lowest it
// reads.
constexpr int32_t kBundleVersion = 1;

// ---- small protobuf writer --------------------------------------------------------

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutTag(std::string* out, uint32_t field, uint32_t wire_type) {
  PutVarint(out, (uint64_t{field} << 3) | wire_type);
}
// Proto3: a zero scalar is not written.
void PutVarintField(std::string* out, uint32_t field, uint64_t v) {
  if (v == 0) return;
  PutTag(out, field, wire::kVarint);
  PutVarint(out, v);
}
void PutBytesField(std::string* out, uint32_t field, const std::string& bytes) {
  PutTag(out, field, wire::kLengthDelimited);
  PutVarint(out, bytes.size());
  out->append(bytes);
}

std::string EncodeShape(const std::vector<int64_t>& dims) {
  std::string shape;
  for (int64_t d : dims) {
    std::string dim;
    PutVarintField(&dim, 1, static_cast<uint64_t>(d));
    PutBytesField(&shape, 2, dim);
  }
  return shape;
}

std::string EncodeEntry(const Entry& e) {
  std::string out;
  PutVarintField(&out, 1, static_cast<uint64_t>(e.dtype));
  PutBytesField(&out, 2, EncodeShape(e.dims));  // always present, even for a scalar
  PutVarintField(&out, 3, static_cast<uint64_t>(e.shard_id));
  PutVarintField(&out, 4, static_cast<uint64_t>(e.offset));
  PutVarintField(&out, 5, static_cast<uint64_t>(e.size));
  if (e.crc32c != 0) {
    PutTag(&out, 6, wire::kFixed32);
    char b[4];
    std::memcpy(b, &e.crc32c, 4);
    out.append(b, 4);
  }
  return out;
}

std::string EncodeHeader(int32_t num_shards) {
  std::string version, out;
  PutVarintField(&version, 1, kBundleVersion);  // VersionDef.producer
  PutVarintField(&out, 1, static_cast<uint64_t>(num_shards));
  // endianness (2): LITTLE = 0, not written
  PutBytesField(&out, 3, version);
  return out;
}

// ---- reading the protos -------------------------------------------------------------

bool ParseShape(wire::Bytes bytes, std::vector<int64_t>* dims) {
  wire::Reader r(bytes);
  uint32_t field, type;
  while (r.more()) {
    if (!r.tag(&field, &type)) return false;
    if (field == 2 && type == wire::kLengthDelimited) {
      wire::Bytes dim;
      if (!r.length_delimited(&dim)) return false;
      wire::Reader d(dim);
      uint64_t size = 0;
      uint32_t f, t;
      while (d.more()) {
        if (!d.tag(&f, &t)) return false;
        if (f == 1 && t == wire::kVarint) {
          if (!d.varint(&size)) return false;
        } else if (!d.skip(t, f)) {
          return false;
        }
      }
      dims->push_back(static_cast<int64_t>(size));
    } else if (field == 3 && type == wire::kVarint) {
      uint64_t unknown;
      if (!r.varint(&unknown) || unknown != 0) return false;  // a stored tensor has a rank
    } else if (!r.skip(type, field)) {
      return false;
    }
  }
  return r.ok;
}

bool ParseEntry(wire::Bytes bytes, Entry* e) {
  wire::Reader r(bytes);
  uint32_t field, type;
  uint64_t v;
  while (r.more()) {
    if (!r.tag(&field, &type)) return false;
    if (type == wire::kVarint && field >= 1 && field <= 5 && field != 2) {
      if (!r.varint(&v)) return false;
      if (field == 1) {
        TF_DataType dtype;
        if (v > 1000) return false;
        const int code = static_cast<int>(v);
        std::memcpy(&dtype, &code, sizeof dtype);
        if (!IsDataType(dtype)) return false;
        e->dtype = dtype;
      } else if (field == 3) {
        e->shard_id = static_cast<int32_t>(v);
      } else if (field == 4) {
        e->offset = static_cast<int64_t>(v);
      } else {
        e->size = static_cast<int64_t>(v);
      }
    } else if (field == 2 && type == wire::kLengthDelimited) {
      wire::Bytes shape;
      e->dims.clear();
      if (!r.length_delimited(&shape) || !ParseShape(shape, &e->dims)) return false;
    } else if (field == 6 && type == wire::kFixed32) {
      if (!r.fixed32(&e->crc32c)) return false;
    } else if (field == 7 && type == wire::kLengthDelimited) {
      wire::Bytes slice;
      if (!r.length_delimited(&slice)) return false;
      e->sliced = true;
    } else if (!r.skip(type, field)) {
      return false;
    }
  }
  return r.ok && e->offset >= 0 && e->size >= 0 && e->shard_id >= 0 &&
         NumElements(e->dims) >= 0;
}

struct Header {
  int32_t num_shards = 0;
  int32_t endianness = 0;
  int32_t min_consumer = 0;
};

bool ParseHeader(wire::Bytes bytes, Header* h) {
  wire::Reader r(bytes);
  uint32_t field, type;
  uint64_t v;
  while (r.more()) {
    if (!r.tag(&field, &type)) return false;
    if ((field == 1 || field == 2) && type == wire::kVarint) {
      if (!r.varint(&v)) return false;
      (field == 1 ? h->num_shards : h->endianness) = static_cast<int32_t>(v);
    } else if (field == 3 && type == wire::kLengthDelimited) {
      wire::Bytes version;
      if (!r.length_delimited(&version)) return false;
      wire::Reader vr(version);
      uint32_t f, t;
      while (vr.more()) {
        if (!vr.tag(&f, &t)) return false;
        if (f == 2 && t == wire::kVarint) {
          if (!vr.varint(&v)) return false;
          h->min_consumer = static_cast<int32_t>(v);
        } else if (!vr.skip(t, f)) {
          return false;
        }
      }
    } else if (!r.skip(type, field)) {
      return false;
    }
  }
  return r.ok;
}

// ---- files ------------------------------------------------------------------------------

bool ReadWholeFile(const std::string& path, std::string* out, TF_Status* status) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    SetStatus(status, errno == ENOENT ? TF_NOT_FOUND : TF_PERMISSION_DENIED,
              "cannot open " + path + ": " + std::strerror(errno));
    return false;
  }
  out->clear();
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out->append(buffer, n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) SetStatus(status, TF_DATA_LOSS, "cannot read " + path);
  return !failed;
}

bool WriteWholeFile(const std::string& path, const std::string& bytes, TF_Status* status) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    SetStatus(status, TF_PERMISSION_DENIED, "cannot create " + path + ": " + std::strerror(errno));
    return false;
  }
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !wrote) {
    SetStatus(status, TF_RESOURCE_EXHAUSTED, "cannot write " + path + ": " + std::strerror(errno));
    std::remove(path.c_str());
    return false;
  }
  return true;
}

std::string TempSuffix() {
  static std::atomic<uint64_t> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  char s[64];
  std::snprintf(s, sizeof s, ".tempstate%d_%llu_%llx", static_cast<int>(getpid()),
                static_cast<unsigned long long>(counter++), static_cast<unsigned long long>(now));
  return s;
}

void MakeParentDirs(const std::string& prefix) {
  for (size_t slash = prefix.find('/', 1); slash != std::string::npos;
       slash = prefix.find('/', slash + 1))
    mkdir(prefix.substr(0, slash).c_str(), 0755);  // an existing one is fine
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// A string tensor's checksums, as TensorFlow computes them: the crc runs over each
// length as 4 little-endian bytes (not the varints written), its masked value is
// stored after the lengths, and the entry's crc continues over that and the bytes.
uint32_t StringLengthsCrc(const std::vector<uint64_t>& lengths) {
  uint32_t crc = 0;
  for (uint64_t length : lengths) {
    const uint32_t low = static_cast<uint32_t>(length);
    crc = crc32c::Extend(crc, &low, 4);
  }
  return crc;
}

// The bytes of `t` in the data file, and the (unmasked) crc its entry stores.
bool TensorBytes(const std::string& name, const TF_Tensor* t, std::string* out, uint32_t* crc,
                 TF_Status* status) {
  const int64_t n = NumElements(t->dims);
  if (t->dtype == TF_STRING) {
    const TF_TString* elements = StringElements(t);
    std::vector<uint64_t> lengths;
    out->clear();
    for (int64_t i = 0; i < n; ++i) {
      lengths.push_back(TF_StringGetSize(&elements[i]));
      PutVarint(out, lengths.back());
    }
    uint32_t running = StringLengthsCrc(lengths);
    const uint32_t masked = crc32c::Mask(running);
    char b[4];
    std::memcpy(b, &masked, 4);
    out->append(b, 4);
    running = crc32c::Extend(running, b, 4);
    const size_t contents = out->size();
    for (int64_t i = 0; i < n; ++i) {
      const std::string_view s = StringElement(&elements[i]);
      out->append(s.data(), s.size());
    }
    *crc = crc32c::Extend(running, out->data() + contents, out->size() - contents);
    return true;
  }
  if (TF_DataTypeSize(t->dtype) == 0) {
    SetStatus(status, TF_UNIMPLEMENTED,
              std::string("cannot save tensor '") + name + "' of dtype " + DataTypeName(t->dtype) +
                  " in a checkpoint");
    return false;
  }
  if (t->buffer->device() != nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT, "tensor '" + name + "' is not in host memory");
    return false;
  }
  out->assign(static_cast<const char*>(t->buffer->data()), t->buffer->size());
  *crc = crc32c::Value(out->data(), out->size());
  return true;
}

bool Fail(TF_Status* status, TF_Code code, const std::string& message) {
  SetStatus(status, code, message);
  return false;
}

}  // namespace

std::string DataFileName(const std::string& prefix, int32_t shard, int32_t num_shards) {
  char s[48];
  std::snprintf(s, sizeof s, ".data-%05d-of-%05d", shard, num_shards);
  return prefix + s;
}

bool Write(const std::string& prefix, const std::vector<std::string>& names,
           const std::vector<const TF_Tensor*>& tensors, TF_Status* status) {
  std::map<std::string, Entry> entries;
  std::string data;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) return Fail(status, TF_INVALID_ARGUMENT, "a tensor name is empty");
    if (entries.count(names[i]))
      return Fail(status, TF_INVALID_ARGUMENT, "tensor name '" + names[i] + "' is given twice");
    std::string bytes;
    uint32_t crc = 0;
    if (!TensorBytes(names[i], tensors[i], &bytes, &crc, status)) return false;
    Entry e;
    e.dtype = tensors[i]->dtype;
    e.dims = tensors[i]->dims;
    e.offset = static_cast<int64_t>(data.size());
    e.size = static_cast<int64_t>(bytes.size());
    e.crc32c = crc32c::Mask(crc);
    data += bytes;
    entries.emplace(names[i], std::move(e));
  }
  sstable::Entries table;
  table.emplace_back("", EncodeHeader(1));
  for (const auto& [name, e] : entries) table.emplace_back(name, EncodeEntry(e));

  MakeParentDirs(prefix);
  const std::string suffix = TempSuffix();
  const std::string data_file = DataFileName(prefix, 0, 1), index_file = prefix + ".index";
  const std::string data_temp = data_file + suffix, index_temp = index_file + suffix;
  if (!WriteWholeFile(data_temp, data, status)) return false;
  if (!WriteWholeFile(index_temp, sstable::Build(table), status)) {
    std::remove(data_temp.c_str());
    return false;
  }
  // The data first: a reader never finds a new index beside old data.
  if (std::rename(data_temp.c_str(), data_file.c_str()) != 0 ||
      std::rename(index_temp.c_str(), index_file.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(data_temp.c_str());
    std::remove(index_temp.c_str());
    return Fail(status, TF_UNAVAILABLE, "cannot rename the checkpoint files of " + prefix + ": " + reason);
  }
  ClearStatus(status);
  return true;
}

bool Reader::Open(const std::string& prefix, TF_Status* status) {
  prefix_ = prefix;
  const std::string index_file = prefix + ".index";
  std::string file;
  if (!ReadWholeFile(index_file, &file, status)) {
    if (status->code == TF_NOT_FOUND)
      status->message = "Failed to find any matching files for " + prefix + " (no file " +
                        index_file + ")";
    return false;
  }
  sstable::Entries table;
  std::string error;
  if (!sstable::Read(file, &table, &error))
    return Fail(status, TF_DATA_LOSS, "checkpoint index " + index_file + ": " + error);
  Header header;
  if (table.empty() || !table[0].first.empty() || !ParseHeader(table[0].second, &header))
    return Fail(status, TF_DATA_LOSS, "checkpoint index " + index_file + " has no valid header");
  if (header.endianness != 0)
    return Fail(status, TF_UNIMPLEMENTED, "checkpoint " + prefix + " is big-endian");
  if (header.min_consumer > kBundleVersion)
    return Fail(status, TF_INVALID_ARGUMENT,
                "checkpoint " + prefix + " needs a reader of bundle version " +
                    std::to_string(header.min_consumer));
  if (header.num_shards < 0)
    return Fail(status, TF_DATA_LOSS, "checkpoint index " + index_file + " has a bad header");
  num_shards_ = header.num_shards;
  entries_.clear();
  for (size_t i = 1; i < table.size(); ++i) {
    Entry e;
    if (!ParseEntry(table[i].second, &e) || (e.shard_id >= num_shards_ && !e.sliced))
      return Fail(status, TF_DATA_LOSS,
                  "checkpoint index " + index_file + ": malformed entry for '" + table[i].first + "'");
    entries_.emplace(table[i].first, std::move(e));
  }
  ClearStatus(status);
  return true;
}

const Entry* Reader::Find(const std::string& name, TF_Status* status) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    SetStatus(status, TF_NOT_FOUND, "Key " + name + " not found in checkpoint " + prefix_);
    return nullptr;
  }
  if (it->second.sliced) {
    SetStatus(status, TF_UNIMPLEMENTED,
              "tensor '" + name + "' of checkpoint " + prefix_ + " is saved in slices (not supported)");
    return nullptr;
  }
  return &it->second;
}

TF_Tensor* Reader::ReadTensor(const std::string& name, const Entry& e, TF_Status* status) const {
  const std::string file = DataFileName(prefix_, e.shard_id, num_shards_);
  const std::string where = "tensor '" + name + "' in " + file;
  const int64_t n = NumElements(e.dims);
  const bool strings = e.dtype == TF_STRING;
  size_t fixed_bytes = 0;
  if (!strings) {
    if (TF_DataTypeSize(e.dtype) == 0) {
      SetStatus(status, TF_UNIMPLEMENTED,
                where + ": dtype " + DataTypeName(e.dtype) + " cannot be restored");
      return nullptr;
    }
    if (!ByteSize(TF_DataTypeSize(e.dtype), n, &fixed_bytes) ||
        fixed_bytes != static_cast<uint64_t>(e.size)) {
      SetStatus(status, TF_DATA_LOSS, where + ": the entry's size does not fit its shape");
      return nullptr;
    }
  }
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    SetStatus(status, errno == ENOENT ? TF_NOT_FOUND : TF_PERMISSION_DENIED,
              "cannot open " + file + " (reading " + where + "): " + std::strerror(errno));
    return nullptr;
  }
  std::string bytes;
  try {
    bytes.resize(static_cast<size_t>(e.size));
  } catch (const std::exception&) {
    close(fd);
    SetStatus(status, TF_RESOURCE_EXHAUSTED, where + ": cannot allocate its bytes");
    return nullptr;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = pread(fd, &bytes[done], bytes.size() - done, e.offset + static_cast<off_t>(done));
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  close(fd);
  if (done != bytes.size()) {
    SetStatus(status, TF_DATA_LOSS, where + ": the data file is truncated (" +
                                        std::to_string(done) + " of " + std::to_string(bytes.size()) +
                                        " bytes at offset " + std::to_string(e.offset) + ")");
    return nullptr;
  }
  const std::string mismatch = where + ": checksum does not match (corrupted checkpoint)";
  TF_Tensor* t = nullptr;
  if (!strings) {
    if (crc32c::Value(bytes.data(), bytes.size()) != crc32c::Unmask(e.crc32c)) {
      SetStatus(status, TF_DATA_LOSS, mismatch);
      return nullptr;
    }
    t = TF_AllocateTensor(e.dtype, e.dims.data(), static_cast<int>(e.dims.size()), fixed_bytes);
    if (t != nullptr && fixed_bytes) std::memcpy(t->buffer->data(), bytes.data(), fixed_bytes);
  } else {
    // varint lengths, their masked crc, then the bytes
    const char* p = bytes.data();
    const char* end = p + bytes.size();
    std::vector<uint64_t> lengths(static_cast<size_t>(n));
    wire::Reader r(std::string_view(p, bytes.size()));
    for (auto& length : lengths) {
      if (!r.varint(&length)) break;
    }
    const char* lengths_end = reinterpret_cast<const char*>(r.p);
    uint32_t stored = 0, running = 0;
    bool ok = r.ok && end - lengths_end >= 4;
    if (ok) {
      std::memcpy(&stored, lengths_end, 4);
      running = StringLengthsCrc(lengths);
      ok = crc32c::Unmask(stored) == running;
    }
    uint64_t total = 0;
    for (uint64_t length : lengths) total += length;
    if (!ok || total != static_cast<uint64_t>(end - lengths_end - 4)) {
      SetStatus(status, TF_DATA_LOSS, where + ": malformed string data (corrupted checkpoint?)");
      return nullptr;
    }
    running = crc32c::Extend(running, lengths_end, static_cast<size_t>(end - lengths_end));
    if (running != crc32c::Unmask(e.crc32c)) {
      SetStatus(status, TF_DATA_LOSS, mismatch);
      return nullptr;
    }
    t = NewStringTensor(e.dims);
    if (t != nullptr) {
      const char* s = lengths_end + 4;
      TF_TString* out = MutableStringElements(t);
      for (size_t i = 0; i < lengths.size(); ++i) {
        if (!AssignString(&out[i], s, lengths[i])) {
          TF_DeleteTensor(t);
          t = nullptr;
          break;
        }
        s += lengths[i];
      }
    }
  }
  if (t == nullptr) {
    SetStatus(status, TF_RESOURCE_EXHAUSTED, where + ": cannot allocate the tensor");
    return nullptr;
  }
  ClearStatus(status);
  return t;
}

bool Merge(const std::vector<std::string>& sources, const std::string& destination,
           bool delete_old_dirs, bool allow_missing_files, TF_Status* status) {
  std::vector<std::unique_ptr<Reader>> readers;
  std::vector<std::string> used;
  for (const std::string& source : sources) {
    auto reader = std::make_unique<Reader>();
    if (!reader->Open(source, status)) {
      if (status->code == TF_NOT_FOUND && allow_missing_files) continue;
      return false;
    }
    readers.push_back(std::move(reader));
    used.push_back(source);
  }
  if (readers.empty())
    return Fail(status, TF_NOT_FOUND, "MergeV2Checkpoints: none of the checkpoints to merge exist");
  int32_t total = 0;
  for (const auto& r : readers) total += r->num_shards();
  std::map<std::string, Entry> merged;
  std::vector<std::pair<std::string, std::string>> renames;
  int32_t base = 0;
  for (size_t i = 0; i < readers.size(); ++i) {
    for (const auto& [name, entry] : readers[i]->entries()) {
      Entry e = entry;
      e.shard_id += base;
      if (!merged.emplace(name, std::move(e)).second)
        return Fail(status, TF_INVALID_ARGUMENT,
                    "MergeV2Checkpoints: tensor '" + name + "' is in more than one checkpoint");
    }
    for (int32_t s = 0; s < readers[i]->num_shards(); ++s)
      renames.emplace_back(DataFileName(used[i], s, readers[i]->num_shards()),
                           DataFileName(destination, base + s, total));
    base += readers[i]->num_shards();
  }
  for (const auto& [name, e] : merged) {
    if (e.sliced)
      return Fail(status, TF_UNIMPLEMENTED,
                  "MergeV2Checkpoints: tensor '" + name + "' is saved in slices (not supported)");
  }
  sstable::Entries table;
  table.emplace_back("", EncodeHeader(total));
  for (const auto& [name, e] : merged) table.emplace_back(name, EncodeEntry(e));
  MakeParentDirs(destination);
  const std::string index_file = destination + ".index";
  const std::string index_temp = index_file + TempSuffix();
  if (!WriteWholeFile(index_temp, sstable::Build(table), status)) return false;
  for (const auto& [from, to] : renames) {
    if (from != to && std::rename(from.c_str(), to.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      std::remove(index_temp.c_str());
      return Fail(status, errno == ENOENT ? TF_NOT_FOUND : TF_UNAVAILABLE,
                  "MergeV2Checkpoints: cannot move " + from + " to " + to + ": " + reason);
    }
  }
  if (std::rename(index_temp.c_str(), index_file.c_str()) != 0) {
    std::remove(index_temp.c_str());
    return Fail(status, TF_UNAVAILABLE, "MergeV2Checkpoints: cannot write " + index_file);
  }
  for (const std::string& source : used) {
    if (source + ".index" != index_file) std::remove((source + ".index").c_str());
    if (delete_old_dirs && Dirname(source) != Dirname(destination))
      rmdir(Dirname(source).c_str());  // only when empty
  }
  ClearStatus(status);
  return true;
}

}  // namespace opgen::bundle
