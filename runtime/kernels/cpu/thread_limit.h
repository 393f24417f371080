// How many threads the CPU kernels may use for the run on the calling thread: a
// session's ConfigProto.intra_op_parallelism_threads, set by TF_SessionRun around its
// run. The pool itself is sized once per process (OPGEN_NUM_THREADS, else the cores
// the process may run on); a limit of 1 runs every kernel on the calling thread, any
// other limit lets kernels use the pool (never more threads than it has).
#pragma once

#include <cstdint>

namespace opgen {
namespace cpu {

// 0: no limit (the pool's size).
void SetIntraOpThreadLimit(int64_t limit);
int64_t IntraOpThreadLimit();

// Sets the limit for a scope and restores the previous one after it.
class ScopedIntraOpThreadLimit {
 public:
  explicit ScopedIntraOpThreadLimit(int64_t limit) : previous_(IntraOpThreadLimit()) {
    SetIntraOpThreadLimit(limit);
  }
  ~ScopedIntraOpThreadLimit() { SetIntraOpThreadLimit(previous_); }
  ScopedIntraOpThreadLimit(const ScopedIntraOpThreadLimit&) = delete;
  ScopedIntraOpThreadLimit& operator=(const ScopedIntraOpThreadLimit&) = delete;

 private:
  int64_t previous_;
};

}  // namespace cpu
}  // namespace opgen
