// The DSM: a range of virtual memory at the same address in every PE, kept coherent page by page
// (docs/design/dsm.md; the protocols' models are model/release.pml and model/dsm.pml).
//
// Memory: each PE backs the whole range with one memory file, its frames, followed by the protocol's
// metadata (notice ring, copy tracker). The file is mapped twice: at the agreed base (the view: what the
// program touches, with per-page protection mirroring the page's state) and elsewhere read-write (the alias:
// what the protocol copies through, registered as the runtime's DSM region so peers reach frames and
// metadata by load/store on one host and by UCX otherwise). A home's frame of a page is the authoritative
// copy; another PE's frame of it is its cached copy.
//
// Two protocols share the layout and the page table:
// - release consistency (release_protocol, over page_table and remote_memory): the faulting thread resolves
//   its own fault with one-sided operations (no message, nothing runs at the home); writers keep twins and
//   write diffs back at release; readers refresh or drop copies at acquire from the writers' notices.
// - sequential consistency (sequential_protocol, over page_table and a sequential_port that protocol.cpp
//   implements): single writer at every instant; faults are requests to the home,
//   served by the progress thread, which recalls and invalidates copies by messages.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/heap.hpp"
#include "core/progress.hpp"
#include "dsm/channel.hpp"
#include "dsm/message.hpp"
#include "dsm/notices.hpp"
#include "dsm/page_table.hpp"
#include "dsm/region_memory.hpp"
#include "dsm/release.hpp"
#include "dsm/sequential.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

/// One fault posted by a program thread for the progress thread (sequential mode); lives in a fixed table
/// (no allocation in the signal handler).
struct fault_slot {
  enum : uint32_t { free_slot, claimed, posted, done };
  std::atomic<uint32_t> state{free_slot};
  uint32_t page = 0;
  bool write = false;
  uint32_t run_end = 0;  // the request asked for pages [page, run_end): the thread resumes when all came
};

/// The space's state lock: a mutex that knows whether the calling thread holds it, for the waits of a thread
/// that holds it (a write-back's flush across hosts) must not try to serve the protocol under it.
class state_mutex {
 public:
  void lock() {
    m_.lock();
    holder_ = this;
  }
  bool try_lock() {
    if (!m_.try_lock()) return false;
    holder_ = this;
    return true;
  }
  void unlock() {
    holder_ = nullptr;
    m_.unlock();
  }
  bool held_here() const { return holder_ == this; }

 private:
  std::mutex m_;
  static thread_local const state_mutex* holder_;
};

class space final : private sequential_port {
 public:
  /// The DSM of this job, created by the first collective DSM call; nullptr before.
  static space* get() { return instance_.load(std::memory_order_acquire); }
  /// The DSM, created on first use (collective); ends the job naming `fn` on failure.
  static space& ensure(const char* fn);
  /// RDSM_DSM_PAGE_SIZE (checked at init, check_dsm_settings): what the DSM uses, known before it starts.
  static size_t configured_page_size();

  // Allocation (space.cpp)
  void* allocate(const char* fn, size_t bytes, rdsm_dsm_placement_t placement, size_t param);
  void release_block(const char* fn, void* p);
  void advise(const char* fn, void* p, size_t bytes, rdsm_dsm_advice_t advice);
  /// Faults [p, p + bytes) in for reading or writing (rdsm_dsm_touch).
  void touch(const char* fn, const void* p, size_t bytes, bool write);
  int home_of(const void* p) const;
  size_t page_size() const { return page_size_; }
  void stats(rdsm_dsm_stats_t* out) const;

  // Synchronization (consistency.cpp)
  void release();
  void acquire();
  void barrier();
  /// A DSM lock was taken (after the queue lock, for its acquire) or passes to PE `to` (before the queue
  /// lock's hand-off, after the release; no_pe: it is free). Sequential mode hands the pages written under
  /// the lock over to its next holder with it (sequential_protocol::hand_over).
  void lock_taken();
  void lock_passing(int to);
  bool release_mode() const { return release_mode_; }

  // Faults (fault.cpp): called by the signal handler on the faulting thread; returns when the access may
  // proceed.
  void on_fault(uint32_t page, bool write);
  /// A peer's nudge arrived (sequential mode, signal context): let the progress thread have this CPU.
  void yield_to_service();
  bool contains(uintptr_t a) const { return a - base_ < size_; }
  uint32_t page_of(uintptr_t a) const { return static_cast<uint32_t>((a - base_) >> shift_); }
  page_state state(uint32_t page) const { return pages_->state(page); }

  // Sequential protocol (protocol.cpp): the progress thread's work.
  static bool service();
  bool serve_while_waiting();
  /// A program thread's wait serves the protocol while it polls (core/progress.hpp, wait_service).
  static const wait_service waiting_service;
  void on_message(int from, const void* data, size_t n);

 private:
  space() = default;
  void start(const char* fn);
  void stop();
  void check_access(uint32_t page, bool write) const;
  void copy_read_only(uint32_t page);

