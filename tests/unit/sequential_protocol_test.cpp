// The sequential protocol (src/dsm/sequential.cpp) between PEs of one process: each "PE" has its own page
// table, view and frames and a sequential_protocol; a fake port queues their messages (in order per pair of
// PEs, as the channel and UCX deliver them) and copies pages between their frames. The tests play a
// faulting thread's stores into the frames and drive requests, recalls, invalidations, write-backs, the
// home's queue and the hold of a page, one message at a time where the order matters.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "common/cpu.hpp"
#include "dsm/page_table.hpp"
#include "dsm/sequential.hpp"
#include "rdsm/dsm.h"

using namespace rdsm::detail::dsm;

namespace {

constexpr uint32_t n_pages = 16;
constexpr unsigned shift = 12;
constexpr size_t page_bytes = size_t{1} << shift;

char* map(size_t bytes, int prot) {
  void* p = mmap(nullptr, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  return static_cast<char*>(p);
}

struct envelope {
  int from, to;
  message m;
};

class world;

class fake_port final : public sequential_port {
 public:
  fake_port(world& w, int me) : w_(w), me_(me) {}
  void send(int pe, const message& m) override;
  void fetch(uint32_t page) override;
  void write_back(uint32_t page) override;
  void resolve_home(uint32_t) override {}  // homes are placed up front
  void granted(uint32_t page) override { grants.push_back(page); }
  bool home_near(uint32_t) const override { return near; }
  void opening_on_guess(uint32_t) override {}
  bool write_back_changed(uint32_t page) override;
  bool written_since_opened(uint32_t page) override;
  std::vector<uint32_t> grants;
  int fetches = 0, write_backs = 0;
  bool near = false;  // every home counts as on this host (its frame compared before a write-back)

 private:
  world& w_;
  int me_;
};

struct pe {
  pe(world& w, int me, int n)
      : view(map(n_pages * page_bytes, PROT_NONE)),
        frames(map(n_pages * page_bytes, PROT_READ | PROT_WRITE)),
        pages(view, -1, frames, nullptr, n_pages, shift),
        port(w, me),
        protocol(pages, port, me, n, 4, stats) {}
  ~pe() {
    munmap(view, n_pages * page_bytes);
    munmap(frames, n_pages * page_bytes);
  }
  char* view;
  char* frames;
  page_table pages;
  counters stats;
  fake_port port;
  sequential_protocol protocol;
};

class world {
 public:
  // `n` PEs; page p is homed on PE p % n (cyclic) or on PE p / (n_pages / n) (blocks), and its home starts
  // as its owner (a fresh allocation).
  explicit world(int n, bool blocks = false) {
    const auto home_of = [&](uint32_t p) {
      return static_cast<int32_t>(blocks ? p / (n_pages / static_cast<uint32_t>(n)) : p % static_cast<uint32_t>(n));
    };
    for (int i = 0; i < n; ++i) pes.push_back(std::make_unique<pe>(*this, i, n));
    for (auto& x : pes)
      for (uint32_t p = 0; p < n_pages; ++p) {
        x->pages.set_home(p, home_of(p));
        x->pages.set_advice(p, RDSM_DSM_DEFAULT);
      }
    for (int i = 0; i < n; ++i)
      for (uint32_t p = 0; p < n_pages; ++p) {
        const bool home = home_of(p) == i;
        at(i).protocol.reset(p, home);
        at(i).pages.protect(p, 1, home ? page_state::modified : page_state::invalid);
      }
  }
  pe& at(int i) { return *pes[static_cast<size_t>(i)]; }
  page_state state(int i, uint32_t p) { return at(i).pages.state(p); }
  char* frame(int i, uint32_t p) { return at(i).pages.frame(p); }
  // A thread of PE i faults on page p: asks for it, as the service does, and lets its own messages through.
  uint32_t fault(int i, uint32_t p, bool write) {
    const uint32_t end = at(i).protocol.start_request(p, write);
    at(i).protocol.drain_self();
    return end;
  }
  // Delivers the oldest message in flight (to its PE's protocol); false when none is.
  bool step() {
    if (queue.empty()) return false;
    const envelope e = queue.front();
    queue.pop_front();
    at(e.to).protocol.receive(e.from, e.m);
    return true;
  }
  void run() {
    for (int rounds = 0; rounds < 10000; ++rounds) {
      if (step()) continue;
      bool again = false;
      for (auto& x : pes) again = x->protocol.retry_deferred() || again;
      if (!again && queue.empty()) return;
    }
    FAIL() << "the protocol did not settle";
  }
  size_t in_flight(msg_kind k) const {
    size_t n = 0;
    for (const envelope& e : queue) n += e.m.kind == k;
    return n;
  }
  std::vector<std::unique_ptr<pe>> pes;
  std::deque<envelope> queue;
};

void fake_port::send(int pe, const message& m) {
  ASSERT_NE(pe, me_) << "the protocol keeps its own messages";
  w_.queue.push_back({me_, pe, m});
}

void fake_port::fetch(uint32_t page) {
  const int h = w_.at(me_).pages.home(page);
  std::memcpy(w_.frame(me_, page), w_.frame(h, page), page_bytes);
  ++fetches;
}

void fake_port::write_back(uint32_t page) {
  const int h = w_.at(me_).pages.home(page);
  std::memcpy(w_.frame(h, page), w_.frame(me_, page), page_bytes);
  ++write_backs;
}

bool fake_port::written_since_opened(uint32_t page) {
  EXPECT_TRUE(near) << "compared with a home that is not near";
  const int h = w_.at(me_).pages.home(page);
  return std::memcmp(w_.frame(h, page), w_.frame(me_, page), page_bytes) != 0;
}

bool fake_port::write_back_changed(uint32_t page) {
  if (!written_since_opened(page)) return false;
  write_back(page);
  return true;
}

void fill(char* frame, char c) { std::memset(frame, c, page_bytes); }
bool holds(const char* frame, char c) {
  for (size_t i = 0; i < page_bytes; ++i)
    if (frame[i] != c) return false;
  return true;
}

}  // namespace

TEST(SequentialProtocol, AReadTakesTheHomesWriteAccessAndCopiesItsData) {
  world w(3);
  fill(w.frame(0, 0), 'A');  // the home writes its page
  w.fault(1, 0, false);
  EXPECT_EQ(w.in_flight(msg_kind::read_req), 1u);
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::shared);
  EXPECT_EQ(w.state(0, 0), page_state::shared);  // the home recalled itself: no more writes without asking
  EXPECT_TRUE(holds(w.frame(1, 0), 'A'));
  EXPECT_EQ(w.at(1).port.grants, std::vector<uint32_t>{0});
  EXPECT_EQ(w.at(0).stats.requests_served.load(), 1u);
  EXPECT_FALSE(w.at(1).protocol.pending(0));
}

