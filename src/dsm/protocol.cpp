// The sequential protocol, run by the progress thread: requests for faulting threads, the home's directory
// transactions, recalls, invalidations and grants (docs/design/dsm.md has the table).
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
}  // namespace

bool on_service_thread() { return in_service; }

const char* msg_name(msg_kind k) {
  static const char* const names[] = {"read_req", "write_req",  "recall",     "recall_ack",
                                      "inv",      "inv_ack",    "read_grant", "write_grant"};
  return names[static_cast<int>(k)];
}

bool space::service() {
  in_service = true;
  space* s = get();
  return s != nullptr && s->serve();
}

bool space::serve_while_waiting() {
  // The faulting thread, waiting for its grant, does the protocol's work itself when the progress thread
  // is not at it: it sends its own request and applies its own grant, and the fault costs no hand-off
  // to a thread of this PE. It never touches the view, so it cannot fault again here.
  // When another thread holds the state (the progress thread, possibly preempted), this one backs off
  // rather than spinning on the lock.
  if (!has_work()) return false;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  const bool was = in_service;
  in_service = true;
  const bool did = serve_locked();
  in_service = was;
  return did;
}

bool space::has_work() const {
  return inbox_size_.load(std::memory_order_acquire) != 0 || posted_.load(std::memory_order_acquire) != 0 ||
         deferred_size_.load(std::memory_order_acquire) != 0 || channel_->pending();
}

bool space::serve() {
  if (!has_work()) return false;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) {
    // Another thread holds the state: a synchronization call, briefly, or a faulting thread serving its
    // own fault, which may have been preempted on this CPU. Come back, after letting it run: spinning here
    // kept such a thread off the CPU for whole time slices (a sequential-mode fault waited 3 ms and more).
    sched_yield();
    return true;
  }
  return serve_locked();
}

bool space::serve_locked() {
  bool did = false;
  if (!deferred_.empty()) {
    std::deque<incoming> waiting;
    waiting.swap(deferred_);
    for (incoming& in : waiting) dispatch(in);
    did = deferred_.size() < waiting.size();
  }
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
    for (incoming& in : batch) dispatch(in);
  }
  // Faults served at this PE's own home complete through self messages: serve until none is left.
  for (;;) {
    serve_faults();
    if (self_.empty()) break;
    did = true;
    drain_self();
  }
  deferred_size_.store(deferred_.size(), std::memory_order_release);
  return did || !deferred_.empty();
}

void space::dispatch(incoming& in) {
  if (defer(in.from, in.m)) {
    deferred_.push_back(in);
    return;
  }
  handle(in.from, in.m);
  drain_self();
}

void space::drain_self() {
  while (!self_.empty()) {
    const incoming own = self_.front();
    self_.pop_front();
    handle(own.from, own.m);
  }
}

namespace {
// How long a page stays with a thread after it resumed from its fault: enough to return from the signal
// handler and run the faulting instruction. Without it, two PEs writing one page can take it from each
// other again and again before either thread runs (a livelock, not an error).
constexpr uint64_t hold_ns = 20000;
}  // namespace

bool space::must_hold(uint32_t page) const {
  return held_[page].load(std::memory_order_acquire) != 0 ||
         monotonic_ns() - resumed_ns_[page].load(std::memory_order_acquire) < hold_ns;
}

bool space::defer(int from, const message& m) {
  if (m.page >= n_pages_ || from == my_pe_) return false;
  switch (m.kind) {
    case msg_kind::recall:
    case msg_kind::inv: return must_hold(m.page);
    case msg_kind::read_req:
    case msg_kind::write_req:
      // At the home, a peer's request may take the home's own access (a recall of itself, or the drop of
      // its copy).
      return state(m.page) != page_state::invalid && must_hold(m.page);
    default: return false;
  }
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
  if (!in_service) runtime::get().progress().wake();
}

void space::send(int pe, const message& m) {
  RDSM_LOG_TRACE("dsm", "-> PE %d %s page %u", pe, msg_name(m.kind), m.page);
  std::atomic_thread_fence(std::memory_order_release);  // frame writes before the message that announces them
  if (pe == my_pe_ && in_service) {
    self_.push_back({pe, m});
    return;
  }
  if (pe == my_pe_) {
    std::lock_guard<std::mutex> g(inbox_mu_);
    inbox_.push_back({pe, m});
    inbox_size_.fetch_add(1, std::memory_order_release);
  } else if (!channel_->send(pe, m)) {
    status s = runtime::get().net().send_message(pe, &m, sizeof m);
    if (!s.ok()) fatal("dsm: %s", s.message().c_str());
  }
  if (!in_service) runtime::get().progress().wake();
}

