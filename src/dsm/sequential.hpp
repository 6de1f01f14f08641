// The sequential protocol of one PE (docs/design/dsm.md has its table; model/dsm.pml its model): a single
// writer or many readers per page at every instant. As a requester it asks a page's home for access; as a
// home it keeps the page's directory (owner, sharers, version) and runs one transaction per page at a time,
// recalling the owner and invalidating the sharers by messages. It reaches the rest of the system only
// through a sequential_port (messages, page copies, first-touch homes, waking faulting threads), so that
// tests/unit can run several PEs' protocols in one process.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dsm/message.hpp"
#include "dsm/page_table.hpp"

namespace rdsm::detail::dsm {

/// What the protocol needs from the runtime.
class sequential_port {
 public:
  virtual ~sequential_port() = default;
  /// Sends `m` to PE `pe`, never this PE (the protocol keeps its own messages), in order with every earlier
  /// message to `pe`.
  virtual void send(int pe, const message& m) = 0;
  /// Makes the home's frame's contents this PE's copy of the page: copies them into this PE's frame, or
  /// (every PE on one host) maps the home's frame itself here, which later protections keep.
  virtual void fetch(uint32_t page) = 0;
  /// Copies this PE's frame of the page into its home's frame, complete at return (nothing to do for a
  /// copy that is the home's frame).
  virtual void write_back(uint32_t page) = 0;
  /// For a page opened on a guess: whether it was written since (its frame differs from the home's, or a
  /// linked copy from its snapshot). Compares only.
  virtual bool written_since_opened(uint32_t page) = 0;
  /// Whether the page's home is on this host (its frame mapped here: comparing with it costs a few loads).
  virtual bool home_near(uint32_t page) const = 0;
  /// The page (home near) opens writable on a read's guess, before any store: a copy that is the home's
  /// frame itself keeps a snapshot of it, for write_back_changed.
  virtual void opening_on_guess(uint32_t page) = 0;
  /// For a page opened on a guess: whether it was written since (its frame differs from the home's, or a
  /// linked copy from its snapshot); a frame of its own that differs is copied back first.
  virtual bool write_back_changed(uint32_t page) = 0;
  /// Decides the home of a first-touch page (page_table::home is then set).
  virtual void resolve_home(uint32_t page) = 0;
  /// A grant for `page` was applied: threads waiting for it may resume.
  virtual void granted(uint32_t page) = 0;
};

class sequential_protocol {
 public:
  sequential_protocol(page_table& pages, sequential_port& port, int my_pe, int n_pes, uint32_t prefetch,
                      counters& stats);

  // ---- requester side ----
  /// Whether this PE's access to the page allows a read (or a write).
  bool satisfied(uint32_t page, bool write) const;
  /// Whether a request of this PE for the page is under way.
  bool pending(uint32_t page) const { return pending_[page] != 0; }
  /// Asks the page's home for access, and for the following pages of the same home accessed the same way
  /// before (up to the prefetch). Returns the end of the run asked for: pages [page, end). A read of a page
  /// this PE last upgraded (read, then wrote: a read-modify-write, as under a lock) asks for ownership
  /// instead. Its grant maps the page writable when the home is on this host (a recall then tells from the
  /// home's copy whether it was written), else read-only but exclusive: the write that follows upgrades
  /// here, without a message.
  uint32_t start_request(uint32_t page, bool write);
  /// A write to a page this PE owns exclusive but read-only: makes it writable (one mprotect, no message)
  /// and returns true; false when the page is not so held.
  bool upgrade(uint32_t page);

  // ---- lock hand-offs ----
  /// A thread of this PE took a DSM lock: pages this PE takes from another writer from now on, and pages
  /// handed to it with a lock, are candidates to go on with the lock.
  void begin_hold() { noting_ = true; }
  /// The lock goes to PE `to` (another PE) next: each candidate this PE still holds written is given up
  /// here (access removed, written back) and its home is told to make `to` its owner, so that `to` finds
  /// it writable instead of faulting and recalling it from here. Returns how many went. `to` = no_pe: the
  /// lock is free; the candidates are forgotten.
  size_t hand_over(int to);

