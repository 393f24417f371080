// The eager context's kernel cache: one resolved kernel per (op, attrs as set, input
// dtypes, requested device), as TensorFlow's eager context keeps them, so a stateful
// kernel (a seeded random op) goes on along its sequence call after call whoever calls
// it (TFE_Execute, OPGEN_NewEagerKernel, the Python fast path). Bounded: the entries
// nobody else holds are kept to about kMaxEntries, the least recently used going first,
// and ops whose key passes kMaxKeyBytes (a tensor attr) are not cached. Entries held
// outside (a fast-path signature's kernel) do not count: they would free no memory, and
// counting them would crowd out the unheld kernels a process uses.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "op_def.h"

namespace opgen {

class EagerKernelCache {
 public:
  static constexpr size_t kMaxEntries = 4096;
  static constexpr size_t kMaxKeyBytes = 4096;  // larger keys (big attrs) are not cached
  // A sweep leaves this many unheld entries, so that the next sweep, which has to count
  // the held ones, comes only kMaxEntries - kKeepAfterSweep insertions later.
  static constexpr size_t kKeepAfterSweep = kMaxEntries - kMaxEntries / 8;

  // The key of an op: its name, requested device, input dtypes per input arg and the
  // attrs it was given (defaults and inferred attrs follow from these). Empty when the
  // key would pass kMaxKeyBytes: such an op is not cached.
  static std::string Key(const std::string& op, const std::string& device,
                         const std::vector<std::vector<TF_DataType>>& input_dtypes,
                         const AttrMap& attrs);

  // The entry under `key`, or null.
  template <typename T>
  std::shared_ptr<const T> Find(const std::string& key) {
    return std::static_pointer_cast<const T>(FindEntry(key));
  }
  // Caches `value` under `key` unless another thread did first; returns what is cached.
  template <typename T>
  std::shared_ptr<const T> Insert(const std::string& key, std::shared_ptr<const T> value) {
    return std::static_pointer_cast<const T>(InsertEntry(key, std::move(value)));
  }
  // Drops the entries nobody outside the cache holds (their kernels go with them).
  void Clear();
  size_t size() const;

 private:
  using Order = std::list<std::string>;  // most recently used first
  struct Entry {
    std::shared_ptr<const void> value;
    Order::iterator at;
  };
  std::shared_ptr<const void> FindEntry(const std::string& key);
  std::shared_ptr<const void> InsertEntry(const std::string& key, std::shared_ptr<const void> value);
  void EvictLocked();

  mutable std::mutex mu_;
  Order order_;                                     // under mu_
  std::unordered_map<std::string, Entry> entries_;  // under mu_
  size_t sweep_above_ = kMaxEntries;                 // under mu_: the next sweep's size
};

}  // namespace opgen
