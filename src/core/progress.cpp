// The progress thread and waiting back-off.
#include "core/progress.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <algorithm>
#include <cstring>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "core/runtime.hpp"
#include "core/watch.hpp"

namespace rdsm::detail {

namespace {
// How long after the last program thread stopped driving the transport the progress thread keeps off its
// descriptor (and sleeps between looks): a ping-pong's next wait begins well within it, and each timed sleep
// costs a wake-up. Between two namespaces (1 + 1 PEs, alternated with the thread always on the descriptor):
// a put ping-pong 23-28 us instead of 41-48 us (p99 0.08 ms instead of 2 ms), the DSM histogram's lock
// hand-off 185 us instead of 550-570 us, Jacobi 135-139 ms instead of 164-170 ms. A hold of 1 ms slowed
// Jacobi (200 ms): a peer's request to a PE that went back to computing waits up to the hold.
constexpr uint64_t driven_hold_ns = 300000;
// How long a waiter progresses the main stream mostly before it progresses every stream at every round.
constexpr uint64_t every_stream_after_ns = 100000;
}  // namespace

status progress_engine::start() {
  if (wake_fd_ < 0) wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return status::error(format("progress thread: eventfd failed: %s", std::strerror(errno)));
  net_.on_drive_end([](void* self) { static_cast<progress_engine*>(self)->wake(); }, this);
  stop_ = false;
  // The thread is set up (its time slice asked for) before start returns: what the program sees of it
  // after shmem_init does not depend on when the scheduler first runs it.
  std::promise<void> set_up;
  std::future<void> ready = set_up.get_future();
  thread_ = std::thread([this, set_up = std::move(set_up)]() mutable {
    if (slice_ns_ != 0) {
      if (const int e = request_time_slice(slice_ns_))
        RDSM_LOG_INFO("progress", "the scheduler refused a time slice of %llu ns (%s); the default stays",
                      static_cast<unsigned long long>(slice_ns_), std::strerror(e));
    }
    set_up.set_value();
    run();
  });
  ready.wait();
  return {};
}

void progress_engine::wake() {
  if (__atomic_load_n(sleeping_.load(std::memory_order_acquire), __ATOMIC_SEQ_CST) == 0) return;  // it runs
  uint64_t one = 1;
  ssize_t rc = write(wake_fd_, &one, sizeof one);
  (void)rc;
}

void progress_engine::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  uint64_t one = 1;
  ssize_t rc = write(wake_fd_, &one, sizeof one);
  (void)rc;
  thread_.join();
  net_.end_await();  // no driver calls wake() on a stopped thread
}

