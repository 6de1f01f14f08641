// The fault path. The handler runs on the faulting thread, in signal context. In release mode it resolves
// the fault itself (release.cpp), and in sequential mode a read fault on a read-only page too. Other faults
// of sequential mode neither allocate nor take a lock: the handler posts the fault in a fixed slot, wakes
// the progress thread and waits (spinning briefly, then yielding, then on a futex) until the page's state
// allows the access, nudging same-host peers whose progress thread has not taken their mail (channel.hpp).
// Either way the faulting instruction then runs again.
#include "dsm/fault.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "common/signal_chain.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"
#include "dsm/access_decode.hpp"
#include "dsm/region_memory.hpp"

namespace rdsm::detail::dsm {
namespace {

struct sigaction previous{};
struct sigaction previous_nudge{};
std::atomic<space*> active{nullptr};
// How late a fault's answer is before its thread nudges the peers that have not read their mail (a
// progress thread that runs takes its mail within a microsecond or two), and how often again while it
// waits (a signal costs the peer's computing thread 5-40 us here; one pending at a time).
constexpr uint64_t nudge_first_ns = 10000, nudge_again_ns = 30000;

// Whether the faulting access was a write. On x86-64, from the page-fault error code. On aarch64, from the
// first of these that answers: the ESR record the kernel puts in the signal frame (absent under qemu-user
// and on kernels that give none); the instruction at the PC, decoded (it has just faulted there, so its text
// is mapped, and readable as all code is unless mapped execute-only); the page's state. The last is what
// other architectures get: a fault on a readable page is a write; on an unreadable page it is served as a
// read first, and a write faults once more. Signal context: no allocation, no lock.
bool write_access(void* context, [[maybe_unused]] page_state s) {
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#elif defined(__aarch64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto* reserved = reinterpret_cast<const unsigned char*>(uc->uc_mcontext.__reserved);
  if (const std::optional<bool> esr = esr_write_from_records(reserved, sizeof uc->uc_mcontext.__reserved))
    return *esr;
  uint32_t insn = 0;
  std::memcpy(&insn, reinterpret_cast<const void*>(uc->uc_mcontext.pc), sizeof insn);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  insn = __builtin_bswap32(insn);  // A64 instructions are little-endian in memory whatever the data order
#endif
  if (aarch64_insn_access(insn) == mem_access::write) return true;
  // A decoded read, like an unknown instruction, falls back on the page's state: a read does not fault on a
  // readable page, and the PC may not be the faulting instruction's (qemu-user 7.2 reports a faulting DC ZVA,
  // memset's, at an earlier instruction's PC: serving that as a read again and again would never let it run).
  return s == page_state::shared;
#else
  (void)context;
  return s == page_state::shared;
#endif
}

void say(const char* text) {
  ssize_t n = write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

void on_segv(int sig, siginfo_t* info, void* context) {
  space* s = active.load(std::memory_order_acquire);
  const auto a = reinterpret_cast<uintptr_t>(info->si_addr);
  if (s == nullptr || !s->contains(a)) {
    chain_signal(previous, sig, info, context);
    return;
  }
  if (on_service_thread()) {
    say("rdsm: internal error: the progress thread touched the DSM view\n");
    std::abort();
  }
  const int saved_errno = errno;
  const uint32_t page = s->page_of(a);
  s->on_fault(page, write_access(context, s->state(page)));
  errno = saved_errno;
}

// A peer's nudge (channel::nudge_stalled): this thread most likely holds the CPU the progress thread was
// woken on. Any other SIGURG goes to the program's own handler, as if rdsm were not there.
void on_nudge(int sig, siginfo_t* info, void* context) {
  space* s = active.load(std::memory_order_acquire);
  if (info->si_code != SI_QUEUE || info->si_value.sival_int != nudge_tag) {
    chain_signal(previous_nudge, sig, info, context);
    return;
  }
  if (s == nullptr || on_service_thread()) return;
  const int saved_errno = errno;
  s->yield_to_service();
  errno = saved_errno;
}

}  // namespace

void install_fault_handler(space* s, bool nudges) {
  active.store(s, std::memory_order_release);
  struct sigaction sa{};
  sa.sa_sigaction = &on_segv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous);
  if (!nudges) return;
  sa.sa_sigaction = &on_nudge;
  sigaction(nudge_signal, &sa, &previous_nudge);
}

void remove_fault_handler(bool nudges) {
  active.store(nullptr, std::memory_order_release);
  sigaction(SIGSEGV, &previous, nullptr);
  if (nudges) sigaction(nudge_signal, &previous_nudge, nullptr);
}

void space::yield_to_service() {
  // Yield until the progress thread has taken the mail (it ran), for at most 200 us: it may be queued on
  // the other CPU instead, or this thread may hold what it needs.
  const uint64_t start = monotonic_ns();
  while (channel_->pending() && monotonic_ns() - start < 200000) sched_yield();
}

void complete_fault(fault_slot& slot) {
  slot.state.store(fault_slot::done, std::memory_order_release);
  syscall(SYS_futex, &slot.state, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

void space::on_fault(uint32_t page, bool write) {
  (write ? stats_.write_faults : stats_.read_faults).fetch_add(1, std::memory_order_relaxed);
  check_access(page, write);
  if (release_mode_) {
    // The faulting thread may have interrupted any code but the DSM's own (which never touches the view),
    // so this lock is never held by the thread itself.
    std::lock_guard<state_mutex> lock(mu_);
    if (pages_->home(page) == home_undecided) resolve_home(page);
    lazy_->fault(page, write);
    return;
  }
  if (!write && pages_->advice(page) == RDSM_DSM_READ_ONLY && home(page) >= 0) {
    // Read-only pages do not change while so advised, so no directory needs to know of the copy: the
    // faulting thread copies them from the home itself, as in release mode (the lock, as above).
    std::lock_guard<state_mutex> lock(mu_);
    copy_read_only(page);
    return;
  }
  if (write && upgrade_exclusive(page)) return;
  post_fault(page, write);
}

bool space::upgrade_exclusive(uint32_t page) {
  // A write to a page this PE owns read-only (its read asked for ownership: read-modify-write) is served
  // here, without a message, unless the protocol's lock is taken (the service then does the same).
  if (state(page) != page_state::shared) return false;
  std::unique_lock<state_mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || !seq_->upgrade(page)) return false;
  // The page stays with this thread while it runs its write, as after a grant.
  seq_->hold(page);
  seq_->resumed(page, monotonic_ns());
  return true;
}

void space::copy_read_only(uint32_t page) {
  if (state(page) != page_state::invalid) return;  // another thread copied it first
  const int32_t h = home(page);
  if (pages_->from_home(page)) {  // linked to its home's frame (sequential mode): the frame itself, opened
    stats_.fetches.fetch_add(1, std::memory_order_relaxed);
    protect(page, 1, page_state::shared);
    return;
  }
  const uint32_t n = pages_->read_run(page, prefetch_, mem_->near(h));
  stats_.fetches.fetch_add(n, std::memory_order_relaxed);
  if (pages_->share(page, n, mem_->file(h))) return;  // a home on this host: its frames mapped here
  mem_->read(h, frame_offset(page), frame(page), static_cast<size_t>(n) * page_size_);
  protect(page, n, page_state::shared);
}

void space::check_access(uint32_t page, bool write) const {
  if (pages_->home(page) == no_pe)
    fatal("segmentation fault at %p: DSM memory that is not allocated (freed, or never returned by "
          "rdsm_dsm_alloc); check the pointer",
          view(page));
  if (write && pages_->advice(page) == RDSM_DSM_READ_ONLY)
    fatal("write to %p, in a DSM region advised RDSM_DSM_READ_ONLY; advise it RDSM_DSM_DEFAULT before writing",
          view(page));
}

void space::post_fault(uint32_t page, bool write) {
  fault_slot* slot = nullptr;
  while (slot == nullptr) {
    for (fault_slot& candidate : slots_) {
      uint32_t expected = fault_slot::free_slot;
      if (candidate.state.compare_exchange_strong(expected, fault_slot::claimed, std::memory_order_acquire)) {
        slot = &candidate;
        break;
      }
    }
    if (slot == nullptr) sched_yield();  // more faulting threads than slots: wait for one
  }
  slot->page = page;
  slot->write = write;
  slot->run_end = page + 1;
  slot->state.store(fault_slot::posted, std::memory_order_release);
  posted_.fetch_add(1, std::memory_order_release);
  // A polling thread serves its own fault at once (serve_while_waiting); waking the progress thread too
  // would put it on this CPU, where each of the thread's yields then waited out its rounds of looking for
  // work (40-100 us). It is woken when the thread stops polling.
  bool woken = !poll_;
  if (woken) runtime::get().progress().wake();
  // While it polls, what peers send this PE it sees itself: they leave the progress thread asleep.
  bool polling = poll_;
  if (polling) channel_->start_polling();
  // The answer takes at least one message round trip: spin a little, yield while it is likely to come
  // soon (the other PE's threads may need this core), then sleep on the slot.
  const wait_on on{.call = write ? "a DSM write fault" : "a DSM read fault", .what = "page", .addr = view(page),
                   .pe = pages_->home(page)};
  wait_scope scope(on);
  const uint64_t posted_ns = monotonic_ns();
  uint64_t nudge_at = posted_ns + nudge_first_ns;
  for (unsigned spins = 0; slot->state.load(std::memory_order_acquire) != fault_slot::done; ++spins) {
    if (poll_ && serve_while_waiting()) continue;  // progress made: look again at once
    const uint64_t now = monotonic_ns();
    if (nudge_ && now >= nudge_at) {
      // The answer is late: a progress thread on the way (the home's, an owner's) may be queued behind a
      // computing thread for the rest of its time slice. Timed from the post, whatever this thread did
      // since (its yields lost the CPU for 40-70 us at a time).
      channel_->nudge_stalled();
      nudge_at = now + nudge_again_ns;
    }
    if (spins < 64) {
      cpu_relax();
      continue;
    }
    if (poll_ && now - posted_ns < 200000) {
      sched_yield();
      continue;
    }
    if (polling) {
      (void)channel_->stop_polling();  // the progress thread is woken next in any case
      polling = false;
    }
    if (!woken) {
      runtime::get().progress().wake();
      woken = true;
    }
    timespec limit{0, 1000000};
    syscall(SYS_futex, &slot->state, FUTEX_WAIT_PRIVATE, fault_slot::posted, &limit, nullptr, 0);
    watch_tick(monotonic_ns());
  }
  // Mail may have come without a wake-up, and this thread may have taken messages it had to keep for
  // later (a recall of the page it was just granted): the progress thread sees to both.
  if (polling) stop_polling_hand_over();
  slot->state.store(fault_slot::free_slot, std::memory_order_release);
  seq_->resumed(page, monotonic_ns());
}

}  // namespace rdsm::detail::dsm
