// The sequential protocol's channel between PEs of one host: for each (sender, receiver) pair a ring of
// messages in the receiver's DSM region, which the sender writes through the mapping, and a wake-up of
// the receiver's progress thread through its eventfd (the sender holds a duplicate, taken with
// pidfd_getfd). PEs on other hosts, or peers whose descriptor cannot be taken, use UCX active messages.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "dsm/message.hpp"
#include "dsm/remote.hpp"

namespace rdsm::detail::dsm {

/// The signal a PE sends a same-host peer whose progress thread is stalled (channel::nudge_stalled), queued
/// (SI_QUEUE) with `nudge_tag` as its value, so that the handler tells it from any other SIGURG.
inline constexpr int nudge_signal = SIGURG;
inline constexpr int nudge_tag = 0x7264736d;

/// Where the channel sits in every PE's region: the PE's wake-up descriptor (its pid and eventfd), whether
/// its progress thread sleeps and how many of its threads poll their mail, a mail counter senders bump after
/// each message, then one ring per sender.
struct channel_layout {
  uint64_t offset;
  uint64_t capacity;  // messages per ring
  uint64_t ring_bytes() const { return 128 + capacity * sizeof(slot); }
  uint64_t bytes(int n_pes) const { return 128 + static_cast<uint64_t>(n_pes) * ring_bytes(); }
  struct slot {
    message m;
  };
};

class channel {
 public:
  /// `own` is this PE's region (the alias); `wake_fd` its progress thread's eventfd.
  channel(remote_memory& mem, channel_layout layout, int my_pe, int n_pes, char* own, int wake_fd);
  ~channel();
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  /// Queues `m` for `pe` (in order with every earlier message to it) and wakes its progress thread.
  /// Returns false when `pe` is not reachable this way: the caller sends by the transport.
  bool send(int pe, const message& m);
  /// The word where this PE's progress thread says it sleeps (progress_engine::share_sleep_flag).
  uint32_t* sleep_flag();
  /// The count of this PE's threads that poll their mail (progress_engine::share_poller_count).
  const uint32_t* poller_count() const;
  /// Whether messages arrived (one load) or some wait in an overflow queue. Async-signal-safe.
  bool pending() const;
  /// A thread of this PE starts looking at its mail itself while it waits (a faulting thread that polls):
  /// until it stops (stop_polling), senders leave a sleeping progress thread asleep. Async-signal-safe.
  void start_polling() { polling(true); }
  /// Stops polling and returns whether mail is pending, which a sender may have left without waking the
  /// progress thread: the caller then wakes it. Async-signal-safe.
  bool stop_polling();
  /// Sleeping progress threads of peers this PE woke (eventfd writes).
  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }
  /// Signals (nudge_signal) every same-host peer whose messages wait unread: its progress thread was woken
  /// but has not run, most likely queued behind a thread computing on its CPU, and the signal's handler
  /// there yields the CPU to it. Async-signal-safe (a faulting thread calls it while it waits).
  void nudge_stalled();
  /// Moves overflowed messages into their rings as room appears, then appends every arrived message to
  /// `out`, in order per sender. Called by the progress thread only.
  void receive(std::deque<incoming>& out);

 private:
  struct peer {
    std::mutex mu;  // this PE's producers (the progress thread, a program thread in advise)
    enum { unknown, usable, unusable } state = unknown;
    int fd = -1;                     // duplicate of the peer's eventfd
    std::deque<message> overflow;    // messages waiting for room in the ring
    std::atomic<int> pidfd{-1};      // the peer's process (pidfd_open), once the channel to it is usable
  };
  void polling(bool on);
  void connect(int pe, peer& p);
  bool push(int pe, const message& m);
  void ring(int pe, peer& p);
  char* ring_at(char* region, int sender) const {
    return region + layout_.offset + 128 + static_cast<uint64_t>(sender) * layout_.ring_bytes();
  }

  remote_memory& mem_;
  channel_layout layout_;
  int my_pe_;
  char* own_;
  std::vector<std::unique_ptr<peer>> peers_;
  std::atomic<uint64_t> mail_seen_{0};  // written under the protocol's lock, read by pending() without it
  std::vector<uint64_t> heads_;  // per sender: messages taken from its ring
  std::atomic<size_t> overflowed_{0};
  std::atomic<uint64_t> wakeups_{0};
};

}  // namespace rdsm::detail::dsm