TEST(SequentialProtocol, AWriteInvalidatesEverySharerAndTheHome) {
  world w(3);
  fill(w.frame(0, 0), 'A');
  w.fault(1, 0, false);
  w.fault(2, 0, false);
  w.run();
  ASSERT_EQ(w.state(2, 0), page_state::shared);
  const int fetched = w.at(2).port.fetches;
  w.fault(2, 0, true);  // an upgrade: PE 2's copy is current
  w.run();
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  EXPECT_EQ(w.state(1, 0), page_state::invalid);
  EXPECT_EQ(w.state(0, 0), page_state::invalid);
  EXPECT_EQ(w.at(2).port.fetches, fetched) << "a current copy is not fetched again";
  EXPECT_EQ(w.at(1).stats.invalidations.load(), 1u);
}

TEST(SequentialProtocol, ARecallWritesTheOwnersDataBackBeforeAReaderGetsIt) {
  world w(3);
  w.fault(2, 0, true);
  w.run();
  ASSERT_EQ(w.state(2, 0), page_state::modified);
  fill(w.frame(2, 0), 'B');  // the owner writes
  w.fault(1, 0, false);
  w.run();
  EXPECT_EQ(w.at(2).port.write_backs, 1);
  EXPECT_TRUE(holds(w.frame(0, 0), 'B')) << "the home's frame has the owner's writes";
  EXPECT_TRUE(holds(w.frame(1, 0), 'B'));
  EXPECT_EQ(w.state(2, 0), page_state::shared);  // a read recall keeps a shared copy
  EXPECT_EQ(w.state(1, 0), page_state::shared);
}

