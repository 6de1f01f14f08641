// The sequential protocol's service (the protocol itself is sequential.cpp): the progress thread, or a
// waiting faulting thread, takes the messages that arrived and the faults posted, hands them to the
// protocol, and carries its messages and page copies (the protocol's port).
#include <sched.h>
#include <sys/mman.h>

#include <cstring>

#include "cachectl/cachectl.hpp"
#include "common/cpu.hpp"
#include "common/log.hpp"
#include "core/runtime.hpp"
#include "dsm/dsm.hpp"
#include "dsm/fault.hpp"

namespace rdsm::detail::dsm {

namespace {
// Set in the progress thread: its own messages need no wake-up, and it must never fault on the view.
thread_local bool in_service __attribute__((tls_model("initial-exec"))) = false;
// Set in a program thread while its wait serves the protocol: what it receives needs no wake-up either.
thread_local bool waiting_server __attribute__((tls_model("initial-exec"))) = false;
}  // namespace

thread_local const state_mutex* state_mutex::holder_ __attribute__((tls_model("initial-exec"))) = nullptr;

bool on_service_thread() { return in_service; }

// A program thread waiting in the runtime (a barrier, a lock, a wait on memory) serves the protocol as a
// faulting thread does while it waits for its grant: its same-host peers then leave the progress thread
// asleep, and a request (a recall, an invalidation) costs this PE no wake-up (25-35 us on the VM measured),
// nor a third thread on two CPUs. Only where faulting threads poll (not oversubscribed), and never under
// the state lock or within the service itself.
const wait_service space::waiting_service{
    .begin =
        [] {
          space* s = get();
          if (s == nullptr || !s->poll_ || in_service || waiting_server || s->mu_.held_here()) return false;
          s->channel_->start_polling();
          waiting_server = true;
          return true;
        },
    .serve =
        [] {
          space* s = get();
          if (s == nullptr || !s->serve_while_waiting()) return false;
          s->stats_.waits_served.fetch_add(1, std::memory_order_relaxed);
          return true;
        },
    .end =
        [] {
          waiting_server = false;
          if (space* s = get()) s->stop_polling_hand_over();
        },
};

bool space::service() {
  in_service = true;
  space* s = get();
  if (s == nullptr || !s->serve()) return false;
  // A faulting thread released just now most likely waits on this CPU (a PE's threads share it): let it
  // run at once rather than after this thread's next rounds of looking for work.
  if (s->released_.exchange(false, std::memory_order_relaxed)) sched_yield();
  return true;
}

bool space::serve_while_waiting() {
  // The faulting thread, waiting for its grant, does the protocol's work itself when the progress thread
  // is not at it: it sends its own request and applies its own grant, and the fault costs no hand-off
  // to a thread of this PE. It never touches the view, so it cannot fault again here.
  // When another thread holds the state (the progress thread, possibly preempted), this one backs off
  // rather than spinning on the lock.
  if (!has_work()) return false;
  std::unique_lock<state_mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  const bool was = in_service;
  in_service = true;
  const bool did = serve_locked();
  in_service = was;
  return did;
}

void space::stop_polling_hand_over() {
  const bool mail = channel_->stop_polling();
  if (mail || has_work()) runtime::get().progress().wake();
}

bool space::has_work() const {
  return inbox_size_.load(std::memory_order_acquire) != 0 || posted_.load(std::memory_order_acquire) != 0 ||
         deferred_size_.load(std::memory_order_acquire) != 0 || channel_->pending();
}

bool space::serve() {
  if (!has_work()) return false;
  std::unique_lock<state_mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) {
    // Another thread holds the state: a synchronization call, briefly, or a faulting thread serving its
    // own fault, which may have been preempted on this CPU. Come back, after letting it run: spinning here
    // kept such a thread off the CPU for whole time slices (a sequential-mode fault waited 3 ms and more).
    sched_yield();
    return true;
  }
  // Messages kept for later count as work: the thread keeps looking until they can be handled.
  return serve_locked() || seq_->deferred() != 0;
}

