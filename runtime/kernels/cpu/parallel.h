// ParallelFor: splits [0, n) into contiguous chunks run on all cores by a persistent
// pool of worker threads (started once, on first use). Small ranges run inline: waking
// a worker costs microseconds, worth it only for loops over a few hundred KB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

namespace opgen {
namespace cpu {

// Below this many elements a loop runs on the calling thread.
constexpr int64_t kParallelThreshold = int64_t{1} << 16;

// Runs task(0..count-1), each on some thread (the caller runs some as well), and
// returns when all have finished. If the pool is busy with another caller's work
// (another thread, or a task that itself called ParallelFor) the tasks run inline.
void RunTasks(int64_t count, const std::function<void(int64_t)>& task);

// Number of threads RunTasks uses, the caller included.
int64_t ParallelWorkers();

// fn(begin, end) over chunks of [0, n). `min_chunk` is the least number of elements
// worth a thread of its own.
template <typename Fn>
void ParallelFor(int64_t n, Fn fn, int64_t min_chunk = kParallelThreshold) {
  // Up to 4 chunks per thread: a thread the OS runs late (a busy machine) then holds
  // back only a small part of the loop, which the others finish.
  const int64_t chunks = std::min<int64_t>(4 * ParallelWorkers(), n / std::max<int64_t>(min_chunk, 1));
  if (chunks <= 1) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  // Chunk edges on 64-element boundaries keep each thread's writes in its own cache lines
  // where chunks are long; a short range (rows, images, blocks: min_chunk is small) is
  // split as it is, or rounding would leave it one chunk.
  int64_t step = (n + chunks - 1) / chunks;
  if (step >= 1024) step = (step + 63) / 64 * 64;
  RunTasks(chunks, [&](int64_t c) {
    const int64_t begin = c * step, end = std::min(n, begin + step);
    if (begin < end) fn(begin, end);
  });
}

}  // namespace cpu
}  // namespace opgen