TEST(SequentialProtocol, TwoWritersAreServedOneAfterTheOther) {
  world w(3);
  w.fault(1, 0, true);
  w.fault(2, 0, true);
  // The home takes PE 1's request first, queues PE 2's, and grants PE 1.
  while (w.at(1).port.grants.empty()) ASSERT_TRUE(w.step());
  EXPECT_EQ(w.state(1, 0), page_state::modified);
  EXPECT_EQ(w.state(2, 0), page_state::invalid);
  fill(w.frame(1, 0), 'C');  // PE 1's thread runs its store
  w.run();
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  EXPECT_EQ(w.state(1, 0), page_state::invalid);
  EXPECT_TRUE(holds(w.frame(2, 0), 'C')) << "the second writer sees the first one's store";
}

TEST(SequentialProtocol, APageStaysWithTheThreadThatGotItUntilItRan) {
  world w(3);
  w.fault(1, 0, true);
  w.run();
  w.at(1).protocol.hold(0);  // the thread was released and has not run its store yet
  w.fault(2, 0, true);
  w.run();
  EXPECT_EQ(w.at(1).protocol.deferred(), 1u) << "the recall waits for PE 1's thread";
  EXPECT_EQ(w.state(1, 0), page_state::modified);
  fill(w.frame(1, 0), 'D');
  w.at(1).protocol.resumed(0, rdsm::detail::monotonic_ns());
  std::this_thread::sleep_for(std::chrono::microseconds(50));  // past the hold after the resumption
  w.run();
  EXPECT_EQ(w.at(1).protocol.deferred(), 0u);
  EXPECT_EQ(w.state(1, 0), page_state::invalid);
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  EXPECT_TRUE(holds(w.frame(2, 0), 'D'));
}

TEST(SequentialProtocol, ARequestAsksAgainForTheRunReadBefore) {
  world w(2, true);  // pages 0-7 on PE 0, 8-15 on PE 1; the protocol asks for runs of up to 4 pages
  for (uint32_t p = 0; p < 3; ++p) w.fault(1, p, false);
  w.run();
  for (uint32_t p = 0; p < 3; ++p) w.fault(0, p, true);  // the home writes them again: PE 1's copies dropped
  w.run();
  for (uint32_t p = 0; p < 3; ++p) ASSERT_EQ(w.state(1, p), page_state::invalid);
  // Pages 0-2 were read before and lost; page 3 never was, so the run stops there.
  EXPECT_EQ(w.fault(1, 0, false), 3u);
  EXPECT_EQ(w.in_flight(msg_kind::read_req), 3u);
  w.run();
  for (uint32_t p = 0; p < 3; ++p) EXPECT_EQ(w.state(1, p), page_state::shared);
  EXPECT_EQ(w.state(1, 3), page_state::invalid);
  EXPECT_EQ(w.fault(1, 8, true), 9u) << "a page of PE 1's own: asked for alone";
}

TEST(SequentialProtocol, AReadModifyWriteAsksForOwnershipAtTheReadAndUpgradesWithoutAMessage) {
  world w(3);
  w.fault(1, 0, false);  // PE 1 reads, then writes: an upgrade of the copy it read
  w.run();
  w.fault(1, 0, true);
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::modified);
  fill(w.frame(1, 0), 'E');
  w.fault(2, 0, true);  // PE 2 takes it away
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::invalid);
  fill(w.frame(2, 0), 'F');
  // PE 1 reads again: it asks for ownership, and gets the page exclusive but read-only.
  w.fault(1, 0, false);
  EXPECT_EQ(w.in_flight(msg_kind::write_req), 1u);
  EXPECT_EQ(w.in_flight(msg_kind::read_req), 0u);
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::shared);
  EXPECT_EQ(w.state(2, 0), page_state::invalid) << "an exclusive holder has no sharer beside it";
  EXPECT_TRUE(holds(w.frame(1, 0), 'F'));
  // Its write upgrades here: no message.
  EXPECT_TRUE(w.at(1).protocol.upgrade(0));
  EXPECT_EQ(w.state(1, 0), page_state::modified);
  EXPECT_TRUE(w.queue.empty());
  EXPECT_FALSE(w.at(1).protocol.upgrade(0)) << "upgraded once";
  EXPECT_FALSE(w.at(2).protocol.upgrade(0)) << "PE 2 holds nothing";
}