bool space::serve_locked() {
  // The round's protections are gathered into runs (page_table::gather) and applied at its end, before
  // the messages that announce them go out.
  pages_->gather(true);
  bool did = seq_->retry_deferred();
  for (;;) {
    std::deque<incoming> batch;
    {
      std::lock_guard<std::mutex> g(inbox_mu_);
      batch.swap(inbox_);
      inbox_size_.store(0, std::memory_order_release);
    }
    channel_->receive(batch);
    if (batch.empty()) break;
    did = true;
    for (const incoming& in : batch) seq_->receive(in.from, in.m);
  }
  return end_round() || did;
}

bool space::end_round() {
  // Faults served at this PE's own home complete through self messages: serve until none is left.
  bool did = false;
  for (;;) {
    serve_faults();
    if (!seq_->drain_self()) break;
    did = true;
  }
  flush_protections();
  pages_->gather(false);
  deferred_size_.store(seq_->deferred(), std::memory_order_release);
  return did;
}

void space::hand_over_locked(int to) {
  // The pages' protections change in one round, before the messages that tell their homes leave; a
  // hand-over to this PE's own home is handled here, so its grant leaves before the lock does.
  pages_->gather(true);
  seq_->hand_over(to);
  end_round();
}

void space::on_message(int from, const void* data, size_t n) {
  if (n != sizeof(message)) fatal("dsm: malformed protocol message of %zu bytes from PE %d", n, from);
  incoming in{from, {}};
  std::memcpy(&in.m, data, sizeof in.m);
  {
    std::lock_guard<std::mutex> g(inbox_mu_);
    inbox_.push_back(in);
    inbox_size_.fetch_add(1, std::memory_order_release);
  }
  if (!in_service && !waiting_server) runtime::get().progress().wake();
}

void space::send(int pe, const message& m) {
  // A grant or an acknowledgement promises that this PE's protection changed: it waits for the gathered
  // protections, and every later message waits behind it.
  if (pages_->gathered() || !outbox_.empty()) {
    outbox_.emplace_back(pe, m);
    return;
  }
  transmit(pe, m);
}

void space::flush_protections() {
  pages_->flush();
  while (!outbox_.empty()) {
    const auto [pe, m] = outbox_.front();
    outbox_.pop_front();
    transmit(pe, m);
  }
}

void space::transmit(int pe, const message& m) {
  RDSM_LOG_TRACE("dsm", "-> PE %d %s page %u", pe, msg_name(m.kind), m.page);
  std::atomic_thread_fence(std::memory_order_release);  // frame writes before the message that announces them
  if (!channel_->send(pe, m)) {
    status s = runtime::get().net().send_message(pe, &m, sizeof m);
    if (!s.ok()) fatal("dsm: %s", s.message().c_str());
  }
}

void space::granted(uint32_t page) { release_waiters(page); }

void space::serve_faults() {
  if (posted_.load(std::memory_order_acquire) == 0) return;
  for (fault_slot& slot : slots_) {
    if (slot.state.load(std::memory_order_acquire) != fault_slot::posted) continue;
    const uint32_t page = slot.page;
    if (!seq_->satisfied(page, slot.write) && !seq_->pending(page) && !(slot.write && seq_->upgrade(page)))
      slot.run_end = seq_->start_request(page, slot.write);
    if (run_satisfied(slot)) release_waiter(slot);
  }
}

void space::release_waiter(fault_slot& slot) {
  flush_protections();  // the thread finds its run open
  seq_->hold(slot.page);
  complete_fault(slot);
  released_.store(true, std::memory_order_relaxed);
  posted_.fetch_sub(1, std::memory_order_release);
}

bool space::run_satisfied(const fault_slot& slot) const {
  // The faulting page allows the access, and the rest of the run asked for with it has come (or was
  // taken again meanwhile): the thread then finds the run mapped instead of faulting on it once more.
  if (!seq_->satisfied(slot.page, slot.write)) return false;
  for (uint32_t p = slot.page + 1; p < slot.run_end; ++p)
    if (seq_->pending(p)) return false;
  return true;
}

