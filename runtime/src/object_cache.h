// Per-thread caches of freed blocks for the small objects every op makes and drops:
// tensors, their buffers and statuses. A small eager op makes about ten of them; that
// is more than glibc keeps in its own per-thread cache, and its slower path then took
// about 40% of the op (benchmarks/bench_eager_dispatch.py). Graph runs of many small
// nodes make as many per node (benchmarks/bench_session_c.py).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <new>

namespace opgen {

// Blocks of sizeof(T) bytes. A block freed on another thread than the one that made
// it joins that thread's cache; each cache keeps at most kCapacity blocks.
template <typename T>
class ObjectCache {
 public:
  static void* Allocate(size_t size) {
    Cache& c = t_cache;
    if (size == sizeof(T) && c.head != nullptr) {
      Block* b = c.head;
      c.head = b->next;
      --c.count;
      return b;
    }
    return ::operator new(size);
  }
  static void Release(void* block, size_t size) noexcept {
    if (block == nullptr) return;
    Cache& c = t_cache;
    if (size == sizeof(T) && c.count < kCapacity && (c.state == kOpen || Open(&c))) {
      Block* b = static_cast<Block*>(block);
      b->next = c.head;
      c.head = b;
      ++c.count;
      return;
    }
    ::operator delete(block);
  }

 private:
  static_assert(sizeof(T) >= sizeof(void*), "a cached block holds the free-list link");
  static constexpr int kCapacity = 256;
  enum State : int { kUnused = 0, kOpen = 1, kClosed = 2 };  // closed: the thread is exiting
  struct Block { Block* next; };
  // Plain data in the initial-exec TLS model: one TLS load per access, where a
  // function-local thread_local with a destructor costs a __tls_get_addr call and a
  // guard check (a third of the per-node time of small graph nodes). A pthread key
  // empties the cache when the thread exits.
  struct Cache {
    Block* head;
    int count;
    int state;
  };
  static thread_local Cache t_cache __attribute__((tls_model("initial-exec")));

  static bool Open(Cache* c) {
    if (c->state == kClosed) return false;
    static const pthread_key_t key = [] {
      pthread_key_t k;
      pthread_key_create(&k, &Close);
      return k;
    }();
    pthread_setspecific(key, c);
    c->state = kOpen;
    return true;
  }
  static void Close(void* p) {
    Cache* c = static_cast<Cache*>(p);
    c->state = kClosed;
    while (c->head != nullptr) {
      Block* next = c->head->next;
      ::operator delete(c->head);
      c->head = next;
    }
    c->count = 0;
  }
};

template <typename T>
thread_local typename ObjectCache<T>::Cache ObjectCache<T>::t_cache
    __attribute__((tls_model("initial-exec"))) = {nullptr, 0, 0};

}  // namespace opgen

// Class-level operator new/delete that use ObjectCache<T>.
#define OPGEN_CACHED_ALLOCATION(T)                                                       \
  static void* operator new(size_t size) { return opgen::ObjectCache<T>::Allocate(size); } \
  static void operator delete(void* block, size_t size) noexcept {                        \
    opgen::ObjectCache<T>::Release(block, size);                                         \
  }