progress_engine::~progress_engine() {
  stop();
  // Closed only now: a driver that saw the thread asleep just before it stopped may still write to it.
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool progress_engine::step(bool driven) {
  bool any = !driven && net_.progress();
  if (auto* service = service_.load(std::memory_order_acquire)) any = service() || any;
  return any;
}

void progress_engine::run() {
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {net_.event_fd(), POLLIN, 0}};
  uint64_t drive_seen = ~0ull;  // the drive going on when the last timed sleep began (~0: none)
  bool poll_failed = false;
  while (!stop_.load(std::memory_order_relaxed)) {
    uint64_t last_work = monotonic_ns();
    for (unsigned idle = 0; !stop_.load(std::memory_order_relaxed); ++idle) {
      if (step(net_.driven(monotonic_ns(), driven_hold_ns))) {
        idle = 0;
        last_work = 0;
      } else if (linger_ns_.load(std::memory_order_relaxed) == 0 || (idle & 15) == 15 || program_polls()) {
        // Without a linger the thread sleeps as soon as its rounds find nothing: each round over TCP costs
        // system calls, on a CPU that the PE's own waiting thread usually needs at that moment. So it does
        // while a program thread polls for the same work.
        const uint64_t t = monotonic_ns();
        if (last_work == 0) last_work = t;
        if (t - last_work > linger_ns_.load(std::memory_order_relaxed) || program_polls()) break;
        sched_yield();
      }
    }
    // Said before the last look for work: whoever publishes work after it sees the flag and wakes us.
    set_sleeping(1);
    // While a program thread drives the transport it serves what arrives: the thread then sleeps on its
    // wake-up descriptor only, and looks again after the hold.
    const uint64_t now = monotonic_ns();
    const bool driven = net_.driven(now, driven_hold_ns);
    if ((!driven && !net_.arm()) || step(driven) || stop_.load()) {  // events arrived between progress and arm
      set_sleeping(0);
      continue;
    }
    // A whole hold while a thread drives (its hold begins when it stops), else what is left of the last one.
    const uint64_t left = net_.driving() ? driven_hold_ns : net_.hold_after(now, driven_hold_ns);
    const timespec hold{0, static_cast<long>(std::max<uint64_t>(left, 1))};
    const timespec* timeout = driven ? &hold : nullptr;
    if (driven) {
      // One drive through the whole last timed sleep: sleep until it ends (its driver wakes us).
      const uint64_t drive = net_.drives();
      if (drive == drive_seen && net_.await_drive_end()) timeout = nullptr;
      drive_seen = timeout != nullptr && net_.driving() ? drive : ~0ull;
    } else {
      drive_seen = ~0ull;
    }
    int rc = ppoll(fds, driven ? 1 : 2, timeout, nullptr);
    set_sleeping(0);
    if (driven && timeout == nullptr) net_.end_await();
    if (rc < 0 && errno != EINTR) {
      // Waiters count on this thread while it runs: it goes on, looking every 100 us instead of sleeping.
      if (!poll_failed)
        RDSM_LOG_ERROR("progress", "poll failed: %s; the progress thread looks for work every 100 us instead",
                       std::strerror(errno));
      poll_failed = true;
      const timespec pause{0, 100000};
      nanosleep(&pause, nullptr);
    }
    if (rc > 0 && (fds[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      ssize_t n = read(wake_fd_, &count, sizeof count);
      (void)n;
    }
  }
}

void poll_progress() {
  runtime& rt = runtime::get();
  if (!rt.uses_transport()) return;
  // Calls this close together are a polling loop; a lone call leaves the progress thread as it was.
  constexpr uint64_t loop_gap_ns = 50000;
  thread_local uint64_t last_ns = 0;
  const uint64_t now = monotonic_ns();
  if (now - last_ns < loop_gap_ns) rt.net().drove(now);
  last_ns = now;
  rt.net().progress(false);
}

namespace {
std::atomic<const wait_service*> installed_service{nullptr};
}  // namespace

void set_wait_service(const wait_service* service) { installed_service.store(service, std::memory_order_release); }

backoff::backoff()
    : net_(runtime::get().uses_transport() ? &runtime::get().net() : nullptr),
      threaded_(net_ != nullptr && runtime::get().progress().running()) {}

backoff::~backoff() {
  if (serving_ != nullptr) serving_->end();
  if (net_ != nullptr) net_->drive(driving_, false, last_ns_);
}

void backoff::pause() {
  if (!tried_) {
    tried_ = true;
    const wait_service* service = installed_service.load(std::memory_order_acquire);
    if (service != nullptr && service->begin()) serving_ = service;
  }
  // A round that served the PE's protocol counts as a round of waiting all the same: what this thread waits
  // for is something else.
  if (serving_ != nullptr) (void)serving_->serve();
  if (net_ != nullptr) {
    if (start_ns_ == 0) net_->drive(driving_, true, 0);
    // The main stream at every round, the others now and then (each poll of a TCP worker is a system call,
    // which a ping-pong pays on every message); past 100 us every stream at every round, as a long wait may
    // hold up peers' operations on any of them (a DSM fault's get from this home). A waiter that sleeps
    // between rounds leaves that to the progress thread once the hold is over and that thread watches the
    // worker: polling too, it would spin on the worker's lock while that thread serves a stream of puts (a
    // third of its time).
    if (!threaded_ || net_->driven(last_ns_, driven_hold_ns))
      net_->progress(start_ns_ != 0 && last_ns_ - start_ns_ > every_stream_after_ns);
  }
  // The clock is read every 64 rounds only: spinning stays a handful of instructions per round. A round that
  // drives transport progress costs system calls (microseconds over TCP): 64 of them would hold the core for
  // hundreds of microseconds before the first yield, while the peer that sends what we wait for may need it.
  if (net_ == nullptr && (++spins_ & 63) != 0) {
    cpu_relax();
    return;
  }
  const uint64_t t = monotonic_ns();
  if (start_ns_ == 0) start_ns_ = t;
  last_ns_ = t;
  const bool polls = wait_polls(t - start_ns_);
  if (!polls && serving_ != nullptr) {
    serving_->end();  // about to sleep: the progress thread serves from now on
    serving_ = nullptr;
  }
  // A polling waiter serves what arrives itself; a sleeping one leaves that to the progress thread.
  if (net_ != nullptr) net_->drive(driving_, polls, t);
  watch_tick(t);  // the hang report and the finalize check, from the waiting thread itself
  // Driving the transport, the round's progress is itself a system call: with CPUs to spare, the next round
  // comes at once instead of after a yield.
  if (net_ != nullptr && polls && wait_spins_freely()) return;
  wait_step(t - start_ns_, polls);
}

}  // namespace rdsm::detail
