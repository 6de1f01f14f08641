// The DSM: a range of virtual memory at the same address in every PE, kept coherent page by page by a
// home-based single-writer / multiple-reader protocol (docs/design/dsm.md, model/dsm.pml).
//
// Memory: each PE backs the whole range with one memory file, its frames. The file is mapped twice: at the
// agreed base (the view: what the program touches, with per-page protection mirroring the page's state)
// and elsewhere read-write (the alias: what the protocol copies through, registered as the runtime's DSM
// region so peers get and put frames by RDMA or, on one host, load/store). A home's frame of a page is the
// authoritative copy; another PE's frame of it is its cached copy.
//
// Threads: the program's threads only post faults (fault.cpp) and run synchronization (consistency.cpp);
// every protocol message is handled by the progress thread (protocol.cpp) under `mu_`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/heap.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

/// A page's state in one PE (its view's protection: none, read, read-write).
enum class page_state : uint8_t { invalid, shared, modified };

/// Protocol messages; the names are the model's (model/dsm.pml).
enum class msg_kind : uint8_t {
  read_req,     // requester -> home: wants a readable copy
  write_req,    // requester -> home: wants to be the single writer
  recall,       // home -> owner: give up write access (keep a shared copy or none), write back
  recall_ack,   // owner -> home
  inv,          // home -> sharer: drop the copy (sequential mode)
  inv_ack,      // sharer -> home
  read_grant,   // home -> requester: fetch the page from the home's frame
  write_grant,  // home -> requester: you are the owner (fetch first unless your copy is current)
  write_back,   // owner -> home: the frame holds my writes, I keep a shared copy (producer-consumer)
  diff,         // writer -> home: changed bytes of a write-shared page
  diff_ack,     // home -> writer: merged
};
const char* msg_name(msg_kind k);

/// Fixed part of every message; a diff's runs follow it.
struct message {
  msg_kind kind;
  uint8_t keep_shared = 0;  // recall
  uint8_t notify = 0;       // write_grant: other PEs hold copies; publish a write notice at release
  uint8_t current = 0;      // write_grant: the requester's copy is up to date; write_req: it has a copy
  uint32_t page = 0;
  uint32_t version = 0;     // read_grant/write_grant: the home copy's version; write_req: the copy's
};

enum : int32_t { no_pe = -1, home_undecided = -2 };

/// One fault posted by a program thread for the progress thread; lives in a fixed table (no allocation in
/// the signal handler).
struct fault_slot {
  enum : uint32_t { free_slot, claimed, posted, done };
  std::atomic<uint32_t> state{free_slot};
  uint32_t page = 0;
  bool write = false;
};

class space {
 public:
  /// The DSM of this job, created by the first collective DSM call; nullptr before.
  static space* get() { return instance_.load(std::memory_order_acquire); }
  /// The DSM, created on first use (collective); ends the job naming `fn` on failure.
  static space& ensure(const char* fn);

  // Allocation (space.cpp)
  void* allocate(const char* fn, size_t bytes, rdsm_dsm_placement_t placement, size_t param);
  void release_block(const char* fn, void* p);
  void advise(const char* fn, void* p, size_t bytes, rdsm_dsm_advice_t advice);
  int home_of(const void* p) const;
  size_t page_size() const { return page_size_; }
  void stats(rdsm_dsm_stats_t* out) const;

  // Synchronization (consistency.cpp)
  void release();
  void acquire();
  void barrier();
  bool release_mode() const { return release_mode_; }

  // Faults (fault.cpp): called by the signal handler; waits until the access may proceed.
  void post_fault(uint32_t page, bool write);
  bool contains(uintptr_t a) const { return a - base_ < size_; }
  uint32_t page_of(uintptr_t a) const { return static_cast<uint32_t>((a - base_) >> shift_); }
  page_state state(uint32_t page) const { return states_[page].load(std::memory_order_acquire); }

  // Protocol (protocol.cpp): the progress thread's work.
  static bool service();
  void on_message(int from, const void* data, size_t n);

 private:
  space() = default;
  void start(const char* fn);
  void stop();

  // protocol.cpp
  bool serve();
  void handle(int from, const message& m, const uint8_t* extra, size_t extra_n);
  void send(int pe, const message& m, const void* extra = nullptr, size_t extra_n = 0);
  void start_request(uint32_t page, bool write);
  void serve_faults();
  void release_waiter(fault_slot& slot);
  void release_waiters(uint32_t page);
  void home_request(int from, const message& m);
  void home_begin(uint32_t page);
  void home_ack(uint32_t page, bool bump);
  void home_complete(uint32_t page);
  void on_recall(int home, const message& m);
  void on_grant(const message& m);
  void on_diff(int from, const message& m, const uint8_t* runs, size_t n);
  void fetch(uint32_t page);
  void write_back(uint32_t page);
  void protect(uint32_t page, uint32_t n, page_state s);
  void set_state(uint32_t page, page_state s);
  bool satisfied(uint32_t page, bool write) const;

