// Element-wise outputs larger than the caches are written with streaming
// (non-temporal) stores. A plain store to a line that is not cached first reads the
// line from memory, so an element-wise op over arrays in DRAM moves its output twice;
// streaming stores write it once. On the 2-core VM, a + b over 10M float32 goes from
// ~23 to ~30 GB/s (benchmarks/bench_cpu_kernels.py), as glibc's memcpy does for large
// copies. The loop computes a small tile into a stack buffer, which stays in L1, and
// the tile is streamed out. Loops bound by arithmetic rather than memory (the AVX-512
// tanh) gain nothing and were measured slower this way: their callers pass stream=false.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace opgen {
namespace cpu {

// Outputs of at least this many bytes are streamed: well beyond what a core's own
// caches hold, so the next op would not have found them cached anyway.
constexpr size_t kStreamingOutputBytes = size_t{8} << 20;

// Copies `bytes` from `src` to `dst` with streaming stores where the CPU has them
// (dst 16-byte aligned for the streamed part; the rest is copied plainly).
void StreamCopy(void* dst, const void* src, size_t bytes);
// Orders this thread's streaming stores before what it does next (the pool's hand-off).
void StreamFence();

// Runs loop(dst, b, e), which writes the elements [b, e) of the output to dst[0 .. e-b),
// over [begin, end) of `out`: straight into `out` when `stream` is false, else through
// an L1-sized tile streamed to `out`.
template <typename Out, typename Loop>
inline void WriteOutput(Out* out, int64_t begin, int64_t end, bool stream, const Loop& loop) {
  if (!stream) {
    if (begin < end) loop(out + begin, begin, end);
    return;
  }
  constexpr int64_t kTile = std::max<int64_t>(1, 4096 / static_cast<int64_t>(sizeof(Out)));
  // Up to the first 64-byte boundary of the output with plain stores, so every
  // streamed tile starts aligned.
  const auto address = reinterpret_cast<uintptr_t>(out + begin);
  const int64_t head =
      std::min<int64_t>(end - begin, static_cast<int64_t>(((64 - address % 64) % 64) / sizeof(Out)));
  if (head > 0) loop(out + begin, begin, begin + head);
  alignas(64) Out tile[kTile];
  for (int64_t b = begin + head; b < end; b += kTile) {
    const int64_t e = std::min(end, b + kTile);
    loop(tile, b, e);
    StreamCopy(out + b, tile, static_cast<size_t>(e - b) * sizeof(Out));
  }
  StreamFence();
}

}  // namespace cpu
}  // namespace opgen
