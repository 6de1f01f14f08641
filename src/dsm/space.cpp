// The DSM space: start-up (reservation, frames, registration), allocation with placement, annotations.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cachectl/cachectl.hpp"
#include "common/log.hpp"
#include "core/memory.hpp"
#include "core/rma.hpp"
#include "core/runtime.hpp"
#include "core/sync.hpp"
#include "core/watch.hpp"
#include "dsm/dsm.hpp"
#include "dsm/fault.hpp"

namespace rdsm::detail::dsm {

std::atomic<space*> space::instance_{nullptr};
space* space::retired_ = nullptr;

namespace {

std::mutex start_mu;

}  // namespace

space& space::ensure(const char* fn) {
  runtime::checked(fn);
  if (space* s = get()) return *s;
  std::lock_guard<std::mutex> lock(start_mu);
  if (space* s = get()) return *s;
  auto* s = new space();
  {
    const world_wait every_pe(fn);  // the start is collective
    s->start(fn);
  }
  instance_.store(s, std::memory_order_release);
  return *s;
}

size_t space::configured_page_size() { return runtime::get().cfg().dsm_page_size; }

void space::start(const char* fn) {
  runtime& rt = runtime::get();
  const config& cfg = rt.cfg();
  my_pe_ = rt.my_pe();
  n_pes_ = rt.n_pes();
  release_mode_ = cfg.dsm_consistency != "sequential";
  page_size_ = configured_page_size();
  shift_ = static_cast<unsigned>(__builtin_ctzll(page_size_));
  size_ = (cfg.dsm_size + page_size_ - 1) / page_size_ * page_size_;
  n_pages_ = static_cast<uint32_t>(size_ / page_size_);
  char* end = nullptr;
  errno = 0;
  base_ = std::strtoull(cfg.dsm_base.c_str(), &end, 0);
  if (errno != 0 || end == cfg.dsm_base.c_str() || *end != '\0' || base_ % symmetric_heap::base_alignment != 0)
    fatal("%s: RDSM_DSM_BASE=%s is not an address aligned to 2 MiB; use e.g. 0x200000000000", fn, cfg.dsm_base.c_str());
  if (!release_mode_) {
    // Sequential mode: faults are served by the progress thread (protocol.cpp).
    poll_ = cfg.dsm_poll == "on" || (cfg.dsm_poll == "auto" && !rt.oversubscribed());
    nudge_ = cfg.dsm_nudge == "on";
    if (poll_) rt.progress().set_linger(50000);
    if (!rt.progress().running()) {
      status s = rt.progress().start();
      if (!s.ok()) fatal("%s: %s", fn, s.message().c_str());
    }
  }

  // Frames and metadata: one memory file, mapped read-write here (the alias); its frames are also mapped at
  // the agreed base (the view). Metadata, after the frames: the notice ring, the copy tracker, the channel.
  const auto sys = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto round = [sys](size_t n) { return (n + sys - 1) / sys * sys; };
  // Layout after the frames: ring tail, tracker count (each on its own cache line), ring entries, tracker
  // bits, channel.
  const ring_layout ring{size_, size_ + 128, notice_ring};
  const tracker_layout tracked{size_ + 64, size_ + round(128 + notice_ring * sizeof(uint64_t))};
  const channel_layout chan{round(tracked.bits_offset + (n_pages_ + 63) / 64 * sizeof(uint64_t)), 256};
  const size_t meta = round(chan.offset - size_ + chan.bytes(n_pes_));
  data_segment area;
  auto fd = create_shared_area("rdsm-dsm", size_ + meta, static_cast<size_t>(sysconf(_SC_PAGESIZE)), area);
  if (!fd.ok()) fatal("%s: DSM frames: %s; lower RDSM_DSM_SIZE", fn, fd.error().message().c_str());
  fd_ = fd.value();
  alias_ = reinterpret_cast<char*>(area.start);
  void* at = mmap(reinterpret_cast<void*>(base_), size_, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd_, 0);
  if (at == MAP_FAILED || reinterpret_cast<uintptr_t>(at) != base_)
    fatal("%s: the DSM range [%#lx, %#lx) is not free in PE %d (%s); set RDSM_DSM_BASE to an address free in "
          "every PE or lower RDSM_DSM_SIZE",
          fn, static_cast<unsigned long>(base_), static_cast<unsigned long>(base_ + size_), my_pe_,
          at == MAP_FAILED ? std::strerror(errno) : "the kernel placed it elsewhere");

  if (release_mode_) {
    void* t = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t == MAP_FAILED) fatal("%s: reserving the DSM's twins: %s; lower RDSM_DSM_SIZE", fn, std::strerror(errno));
    twins_ = static_cast<char*>(t);
  }
  rt.set_faulting_range(base_, size_);
  auto st = rt.net().create_stream(false);
  if (!st.ok()) fatal("%s: %s", fn, st.error().message().c_str());
  stream_ = st.value();
  status s = rt.attach_region(dsm_region, area, fd_);
  if (!s.ok()) fatal("%s: registering the DSM frames: %s", fn, s.message().c_str());

