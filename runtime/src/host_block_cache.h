// Keeps freed large host buffers for reuse. A fresh multi-megabyte buffer costs the
// kernel a page fault and a page clear per page the first time it is written; for a
// memory-bound op (a + b, tanh over 10M floats) that is as long as the op itself
// (benchmarks/bench_cpu_kernels.py). Ops in a loop make and drop outputs of the same
// sizes, so handing back a buffer that was freed a moment ago skips that work, as
// malloc does below its mmap threshold and as tcmalloc and jemalloc do above it.
//
// The cache holds at most a byte budget (OPGEN_HOST_CACHE_MB, default 256; 0 turns it
// off) and gives up its oldest blocks first; OPGEN_ReleaseCachedHostMemory empties it.
#pragma once

#include <cstddef>

namespace opgen {

// Buffers at least this large are cached; smaller ones live in malloc's warm heap.
constexpr size_t kCachedHostBlockMin = size_t{1} << 20;

// The smallest cached block of at least `size` and at most twice `size` bytes, aligned
// to `alignment`, or nullptr; `*block_size` is its size, which ReturnHostBlock takes
// back. Not only exact sizes: a model's layers free and ask for many different sizes in
// one run, and a block a little larger serves as well.
void* TakeCachedHostBlock(size_t size, size_t alignment, size_t* block_size);
// Keeps `block` (from std::aligned_alloc) for reuse, or frees it when it does not fit
// the budget.
void ReturnHostBlock(void* block, size_t size, size_t alignment);
// Frees every cached block; returns how many bytes that gave back.
size_t ReleaseCachedHostBlocks();
// Bytes held by the cache now.
size_t CachedHostBytes();

}  // namespace opgen