  // protocol.cpp (sequential): the service, and the protocol's port
  void post_fault(uint32_t page, bool write);
  bool upgrade_exclusive(uint32_t page);
  bool serve();
  bool serve_locked();  // under mu_; whether it handled a message or a fault
  /// Under mu_, gathering: the round's own faults and self messages until none is left, then its
  /// protections and the messages behind them; whether it handled a self message.
  bool end_round();
  void hand_over_locked(int to);  // under mu_: sequential_protocol::hand_over and its messages
  bool has_work() const;
  /// A thread of this PE stops polling its mail: mail that came without a wake-up, and messages kept for
  /// later, are then the progress thread's, which is woken for them.
  void stop_polling_hand_over();
  void serve_faults();
  void release_waiter(fault_slot& slot);
  void release_waiters(uint32_t page);
  bool run_satisfied(const fault_slot& slot) const;
  void send(int pe, const message& m) override;
  void transmit(int pe, const message& m);
  /// Applies the protections the service round gathered, then sends the messages held back for them.
  void flush_protections();
  void fetch(uint32_t page) override;
  /// Copies the page from its home's frame into this PE's (a first copy from a home on this host: the
  /// kernel's). Also private advice's copy, in both modes.
  void copy_in(uint32_t page);
  /// Maps the home's frame of `page` here (links_homes_), with the invalid pages around it of the same home
  /// and a shared advice; false when the mapping budget is spent (the page is then copied).
  bool link_home_run(uint32_t page);
  void write_back(uint32_t page) override;
  bool home_near(uint32_t page) const override;
  void opening_on_guess(uint32_t page) override;
  bool write_back_changed(uint32_t page) override;
  bool written_since_opened(uint32_t page) override;
  /// Decides the home of a first-touch page: a claim at its manager (also the release protocol's).
  void resolve_home(uint32_t page) override;
  void granted(uint32_t page) override;

  void protect(uint32_t page, uint32_t n, page_state s) { pages_->protect(page, n, s); }
  /// Whether release mode maps other homes' pages instead of copying them (`wanted`: configured so and
  /// every PE on this host); agreed by every PE (collective).
  bool map_homes(const char* fn, bool wanted);

  // placement / sharer sets
  int32_t home(uint32_t page) const { return pages_->home(page); }
  char* frame(uint32_t page) const { return pages_->frame(page); }
  char* view(uint32_t page) const { return pages_->view(page); }
  /// Ends the job with one line unless [p, p + bytes) is allocated DSM memory (bytes > 0).
  void check_allocated(const char* fn, const void* p, size_t bytes) const;
  uint64_t frame_offset(uint32_t page) const { return pages_->frame_offset(page); }

  static std::atomic<space*> instance_;
  static space* retired_;         // spaces stopped in this process, kept (and reachable) until its end
  space* retired_next_ = nullptr;

  // Layout
  uintptr_t base_ = 0;
  size_t size_ = 0;
  size_t page_size_ = 0;
  unsigned shift_ = 0;
  uint32_t n_pages_ = 0;
  uint32_t prefetch_ = 1;  // pages a read fault copies at most (RDSM_DSM_PREFETCH)
  char* alias_ = nullptr;
  char* twins_ = nullptr;  // release mode: a twin slot per page reserved, taken as pages open (page_table)
  int fd_ = -1;
  int my_pe_ = 0;
  int n_pes_ = 1;
  bool release_mode_ = true;
  bool poll_ = false;  // waiting for a fault's answer polls (RDSM_DSM_POLL) rather than sleeping at once
  bool nudge_ = true;  // a late fault nudges stalled same-host peers (RDSM_DSM_NUDGE); every PE agrees
  // Sequential mode, RDSM_DSM_SAME_HOST=map: a copy of a page homed on this host is the home's frame, mapped here.
  bool links_homes_ = false;
  int stream_ = 0;  // transport stream for frame transfers
  std::unique_ptr<symmetric_heap> blocks_;
  int32_t* claims_ = nullptr;  // symmetric: first-touch claims, one word per page, at the page's manager
  std::unique_ptr<page_table> pages_;

  // Release mode
  std::unique_ptr<region_memory> mem_;
  std::unique_ptr<notice_rings> rings_;
  std::unique_ptr<copy_tracker> tracker_;
  std::unique_ptr<release_protocol> lazy_;  // under mu_

  // Sequential mode
  std::unique_ptr<channel> channel_;  // messages to and from PEs of this host

  // Sequential mode: the protocol (directory and requests), served under mu_
  std::unique_ptr<sequential_protocol> seq_;

  // Threads
  state_mutex mu_;  // the protocol state above; held by the fault path, the progress thread, synchronization
  std::mutex inbox_mu_;
  std::deque<incoming> inbox_;
  std::atomic<size_t> inbox_size_{0};
  std::deque<std::pair<int, message>> outbox_;  // messages held back until the protections before them apply
  std::atomic<size_t> deferred_size_{0};  // the protocol's messages kept for later (has_work reads it)
  std::atomic<bool> released_{false};     // a faulting thread was released (service yields to it)
  static constexpr int n_slots = 64;
  fault_slot slots_[n_slots];
  std::atomic<int> posted_{0};

  counters stats_;
};

/// Notices each PE's ring holds before an acquire that fell that far behind drops every copy.
constexpr uint64_t notice_ring = 65536;

}  // namespace rdsm::detail::dsm
