// The same-host channel (channel.hpp).
#include "dsm/channel.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/log.hpp"

namespace rdsm::detail::dsm {

namespace {

// In the region at layout.offset: [0] pid, [8] eventfd, [16] the progress thread sleeps, [24] the mail
// counter's value the receiver last read, [32] threads polling their mail, [64] mail counter.
constexpr uint64_t pid_at = 0, fd_at = 8, asleep_at = 16, seen_at = 24, pollers_at = 32, mail_at = 64;
// In each ring: [0] tail (the sender's), [64] head (the receiver's), [128] the slots.
constexpr uint64_t tail_at = 0, head_at = 64, slots_at = 128;

uint64_t* word(char* p, uint64_t offset) { return reinterpret_cast<uint64_t*>(p + offset); }

}  // namespace

channel::channel(remote_memory& mem, channel_layout layout, int my_pe, int n_pes, char* own, int wake_fd)
    : mem_(mem), layout_(layout), my_pe_(my_pe), own_(own), heads_(static_cast<size_t>(n_pes), 0) {
  peers_.reserve(static_cast<size_t>(n_pes));
  for (int pe = 0; pe < n_pes; ++pe) peers_.push_back(std::make_unique<peer>());
  char* base = own_ + layout_.offset;
  __atomic_store_n(word(base, pid_at), static_cast<uint64_t>(getpid()), __ATOMIC_RELAXED);
  __atomic_store_n(word(base, fd_at), static_cast<uint64_t>(wake_fd), __ATOMIC_RELEASE);
}

uint32_t* channel::sleep_flag() { return reinterpret_cast<uint32_t*>(own_ + layout_.offset + asleep_at); }
const uint32_t* channel::poller_count() const {
  return reinterpret_cast<const uint32_t*>(own_ + layout_.offset + pollers_at);
}

channel::~channel() {
  for (auto& p : peers_) {
    if (p->fd >= 0) close(p->fd);
    if (p->pidfd >= 0) close(p->pidfd);
  }
}

void channel::connect(int pe, peer& p) {
  p.state = peer::unusable;
  char* region = mem_.at(pe, 0);
  if (region == nullptr || pe == my_pe_) return;
  char* base = region + layout_.offset;
  const auto pid = static_cast<pid_t>(__atomic_load_n(word(base, pid_at), __ATOMIC_ACQUIRE));
  const auto fd = static_cast<int>(__atomic_load_n(word(base, fd_at), __ATOMIC_ACQUIRE));
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) p.fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0));
  if (p.fd < 0) {
    RDSM_LOG_INFO("dsm", "PE %d: no same-host channel (%s); its protocol messages go through UCX", pe,
                  std::strerror(errno));
    if (pidfd >= 0) close(pidfd);
    return;
  }
  p.state = peer::usable;
  p.pidfd.store(pidfd, std::memory_order_release);  // kept: nudges reach this process, never a later one
}

bool channel::push(int pe, const message& m) {
  char* r = ring_at(mem_.at(pe, 0), my_pe_);
  const uint64_t tail = __atomic_load_n(word(r, tail_at), __ATOMIC_RELAXED);
  if (tail - __atomic_load_n(word(r, head_at), __ATOMIC_ACQUIRE) >= layout_.capacity) return false;
  auto* slot = reinterpret_cast<channel_layout::slot*>(r + slots_at) + tail % layout_.capacity;
  std::memcpy(&slot->m, &m, sizeof m);
  __atomic_store_n(word(r, tail_at), tail + 1, __ATOMIC_RELEASE);
  return true;
}

void channel::ring(int pe, peer& p) {
  char* base = mem_.at(pe, 0) + layout_.offset;
  __atomic_fetch_add(word(base, mail_at), 1, __ATOMIC_SEQ_CST);
  // A running progress thread finds the mail on its next round; only a sleeping one needs the eventfd. So
  // does a thread polling its mail (a faulting thread waiting for its grant, a thread waiting in the
  // runtime): woken, the progress thread would cost a wake-up and run beside it for nothing, keeping the
  // other CPU busy (an mprotect taking access away then costs 50-60 us instead of 8 on the VM measured).
  // The poller stops after a Dekker-style exchange: it lowers the count, then looks for mail; the mail
  // counter was raised above, before the look.
  if (__atomic_load_n(reinterpret_cast<uint32_t*>(base + asleep_at), __ATOMIC_SEQ_CST) == 0) return;
  if (__atomic_load_n(reinterpret_cast<uint32_t*>(base + pollers_at), __ATOMIC_SEQ_CST) != 0) return;
  uint64_t one = 1;
  if (write(p.fd, &one, sizeof one) < 0 && errno != EAGAIN)
    fatal("dsm: waking PE %d's progress thread: %s", pe, std::strerror(errno));
  wakeups_.fetch_add(1, std::memory_order_relaxed);
}