  blocks_ = std::make_unique<symmetric_heap>(reinterpret_cast<void*>(base_), size_);
  pages_ = std::make_unique<page_table>(reinterpret_cast<char*>(base_), fd_, alias_, twins_, n_pages_, shift_);
  claims_ = static_cast<int32_t*>(sym_allocate(fn, sizeof(int32_t) * n_pages_, 0, true));
  if (claims_ == nullptr)
    fatal("%s: no symmetric heap left for the DSM's first-touch table (%zu bytes); raise SHMEM_SYMMETRIC_SIZE", fn,
          sizeof(int32_t) * n_pages_);
  mem_ = std::make_unique<region_memory>(stream_, alias_, fd_, size_);
  prefetch_ = static_cast<uint32_t>(cfg.dsm_prefetch);
  if (release_mode_) {
    rings_ = std::make_unique<notice_rings>(*mem_, my_pe_, n_pes_, ring,
                                            reinterpret_cast<uint64_t*>(alias_ + ring.tail_offset),
                                            reinterpret_cast<uint64_t*>(alias_ + ring.entries_offset));
    bool far_peers = false;
    for (int pe = 0; pe < n_pes_; ++pe) far_peers = far_peers || !mem_->near(pe);
    tracker_ = std::make_unique<copy_tracker>(*mem_, tracked, reinterpret_cast<uint64_t*>(alias_ + tracked.count_offset),
                                              reinterpret_cast<uint64_t*>(alias_ + tracked.bits_offset), n_pages_,
                                              far_peers);
    s = rt.net().set_message_handler([this](int from, const void* data, size_t n) { mem_->on_message(from, data, n); });
    if (!s.ok()) fatal("%s: %s", fn, s.message().c_str());
    lazy_ = std::make_unique<release_protocol>(*pages_, *mem_, *rings_, *tracker_, my_pe_, prefetch_, stats_);
    lazy_->map_homes(map_homes(fn, cfg.dsm_same_host == "map" && !far_peers));
  } else {
    // Each PE decides alone: the directory keeps one writer whether a copy is a frame of its own or the
    // home's frame, so homes on this host are linked also in a job across hosts.
    links_homes_ = cfg.dsm_same_host == "map";
    if (links_homes_) pages_->keep_home_maps();
    seq_ = std::make_unique<sequential_protocol>(*pages_, static_cast<sequential_port&>(*this), my_pe_, n_pes_, prefetch_,
                                                stats_);
    channel_ = std::make_unique<channel>(*mem_, chan, my_pe_, n_pes_, alias_, rt.progress().wake_fd());
    rt.progress().share_sleep_flag(channel_->sleep_flag());
    rt.progress().share_poller_count(channel_->poller_count());
    s = rt.net().set_message_handler([this](int from, const void* data, size_t n) { on_message(from, data, n); });
    if (!s.ok()) fatal("%s: %s", fn, s.message().c_str());
    rt.progress().set_service(&space::service);
    set_wait_service(&waiting_service);
  }
  install_fault_handler(this, !release_mode_ && nudge_);
  rt.at_finalize([this] { stop(); });
  barrier_all();
}

