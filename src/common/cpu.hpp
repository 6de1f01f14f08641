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

/// One step of a wait that has lasted `waited_ns`: spin for 20 us (a round trip on an idle pair), then yield
/// until 1 ms (PEs sharing a core get it), then sleep in growing steps up to 100 us. Never holds the CPU for
/// a whole time slice, which a peer queued on this core may need to answer.
/// Until `wait_polls_ns` a waiter polls (spins or yields) and may drive transport progress itself.
constexpr uint64_t wait_polls_ns = 1000000;
inline void wait_step(uint64_t waited_ns) {
  if (waited_ns < 20000) {
    cpu_relax();
  } else if (waited_ns < wait_polls_ns) {
    sched_yield();
  } else {
    timespec ts{0, static_cast<long>(std::min<uint64_t>(100000, (waited_ns - wait_polls_ns) / 10 + 1000))};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace rdsm::detail
