// Logging and the fatal error path.
#include "common/log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace rdsm::detail {
namespace {
std::atomic<int> g_level{static_cast<int>(log_level::warn)};
int g_pe = -1;
fatal_handler g_fatal = nullptr;

const char* level_name(log_level l) {
  switch (l) {
    case log_level::error: return "error";
    case log_level::warn: return "warning";
    case log_level::info: return "info";
    case log_level::debug: return "debug";
    case log_level::trace: return "trace";
  }
  return "?";
}
}  // namespace

void log_configure(log_level level, int pe) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
  g_pe = pe;
#ifdef NDEBUG
  if (level == log_level::trace && pe == 0)  // once per job
    log_write(log_level::warn, "log",
              "RDSM_LOG_LEVEL=trace: this is a release build, whose trace messages are compiled out; debug "
              "messages are shown (configure with -DCMAKE_BUILD_TYPE=Debug for trace)");
#endif
}

log_level log_current_level() { return static_cast<log_level>(g_level.load(std::memory_order_relaxed)); }

std::string vformat(const char* fmt, va_list ap) {
  char buf[1024];
  va_list copy;
  va_copy(copy, ap);
  int n = std::vsnprintf(buf, sizeof buf, fmt, copy);
  va_end(copy);
  if (n < 0) return fmt;
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, ap);
  s.resize(static_cast<size_t>(n));
  return s;
}

std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

void log_write(log_level level, const char* category, const char* fmt, ...) {
  if (static_cast<int>(level) > g_level.load(std::memory_order_relaxed)) return;
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat(fmt, ap);
  va_end(ap);
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  // One write per line so lines of different PEs do not interleave.
  std::string line = format("[rdsm pe%d %s %d %ld.%06ld] %s %s: %s\n", g_pe, host, static_cast<int>(getpid()),
                            static_cast<long>(ts.tv_sec), ts.tv_nsec / 1000, level_name(level), category, msg.c_str());
  ssize_t rc = write(STDERR_FILENO, line.data(), line.size());
  (void)rc;
}

void set_fatal_handler(fatal_handler handler) { g_fatal = handler; }

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat(fmt, ap);
  va_end(ap);
  if (g_fatal != nullptr) g_fatal(1, msg);
  // Before shmem_init names this PE there is no number to give.
  std::string line = g_pe >= 0 ? format("rdsm: pe %d: %s\n", g_pe, msg.c_str()) : format("rdsm: %s\n", msg.c_str());
  ssize_t rc = write(STDERR_FILENO, line.data(), line.size());
  (void)rc;
  std::_Exit(1);
}

void keep_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lower ones are open by now: the lowest free number is this one.
    const int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) {
      dup2(got, fd);
      close(got);
    }
  }
}

}  // namespace rdsm::detail
