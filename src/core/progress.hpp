// Progress: a thread that completes incoming emulated operations while the PE computes, and back-off
// for every waiting loop so oversubscribed PEs do not starve each other.
#pragma once

#include <atomic>
#include <thread>

#include "transport/transport.hpp"

namespace rdsm::detail {

class progress_engine {
 public:
  explicit progress_engine(transport& net) : net_(net) {}
  ~progress_engine() { stop(); }
  progress_engine(const progress_engine&) = delete;
  progress_engine& operator=(const progress_engine&) = delete;

  /// Starts the thread; it sleeps on the transport's event descriptor and uses no CPU while idle.
  status start();
  void stop();
  bool running() const { return thread_.joinable(); }

 private:
  void run();
  transport& net_;
  std::thread thread_;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
};

/// Back-off for waiting loops: spins briefly, then yields the CPU, then sleeps in growing steps up to
/// ~100 us, and drives transport progress when no progress thread does.
class backoff {
 public:
  backoff();
  void pause();
  void reset() { spins_ = 0; }

 private:
  unsigned spins_ = 0;
  bool drive_progress_;
};

}  // namespace rdsm::detail
