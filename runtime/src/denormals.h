// Subnormal floats on the threads that run kernels: flushed to zero, as TensorFlow's
// CPU kernels do (its kernel threads set flush-to-zero and denormals-are-zero), so that
// results match TensorFlow's and subnormal inputs do not slow x86 arithmetic ~100x.
// OPGEN_FLUSH_DENORMALS=0 in the environment keeps subnormals (IEEE gradual underflow).
#ifndef OPGEN_RUNTIME_SRC_DENORMALS_H_
#define OPGEN_RUNTIME_SRC_DENORMALS_H_

#include <cstdint>

namespace opgen {

// Whether kernels flush subnormals (read once from OPGEN_FLUSH_DENORMALS).
bool FlushDenormalsEnabled();

// Sets flush-to-zero and denormals-are-zero on the calling thread for its lifetime
// (worker threads call it once when they start; threads they start inherit it).
void FlushDenormalsOnThisThread();

// Sets both modes on the calling thread while it lives and restores the thread's own
// modes after: for kernel calls on a caller's thread, whose modes are the caller's.
class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals();
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

}  // namespace opgen

#endif  // OPGEN_RUNTIME_SRC_DENORMALS_H_
