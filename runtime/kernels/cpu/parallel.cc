// The worker pool behind ParallelFor: one thread per usable core but the caller's,
// sleeping on a condition variable between jobs. One job runs at a time; its tasks are handed out
// through an atomic counter, so a slow thread never holds the others back.
//
// A model runs hundreds of short jobs back to back, and a futex wake-up costs more than
// many of them: a worker that has just finished a job, and a caller whose tasks are
// done, first spin for a short while (kSpin) watching for the next job / the last
// task, and only then sleep. The spin is short so that a co-runner on a busy machine
// loses little to it: back-to-back jobs come within a few microseconds, and a longer
// spin mostly burns a core while a single-threaded op or OpenBLAS's own threads run
// (NASNetMobile on 2 busy cores: 50 us spent 12% of the CPU time spinning, and ran
// 1.2x slower than 10 us).
#include "parallel.h"
#include "thread_limit.h"
#include "../../src/denormals.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace opgen {
namespace cpu {
namespace {

constexpr std::chrono::microseconds kSpin{10};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpin has passed; returns done()'s last value.
template <typename Done>
bool SpinUntil(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return done();
  }
}

class WorkerPool {
 public:
  explicit WorkerPool(int64_t threads) {
    for (int64_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  }

  // The threads are never joined: the pool lives until the process exits, and joining
  // from a static destructor could deadlock with a library unloading at exit.
  ~WorkerPool() {
    for (std::thread& t : workers_) t.detach();
  }

  int64_t Size() const { return static_cast<int64_t>(workers_.size()) + 1; }

  void Run(int64_t count, const std::function<void(int64_t)>& task) {
    std::unique_lock<std::mutex> busy(submit_, std::try_to_lock);
    if (!busy.owns_lock()) {  // another job is running: do this one here, alone
      for (int64_t i = 0; i < count; ++i) task(i);
      return;
    }
    bool sleepers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_.store(0);
      pending_ = count;
      finished_.store(false, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      sleepers = sleeping_ > 0;
    }
    if (sleepers) wake_.notify_all();
    RunAvailable();
    SpinUntil([this] { return finished_.load(std::memory_order_acquire); });
    std::unique_lock<std::mutex> lock(mutex_);
    // Workers still inside this job hold `task`: wait for them too.
    done_.wait(lock, [this] { return pending_ == 0 && active_ == 0; });
    task_ = nullptr;
  }

 private:
  // Takes tasks until none are left; returns how many this thread ran.
  int64_t TakeTasks(const std::function<void(int64_t)>& task, int64_t count) {
    int64_t ran = 0;
    for (int64_t i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) {
      task(i);
      ++ran;
    }
    return ran;
  }

  void RunAvailable() { Finish(TakeTasks(*task_, count_), false); }

  void Finish(int64_t ran, bool worker) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ -= ran;
    if (worker) --active_;
    if (pending_ == 0 && active_ == 0) {
      finished_.store(true, std::memory_order_release);
      done_.notify_all();
    }
  }

  void WorkerLoop() {
    FlushDenormalsOnThisThread();  // as the threads that call kernels (denormals.h)
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int64_t)>* task;
      int64_t count;
      SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (generation_.load(std::memory_order_relaxed) == seen) {
          ++sleeping_;
          wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
          --sleeping_;
        }
        seen = generation_.load(std::memory_order_relaxed);
        task = task_;
        count = count_;
        if (task != nullptr) ++active_;
      }
      if (task != nullptr) Finish(TakeTasks(*task, count), true);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex submit_;  // held by the thread whose job the pool is running
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t)>* task_ = nullptr;
  int64_t count_ = 0;
  int64_t pending_ = 0;  // tasks not yet finished
  int64_t active_ = 0;   // workers that joined the current job and have not left it
  int64_t sleeping_ = 0; // workers blocked on wake_ (the rest are spinning or busy)
  std::atomic<uint64_t> generation_{0};  // changed (under mutex_) by each new job
  std::atomic<bool> finished_{true};     // pending_ == 0 && active_ == 0, for spinning
  std::atomic<int64_t> next_{0};
};

// OPGEN_NUM_THREADS if set, else the cores this process may run on (its affinity mask,
// which containers and taskset narrow), else all of the machine's.
int64_t ThreadCount() {
  if (const char* env = std::getenv("OPGEN_NUM_THREADS")) {
    const long n = std::strtol(env, nullptr, 10);
    if (n >= 1) return n;
  }
#ifdef CPU_COUNT
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_COUNT(&cores) > 0)
    return CPU_COUNT(&cores);
#endif
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

WorkerPool& Pool() {
  // Leaked on purpose (see ~WorkerPool): worker threads may still be waiting at exit.
  static WorkerPool* pool = new WorkerPool(ThreadCount() - 1);
  return *pool;
}

thread_local int64_t intra_op_limit = 0;

}  // namespace

void SetIntraOpThreadLimit(int64_t limit) { intra_op_limit = limit > 0 ? limit : 0; }
int64_t IntraOpThreadLimit() { return intra_op_limit; }

int64_t ParallelWorkers() {
  const int64_t size = Pool().Size();
  return intra_op_limit > 0 ? std::min(size, intra_op_limit) : size;
}

void RunTasks(int64_t count, const std::function<void(int64_t)>& task) {
  if (count <= 1 || ParallelWorkers() == 1) {
    for (int64_t i = 0; i < count; ++i) task(i);
    return;
  }
  Pool().Run(count, task);
}

}  // namespace cpu
}  // namespace opgen
