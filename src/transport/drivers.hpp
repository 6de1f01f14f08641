// Which threads drive a transport's progress themselves, for the progress thread to keep off it meanwhile.
#pragma once

#include <atomic>
#include <cstdint>

namespace rdsm::detail {

class drivers {
 public:
  /// Threads that drive progress themselves while they wait (a blocking operation, a waiting loop while it
  /// polls) say so: while one does, and for `hold_ns` after the last stops, the progress thread keeps off the
  /// event descriptor. Otherwise every arriving message would wake it onto the CPU the waiter polls from, and
  /// both would contend for the worker (it doubles a put ping-pong over TCP). `drive` registers the caller
  /// as a driver, or ends that, when `on` differs from `driving`, the caller's own record of it.
  void drive(bool& driving, bool on, uint64_t now_ns) {
    if (on == driving) return;
    if (on) {
      if (drivers_.fetch_add(1, std::memory_order_seq_cst) == 0) drives_.fetch_add(1, std::memory_order_relaxed);
    } else {
      drove(now_ns);
      if (drivers_.fetch_sub(1, std::memory_order_seq_cst) == 1 && awaiting_end_.load(std::memory_order_seq_cst) &&
          awaiting_end_.exchange(false, std::memory_order_seq_cst))
        drive_end_wake_(drive_end_arg_);
    }
    driving = on;
  }
  /// Drives begun so far (the drivers' count rising from zero): the same number and a driver still there
  /// later means one drive lasted all along.
  uint64_t drives() const { return drives_.load(std::memory_order_relaxed); }
  /// The progress thread, having seen one drive outlast a timed sleep (a stream of large puts, a long quiet),
  /// sleeps until it ends instead of looking again every hold: each timed wake-up takes a CPU from the
  /// threads doing the transfer (a quarter of a 1 MiB put stream's bandwidth between two namespaces). Returns
  /// false if no drive is going on any more (do not sleep); otherwise the driver that ends it calls the
  /// function set by `on_drive_end`.
  bool await_drive_end() {
    awaiting_end_.store(true, std::memory_order_seq_cst);
    if (drivers_.load(std::memory_order_seq_cst) > 0) return true;
    awaiting_end_.store(false, std::memory_order_relaxed);
    return false;
  }
  /// After such a sleep, whatever ended it.
  void end_await() { awaiting_end_.store(false, std::memory_order_relaxed); }
  /// Whether some thread drives the transport now.
  bool driving() const { return drivers_.load(std::memory_order_seq_cst) > 0; }
  /// What ends a sleep of `await_drive_end` (the progress thread's wake-up); set before the thread starts.
  void on_drive_end(void (*wake)(void*), void* arg) {
    drive_end_wake_ = wake;
    drive_end_arg_ = arg;
  }
  /// A thread that polls without waiting (a loop of shmem_test calls) progressed the transport just now: the
  /// hold starts again, as when a driver stops. The latest such time is kept: a driver may report a time
  /// read before another thread's.
  void drove(uint64_t now_ns) {
    uint64_t at = driven_at_.load(std::memory_order_seq_cst);
    while (now_ns > at && !driven_at_.compare_exchange_weak(at, now_ns, std::memory_order_seq_cst)) {
    }
  }
  /// Whether a thread drives the transport, or drove it within `hold_ns` before `now_ns`. A time older than
  /// the last drive's end (another thread drove after the caller read its clock) is within the hold.
  bool driven(uint64_t now_ns, uint64_t hold_ns) const { return driving() || hold_after(now_ns, hold_ns) > 0; }
  /// What is left at `now_ns` of the hold after the last drive's end (at most `hold_ns`; 0 when it is over):
  /// a progress thread that keeps off the transport until then, not longer, leaves no gap between the
  /// drivers' progress and its own.
  uint64_t hold_after(uint64_t now_ns, uint64_t hold_ns) const {
    const uint64_t at = driven_at_.load(std::memory_order_seq_cst);
    if (now_ns <= at) return hold_ns;
    return now_ns - at < hold_ns ? hold_ns - (now_ns - at) : 0;
  }

 private:
  std::atomic<int> drivers_{0};
  std::atomic<uint64_t> driven_at_{0};
  std::atomic<uint64_t> drives_{0};
  std::atomic<bool> awaiting_end_{false};
  void (*drive_end_wake_)(void*) = [](void*) {};
  void* drive_end_arg_ = nullptr;
};

}  // namespace rdsm::detail
