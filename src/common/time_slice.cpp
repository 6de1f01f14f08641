// The scheduler time slice a thread asks for (cpu.hpp).
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "common/cpu.hpp"

namespace rdsm::detail {
namespace {
// The kernel's struct sched_attr, first version (its header clashes with <sched.h>).
struct kernel_sched_attr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};
}  // namespace

int request_time_slice(uint64_t ns) {
  // For a normal (SCHED_OTHER) thread, sched_runtime is the slice its EEVDF scheduler gives it (Linux 6.12
  // and later, no privilege needed; earlier kernels ignore the field). A thread with a shorter slice than
  // the running one preempts it when it wakes instead of waiting for that one's slice to end. The thread's
  // policy and nice value stay as they are (a job started under `nice` keeps it); other policies are left.
  kernel_sched_attr attr{};
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return errno;
  if (attr.sched_policy != SCHED_OTHER) return 0;
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = ns;
  if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) return errno;
  return 0;
}

}  // namespace rdsm::detail
