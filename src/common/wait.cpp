// Whether a long wait may keep polling: the machine's runnable threads against its CPUs (cpu.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>

#include "common/cpu.hpp"

namespace rdsm::detail {
namespace {
const long online_cpus = sysconf(_SC_NPROCESSORS_ONLN);  // at load time: wait_polls runs in signal handlers
std::atomic<bool> long_waits_poll{false};
std::atomic<int> loadavg_fd{-1};
std::atomic<uint64_t> checked_at{0};
std::atomic<bool> cpus_to_spare{false};
constexpr uint64_t check_every_ns = 500000;

// The runnable threads of the machine from /proc/loadavg; -1 when it cannot be read.
long runnable_threads() {
  int fd = loadavg_fd.load(std::memory_order_acquire);
  if (fd < 0) {
    const int opened = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (opened < 0) return -1;
    if (loadavg_fd.compare_exchange_strong(fd, opened, std::memory_order_acq_rel)) {
      fd = opened;
    } else {
      close(opened);  // another thread opened it first; fd holds that one
    }
  }
  char text[128];
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return -1;
  text[n] = '\0';
  return loadavg_runnable(text);
}
}  // namespace

long loadavg_runnable(const char* text) {
  const char* p = text;
  for (int spaces = 0; *p != '\0' && spaces < 3; ++p)
    if (*p == ' ') ++spaces;
  if (*p < '0' || *p > '9') return -1;
  long runnable = 0;
  for (; *p >= '0' && *p <= '9'; ++p) runnable = runnable * 10 + (*p - '0');
  return *p == '/' ? runnable : -1;
}

void set_long_waits_poll(bool on) { long_waits_poll.store(on, std::memory_order_relaxed); }

namespace {
// The loadavg test, its answer cached for check_every_ns across threads.
bool cpus_spare() {
  const uint64_t now = monotonic_ns();
  uint64_t last = checked_at.load(std::memory_order_relaxed);
  if (now - last < check_every_ns || !checked_at.compare_exchange_strong(last, now, std::memory_order_relaxed))
    return cpus_to_spare.load(std::memory_order_relaxed);  // checked lately, or being checked by another thread
  const long runnable = runnable_threads();
  const bool spare = runnable > 0 && online_cpus > 0 && runnable <= online_cpus + 1;
  cpus_to_spare.store(spare, std::memory_order_relaxed);
  return spare;
}
}  // namespace

bool wait_spins_freely() { return long_waits_poll.load(std::memory_order_relaxed) && cpus_spare(); }

bool wait_polls(uint64_t waited_ns) { return waited_ns < wait_polls_ns || wait_spins_freely(); }

}  // namespace rdsm::detail