bool channel::send(int pe, const message& m) {
  peer& p = *peers_[static_cast<size_t>(pe)];
  std::lock_guard<std::mutex> lock(p.mu);
  if (p.state == peer::unknown) connect(pe, p);
  if (p.state != peer::usable) return false;
  if (!p.overflow.empty() || !push(pe, m)) {
    p.overflow.push_back(m);  // the ring is full: the progress thread moves it in later, in order
    overflowed_.fetch_add(1, std::memory_order_release);
    return true;
  }
  ring(pe, p);
  return true;
}

bool channel::pending() const {
  return __atomic_load_n(word(own_ + layout_.offset, mail_at), __ATOMIC_ACQUIRE) != mail_seen_.load(std::memory_order_relaxed) ||
         overflowed_.load(std::memory_order_acquire) != 0;
}

void channel::polling(bool on) {
  auto* pollers = reinterpret_cast<uint32_t*>(own_ + layout_.offset + pollers_at);
  if (on)
    __atomic_fetch_add(pollers, 1, __ATOMIC_SEQ_CST);
  else
    __atomic_fetch_sub(pollers, 1, __ATOMIC_SEQ_CST);
}

bool channel::stop_polling() {
  polling(false);
  return __atomic_load_n(word(own_ + layout_.offset, mail_at), __ATOMIC_SEQ_CST) != mail_seen_.load(std::memory_order_seq_cst) ||
         overflowed_.load(std::memory_order_acquire) != 0;
}

void channel::nudge_stalled() {
  for (size_t pe = 0; pe < peers_.size(); ++pe) {
    const int pidfd = peers_[pe]->pidfd.load(std::memory_order_acquire);
    if (pidfd < 0) continue;
    char* base = mem_.at(static_cast<int>(pe), 0) + layout_.offset;
    if (__atomic_load_n(word(base, mail_at), __ATOMIC_ACQUIRE) == __atomic_load_n(word(base, seen_at), __ATOMIC_ACQUIRE))
      continue;
    // A queued signal as sigqueue sends it, but through the process descriptor: a pid may name another
    // process by now.
    siginfo_t info{};
    info.si_signo = nudge_signal;
    info.si_code = SI_QUEUE;
    info.si_pid = getpid();
    info.si_uid = getuid();
    info.si_value.sival_int = nudge_tag;
    // Fails only if the peer has gone, which the runtime reports itself.
    (void)syscall(SYS_pidfd_send_signal, pidfd, nudge_signal, &info, 0);
  }
}

void channel::receive(std::deque<incoming>& out) {
  if (overflowed_.load(std::memory_order_acquire) != 0) {
    for (size_t pe = 0; pe < peers_.size(); ++pe) {
      peer& p = *peers_[pe];
      std::lock_guard<std::mutex> lock(p.mu);
      bool moved = false;
      while (!p.overflow.empty() && push(static_cast<int>(pe), p.overflow.front())) {
        p.overflow.pop_front();
        overflowed_.fetch_sub(1, std::memory_order_release);
        moved = true;
      }
      if (moved) ring(static_cast<int>(pe), p);
    }
  }
  const uint64_t mail = __atomic_load_n(word(own_ + layout_.offset, mail_at), __ATOMIC_ACQUIRE);
  if (mail == mail_seen_.load(std::memory_order_relaxed)) return;
  mail_seen_.store(mail, std::memory_order_relaxed);
  __atomic_store_n(word(own_ + layout_.offset, seen_at), mail, __ATOMIC_RELEASE);
  for (size_t sender = 0; sender < heads_.size(); ++sender) {
    char* r = ring_at(own_, static_cast<int>(sender));
    const uint64_t tail = __atomic_load_n(word(r, tail_at), __ATOMIC_ACQUIRE);
    uint64_t& head = heads_[sender];
    for (; head != tail; ++head) {
      const auto* slot = reinterpret_cast<const channel_layout::slot*>(r + slots_at) + head % layout_.capacity;
      incoming in{static_cast<int>(sender), {}};
      std::memcpy(&in.m, &slot->m, sizeof in.m);
      out.push_back(in);
    }
    __atomic_store_n(word(r, head_at), head, __ATOMIC_RELEASE);
  }
}

}  // namespace rdsm::detail::dsm
