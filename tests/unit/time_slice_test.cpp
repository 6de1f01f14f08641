// request_time_slice (common/cpu.hpp): the slice the kernel reports for the thread afterwards.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "common/cpu.hpp"

namespace {

// The thread's slice in nanoseconds from /proc/thread-self/sched, or -1 when the kernel does not show it.
long long slice_of_this_thread() {
  std::ifstream in("/proc/thread-self/sched");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("se.slice", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return std::stoll(line.substr(colon + 1));
  }
  return -1;
}

bool kernel_at_least(int major, int minor) {
  utsname u{};
  int ma = 0, mi = 0;
  return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &ma, &mi) == 2 && (ma > major || (ma == major && mi >= minor));
}

}  // namespace

TEST(TimeSlice, TheKernelGivesTheThreadTheSliceAsked) {
  std::thread t([] {
    const int e = rdsm::detail::request_time_slice(200000);
    if (e == ENOSYS) GTEST_SKIP() << "no sched_setattr here (an emulator)";
    ASSERT_EQ(e, 0) << std::strerror(e);
    if (!kernel_at_least(6, 12) || slice_of_this_thread() < 0) GTEST_SKIP() << "the kernel ignores per-thread slices";
    EXPECT_EQ(slice_of_this_thread(), 200000);
    ASSERT_EQ(rdsm::detail::request_time_slice(1000), 0);  // below the kernel's floor of 100 us
    EXPECT_EQ(slice_of_this_thread(), 100000);
  });
  t.join();
}