// PE 1 reads page 0, then writes it (an upgrade of the copy it read), then PE 2 takes it and writes 'F': PE 1's
// next read of the page guesses a read-modify-write.
void read_write_then_lose(world& w) {
  w.fault(1, 0, false);
  w.run();
  w.fault(1, 0, true);
  w.run();
  w.fault(2, 0, true);
  w.run();
  fill(w.frame(2, 0), 'F');
}

// PE 0 (the home) writes page 0, which takes every copy, then PE 1 reads it and asks with `asked`.
void home_writes_then_pe1_reads(world& w, msg_kind asked) {
  w.fault(0, 0, true);
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::invalid);
  w.fault(1, 0, false);
  EXPECT_EQ(w.in_flight(asked), 1u);
  EXPECT_EQ(w.in_flight(asked == msg_kind::read_req ? msg_kind::write_req : msg_kind::read_req), 0u);
  w.run();
}

TEST(SequentialProtocol, AnExclusivePageTakenBackUnwrittenEndsTheGuess) {
  world w(3);
  read_write_then_lose(w);
  w.fault(1, 0, false);  // the guess: exclusive, read-only
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::shared);
  const int write_backs = w.at(1).port.write_backs;
  w.fault(2, 0, false);  // a reader recalls PE 1 before it wrote
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::shared);
  EXPECT_EQ(w.state(2, 0), page_state::shared);
  EXPECT_EQ(w.at(1).port.write_backs, write_backs) << "an unwritten page is not written back";
  EXPECT_FALSE(w.at(1).protocol.upgrade(0)) << "no longer the owner: a write must ask";
  // The guess was wrong once: a plain read again.
  home_writes_then_pe1_reads(w, msg_kind::read_req);
  EXPECT_EQ(w.state(1, 0), page_state::shared);
}

TEST(SequentialProtocol, WithTheHomeOnThisHostAReadModifyWriteOpensThePageWritableAtTheRead) {
  world w(3);
  for (int i = 0; i < 3; ++i) w.at(i).port.near = true;
  read_write_then_lose(w);
  w.fault(1, 0, false);  // the guess: ownership, and the page writable at once
  EXPECT_EQ(w.in_flight(msg_kind::write_req), 1u);
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::modified);
  EXPECT_EQ(w.state(2, 0), page_state::invalid);
  EXPECT_TRUE(holds(w.frame(1, 0), 'F'));
  EXPECT_FALSE(w.at(1).protocol.upgrade(0)) << "nothing left to upgrade";
  fill(w.frame(1, 0), 'G');  // its write: no fault
  const int write_backs = w.at(1).port.write_backs;
  w.fault(2, 0, false);  // a reader recalls it: the changed page goes back to its home first
  w.run();
  EXPECT_EQ(w.at(1).port.write_backs, write_backs + 1);
  EXPECT_TRUE(holds(w.frame(0, 0), 'G'));
  EXPECT_TRUE(holds(w.frame(2, 0), 'G'));
  home_writes_then_pe1_reads(w, msg_kind::write_req);  // the guess held: ownership at the read again
  EXPECT_EQ(w.state(1, 0), page_state::modified);
}

TEST(SequentialProtocol, AnOpenedPageTakenBackUnchangedIsNotWrittenBackAndEndsTheGuess) {
  world w(3);
  for (int i = 0; i < 3; ++i) w.at(i).port.near = true;
  read_write_then_lose(w);
  w.fault(1, 0, false);  // opened writable, but PE 1 only reads
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::modified);
  const int write_backs = w.at(1).port.write_backs;
  w.fault(2, 0, false);
  w.run();
  EXPECT_EQ(w.at(1).port.write_backs, write_backs) << "a page equal to its home's copy is not written back";
  EXPECT_EQ(w.state(1, 0), page_state::shared);
  EXPECT_TRUE(holds(w.frame(2, 0), 'F'));
  home_writes_then_pe1_reads(w, msg_kind::read_req);  // the guess was wrong: a plain read again
  EXPECT_EQ(w.state(1, 0), page_state::shared);
}

// ---- lock hand-offs: the pages written under a lock go on with it ----

namespace {
// PE 1 takes a lock and writes 'B' over page 0 (homed on PE 0), which it asks for under the lock.
void pe1_writes_under_a_lock(world& w) {
  w.at(1).protocol.begin_hold();
  w.fault(1, 0, true);
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::modified);
  fill(w.frame(1, 0), 'B');
}
}  // namespace

