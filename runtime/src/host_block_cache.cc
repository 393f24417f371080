// See host_block_cache.h.
#include "host_block_cache.h"

#include "opgen/c_api_ext.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace opgen {
namespace {

struct Block {
  void* data;
  size_t size;
  size_t alignment;
};

class HostBlockCache {
 public:
  HostBlockCache() : budget_(BudgetFromEnvironment()) {}

  void* Take(size_t size, size_t alignment, size_t* block_size) {
    std::lock_guard<std::mutex> lock(mu_);
    // The best fit; among equal sizes the newest, whose pages are the likeliest to be in
    // the CPU's caches still.
    size_t best = blocks_.size();
    for (size_t i = blocks_.size(); i-- > 0;) {
      const Block& b = blocks_[i];
      if (b.alignment != alignment || b.size < size || b.size / 2 > size) continue;
      if (best == blocks_.size() || b.size < blocks_[best].size) best = i;
      if (b.size == size) break;
    }
    if (best == blocks_.size()) return nullptr;
    void* data = blocks_[best].data;
    *block_size = blocks_[best].size;
    held_ -= *block_size;
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    return data;
  }

  void Return(void* data, size_t size, size_t alignment) {
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size > budget_) {
        evicted.push_back(data);
      } else {
        // Oldest blocks go first to make room.
        size_t drop = 0;
        while (held_ + size > budget_) {
          held_ -= blocks_[drop].size;
          evicted.push_back(blocks_[drop].data);
          ++drop;
        }
        blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
        blocks_.push_back({data, size, alignment});
        held_ += size;
      }
    }
    for (void* block : evicted) std::free(block);  // outside the lock: munmap is slow
  }

  size_t ReleaseAll() {
    std::vector<Block> blocks;
    size_t released;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(blocks_);
      released = held_;
      held_ = 0;
    }
    for (const Block& b : blocks) std::free(b.data);
    return released;
  }

  size_t Held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

 private:
  static size_t BudgetFromEnvironment() {
    constexpr size_t kDefaultMegabytes = 256;
    const char* text = std::getenv("OPGEN_HOST_CACHE_MB");
    if (text == nullptr || *text == '\0') return kDefaultMegabytes << 20;
    char* end = nullptr;
    const unsigned long long megabytes = std::strtoull(text, &end, 10);
    if (*end != '\0') return kDefaultMegabytes << 20;  // not a number: keep the default
    return static_cast<size_t>(megabytes) << 20;
  }

  std::mutex mu_;
  std::vector<Block> blocks_;  // oldest first
  size_t held_ = 0;
  const size_t budget_;
};

// Never destroyed: buffers are still freed while the process exits (Python drops its
// tensors after static destructors may have run).
HostBlockCache& Cache() {
  static HostBlockCache* cache = new HostBlockCache;
  return *cache;
}

}  // namespace

void* TakeCachedHostBlock(size_t size, size_t alignment, size_t* block_size) {
  return Cache().Take(size, alignment, block_size);
}

void ReturnHostBlock(void* block, size_t size, size_t alignment) {
  Cache().Return(block, size, alignment);
}

size_t ReleaseCachedHostBlocks() { return Cache().ReleaseAll(); }

size_t CachedHostBytes() { return Cache().Held(); }

}  // namespace opgen

extern "C" {

size_t OPGEN_ReleaseCachedHostMemory(void) { return opgen::ReleaseCachedHostBlocks(); }

size_t OPGEN_CachedHostMemoryBytes(void) { return opgen::CachedHostBytes(); }

}  // extern "C"
