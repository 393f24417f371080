// Per-thread caches of freed blocks for the small objects every op makes and drops:
// tensors, their buffers and statuses. A small eager op makes about ten of them; that
// is more than glibc keeps in its own per-thread cache, and its slower path then took
// about 40% of the op (benchmarks/bench_eager_dispatch.py).
#pragma once

#include <cstddef>
#include <new>

namespace opgen {

// Blocks of sizeof(T) bytes. A block freed on another thread than the one that made
// it joins that thread's cache; each cache keeps at most kCapacity blocks.
template <typename T>
class ObjectCache {
 public:
  static void* Allocate(size_t size) {
    Cache& c = Local();
    if (size == sizeof(T) && c.count > 0) return c.blocks[--c.count];
    return ::operator new(size);
  }
  static void Release(void* block, size_t size) noexcept {
    if (block == nullptr) return;
    Cache& c = Local();
    if (size == sizeof(T) && c.open && c.count < kCapacity) {
      c.blocks[c.count++] = block;
      return;
    }
    ::operator delete(block);
  }

 private:
  static constexpr int kCapacity = 32;
  struct Cache {
    void* blocks[kCapacity];
    int count = 0;
    bool open = true;  // false once the thread's cache is gone (thread exit)
    ~Cache() {
      open = false;
      while (count > 0) ::operator delete(blocks[--count]);
    }
  };
  static Cache& Local() {
    static thread_local Cache cache;
    return cache;
  }
};

}  // namespace opgen

// Class-level operator new/delete that use ObjectCache<T>.
#define OPGEN_CACHED_ALLOCATION(T)                                                       \
  static void* operator new(size_t size) { return opgen::ObjectCache<T>::Allocate(size); } \
  static void operator delete(void* block, size_t size) noexcept {                        \
    opgen::ObjectCache<T>::Release(block, size);                                         \
  }
