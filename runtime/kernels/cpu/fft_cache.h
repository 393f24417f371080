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

// The cache holds at most this many plans of each kind; past it, it starts over.
constexpr size_t kMaxCachedFftPlans = 64;
// Longer transforms are planned per call: their tables are large, and the transform
// itself outweighs planning.
constexpr int64_t kMaxCachedFftLength = int64_t{1} << 22;

template <typename Plan>
std::shared_ptr<const Plan> CachedFftPlan(int64_t n) {
  if (n > kMaxCachedFftLength) return std::make_shared<const Plan>(n);
  static std::mutex mu;
  static auto* cache = new std::unordered_map<int64_t, std::shared_ptr<const Plan>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(n);
    if (it != cache->end()) return it->second;
  }
  // Built outside the lock: a long Bluestein plan should not stall other lengths.
  auto plan = std::make_shared<const Plan>(n);
  std::lock_guard<std::mutex> lock(mu);
  if (cache->size() >= kMaxCachedFftPlans) cache->clear();
  return cache->emplace(n, std::move(plan)).first->second;
}

}  // namespace cpu
}  // namespace opgen