bool space::map_homes(const char* fn, bool wanted) {
  // Only if every PE can map every other PE's memory file: a page one PE copies while another writes it
  // through its home's memory would miss those writes (nobody notices them). Agreed by all.
  bool can = wanted && n_pes_ > 1;
  for (int pe = 0; can && pe < n_pes_; ++pe) can = pe == my_pe_ || mem_->file(pe) >= 0;
  auto all = runtime::get().boot().allgather(std::string(1, can ? '1' : '0'));
  if (!all.ok()) fatal("%s: %s", fn, all.error().message().c_str());
  for (const std::string& other : all.value()) can = can && other == "1";
  if (wanted && !can) RDSM_LOG_INFO("dsm", "pages are copied from their homes: not every PE's memory can be mapped here");
  return can;
}

void space::stop() {
  barrier_all();  // every PE is done with the DSM
  runtime& rt = runtime::get();
  if (!release_mode_) {
    rt.progress().set_service(nullptr);
    set_wait_service(nullptr);
  }
  std::lock_guard<state_mutex> lock(mu_);  // a service round under way finishes first
  if (!release_mode_) (void)rt.net().set_message_handler(nullptr);
  remove_fault_handler(!release_mode_ && nudge_);
  rt.set_faulting_range(0, 0);
  instance_.store(nullptr, std::memory_order_release);
  munmap(reinterpret_cast<void*>(base_), size_);
  // The alias stays mapped: the runtime unregisters it from the transport at its shutdown. The object is
  // left for the process's end (a service round may still hold a pointer to it), on a list that keeps it
  // reachable, so that leak checkers do not report it.
  retired_next_ = retired_;
  retired_ = this;
}

void* space::allocate(const char* fn, size_t bytes, rdsm_dsm_placement_t placement, size_t param) {
  if (placement == RDSM_DSM_ON_PE && param >= static_cast<size_t>(n_pes_))
    fatal("%s: home PE %zu out of range [0, %d); pass a PE number below shmem_n_pes()", fn, param, n_pes_);
  if (placement < RDSM_DSM_BLOCK || placement > RDSM_DSM_ON_PE)
    fatal("%s: placement %d is not one of RDSM_DSM_BLOCK, _CYCLIC, _FIRST_TOUCH, _ON_PE", fn, static_cast<int>(placement));
  // "The same address everywhere" holds only if every PE allocates alike; checked always (the allocation
  // costs more than the check).
  const uint64_t args[3] = {bytes, static_cast<uint64_t>(placement), param};
  check_same_arguments(fn, "arguments (bytes, placement, param)", args, 3);
  if (bytes == 0) return nullptr;
  const size_t rounded = (bytes + page_size_ - 1) / page_size_ * page_size_;
  // Blocks of 16 pages or more reserve one page more, left unallocated (a guard): two arrays allocated one
  // after the other then do not sit a power of two apart, where their loads and stores would alias in
  // the caches (a Jacobi sweep between two such grids ran 25% slower).
  const size_t reserved = rounded >= 16 * page_size_ ? rounded + page_size_ : rounded;
  std::unique_lock<state_mutex> lock(mu_);
  // A size within a page or two of SIZE_MAX wraps in the rounding or the guard: it cannot fit either.
  void* p = rounded < bytes || reserved < rounded ? nullptr : blocks_->allocate(reserved, page_size_);
  if (p == nullptr) {
    warn_exhausted(fn, bytes, *blocks_, "dsm", "DSM space", "RDSM_DSM_SIZE");
    lock.unlock();
    barrier_all();
    return nullptr;
  }
  const uint32_t first = page_of(reinterpret_cast<uintptr_t>(p));
  const auto n = static_cast<uint32_t>(rounded >> shift_);
  const uint32_t share = (n + static_cast<uint32_t>(n_pes_) - 1) / static_cast<uint32_t>(n_pes_);
  const size_t cyclic_pages = std::max<size_t>(1, (param + page_size_ - 1) / page_size_);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t page = first + i;
    int32_t h = 0;
    switch (placement) {
      case RDSM_DSM_BLOCK: h = static_cast<int32_t>(i / share); break;
      case RDSM_DSM_CYCLIC: h = static_cast<int32_t>((i / cyclic_pages) % static_cast<size_t>(n_pes_)); break;
      case RDSM_DSM_FIRST_TOUCH: h = home_undecided; break;
      case RDSM_DSM_ON_PE: h = static_cast<int32_t>(param); break;
    }
    pages_->set_home(page, h);
    pages_->set_advice(page, RDSM_DSM_DEFAULT);
    if (release_mode_) continue;
    // A home starts as its pages' owner (modified: it writes them without faults until a peer reads);
    // with first touch every PE presumes itself the owner, which holds in whichever PE wins the claim.
    seq_->reset(page, h == my_pe_ || h == home_undecided);
  }
  if (release_mode_) {
    lazy_->forget(first, n);
    // Homes' runs are mapped where they are long: mapped one page at a time, a large array would need more
    // mappings than the kernel allows (first touch decides homes page by page).
    constexpr size_t long_run = 16;
    lazy_->set_mappable(first, n, placement == RDSM_DSM_BLOCK || placement == RDSM_DSM_ON_PE ||
                                      (placement == RDSM_DSM_CYCLIC && cyclic_pages >= long_run));
  }
  // Protection in runs of equal state: one mprotect per run, not per page.
  for (uint32_t i = 0; i < n;) {
    const bool mine = pages_->home(first + i) == my_pe_;
    uint32_t j = i + 1;
    while (j < n && (pages_->home(first + j) == my_pe_) == mine) ++j;
    protect(first + i, j - i, mine ? page_state::modified : page_state::invalid);
    i = j;
  }
  lock.unlock();
  barrier_all();
  return p;
}

