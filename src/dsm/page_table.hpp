// The DSM's pages in one PE: each page's home, advice and state (which the view's protection mirrors),
// and where its view, frame and twin are. Both protocols and the allocator work through it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace rdsm::detail::dsm {

/// A page's state in one PE (its view's protection: none, read, read-write).
enum class page_state : uint8_t { invalid, shared, modified };

enum : int32_t { no_pe = -1, home_undecided = -2 };

/// Event counts of one PE (rdsm_dsm_stats).
struct counters {
  std::atomic<uint64_t> read_faults{0}, write_faults{0}, fetches{0}, invalidations{0}, write_backs{0}, diffs{0},
      diff_bytes{0}, notices{0}, requests_served{0},
      waits_served{0};
};

class page_table {
 public:
  /// `view`: the pages as the program sees them (protected page by page), mapped from `view_fd` at offset
  /// 0 (-1: not a file of its own); `frames`: this PE's frames of the same pages, always read-write;
  /// `twins`: a reservation as large for twins (nullptr: none).
  page_table(char* view, int view_fd, char* frames, char* twins, uint32_t n_pages, unsigned shift);

  uint32_t pages() const { return n_pages_; }
  size_t page_size() const { return size_t{1} << shift_; }
  uint32_t page_of(const void* p) const {
    return static_cast<uint32_t>((static_cast<const char*>(p) - view_) >> shift_);
  }
  page_state state(uint32_t page) const { return states_[page].load(std::memory_order_acquire); }
  /// Protection and state of pages [page, page + n): one system call. Ends the job if the kernel refuses.
  /// While gathering, the state changes at once and the protection waits for flush(), so that consecutive
  /// pages given the same state take one call (see gather).
  void protect(uint32_t page, uint32_t n, page_state s);
  /// Between gather(true) and gather(false) protections are gathered into runs of consecutive pages with
  /// one state: the sequential protocol's service round, which answers a run of requests page by page. A
  /// change of a page's protection costs 45-110 us on a guest with shadow page tables, whatever the number
  /// of pages, so a run asked for by one fault costs one. The caller flushes before anything that needs
  /// the protection in force: a message that announces it, a copy of one of the pages, a thread resumed.
  void gather(bool on);
  /// Applies the gathered protections; returns whether there were any.
  bool flush();
  /// Whether protections are gathered and not yet applied (for pages [page, page + n): n = 0, any page).
  bool gathered(uint32_t page = 0, uint32_t n = 0) const;
  /// Pages [page, page + n) lost their frames' contents (hole-punched): their next copies are first ones.
  void forget_copies(uint32_t page, uint32_t n);
  /// Copies of a page's frame between this PE and its home on this host: into the frame (a fetch) or out of
  /// it (a write-back). The first copy each way is the kernel's (copy_file_range), as a copy by the CPU
  /// first touches two mappings, this PE's of its frames and of the home's (18-21 us a page on the VM
  /// measured, 4-6 us for the kernel's); later copies are the CPU's (0.3 us). Forgotten with the entries.
  enum copy_way : uint8_t { copy_in = 1, copy_out = 2 };
  /// Whether the page was copied `way` before (and notes that it is now).
  bool copied_before(uint32_t page, copy_way way) {
    const bool before = (copied_[page] & way) != 0;
    copied_[page] = static_cast<uint8_t>(copied_[page] | way);
    return before;
  }
  /// Maps pages [page, page + n) read-only (shared) from `file`, a peer's memory file holding the same
  /// region: the home's frames themselves, nothing copied. For read-only pages of a home on this host.
  /// False when there is no such file or the kernel refuses: the caller copies them instead. The view
  /// maps this PE's own frames again at the pages' next protection.
  bool share(uint32_t page, uint32_t n, int file);
  /// Sequential mode: a page whose copy is its home's frame on this host (mapped from the
  /// home's file, see link_home) keeps that mapping through its protections, so that SWMR is kept by
  /// protections alone over one frame. Otherwise (release mode) a protection maps the own frame again.
  void keep_home_maps() { keep_home_maps_ = true; }
  /// Maps the invalid pages [page, page + n) from `file`, their home's memory file, closed: their
  /// protections open the home's frames from then on (keep_home_maps), nothing is copied. False when the
  /// mapping budget is spent or the kernel refuses: the caller copies instead.
  bool link_home(uint32_t page, uint32_t n, int file);
  /// Whether the view maps the page from its home's file (share, map_home, link_home).
  bool from_home(uint32_t page) const { return shared_[page] != 0; }
  /// Maps this PE's own frames again, closed, where pages [page, page + n) (all invalid) map a home's.
  void unlink_homes(uint32_t page, uint32_t n);
  /// Maps pages [page, page + n) from `file`, the home's memory file, in state `s` (shared or modified):
  /// the view is the home's memory, which the hardware keeps coherent (every PE on one host, release mode).
  /// Pages [fill, fill + n_fill) get their page-table entries in the same call. When the mapping budget is
  /// spent, the oldest such runs are closed first (their pages fault and are mapped again at their next
  /// use: nothing is held in them). Ends the job if the kernel refuses.
  void map_home(uint32_t page, uint32_t n, int file, page_state s, uint32_t fill, uint32_t n_fill);
  /// The same for `pages` (sorted), in runs of consecutive pages: one mprotect per run.
  void protect_runs(const std::vector<uint32_t>& pages, page_state s);