void space::handle(int from, const message& m) {
  if (m.page >= n_pages_) fatal("dsm: protocol message for page %u out of range from PE %d", m.page, from);
  RDSM_LOG_TRACE("dsm", "<- PE %d %s page %u", from, msg_name(m.kind), m.page);
  std::atomic_thread_fence(std::memory_order_acquire);
  switch (m.kind) {
    case msg_kind::read_req:
    case msg_kind::write_req: home_request(from, m); break;
    case msg_kind::recall: on_recall(from, m); break;
    case msg_kind::inv: {
      if (state(m.page) == page_state::shared) {
        protect(m.page, 1, page_state::invalid);
        stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
      }
      send(from, message{.kind = msg_kind::inv_ack, .page = m.page});
      break;
    }
    case msg_kind::recall_ack: home_ack(m.page, true); break;
    case msg_kind::inv_ack: home_ack(m.page, false); break;
    case msg_kind::read_grant:
    case msg_kind::write_grant: on_grant(m); break;
  }
}

// ---- requester side ----

bool space::satisfied(uint32_t page, bool write) const {
  const page_state s = state(page);
  return write ? s == page_state::modified : s != page_state::invalid;
}

void space::serve_faults() {
  if (posted_.load(std::memory_order_acquire) == 0) return;
  for (fault_slot& slot : slots_) {
    if (slot.state.load(std::memory_order_acquire) != fault_slot::posted) continue;
    const uint32_t page = slot.page;
    if (!satisfied(page, slot.write) && !pending_[page]) slot.run_end = start_request(page, slot.write);
    if (run_satisfied(slot)) release_waiter(slot);
  }
}

void space::release_waiter(fault_slot& slot) {
  held_[slot.page].fetch_add(1, std::memory_order_acq_rel);
  complete_fault(slot);
  posted_.fetch_sub(1, std::memory_order_release);
}

