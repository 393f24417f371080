// ParallelFor: splits [0, n) into contiguous chunks run on all cores. Small ranges run
// inline: spawning threads costs tens of microseconds, worth it only for large loops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace opgen {
namespace cpu {

// Below this many elements a loop runs on the calling thread.
constexpr int64_t kParallelThreshold = int64_t{1} << 18;

template <typename Fn>
void ParallelFor(int64_t n, Fn fn) {
  static const int64_t workers = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t chunks = std::min<int64_t>(workers, n / (kParallelThreshold / 2));
  if (chunks <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  // Chunk edges on 64-element boundaries keep each thread's writes in its own cache lines.
  const int64_t step = ((n + chunks - 1) / chunks + 63) / 64 * 64;
  std::vector<std::thread> threads;
  for (int64_t begin = step; begin < n; begin += step)
    threads.emplace_back([=] { fn(begin, std::min(n, begin + step)); });
  fn(int64_t{0}, std::min(n, step));
  for (std::thread& t : threads) t.join();
}

}  // namespace cpu
}  // namespace opgen
