// Per-thread free lists of fixed-size blocks, for the small objects every kernel call
// makes and frees (TF_Tensor, TF_Status, TensorBuffer, small tensor data). A graph run
// of many small nodes would otherwise spend most of its time in malloc and free.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <new>

namespace opgen {

template <size_t kBlockSize>
class SmallObjectPool {
 public:
  static void* Allocate() {
    Cache& cache = t_cache;
    if (cache.head != nullptr) {
      Block* b = cache.head;
      cache.head = b->next;
      --cache.count;
      return b;
    }
    return ::operator new(kBlockSize);
  }

  // Any thread may free a block that any thread allocated: all blocks of one size come
  // from ::operator new(kBlockSize).
  static void Free(void* p) {
    if (p == nullptr) return;
    Cache& cache = t_cache;
    if (cache.state != kAlive && !Start(&cache)) {
      ::operator delete(p);
      return;
    }
    if (cache.count >= kMaxCached) {
      ::operator delete(p);
      return;
    }
    Block* b = static_cast<Block*>(p);
    b->next = cache.head;
    cache.head = b;
    ++cache.count;
  }

 private:
  static_assert(kBlockSize >= sizeof(void*), "blocks hold the free-list link");
  static constexpr size_t kMaxCached = 4096;
  enum State : int { kUnused = 0, kAlive = 1, kExited = 2 };
  struct Block { Block* next; };
  // Plain data, so access is a single TLS load (no construction guard); emptied at
  // thread exit through a pthread key.
  struct Cache {
    Block* head;
    size_t count;
    int state;
  };
  static thread_local Cache t_cache __attribute__((tls_model("initial-exec")));

  static pthread_key_t Key() {
    static pthread_key_t key = [] {
      pthread_key_t k;
      pthread_key_create(&k, &Drain);
      return k;
    }();
    return key;
  }
  static bool Start(Cache* cache) {
    if (cache->state == kExited) return false;  // during thread exit: no caching
    pthread_setspecific(Key(), cache);
    cache->state = kAlive;
    return true;
  }
  static void Drain(void* p) {
    Cache* cache = static_cast<Cache*>(p);
    cache->state = kExited;
    while (cache->head != nullptr) {
      Block* next = cache->head->next;
      ::operator delete(cache->head);
      cache->head = next;
    }
    cache->count = 0;
  }
};

template <size_t kBlockSize>
thread_local typename SmallObjectPool<kBlockSize>::Cache SmallObjectPool<kBlockSize>::t_cache
    __attribute__((tls_model("initial-exec"))) = {nullptr, 0, 0};

// Class-level operator new/delete drawing on the pool of the class's size.
#define OPGEN_POOLED_ALLOCATION(Class)                                                   \
  static void* operator new(size_t size) {                                               \
    return size == sizeof(Class) ? ::opgen::SmallObjectPool<sizeof(Class)>::Allocate()    \
                                 : ::operator new(size);                                  \
  }                                                                                      \
  static void operator delete(void* p, size_t size) {                                    \
    if (size == sizeof(Class)) ::opgen::SmallObjectPool<sizeof(Class)>::Free(p);          \
    else ::operator delete(p);                                                           \
  }

}  // namespace opgen