bool space::run_satisfied(const fault_slot& slot) const {
  // The faulting page allows the access, and the rest of the run asked for with it has come (or was
  // taken again meanwhile): the thread then finds the run mapped instead of faulting on it once more.
  if (!satisfied(slot.page, slot.write)) return false;
  for (uint32_t p = slot.page + 1; p < slot.run_end; ++p)
    if (pending_[p] != 0) return false;
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

uint32_t space::start_request(uint32_t page, bool write) {
  resolve_home(page);
  const int h = home(page);
  const bool take_ownership = write || pages_->advice(page) == RDSM_DSM_MIGRATORY;
  send_request(page, take_ownership);
  // The request also covers the following pages of the same home and advice that this PE accessed the
  // same way before and lost since (up to the prefetch): a halo row read again after its writer took it
  // back, or a home's row written again after its readers copied it. The home answers them in the same
  // wake-up, and their grants are applied as they come, whether or not a thread waits for them. Pages
  // never accessed so are not asked for: another PE would lose them for nothing.
  std::vector<uint8_t>& before = take_ownership ? written_before_ : read_before_;
  before[page] = 1;
  uint32_t end = page + 1;
  if (!take_ownership && h == my_pe_) return end;  // a home reads its own pages without asking
  for (; end < page + prefetch_ && end < n_pages_; ++end) {
    if (home(end) != h || pending_[end] != 0 || before[end] == 0 || pages_->advice(end) != pages_->advice(page) ||
        satisfied(end, take_ownership))
      break;
    send_request(end, take_ownership);
  }
  return end;  // pages [page, end) asked for
}

void space::send_request(uint32_t page, bool take_ownership) {
  message m{.kind = take_ownership ? msg_kind::write_req : msg_kind::read_req, .page = page};
  if (take_ownership) {
    m.current = state(page) == page_state::shared ? 1 : 0;
    m.version = versions_[page];
  }
  pending_[page] = 1;
  send(home(page), m);
}

void space::on_grant(const message& m) {
  const uint32_t page = m.page;
  pending_[page] = 0;
  const bool at_home = home(page) == my_pe_;
  if (m.kind == msg_kind::read_grant) {
    if (!at_home) fetch(page);
    versions_[page] = m.version;
    protect(page, 1, page_state::shared);
    release_waiters(page);
    return;
  }
  if (!at_home && m.current == 0) fetch(page);
  versions_[page] = m.version;
  protect(page, 1, page_state::modified);
  release_waiters(page);
}

void space::on_recall(int from, const message& m) {
  const uint32_t page = m.page;
  const page_state s = state(page);
  if (s == page_state::modified) {
    // Access goes first, so no store slips in after the copy; then the copy reaches the home.
    protect(page, 1, m.keep_shared != 0 ? page_state::shared : page_state::invalid);
    if (home(page) != my_pe_) write_back(page);
  } else if (m.keep_shared == 0 && s == page_state::shared) {
    protect(page, 1, page_state::invalid);
  }
  if (m.keep_shared == 0 && s != page_state::invalid) stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
  send(from, message{.kind = msg_kind::recall_ack, .page = page});
}

// ---- home side ----

void space::home_request(int from, const message& m) {
  stats_.requests_served.fetch_add(1, std::memory_order_relaxed);
  request r{m.kind, from, m.version, m.current != 0};
  auto it = busy_.find(m.page);
  if (it != busy_.end()) {
    queued_[m.page].push_back(r);
    return;
  }
  busy_[m.page] = transaction{r};
  home_begin(m.page);
}

void space::home_begin(uint32_t page) {
  transaction& t = busy_[page];
  const int from = t.req.from;
  const int32_t o = owner_[page];
  if (o >= 0 && o != from) {
    send(o, message{.kind = msg_kind::recall, .keep_shared = t.req.kind == msg_kind::read_req, .page = page});
    ++t.acks;
    t.recalled = true;
  }
  if (t.req.kind == msg_kind::write_req && from != my_pe_ && state(page) == page_state::shared) {
    // The home's copy is its frame, which the new owner's writes bypass until they come back by a recall:
    // the home drops its own access here, so a readable home page is always current.
    protect(page, 1, page_state::invalid);
    set_sharer(page, my_pe_, false);
    stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
  }
  if (t.req.kind == msg_kind::write_req) {
    for (int pe = 0; pe < n_pes_; ++pe)
      if (pe != from && pe != o && is_sharer(page, pe)) {
        send(pe, message{.kind = msg_kind::inv, .page = page});
        ++t.acks;
      }
  }
  if (t.acks == 0) home_complete(page);
}

void space::home_ack(uint32_t page, bool bump) {
  auto it = busy_.find(page);
  if (it == busy_.end()) fatal("dsm: acknowledgement for page %u without a transaction (protocol error)", page);
  if (bump) ++dir_version_[page];  // the owner's writes are in the home's frame now
  if (--it->second.acks == 0) home_complete(page);
}

void space::home_complete(uint32_t page) {
  const transaction t = busy_[page];
  busy_.erase(page);
  const int from = t.req.from;
  if (t.req.kind == msg_kind::read_req) {
    if (t.recalled) {
      set_sharer(page, owner_[page], true);
      owner_[page] = no_pe;
    }
    set_sharer(page, from, true);
    send(from, message{.kind = msg_kind::read_grant, .page = page, .version = dir_version_[page]});
  } else {
    clear_sharers(page);  // they were invalidated
    message g{.kind = msg_kind::write_grant, .page = page, .version = dir_version_[page]};
    g.current = t.req.has_copy && t.req.version == dir_version_[page] ? 1 : 0;
    owner_[page] = from;
    send(from, g);
  }
  auto q = queued_.find(page);
  if (q != queued_.end()) {
    request next = q->second.front();
    q->second.pop_front();
    if (q->second.empty()) queued_.erase(q);
    busy_[page] = transaction{next};
    home_begin(page);
  }
}

// ---- data movement and protection ----

void space::fetch(uint32_t page) {
  runtime& rt = runtime::get();
  const int h = home(page);
  const sym_addr at{dsm_region, static_cast<uint64_t>(page) << shift_};
  if (void* src = rt.mapped(at, h)) {
    std::atomic_thread_fence(std::memory_order_acquire);
    std::memcpy(frame(page), src, page_size_);
  } else {
    status s = rt.net().get(stream_, dsm_region, h, rt.remote_addr(at, h), frame(page), page_size_, false);
    if (!s.ok()) fatal("dsm: fetching page %u from PE %d: %s", page, h, s.message().c_str());
    after_dma_write({frame(page), page_size_});
  }
  stats_.fetches.fetch_add(1, std::memory_order_relaxed);
}

void space::write_back(uint32_t page) {
  runtime& rt = runtime::get();
  const int h = home(page);
  const sym_addr at{dsm_region, static_cast<uint64_t>(page) << shift_};
  if (void* dst = rt.mapped(at, h)) {
    std::memcpy(dst, frame(page), page_size_);
    std::atomic_thread_fence(std::memory_order_release);
  } else {
    before_dma_read({frame(page), page_size_});
    status s = rt.net().put(stream_, dsm_region, h, rt.remote_addr(at, h), frame(page), page_size_, false);
    if (s.ok()) s = rt.net().quiet(stream_);
    if (!s.ok()) fatal("dsm: writing page %u back to PE %d: %s", page, h, s.message().c_str());
  }
  stats_.write_backs.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace rdsm::detail::dsm
