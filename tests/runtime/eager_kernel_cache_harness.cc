// Drives opgen::EagerKernelCache directly: entries held outside the cache (as fast-path
// signatures hold their kernels) must not crowd out the unheld ones a process uses.
// Prints one line per check; exits non-zero on the first failure.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "eager_kernel_cache.h"

namespace {

using Cache = opgen::EagerKernelCache;

int Fail(const char* what, size_t got) {
  std::printf("FAIL %s: %zu\n", what, got);
  return 1;
}

}  // namespace

int main() {
  Cache cache;
  // More held entries than the bound: every one must stay.
  std::vector<std::shared_ptr<const int>> holders;
  for (int i = 0; i < 5000; ++i)
    holders.push_back(cache.Insert("held" + std::to_string(i), std::make_shared<const int>(i)));
  if (cache.size() != 5000) return Fail("held entries kept", cache.size());

  // Unheld entries beside them: a hot one used every 1000 insertions keeps its value
  // object (a kernel keeps its state), and the unheld ones stay bounded.
  auto hot = cache.Insert("hot", std::make_shared<const int>(-1));
  const int* hot_address = hot.get();
  hot.reset();  // now nobody outside holds it
  for (int i = 0; i < 20000; ++i) {
    cache.Insert("cold" + std::to_string(i), std::make_shared<const int>(i));
    if (i % 1000 == 0) {
      auto again = cache.Find<int>("hot");
      if (again == nullptr || again.get() != hot_address) return Fail("hot entry kept", i);
    }
  }
  if (cache.size() > 5000 + Cache::kMaxEntries) return Fail("bounded", cache.size());
  if (cache.size() < 5000 + Cache::kKeepAfterSweep) return Fail("room used", cache.size());
  for (int i = 0; i < 5000; i += 499)
    if (cache.Find<int>("held" + std::to_string(i)) == nullptr) return Fail("held found", i);
  // The oldest cold entries went.
  if (cache.Find<int>("cold0") != nullptr) return Fail("least recent evicted", 0);
  std::printf("ok bounded %zu\n", cache.size());

  // Released holders become evictable: the next sweeps bring the total back to the bound.
  holders.clear();
  for (int i = 0; i < 2 * static_cast<int>(Cache::kMaxEntries); ++i)
    cache.Insert("late" + std::to_string(i), std::make_shared<const int>(i));
  if (cache.size() > Cache::kMaxEntries) return Fail("released holders evicted", cache.size());
  std::printf("ok released %zu\n", cache.size());

  // Clear drops every unheld entry and keeps the held.
  auto kept = cache.Insert("kept", std::make_shared<const int>(7));
  cache.Clear();
  if (cache.size() != 1 || cache.Find<int>("kept") != kept) return Fail("clear", cache.size());
  std::printf("ok clear\n");
  return 0;
}
