// rdsm C++ API: rdsm::runtime, the RAII owner of the OpenSHMEM library (init in, finalize out).
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <string>

#include "rdsm/status.hpp"

namespace rdsm {

/// Thread levels for runtime(thread_level): which threads may call rdsm (OpenSHMEM SHMEM_THREAD_*).
enum class thread_level : int {
  single = SHMEM_THREAD_SINGLE,          ///< one thread in the process
  funneled = SHMEM_THREAD_FUNNELED,      ///< many threads, only the one that started rdsm calls it
  serialized = SHMEM_THREAD_SERIALIZED,  ///< any thread, never two at a time
  multiple = SHMEM_THREAD_MULTIPLE       ///< any thread, concurrently
};

/// Starts OpenSHMEM on construction and finalizes it on destruction. Create exactly one, in main(),
/// on every PE, before any other rdsm call, and destroy every symmetric object and owning team before
/// it (declare them after it in the same scope). Construction and destruction are collective: each
/// returns on a PE only when every PE has arrived. Not copyable or movable.
///
/// Thread safety: construct and destroy on one thread; rank()/size() may be called from any thread.
class runtime {
 public:
  /// Starts the library with shmem_init at thread level single. A start-up failure ends the job with
  /// the C API's one-line message (shmem_init reports no error to return).
  runtime() {
    shmem_init();
    shmem_query_thread(&provided_);
  }
  /// Starts the library with shmem_init_thread asking for `requested`. Throws rdsm::error when it fails
  /// (a nonzero return, e.g. an invalid level); then the library was not started, and no destructor
  /// runs. provided() says which level was granted (it may be lower than requested).
  explicit runtime(thread_level requested) {
    int provided = -1;
    int rc = shmem_init_thread(static_cast<int>(requested), &provided);
    if (rc != 0)
      throw error("rdsm::runtime: shmem_init_thread(" + std::to_string(static_cast<int>(requested)) +
                  ") failed with " + std::to_string(rc));
    provided_ = provided;
  }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
  /// Completes all outstanding operations, synchronizes every PE and releases the library
  /// (shmem_finalize). Collective.
  ~runtime() { shmem_finalize(); }

  /// This PE's number in the world team, in [0, size()).
  int rank() const noexcept { return shmem_my_pe(); }
  /// The number of PEs in the job.
  int size() const noexcept { return shmem_n_pes(); }
  /// The thread level the library granted.
  thread_level provided() const noexcept { return static_cast<thread_level>(provided_); }

 private:
  int provided_ = SHMEM_THREAD_SINGLE;
};

/// This PE's number in the world team (shmem_my_pe). Requires a started runtime.
inline int rank_me() noexcept { return shmem_my_pe(); }
/// The number of PEs in the job (shmem_n_pes). Requires a started runtime.
inline int rank_n() noexcept { return shmem_n_pes(); }

/// Completes this PE's outstanding operations, then waits until every PE has arrived
/// (shmem_barrier_all): after it, every put issued by any PE before the barrier is visible. Collective
/// over the world team; blocking.
inline void barrier() noexcept { shmem_barrier_all(); }

}  // namespace rdsm
