// Plans (twiddles, bit reversal, Bluestein's chirp spectrum) kept per length, so a
// model calling the same transform repeatedly builds them once. Any thread may ask; a
// plan is immutable once made and shared (a caller keeps its own reference, so a plan
// dropped from the cache lives until its last user finishes).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace opgen {
namespace cpu {

// The cache holds at most this many plans of each kind, of lengths summing to at most
// kMaxCachedFftTotal (a plan's tables are a few times its length, Bluestein's up to 4x
// more); past either, it starts over.
constexpr size_t kMaxCachedFftPlans = 64;
constexpr int64_t kMaxCachedFftTotal = int64_t{1} << 23;
// Longer transforms are planned per call: their tables are large, and the transform
// itself outweighs planning.
constexpr int64_t kMaxCachedFftLength = int64_t{1} << 22;

template <typename Plan>
std::shared_ptr<const Plan> CachedFftPlan(int64_t n) {
  if (n > kMaxCachedFftLength) return std::make_shared<const Plan>(n);
  static std::mutex mu;
  static auto* cache = new std::unordered_map<int64_t, std::shared_ptr<const Plan>>();
  static int64_t total = 0;  // the cached lengths' sum
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(n);
    if (it != cache->end()) return it->second;
  }
  // Built outside the lock: a long Bluestein plan should not stall other lengths.
  auto plan = std::make_shared<const Plan>(n);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(n);  // another thread may have made it meanwhile
  if (it != cache->end()) return it->second;
  if (cache->size() >= kMaxCachedFftPlans || total + n > kMaxCachedFftTotal) {
    cache->clear();
    total = 0;
  }
  total += n;
  return cache->emplace(n, std::move(plan)).first->second;
}

}  // namespace cpu
}  // namespace opgen