void space::release_block(const char* fn, void* p) {
  // Freeing different blocks would leave the allocators apart, and "the same address everywhere" broken from
  // the next allocation on; checked always, as allocate's arguments are.
  const uint64_t arg = reinterpret_cast<uintptr_t>(p);
  check_same_arguments(fn, "pointers", &arg, 1);
  if (p == nullptr) return;
  release();
  barrier_all();  // no PE still uses the block
  {
    std::lock_guard<state_mutex> lock(mu_);
    const size_t bytes = blocks_->block_size(p);
    if (!contains(reinterpret_cast<uintptr_t>(p)) || bytes == 0 || !blocks_->release(p))
      fatal("%s: %p was not returned by rdsm_dsm_alloc (or was already freed); pass a pointer from the DSM "
            "allocator",
            fn, p);
    const uint32_t first = page_of(reinterpret_cast<uintptr_t>(p));
    const auto n = static_cast<uint32_t>(bytes >> shift_);
    protect(first, n, page_state::invalid);
    pages_->unlink_homes(first, n);  // the next allocation may place the pages elsewhere
    // Zero this PE's frames (home copies and cached copies alike): the next allocation reads zeros.
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(first) << shift_,
                  static_cast<off_t>(bytes)) == 0)
      pages_->forget_copies(first, n);
    else
      std::memset(frame(first), 0, bytes);
    for (uint32_t page = first; page < first + n; ++page) {
      pages_->set_home(page, no_pe);
      claims_[page] = 0;
      if (!release_mode_) seq_->forget(page, false);
    }
    if (release_mode_) lazy_->forget(first, n);  // open pages, copies flushed at an acquire since the release
  }
  barrier_all();
}

void space::check_allocated(const char* fn, const void* p, size_t bytes) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (!contains(a) || !contains(a + bytes - 1))
    fatal("%s: [%p, +%zu) is not inside the DSM space; pass memory from rdsm_dsm_alloc", fn, p, bytes);
  for (uint32_t page = page_of(a); page <= page_of(a + bytes - 1); ++page)
    if (pages_->home(page) == no_pe)
      fatal("%s: %p is not allocated DSM memory; pass memory from rdsm_dsm_alloc", fn, static_cast<void*>(view(page)));
}

void space::touch(const char* fn, const void* p, size_t bytes, bool write) {
  if (bytes == 0) return;
  check_allocated(fn, p, bytes);
  // One access per page, at the first byte of the range in it, through the fault path like any access: a
  // load, or an atomic OR of zero (a write that changes nothing, even beside another thread's store).
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (uint32_t page = page_of(a); page <= page_of(a + bytes - 1); ++page) {
    auto* at = reinterpret_cast<unsigned char*>(std::max(a, reinterpret_cast<uintptr_t>(view(page))));
    if (write) __atomic_fetch_or(at, static_cast<unsigned char>(0), __ATOMIC_RELAXED);
    else (void)*reinterpret_cast<volatile const unsigned char*>(at);
  }
}