  // consistency.cpp
  void publish(const std::vector<uint32_t>& pages);
  void apply_notices();
  std::vector<uint8_t> make_diff(uint32_t page) const;

  // placement / sharer sets
  int32_t home(uint32_t page) const { return homes_[page]; }
  bool resolve_home(uint32_t page);
  bool is_sharer(uint32_t page, int pe) const;
  void set_sharer(uint32_t page, int pe, bool on);
  void clear_sharers(uint32_t page);
  bool other_sharers(uint32_t page, int pe) const;
  char* frame(uint32_t page) const { return alias_ + (static_cast<size_t>(page) << shift_); }
  char* view(uint32_t page) const { return reinterpret_cast<char*>(base_ + (static_cast<size_t>(page) << shift_)); }

  static std::atomic<space*> instance_;

  // Layout
  uintptr_t base_ = 0;
  size_t size_ = 0;
  size_t page_size_ = 0;
  unsigned shift_ = 0;
  uint32_t n_pages_ = 0;
  char* alias_ = nullptr;
  int fd_ = -1;
  int my_pe_ = 0;
  int n_pes_ = 1;
  bool release_mode_ = true;
  bool poll_ = false;  // waiting for a fault's answer polls (RDSM_DSM_POLL) rather than sleeping at once
  int stream_ = 0;  // transport stream for frame transfers
  std::unique_ptr<symmetric_heap> blocks_;
  int32_t* claims_ = nullptr;  // symmetric: first-touch claims, one word per page, at the page's manager
  uint64_t* notice_log_ = nullptr;  // symmetric: the write-notice ring (used on PE 0)

  // Per page, this PE
  std::unique_ptr<std::atomic<page_state>[]> states_;
  std::vector<int32_t> homes_;
  std::vector<uint8_t> advice_;
  std::vector<uint32_t> versions_;       // version of the cached copy
  std::vector<uint8_t> pending_;         // a request of this PE for the page is under way
  std::vector<uint8_t> notify_;          // publish a write notice at the next release
  std::vector<uint32_t> notify_list_;
  std::vector<uint32_t> ws_dirty_;       // write-shared pages written since the last release
  std::unordered_map<uint32_t, std::unique_ptr<char[]>> twins_;
  std::vector<uint32_t> pc_dirty_;       // producer-consumer pages owned, to hand back at release

  // Directory (meaningful for pages this PE is home of)
  struct request {
    msg_kind kind;
    int from;
    uint32_t version;
    bool has_copy;
  };
  struct transaction {
    request req;
    int acks = 0;
    bool recalled = false;
  };
  std::vector<int32_t> owner_;
  std::vector<uint32_t> dir_version_;
  std::vector<uint64_t> sharers_;  // n_pages_ x words_ bits
  size_t words_ = 1;
  std::unordered_map<uint32_t, transaction> busy_;
  std::unordered_map<uint32_t, std::deque<request>> queued_;

  // Threads
  std::mutex mu_;  // the protocol state above; held by the progress thread and by synchronization
  std::mutex inbox_mu_;
  struct incoming {
    int from;
    std::vector<uint8_t> bytes;
  };
  std::deque<incoming> inbox_;
  std::atomic<size_t> inbox_size_{0};
  std::deque<incoming> self_;      // messages the progress thread sends itself: handled right after the
                                   // message that caused them, before any other (a home's own grant must
                                   // not be overtaken by a peer's request)
  std::deque<incoming> deferred_;  // messages that take a page away from a thread that just got it
  std::atomic<size_t> deferred_size_{0};
  // A page granted to a faulting thread stays for it until it ran its access: `held_` counts faults
  // completed whose thread has not resumed, `resumed_ns_` is when the last one resumed.
  std::unique_ptr<std::atomic<uint32_t>[]> held_;
  std::unique_ptr<std::atomic<uint64_t>[]> resumed_ns_;
  bool must_hold(uint32_t page) const;
  bool defer(int from, const message& m);
  void dispatch(incoming& in);
  void drain_self();
  static constexpr int n_slots = 64;
  fault_slot slots_[n_slots];
  std::atomic<int> posted_{0};
  std::atomic<int> diffs_in_flight_{0};
  uint64_t notices_read_ = 0;

  // Statistics
  struct counters {
    std::atomic<uint64_t> read_faults{0}, write_faults{0}, fetches{0}, invalidations{0}, write_backs{0}, diffs{0},
        diff_bytes{0}, notices{0}, requests_served{0};
  };
  counters stats_;
};

/// Entries in the write-notice ring (each two words: a stamp, then publisher << 32 | page).
constexpr uint64_t notice_ring = 8192;

}  // namespace rdsm::detail::dsm