TEST(SequentialProtocol, ALockHandOffGivesTheWrittenPageToTheNextHolderThroughItsHome) {
  world w(3);
  pe1_writes_under_a_lock(w);
  EXPECT_EQ(w.at(1).protocol.hand_over(2), 1u);  // the lock goes to PE 2
  EXPECT_EQ(w.state(1, 0), page_state::invalid) << "the giver keeps no access";
  EXPECT_TRUE(holds(w.frame(0, 0), 'B')) << "written back before the home is told";
  EXPECT_EQ(w.in_flight(msg_kind::hand_over), 1u);
  w.run();
  // PE 2 did not ask: its grant came with the lock. Its home is not on its host, so the page is held
  // exclusive: its write upgrades here, no message.
  EXPECT_EQ(w.at(2).port.grants, std::vector<uint32_t>{0});
  EXPECT_TRUE(holds(w.frame(2, 0), 'B'));
  EXPECT_EQ(w.state(2, 0), page_state::shared);
  EXPECT_TRUE(w.at(2).protocol.upgrade(0));
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  fill(w.frame(2, 0), 'C');
  // The directory knows PE 2 as the owner: a read by the home recalls it.
  w.fault(0, 0, false);
  w.run();
  EXPECT_EQ(w.state(2, 0), page_state::shared);
  EXPECT_TRUE(holds(w.frame(0, 0), 'C'));
}

TEST(SequentialProtocol, AHomeHandsItsOwnPageOverAndThePageOpensWritableNearby) {
  world w(2);
  for (auto& x : w.pes) x->port.near = true;
  w.fault(1, 0, true);  // PE 1 writes the page first: the home's later grant is of a changed page
  w.run();
  fill(w.frame(1, 0), 'A');
  w.at(0).protocol.begin_hold();
  w.fault(0, 0, true);
  w.run();
  ASSERT_EQ(w.state(0, 0), page_state::modified);
  ASSERT_TRUE(holds(w.frame(0, 0), 'A'));
  fill(w.frame(0, 0), 'H');
  EXPECT_EQ(w.at(0).protocol.hand_over(1), 1u);
  w.at(0).protocol.drain_self();  // the home tells itself, and grants before the lock leaves
  EXPECT_EQ(w.in_flight(msg_kind::write_grant), 1u);
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::modified) << "a home on this host: opened at once, no fault";
  EXPECT_TRUE(holds(w.frame(1, 0), 'H'));
  // Written under the lock, it goes back to the home with the next hand-off; the home opens it too.
  fill(w.frame(1, 0), 'I');
  w.at(1).protocol.begin_hold();
  EXPECT_EQ(w.at(1).protocol.hand_over(0), 1u);
  w.run();
  w.at(0).protocol.drain_self();
  EXPECT_EQ(w.state(0, 0), page_state::modified);
  EXPECT_TRUE(holds(w.frame(0, 0), 'I'));
}

TEST(SequentialProtocol, APageHandedOverButNotWrittenStaysWhereItIs) {
  world w(3);
  for (auto& x : w.pes) x->port.near = true;
  pe1_writes_under_a_lock(w);
  ASSERT_EQ(w.at(1).protocol.hand_over(2), 1u);
  w.run();
  ASSERT_EQ(w.state(2, 0), page_state::modified);
  w.at(2).protocol.begin_hold();  // PE 2 holds the lock and leaves the page alone
  EXPECT_EQ(w.at(2).protocol.hand_over(1), 0u);
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  EXPECT_EQ(w.in_flight(msg_kind::hand_over), 0u);
}

TEST(SequentialProtocol, AHandOverThatCrossesARecallIsDropped) {
  world w(3);
  pe1_writes_under_a_lock(w);
  w.fault(2, 0, true);  // PE 2 asks for the page: the home recalls it from PE 1 ...
  ASSERT_TRUE(w.step());
  ASSERT_EQ(w.in_flight(msg_kind::recall), 1u);
  EXPECT_EQ(w.at(1).protocol.hand_over(0), 1u);  // ... while PE 1 gives it to PE 0 with a lock
  w.run();
  EXPECT_EQ(w.state(2, 0), page_state::modified) << "the request that came first wins";
  EXPECT_TRUE(holds(w.frame(2, 0), 'B'));
  EXPECT_EQ(w.state(0, 0), page_state::invalid) << "a hand-over from a PE that no longer owns the page is dropped";
  EXPECT_EQ(w.state(1, 0), page_state::invalid);
}

