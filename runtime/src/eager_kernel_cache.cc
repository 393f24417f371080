#include "eager_kernel_cache.h"

#include <cstdint>

#include "wire_format.h"

namespace opgen {

namespace {

// Length-prefixed, so no two different keys serialize alike.
void Append(std::string* key, const std::string& part) {
  const uint64_t n = part.size();
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
  key->append(part);
}

}  // namespace

std::string EagerKernelCache::Key(const std::string& op, const std::string& device,
                                  const std::vector<std::vector<TF_DataType>>& input_dtypes,
                                  const AttrMap& attrs) {
  std::string key;
  Append(&key, op);
  Append(&key, device);
  for (const auto& group : input_dtypes)
    Append(&key, std::string(reinterpret_cast<const char*>(group.data()),
                             group.size() * sizeof(TF_DataType)));
  key.push_back('|');  // the attrs start: the groups' count is fixed by the op
  for (const auto& [name, value] : attrs) {
    // A tensor attr's bytes are known without serializing the AttrValue around them:
    // a big value (an eager Const of megabytes) is refused before it is copied.
    size_t tensor_bytes = 0;
    if (value.kind == AttrValue::kTensor) tensor_bytes = value.tensor_proto.bytes().size();
    if (value.kind == AttrValue::kListTensor)
      for (const auto& bytes : value.list_s) tensor_bytes += bytes.size();
    if (key.size() + name.size() + tensor_bytes > kMaxKeyBytes) return {};
    Append(&key, name);
    Append(&key, SerializeAttrValue(value));
    if (key.size() > kMaxKeyBytes) return {};
  }
  return key;
}

std::shared_ptr<const void> EagerKernelCache::FindEntry(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second.at);
  return it->second.value;
}

std::shared_ptr<const void> EagerKernelCache::InsertEntry(const std::string& key,
                                                    std::shared_ptr<const void> value) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    order_.splice(order_.begin(), order_, it->second.at);
    return it->second.value;
  }
  order_.push_front(key);
  entries_.emplace(key, Entry{value, order_.begin()});
  EvictLocked();
  return value;
}

void EagerKernelCache::EvictLocked() {
  if (entries_.size() <= sweep_above_) return;
  // Entries held outside (a fast-path signature's kernel) stay and do not count: dropping
  // them would free no memory and would split their state from the holder's. Held counts
  // change without the cache knowing, so they are counted here, once per sweep.
  size_t held = 0;
  for (const auto& [key, entry] : entries_) held += entry.value.use_count() > 1;
  size_t unheld = entries_.size() - held;
  for (auto at = order_.end(); unheld > kKeepAfterSweep && at != order_.begin();) {
    --at;
    auto it = entries_.find(*at);
    if (it->second.value.use_count() > 1) continue;
    entries_.erase(it);
    at = order_.erase(at);
    --unheld;
  }
  sweep_above_ = held + kMaxEntries;
}

void EagerKernelCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto at = order_.begin(); at != order_.end();) {
    auto it = entries_.find(*at);
    if (it->second.value.use_count() > 1) {
      ++at;
      continue;
    }
    entries_.erase(it);
    at = order_.erase(at);
  }
  sweep_above_ = entries_.size() + kMaxEntries;  // what is left is held
}

size_t EagerKernelCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace opgen
