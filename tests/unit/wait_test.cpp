// How long waits decide between polling and sleeping (common/cpu.hpp, common/wait.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/cpu.hpp"

using rdsm::detail::loadavg_runnable;
using rdsm::detail::set_long_waits_poll;
using rdsm::detail::wait_polls;
using rdsm::detail::wait_polls_ns;
using rdsm::detail::wait_spins_freely;

TEST(Wait, RunnableThreadsAreTheFourthFieldOfLoadavg) {
  EXPECT_EQ(loadavg_runnable("0.52 0.58 0.59 3/412 1234\n"), 3);
  EXPECT_EQ(loadavg_runnable("12.00 8.10 4.05 17/1024 99"), 17);
  EXPECT_EQ(loadavg_runnable("0.52 0.58 0.59 x/412 1234"), -1);
  EXPECT_EQ(loadavg_runnable("0.52 0.58"), -1);
  EXPECT_EQ(loadavg_runnable("0.52 0.58 0.59 3"), -1);  // no total: not the format
  std::ifstream in("/proc/loadavg");
  std::string text;
  std::getline(in, text);
  EXPECT_GE(loadavg_runnable(text.c_str()), 1) << text;  // this thread runs
}

TEST(Wait, AWaitPollsInItsFirstMillisecondAndSleepsAfterUnlessLongWaitsMayPoll) {
  set_long_waits_poll(false);
  EXPECT_TRUE(wait_polls(0));
  EXPECT_TRUE(wait_polls(wait_polls_ns - 1));
  EXPECT_FALSE(wait_polls(wait_polls_ns));
  EXPECT_FALSE(wait_polls(10 * wait_polls_ns));
}

TEST(Wait, AWaitSpinsWithoutYieldingOnlyWhenLongWaitsMayPoll) {
  set_long_waits_poll(false);  // RDSM_WAIT_POLL=off, or more PEs than CPUs on the host
  EXPECT_FALSE(wait_spins_freely());
  set_long_waits_poll(true);
  // Then it follows the machine's load; whichever it is, it agrees with a long wait's polling.
  EXPECT_EQ(wait_spins_freely(), wait_polls(10 * wait_polls_ns));
  set_long_waits_poll(false);
}
