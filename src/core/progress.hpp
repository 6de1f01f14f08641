// Progress: a thread that completes incoming emulated operations while the PE computes, and back-off
// for every waiting loop so oversubscribed PEs do not starve each other.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "transport/transport.hpp"

namespace rdsm::detail {

class progress_engine {
 public:
  /// The thread asks the scheduler for time slices of `slice_ns` (0: the default; RDSM_PROGRESS_SLICE):
  /// woken while its PE computes on every CPU, it then runs within that slice, not after a computing
  /// thread's.
  progress_engine(transport& net, uint64_t slice_ns) : net_(net), slice_ns_(slice_ns) {}
  ~progress_engine();
  progress_engine(const progress_engine&) = delete;
  progress_engine& operator=(const progress_engine&) = delete;

  /// Starts the thread; it sleeps on the transport's event descriptor and uses no CPU while idle.
  status start();
  void stop();
  bool running() const { return thread_.joinable(); }
  /// The eventfd that wakes the thread (a same-host peer may hold a duplicate of it).
  int wake_fd() const { return wake_fd_; }

  /// Work the thread does besides transport progress (the DSM's protocol); returns true when it did
  /// something. Installed before the thread has work for it; called only by the progress thread.
  void set_service(bool (*service)()) { service_.store(service, std::memory_order_release); }
  /// Wakes the thread if it sleeps (async-signal-safe: a fault handler calls it). Work published before
  /// the call (with a sequentially consistent store) is seen by the thread either way.
  void wake();
  /// Where the thread says it sleeps (1) or runs (0): a word that same-host peers may read to know whether
  /// their messages need a wake-up. Set before the thread has work for it.
  void share_sleep_flag(uint32_t* flag) {
    // "Maybe asleep" until the thread next says otherwise: it may be in poll already.
    __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    sleeping_.store(flag, std::memory_order_seq_cst);
  }
  /// How long the thread keeps polling after work before it sleeps: a protocol exchange's next message
  /// usually arrives within it, and a sleeping thread's wake-up costs tens of microseconds here. Zero
  /// (the default) sleeps at once; the DSM sets it unless more threads than cores would poll.
  void set_linger(uint64_t ns) { linger_ns_.store(ns, std::memory_order_relaxed); }
  /// The word that counts the program threads polling for the service's work themselves (a faulting or
  /// waiting thread of the sequential DSM; the same-host channel's count, which peers read too): while it is
  /// not zero the thread does not linger after its work but sleeps, leaving the CPUs to the threads that
  /// poll. Set before the thread has work for it.
  void share_poller_count(const uint32_t* count) { pollers_.store(count, std::memory_order_release); }

 private:
  void run();
  bool step(bool driven);  // driven: a program thread drives the transport (it is left alone)
  transport& net_;
  uint64_t slice_ns_;
  std::thread thread_;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<bool (*)()> service_{nullptr};
  std::atomic<uint64_t> linger_ns_{0};
  const uint32_t no_pollers_ = 0;
  std::atomic<const uint32_t*> pollers_{&no_pollers_};
  bool program_polls() const { return __atomic_load_n(pollers_.load(std::memory_order_acquire), __ATOMIC_RELAXED) != 0; }
  uint32_t own_sleeping_ = 0;
  std::atomic<uint32_t*> sleeping_{&own_sleeping_};
  void set_sleeping(uint32_t v) { __atomic_store_n(sleeping_.load(std::memory_order_acquire), v, __ATOMIC_SEQ_CST); }
};

/// Work a program thread does for its PE while it waits in a back-off and polls: the sequential DSM's
/// protocol, whose same-host peers leave the progress thread asleep while a thread of the PE polls. Woken,
/// that thread would cost a wake-up (25-35 us on the VM measured) and then run beside the waiting one.
/// `begin` when a wait starts polling (false: this thread cannot serve, e.g. it holds the
/// protocol's state), `serve` on each round while it polls (true when it did something), `end` when it stops
/// polling, to sleep or because the wait is over. Called only from program threads' back-offs.
struct wait_service {
  bool (*begin)();
  bool (*serve)();
  void (*end)();
};
/// Installs (or, with nullptr, removes) the wait service; the object must outlive every wait.
void set_wait_service(const wait_service* service);

/// Back-off for waiting loops: spins for ~20 us, then yields the CPU until ~1 ms (and longer while long
/// waits may poll: wait_polls), then sleeps in growing steps up to 100 us. While some peer is reached
/// through UCX it drives transport progress on every round, so a waiting PE serves emulated operations at
/// once instead of waking its progress thread; while it polls it keeps the progress thread off the transport.
class backoff {
 public:
  backoff();
  ~backoff();
  backoff(const backoff&) = delete;
  backoff& operator=(const backoff&) = delete;
  void pause();

 private:
  unsigned spins_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t last_ns_ = 0;
  transport* net_;        // set while some peer is reached through UCX: the waiter drives its progress
  bool driving_ = false;  // registered as a driver (transport::drive) while it polls
  bool threaded_ = false; // a progress thread serves the transport while the waiter sleeps
  const wait_service* serving_ = nullptr;  // the wait service this wait began, until it ends it
  bool tried_ = false;                     // whether the wait looked for a wait service yet
};

/// One round of transport progress for a call that polls without waiting (shmem_test and its kin,
/// shmem_signal_fetch), when some peer is reached through UCX: a program looping on such calls gets what
/// peers put across hosts from its own thread. Left to the progress thread, each arrival waited for it to
/// preempt the looping thread: about 2 ms per message. Calls that follow each other closely count as
/// a driving loop (transport::drove), which keeps the progress thread off the worker.
void poll_progress();

}  // namespace rdsm::detail
