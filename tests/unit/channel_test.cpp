// The same-host channel (src/dsm/channel.cpp) between two "PEs" of one process: each has a region of its own,
// which the other reaches through an in-memory remote_memory, and an eventfd for its progress thread. The tests
// check the messages and when a sender writes the receiver's eventfd: only while its progress thread sleeps, and
// not while one of its threads polls its mail itself.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "dsm/channel.hpp"

using namespace rdsm::detail::dsm;

namespace {

constexpr channel_layout layout{64, 4};

class regions final : public remote_memory {
 public:
  explicit regions(int n) : bytes_(static_cast<size_t>(n), std::vector<char>(layout.offset + layout.bytes(n))) {}
  char* at(int pe, uint64_t offset) const override {
    return const_cast<char*>(bytes_[static_cast<size_t>(pe)].data()) + offset;
  }
  bool near(int) override { return true; }
  uint64_t load(int, uint64_t) override { return 0; }
  void atomic_or(int, uint64_t, uint64_t) override {}
  void atomic_add(int, uint64_t, uint64_t) override {}
  void read(int, uint64_t, void*, size_t) override {}
  void write_nbi(int, uint64_t, const void*, size_t) override {}
  void flush() override {}

 private:
  std::vector<std::vector<char>> bytes_;
};

struct two_pes {
  two_pes() : mem(2) {
    for (int i = 0; i < 2; ++i) {
      fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
      EXPECT_GE(fds[i], 0);
    }
    for (int i = 0; i < 2; ++i) chan.push_back(std::make_unique<channel>(mem, layout, i, 2, mem.at(i, 0), fds[i]));
  }
  ~two_pes() {
    chan.clear();
    for (int fd : fds) close(fd);
  }
  // Whether PE i's eventfd was written since the last look (and clears it).
  bool woken(int i) {
    uint64_t count = 0;
    const ssize_t n = read(fds[i], &count, sizeof count);
    if (n < 0) {
      EXPECT_EQ(errno, EAGAIN);
    }
    return n == sizeof count && count != 0;
  }
  void sleeps(int i, bool asleep) { __atomic_store_n(chan[static_cast<size_t>(i)]->sleep_flag(), asleep ? 1u : 0u, __ATOMIC_SEQ_CST); }
  std::deque<incoming> receive(int i) {
    std::deque<incoming> out;
    chan[static_cast<size_t>(i)]->receive(out);
    return out;
  }
  regions mem;
  int fds[2] = {-1, -1};
  std::vector<std::unique_ptr<channel>> chan;
};

message grant(uint32_t page) { return message{.kind = msg_kind::read_grant, .page = page}; }

TEST(Channel, ASenderWakesTheReceiversProgressThreadOnlyWhileItSleeps) {
  two_pes w;
  if (!w.chan[0]->send(1, grant(7))) GTEST_SKIP() << "pidfd_getfd is refused here (a ptrace-restricting kernel)";
  EXPECT_FALSE(w.woken(1)) << "a running progress thread finds its mail without a wake-up";
  w.sleeps(1, true);
  ASSERT_TRUE(w.chan[0]->send(1, grant(8)));
  EXPECT_TRUE(w.woken(1));
  EXPECT_EQ(w.chan[0]->wakeups(), 1u);
  const std::deque<incoming> got = w.receive(1);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].from, 0);
  EXPECT_EQ(got[0].m.page, 7u);
  EXPECT_EQ(got[1].m.page, 8u);
  EXPECT_FALSE(w.chan[1]->pending());
}

TEST(Channel, WhileAThreadPollsItsMailTheSleepingProgressThreadIsLeftAsleep) {
  two_pes w;
  w.sleeps(1, true);
  w.chan[1]->start_polling();  // a faulting thread of PE 1 waits for its grant and looks at the mail itself
  if (!w.chan[0]->send(1, grant(3))) GTEST_SKIP() << "pidfd_getfd is refused here (a ptrace-restricting kernel)";
  EXPECT_FALSE(w.woken(1)) << "the progress thread was woken while a thread of its PE polled";
  EXPECT_EQ(w.chan[0]->wakeups(), 0u);
  EXPECT_TRUE(w.chan[1]->pending());
  // It stops polling with the mail unread: told so, it wakes the progress thread itself.
  EXPECT_TRUE(w.chan[1]->stop_polling());
  ASSERT_EQ(w.receive(1).size(), 1u);
  // Polling again, it reads what comes; stopping then finds nothing pending.
  w.chan[1]->start_polling();
  ASSERT_TRUE(w.chan[0]->send(1, grant(4)));
  EXPECT_FALSE(w.woken(1));
  ASSERT_EQ(w.receive(1).size(), 1u);
  EXPECT_FALSE(w.chan[1]->stop_polling());
  // Nobody polls now: the next message wakes the sleeping thread again.
  ASSERT_TRUE(w.chan[0]->send(1, grant(5)));
  EXPECT_TRUE(w.woken(1));
  EXPECT_EQ(w.chan[0]->wakeups(), 1u);
}

TEST(Channel, TwoPollingThreadsBothHaveToStop) {
  two_pes w;
  w.sleeps(1, true);
  w.chan[1]->start_polling();
  w.chan[1]->start_polling();
  if (!w.chan[0]->send(1, grant(1))) GTEST_SKIP() << "pidfd_getfd is refused here (a ptrace-restricting kernel)";
  EXPECT_TRUE(w.chan[1]->stop_polling());
  ASSERT_TRUE(w.chan[0]->send(1, grant(2)));
  EXPECT_FALSE(w.woken(1)) << "one thread still polls";
  EXPECT_TRUE(w.chan[1]->stop_polling());
  ASSERT_TRUE(w.chan[0]->send(1, grant(3)));
  EXPECT_TRUE(w.woken(1));
}

}  // namespace