  char* view(uint32_t page) const { return view_ + (static_cast<size_t>(page) << shift_); }
  char* frame(uint32_t page) const { return frames_ + (static_cast<size_t>(page) << shift_); }
  /// A page's twin (release mode) lives in a slot of the twins' reservation, taken when the page opens for
  /// writing and given back when it closes. Slots are reused, so a twin is mostly memory touched before: on
  /// a guest with shadow page tables the first touch of a page costs 7-10 us, populated or not (a fault's
  /// copy into a fresh slot took 8 us, into a reused one 0.3 us), and the memory held is what open pages need.
  char* twin(uint32_t page) const { return slot_at(twin_slots_[page] - 1); }
  bool has_twin(uint32_t page) const { return twin_slots_[page] != 0; }
  /// The page's twin, with a slot taken for it if it has none.
  char* take_twin(uint32_t page);
  /// Gives the page's slot back (nothing happens if it has none).
  void drop_twin(uint32_t page);
  /// The frame's offset in a PE's DSM region (the same in every PE).
  uint64_t frame_offset(uint32_t page) const { return static_cast<uint64_t>(page) << shift_; }

  /// Pages a read fault on `page` copies at once (1 at least): it and the following pages of the same
  /// home and advice that are invalid here, up to `prefetch` in all; read-only pages of a home on another
  /// host (`near` false) up to 32, as they never go stale and a round trip there costs more than the bytes.
  uint32_t read_run(uint32_t page, uint32_t prefetch, bool near) const;

  // Set by the progress thread when a first touch places a page, read by faulting threads without its lock.
  int32_t home(uint32_t page) const { return __atomic_load_n(&homes_[page], __ATOMIC_RELAXED); }
  void set_home(uint32_t page, int32_t pe) { __atomic_store_n(&homes_[page], pe, __ATOMIC_RELAXED); }
  uint8_t advice(uint32_t page) const { return advice_[page]; }
  void set_advice(uint32_t page, uint8_t advice) { advice_[page] = advice; }

 private:
  char* view_;
  int view_fd_;
  char* frames_;
  char* twins_;
  uint32_t n_pages_;
  unsigned shift_;
  std::vector<uint32_t> twin_slots_;  // [page]: its twin's slot + 1; 0: none
  uint32_t free_slot_ = 0;            // a free slot + 1 (each free slot holds the next one's); 0: none
  uint32_t fresh_slots_ = 0;          // slots ever taken: the next fresh one
  static constexpr uint32_t populate_group = 16;  // fresh slots backed together
  char* slot_at(uint32_t slot) const { return twins_ + (static_cast<size_t>(slot) << shift_); }
  std::unique_ptr<std::atomic<page_state>[]> states_;
  std::vector<int32_t> homes_;
  std::vector<uint8_t> advice_;
  /// Maps pages [page, page + n) of the view from `file` at their frames' offset, in place of what was
  /// there; `fill`: with their page-table entries filled. False if the kernel refuses.
  bool map_view(uint32_t page, uint32_t n, int prot, int file, bool fill);
  /// Maps this PE's own frames again at pages [page, page + n) of the view, closed.
  void map_own(uint32_t page, uint32_t n);
  uint32_t shared_runs(uint32_t lo, uint32_t hi) const;  // runs of pages mapped from homes' files in [lo, hi)
  void set_states(uint32_t page, uint32_t n, page_state s);
  void apply(uint32_t page, uint32_t n, page_state s);  // protect, now
  /// Pages [page, page + n) were just mapped from a home's file, in state `s`: one run of the budget.
  void mapped_from(uint32_t page, uint32_t n, page_state s);
  /// share (s = shared) and link_home (s = invalid): pages [page, page + n) mapped from `file` in state s.
  bool map_from(uint32_t page, uint32_t n, int file, page_state s);
  void forget_closed_runs();  // map_home's list: drops the runs no longer mapped so
  /// Pages [page, page + n), about to change protection: on their second change they get a mapping of
  /// their own (see churn_).
  void isolate_churning(uint32_t page, uint32_t n);

  bool gathering_ = false;
  bool keep_home_maps_ = false;
  struct run {
    uint32_t page = 0, n = 0;
    page_state s = page_state::invalid;
  } gathered_;  // protections gathered and not applied (n = 0: none)

  std::vector<uint8_t> shared_;   // the view maps the page from its home's file (share, map_home, link_home)
  std::vector<uint8_t> copied_;   // copy_way bits: the frame's copies to and from its home so far
  std::deque<std::pair<uint32_t, uint32_t>> home_runs_;  // map_home's runs, oldest first (some closed since)
  // Mappings share may still make: each is a mapping of its own (two, if it splits one), and the kernel
  // allows vm.max_map_count in all. A quarter of that (max_runs_); given back as shared runs are mapped
  // over again.
  uint32_t max_runs_;
  uint32_t share_budget_;
  // Protection changes in the middle of a larger mapping split it, and changing back merges it again: an
  // mprotect of one page inside the view costs 4.0 us here, against 1.6 us for a mapping of its own. So
  // pages whose protection changes a second time (a lock's page, a halo row) are made a mapping of their
  // own: MADV_NOHUGEPAGE gives them a flag their neighbours lack, and the kernel merges only mappings with
  // equal flags. The budget (an eighth of vm.max_map_count, one or two mappings each) is not given back.
  enum : uint8_t { churn_none, churn_once, churn_isolated };
  std::vector<uint8_t> churn_;
  uint32_t isolate_budget_;
};

}  // namespace rdsm::detail::dsm