void space::release_waiters(uint32_t page) {
  // Right at the grant, before any further message may take the page again: the threads get it first.
  if (posted_.load(std::memory_order_acquire) == 0) return;
  for (fault_slot& slot : slots_)
    if (slot.state.load(std::memory_order_acquire) == fault_slot::posted && slot.page <= page &&
        page < slot.run_end && run_satisfied(slot))
      release_waiter(slot);
}

// ---- data movement and protection ----

void space::fetch(uint32_t page) {
  if (pages_->from_home(page) || (links_homes_ && mem_->near(home(page)) && link_home_run(page))) {
    // The copy is the home's frame itself: nothing moves, ever (the protections keep a single writer).
    stats_.fetches.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  copy_in(page);
}

void space::copy_in(uint32_t page) {
  if (pages_->gathered(page, 1)) flush_protections();
  if (pages_->copied_before(page, page_table::copy_in))
    mem_->read(home(page), frame_offset(page), frame(page), page_size_);
  else
    mem_->read_first(home(page), frame_offset(page), frame(page), page_size_);
  stats_.fetches.fetch_add(1, std::memory_order_relaxed);
}

bool space::link_home_run(uint32_t page) {
  // The invalid pages around this one with the same home, none of them private, gathered or already
  // mapped so, take one mapping: their later faults cost a protection change each, no mapping.
  const int32_t h = home(page);
  auto joins = [&](uint32_t p) {
    return pages_->home(p) == h && pages_->state(p) == page_state::invalid && !pages_->from_home(p) &&
           pages_->advice(p) != RDSM_DSM_PRIVATE && !pages_->gathered(p, 1);
  };
  if (!joins(page)) return false;
  uint32_t first = page, end = page + 1;
  while (first > 0 && joins(first - 1)) --first;
  while (end < n_pages_ && joins(end)) ++end;
  return pages_->link_home(first, end - first, mem_->file(h));
}

bool space::home_near(uint32_t page) const { return mem_->near(home(page)); }

void space::opening_on_guess(uint32_t page) {
  // A linked copy is the home's frame: its snapshot goes into this PE's own frame, unused otherwise.
  if (pages_->from_home(page)) std::memcpy(frame(page), mem_->at(home(page), frame_offset(page)), page_size_);
}

bool space::written_since_opened(uint32_t page) {
  // A linked copy's snapshot is in this PE's own frame; a copy of its own started equal to the home's frame.
  const char* home_frame = mem_->at(home(page), frame_offset(page));
  return home_frame == nullptr || std::memcmp(home_frame, frame(page), page_size_) != 0;
}

bool space::write_back_changed(uint32_t page) {
  if (pages_->gathered(page, 1)) flush_protections();  // no store slips in after the comparison
  if (!written_since_opened(page)) return false;
  write_back(page);  // (nothing moves for a linked copy)
  return true;
}

void space::write_back(uint32_t page) {
  if (pages_->from_home(page)) return;  // the writes went to the home's frame
  if (pages_->gathered(page, 1)) flush_protections();  // no store slips in after the copy
  runtime& rt = runtime::get();
  const int h = home(page);
  const sym_addr at{dsm_region, static_cast<uint64_t>(page) << shift_};
  if (char* dst = mem_->at(h, frame_offset(page))) {
    if (pages_->copied_before(page, page_table::copy_out) || !mem_->write_first(h, frame_offset(page), page_size_)) {
      std::memcpy(dst, frame(page), page_size_);
      std::atomic_thread_fence(std::memory_order_release);
    }
  } else {
    before_dma_read({frame(page), page_size_});
    status s = rt.net().put(stream_, dsm_region, h, rt.remote_addr(at, h), frame(page), page_size_, false);
    if (s.ok()) s = rt.net().quiet(stream_);
    if (!s.ok()) fatal("dsm: writing page %u back to PE %d: %s", page, h, s.message().c_str());
  }
  stats_.write_backs.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace rdsm::detail::dsm
