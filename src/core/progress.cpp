// The progress thread and waiting back-off.
#include "core/progress.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "core/runtime.hpp"

namespace rdsm::detail {

status progress_engine::start() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return status::error(format("progress thread: eventfd failed: %s", std::strerror(errno)));
  stop_ = false;
  thread_ = std::thread([this] { run(); });
  return {};
}

void progress_engine::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  uint64_t one = 1;
  ssize_t rc = write(wake_fd_, &one, sizeof one);
  (void)rc;
  thread_.join();
  close(wake_fd_);
  wake_fd_ = -1;
}

void progress_engine::run() {
  pollfd fds[2] = {{net_.event_fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stop_.load(std::memory_order_relaxed)) {
    while (net_.progress()) {
    }
    if (!net_.arm()) continue;  // events arrived between progress and arm
    int rc = poll(fds, 2, -1);
    if (rc < 0 && errno != EINTR) {
      RDSM_LOG_ERROR("progress", "poll failed: %s; progress thread stops", std::strerror(errno));
      return;
    }
  }
}

backoff::backoff() {
  drive_progress_ = !runtime::get().progress().running();
}

void backoff::pause() {
  ++spins_;
  if (drive_progress_ || (spins_ & 63) == 0) runtime::get().net().progress();
  if (spins_ < 256) {
    cpu_relax();
  } else if (spins_ < 4096) {
    sched_yield();
  } else {
    // Long waits sleep so PEs sharing a core run; the step grows to 100 us.
    unsigned step = (spins_ - 4096) / 64 + 1;
    timespec ts{0, static_cast<long>((step < 100 ? step : 100) * 1000)};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace rdsm::detail