void space::advise(const char* fn, void* p, size_t bytes, rdsm_dsm_advice_t advice) {
  if (advice < RDSM_DSM_DEFAULT || advice > RDSM_DSM_PRODUCER_CONSUMER)
    fatal("%s: advice %d is not an rdsm_dsm_advice_t value", fn, static_cast<int>(advice));
  const auto a = reinterpret_cast<uintptr_t>(p);
  // Memory outside the DSM is named as such first: its address may differ between PEs as well.
  if (bytes != 0) check_allocated(fn, p, bytes);
  const uint64_t args[3] = {a, bytes, static_cast<uint64_t>(advice)};
  check_same_arguments(fn, "arguments (address, bytes, advice)", args, 3);
  if (bytes == 0) return;
  const uint32_t first = page_of(a);
  const uint32_t last = page_of(a + bytes - 1);
  // 1. Every writer's changes reach the homes; every cached copy is dropped; homes forget who copied.
  release();
  barrier_all();
  {
    std::lock_guard<state_mutex> lock(mu_);
    std::vector<uint32_t> copies;
    for (uint32_t page = first; page <= last; ++page) {
      if (pages_->home(page) == home_undecided) continue;
      if (pages_->home(page) != my_pe_) {
        if (!release_mode_ && state(page) == page_state::modified && pages_->advice(page) != RDSM_DSM_PRIVATE)
          write_back(page);
        copies.push_back(page);
      } else if (!release_mode_) {
        seq_->forget(page, true);
      }
    }
    pages_->protect_runs(copies, page_state::invalid);
    if (release_mode_) lazy_->forget(first, last - first + 1);
  }
  barrier_all();
  // 2. The annotation's starting state. In release mode every page may have several writers merged by
  // diffs and every write reaches the home at release, so write-shared and producer-consumer pages follow
  // the default protocol there.
  {
    std::lock_guard<state_mutex> lock(mu_);
    std::vector<uint32_t> opened;  // in runs afterwards: one call per run, not per page
    for (uint32_t page = first; page <= last; ++page) {
      pages_->set_advice(page, static_cast<uint8_t>(advice));
      const int32_t h = pages_->home(page);
      if (h == home_undecided) continue;
      if (advice == RDSM_DSM_PRIVATE) {
        if (h != my_pe_) {
          pages_->unlink_homes(page, 1);  // a private copy is this PE's own (sequential mode may have linked it)
          copy_in(page);
        }
        opened.push_back(page);
      } else if (h == my_pe_) {
        if (!release_mode_ && advice != RDSM_DSM_READ_ONLY) seq_->own(page);
        opened.push_back(page);
      }
    }
    pages_->protect_runs(opened, advice == RDSM_DSM_READ_ONLY ? page_state::shared : page_state::modified);
  }
  barrier_all();
}

int space::home_of(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (!contains(a)) return no_pe;
  const int32_t h = pages_->home(page_of(a));
  return h >= 0 ? h : no_pe;
}

void space::stats(rdsm_dsm_stats_t* out) const {
  out->read_faults = stats_.read_faults.load();
  out->write_faults = stats_.write_faults.load();
  out->fetches = stats_.fetches.load();
  out->invalidations = stats_.invalidations.load();
  out->write_backs = stats_.write_backs.load();
  out->diffs = stats_.diffs.load();
  out->diff_bytes = stats_.diff_bytes.load();
  out->notices = stats_.notices.load();
  out->requests_served = stats_.requests_served.load();
  out->wakeups = channel_ ? channel_->wakeups() : 0;
  out->waits_served = stats_.waits_served.load();
  const cache_hook_stats cache = cache_hook_counters();
  out->cache_cleans = cache.cleans;
  out->cache_invalidates = cache.invalidates;
  out->cache_lines = cache.lines;
}

void space::resolve_home(uint32_t page) {
  if (pages_->home(page) != home_undecided) return;
  // First touch: the page's manager (page mod n) holds a claim word; the first compare-and-swap wins.
  const int manager = static_cast<int>(page % static_cast<uint32_t>(n_pes_));
  const uint64_t old = detail::atomic("rdsm_dsm (first touch)", amo_op::cswap, &claims_[page], 4,
                                      static_cast<uint64_t>(my_pe_ + 1), 0, manager, stream_);
  pages_->set_home(page, old == 0 ? my_pe_ : static_cast<int32_t>(old) - 1);
}

}  // namespace rdsm::detail::dsm