TEST(SequentialProtocol, ARequestThatMeetsAHandOverToItsSenderKeepsItsWrites) {
  world w(3);
  for (auto& x : w.pes) x->port.near = true;
  pe1_writes_under_a_lock(w);
  ASSERT_EQ(w.at(1).protocol.hand_over(2), 1u);
  w.fault(2, 0, false);  // PE 2 faults before the page it is given arrives
  ASSERT_TRUE(w.step());  // the home makes PE 2 the owner ...
  ASSERT_TRUE(w.step());  // ... then serves PE 2's own read: PE 2 stays the owner
  ASSERT_TRUE(w.step());  // the handed grant: PE 2 writes ...
  ASSERT_EQ(w.state(2, 0), page_state::modified);
  fill(w.frame(2, 0), 'D');
  // ... and keeps the page at its unlock: the grant of its own request, still on its way, would find it
  // given away and make two owners.
  w.at(2).protocol.begin_hold();
  EXPECT_EQ(w.at(2).protocol.hand_over(1), 0u);
  EXPECT_TRUE(w.at(2).protocol.pending(0));
  w.run();  // ... and its own grant must not fetch the home's older copy over its writes
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  EXPECT_TRUE(holds(w.frame(2, 0), 'D'));
  EXPECT_FALSE(w.at(2).protocol.pending(0));
}

TEST(SequentialProtocol, AHandOverFromAnEarlierOwnershipIsDropped) {
  world w(3);
  pe1_writes_under_a_lock(w);
  w.fault(2, 0, true);  // PE 2 asks for the page ...
  ASSERT_EQ(w.at(1).protocol.hand_over(0), 1u);  // ... while PE 1 gives it to PE 0 with a lock
  // The hand-over is slow (another path than PE 2's request): it comes after PE 2 got the page and PE 1
  // took it back again.
  envelope late{};
  for (auto e = w.queue.begin(); e != w.queue.end(); ++e)
    if (e->m.kind == msg_kind::hand_over) {
      late = *e;
      w.queue.erase(e);
      break;
    }
  ASSERT_EQ(late.m.kind, msg_kind::hand_over);
  w.run();
  ASSERT_EQ(w.state(2, 0), page_state::modified);
  w.fault(1, 0, true);
  w.run();
  ASSERT_EQ(w.state(1, 0), page_state::modified);
  w.queue.push_back(late);
  w.run();
  EXPECT_EQ(w.state(1, 0), page_state::modified) << "PE 1's present ownership is not the one it gave up";
  EXPECT_EQ(w.state(0, 0), page_state::invalid) << "two owners";
}

TEST(SequentialProtocol, TheOwnersOwnGrantAfterAHandOverKeepsItsWritesFromAFarHome) {
  world w(3);
  w.fault(2, 0, false);  // PE 2 reads, then writes: its next read asks for ownership (read-modify-write)
  w.run();
  w.fault(2, 0, true);
  w.run();
  w.at(1).protocol.begin_hold();
  w.fault(1, 0, true);
  w.run();
  ASSERT_EQ(w.at(1).protocol.hand_over(2), 1u);
  w.fault(2, 0, false);  // before the page comes with the lock, PE 2 asks for it itself
  ASSERT_TRUE(w.step());  // the hand-over: PE 2 owns the page
  ASSERT_TRUE(w.step());  // PE 2's own request: answered as the owner's
  ASSERT_TRUE(w.step());  // the handed grant: the home is far, the page is held exclusive
  ASSERT_EQ(w.state(2, 0), page_state::shared);
  ASSERT_TRUE(w.at(2).protocol.upgrade(0));
  fill(w.frame(2, 0), 'W');
  w.run();  // the grant of its own request must leave it writable: held exclusive, a recall would skip it
  EXPECT_EQ(w.state(2, 0), page_state::modified);
  w.fault(0, 0, false);
  w.run();
  EXPECT_TRUE(holds(w.frame(0, 0), 'W')) << "the writes after the hand-over reached the home";
}
