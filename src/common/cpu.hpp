// CPU hints and the clock used by waiting loops.
#pragma once

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdint>

namespace rdsm::detail {

/// Monotonic time in nanoseconds (async-signal-safe: clock_gettime is).
inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

/// Asks the scheduler to give the calling thread time slices of `ns` nanoseconds (kept within 100 us and
/// 100 ms by the kernel), keeping its nice value; a thread of another policy than SCHED_OTHER is left alone.
/// Returns 0 or the errno of the refusal. Kernels before 6.12 accept the request and ignore it.
int request_time_slice(uint64_t ns);

/// Whether a wait that has lasted `waited_ns` should still poll (spin or yield) rather than sleep: during its
/// first `wait_polls_ns`, and afterwards if long waits may poll (set_long_waits_poll) and the machine's
/// runnable threads are at most its CPUs plus one (/proc/loadavg, read at most every 500 us; the one is
/// this PE's progress thread, which serves the requests of a sleeping waiter). Async-signal-safe.
constexpr uint64_t wait_polls_ns = 1000000;
bool wait_polls(uint64_t waited_ns);
/// Whether a polling wait may skip its yields: long waits may poll and the machine has CPUs to spare (the same
/// /proc/loadavg test). A waiter that progresses a transport over TCP then looks again at once: its
/// yields cost a system call each, about 2 us of every message's latency here, and nobody needs the CPU.
bool wait_spins_freely();
/// Whether waits past `wait_polls_ns` may keep polling (the runtime says so when its host has a CPU for each
/// of its PEs); false until set.
void set_long_waits_poll(bool on);
/// The machine's runnable threads, the reader included, from the text of /proc/loadavg ("0.52 0.58 0.59
/// 3/412 1234": 3); -1 if the text has no such field. Async-signal-safe.
long loadavg_runnable(const char* text);

/// One step of a wait that has lasted `waited_ns`: spin for 20 us (a round trip on an idle pair), then yield
/// while the wait polls (`polls`, from wait_polls), otherwise sleep in growing steps up to 100 us. Never
/// holds the CPU for a whole time slice, which a peer queued on this core may need to answer.
inline void wait_step(uint64_t waited_ns, bool polls) {
  if (waited_ns < 20000) {
    cpu_relax();
  } else if (polls) {
    sched_yield();
  } else {
    const uint64_t beyond = waited_ns > wait_polls_ns ? waited_ns - wait_polls_ns : 0;
    timespec ts{0, static_cast<long>(std::min<uint64_t>(100000, beyond / 10 + 1000))};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace rdsm::detail
