// How gathers, scatters and segment reductions split over the CPU pool without changing
// what they compute. A gather's output rows are independent, so they are cut into
// chunks. A scatter or segment reduction instead gives each task a range of output rows
// that it alone writes; every task walks the contributions in their order and takes
// those that land in its range, so each output row still folds its contributions in
// the order one thread would, and the results are bit-identical to a serial run.
#pragma once

#include <algorithm>
#include <cstdint>

#include "parallel.h"

namespace opgen {
namespace cpu {

// Below this many bytes copied, a gather runs on the calling thread.
constexpr int64_t kGatherParallelBytes = int64_t{256} << 10;
// Below this many elements combined, a scatter or segment reduction runs on the calling thread.
constexpr int64_t kScatterParallelElements = kParallelThreshold;
// An owner task that scans every index (unsorted ids) tests each contribution for
// being its own, a branch taken at random: a misprediction costs about as much as
// combining a few hundred elements (2 threads on UnsortedSegmentSum of 64-element rows
// took twice the CPU time of one), so shorter slices stay on one thread.
constexpr int64_t kMinScannedSlice = 256;

// Asks for the `bytes` at `p` ahead of use: gathers and sparse segment reductions read
// rows at random, and without this each row costs a full memory latency.
inline void PrefetchRow(const void* p, int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (int64_t at = 0; at < std::min<int64_t>(bytes, 512); at += 64) __builtin_prefetch(c + at);
}
// How many rows ahead a random-row loop prefetches.
constexpr int64_t kPrefetchAhead = 8;

// fn(begin, end) over chunks of a gather's `rows` output rows of `row_bytes` each.
template <typename Fn>
void ForGatherRows(int64_t rows, int64_t row_bytes, Fn fn) {
  ParallelFor(rows, fn, std::max<int64_t>(1, kGatherParallelBytes / std::max<int64_t>(row_bytes, 1)));
}

// fn(lo, hi) for disjoint ranges covering the output rows [0, rows), each range run by
// one task, for `contributions` rows of `slice` elements to combine. `scans`: each task
// reads every contribution's index (unsorted), rather than finding its own by search.
// Ranges that find their contributions by search cost nothing extra, so there are 4
// per thread (a thread the OS runs late then holds back a small part, as ParallelFor);
// scanning ranges each read every index, so there is one per thread.
template <typename Fn>
void ForOwnedRows(int64_t rows, int64_t contributions, int64_t slice, bool scans, Fn fn) {
  const int64_t most = (scans ? 1 : 4) * ParallelWorkers();
  int64_t tasks = std::min({most, contributions * slice / kScatterParallelElements, rows});
  if (scans && slice < kMinScannedSlice) tasks = 1;
  if (tasks <= 1) {
    if (rows > 0) fn(int64_t{0}, rows);
    return;
  }
  const int64_t step = (rows + tasks - 1) / tasks;
  RunTasks(tasks, [&](int64_t t) {
    const int64_t lo = t * step, hi = std::min(rows, lo + step);
    if (lo < hi) fn(lo, hi);
  });
}

}  // namespace cpu
}  // namespace opgen