  // ---- messages ----
  /// Handles a message from PE `from` (this PE's own come through drain_self), or keeps it for later when
  /// it would take a page from a thread that has not run its access yet (hold).
  void receive(int from, const message& m);
  /// Handles the messages this PE sent itself; returns whether there were any.
  bool drain_self();
  /// Tries the messages kept for later again; returns whether some could be handled.
  bool retry_deferred();
  size_t deferred() const { return deferred_.size(); }

  // ---- threads holding pages ----
  /// A faulting thread was released with the page: it stays with the thread until resumed() plus 20 us.
  void hold(uint32_t page) { held_[page].fetch_add(1, std::memory_order_acq_rel); }
  void resumed(uint32_t page, uint64_t now_ns);

  // ---- allocation and advice (under the same lock as the rest) ----
  /// A freshly allocated page: no copy, no request, version 0; this PE owns it when `owned`.
  void reset(uint32_t page, bool owned);
  /// The directory forgets the page's owner and sharers (advice changes, freeing); `bump`: copies cached
  /// before are stale.
  void forget(uint32_t page, bool bump);
  /// This PE (the home) owns the page again.
  void own(uint32_t page) { owner_[page] = my_pe_; }

 private:
  struct request {
    msg_kind kind;
    int from;
    uint32_t version;
    bool has_copy;
    int handed_by = no_pe;  // a hand_over from this (former) owner, made a write_req of `from`
  };
  struct transaction {
    request req;
    int acks = 0;
    bool recalled = false;
  };

  void send(int pe, const message& m);
  void send_request(uint32_t page, bool take_ownership);
  void handle(int from, const message& m);
  bool defer(int from, const message& m) const;
  bool must_hold(uint32_t page) const;
  void home_request(int from, const message& m);
  void home_begin(uint32_t page);
  void home_ack(uint32_t page, bool bump);
  void home_complete(uint32_t page);
  void home_next(uint32_t page);
  void note(uint32_t page);
  void on_recall(int from, const message& m);
  void on_grant(const message& m);
  bool is_sharer(uint32_t page, int pe) const;
  void set_sharer(uint32_t page, int pe, bool on);
  void clear_sharers(uint32_t page);

  page_table& pages_;
  sequential_port& port_;
  int my_pe_;
  int n_pes_;
  uint32_t prefetch_;
  counters& stats_;

  // Requester side
  std::vector<uint32_t> versions_;       // version of the cached copy
  std::vector<uint8_t> pending_;         // a request of this PE for the page is under way
  std::vector<uint8_t> read_before_;     // a thread of this PE faulted reading the page since its allocation
  std::vector<uint8_t> written_before_;  // ... writing it
  // Read-modify-write: `rmw_`, this PE's last write fault on the page upgraded a copy it held, so its next
  // read fault asks for ownership (`asked_read_` while that request is out); `guess_`, how such a grant left
  // the page while this PE owns it (the directory says so): read-only until its first write, or opened
  // writable at once (a home on this host). A read-only page taken away before that write, or an opened one
  // taken away equal to the home's copy, clears `rmw_`: the guess was wrong.
  enum : uint8_t { not_guessed, guessed_read_only, guessed_open };
  std::vector<uint8_t> rmw_;
  std::vector<uint8_t> asked_read_;
  std::vector<uint8_t> guess_;
  // Lock hand-offs: the candidates noted since the last hand-off (at most hand_over_max).
  bool noting_ = false;
  std::vector<uint32_t> handing_;
  // Directory (meaningful for pages this PE is home of)
  std::vector<int32_t> owner_;
  std::vector<uint32_t> dir_version_;
  std::vector<uint64_t> sharers_;  // pages x words_ bits
  size_t words_ = 1;
  std::unordered_map<uint32_t, transaction> busy_;
  std::unordered_map<uint32_t, std::deque<request>> queued_;
  std::deque<incoming> self_;      // messages to this PE itself: handled right after the message that caused
                                   // them, before any other (a home's own grant must not be overtaken by a
                                   // peer's request)
  std::deque<incoming> deferred_;  // messages that take a page away from a thread that just got it
  // A page granted to a faulting thread stays for it until it ran its access: `held_` counts faults
  // completed whose thread has not resumed, `resumed_ns_` is when the last one resumed.
  std::unique_ptr<std::atomic<uint32_t>[]> held_;
  std::unique_ptr<std::atomic<uint64_t>[]> resumed_ns_;
};

}  // namespace rdsm::detail::dsm
