// Exceptions must not cross the boundary of an OpenMP region (one that does
// ends the program with std::terminate). Every region whose body can throw
// (an allocation, a check that raises InvalidInput, a user callback) runs the
// body through FirstError::run, which keeps the first exception thrown by
// any thread, and calls rethrow() after the region:
//
//   FirstError err;
//   #pragma omp parallel for
//   for (...) err.run([&] { ... });
//   err.rethrow();
//
// Inside `#pragma omp parallel` with a worksharing loop, wrap each iteration
// (and any per-thread setup before the loop separately), never the `omp for`
// itself: a thread that left the region's body early would skip the loop's
// barrier and the others would wait forever. After a failure the remaining
// iterations are skipped.
//
// Host code only; shared by the core and the CPU backend.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace spx::detail {

class FirstError {
 public:
  /// Runs f(); an exception it throws is kept (the first of all threads) and
  /// does not propagate. Once one is kept, later calls skip f (failed()
  /// tells a loop it may stop early).
  template <class F>
  void run(F&& f) noexcept {
    if (failed()) return;
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }

  /// Whether some call threw.
  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

  /// Rethrows the kept exception, if any (after the region).
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

}  // namespace spx::detail
