// The sequential protocol (sequential.hpp): requests, the home's directory transactions, recalls,
// invalidations and grants.
#include "dsm/sequential.hpp"

#include <algorithm>

#include "common/cpu.hpp"
#include "common/log.hpp"
#include "rdsm/dsm.h"

namespace rdsm::detail::dsm {

const char* msg_name(msg_kind k) {
  static const char* const names[] = {"read_req", "write_req",  "recall",     "recall_ack",
                                      "inv",      "inv_ack",    "read_grant", "write_grant",
                                      "hand_over"};
  return names[static_cast<int>(k)];
}

sequential_protocol::sequential_protocol(page_table& pages, sequential_port& port, int my_pe, int n_pes,
                                         uint32_t prefetch, counters& stats)
    : pages_(pages),
      port_(port),
      my_pe_(my_pe),
      n_pes_(n_pes),
      prefetch_(prefetch),
      stats_(stats),
      versions_(pages.pages(), 0),
      pending_(pages.pages(), 0),
      read_before_(pages.pages(), 0),
      written_before_(pages.pages(), 0),
      rmw_(pages.pages(), 0),
      asked_read_(pages.pages(), 0),
      guess_(pages.pages(), not_guessed),
      owner_(pages.pages(), no_pe),
      dir_version_(pages.pages(), 0),
      words_((static_cast<size_t>(n_pes) + 63) / 64),
      held_(std::make_unique<std::atomic<uint32_t>[]>(pages.pages())),
      resumed_ns_(std::make_unique<std::atomic<uint64_t>[]>(pages.pages())) {
  sharers_.assign(static_cast<size_t>(pages.pages()) * words_, 0);
}

void sequential_protocol::receive(int from, const message& m) {
  if (defer(from, m)) {
    deferred_.push_back({from, m});
    return;
  }
  handle(from, m);
  drain_self();
}

bool sequential_protocol::drain_self() {
  const bool any = !self_.empty();
  while (!self_.empty()) {
    const incoming own = self_.front();
    self_.pop_front();
    handle(own.from, own.m);
  }
  return any;
}

bool sequential_protocol::retry_deferred() {
  if (deferred_.empty()) return false;
  std::deque<incoming> waiting;
  waiting.swap(deferred_);
  for (const incoming& in : waiting) receive(in.from, in.m);
  return deferred_.size() < waiting.size();
}

void sequential_protocol::resumed(uint32_t page, uint64_t now_ns) {
  resumed_ns_[page].store(now_ns, std::memory_order_release);
  held_[page].fetch_sub(1, std::memory_order_acq_rel);
}

void sequential_protocol::reset(uint32_t page, bool owned) {
  versions_[page] = 0;
  pending_[page] = 0;
  read_before_[page] = written_before_[page] = 0;
  rmw_[page] = asked_read_[page] = 0;
  guess_[page] = not_guessed;
  dir_version_[page] = 0;
  clear_sharers(page);
  owner_[page] = owned ? my_pe_ : no_pe;
}

void sequential_protocol::forget(uint32_t page, bool bump) {
  guess_[page] = not_guessed;
  owner_[page] = no_pe;
  clear_sharers(page);
  if (bump) ++dir_version_[page];
}

void sequential_protocol::send(int pe, const message& m) {
  if (pe == my_pe_) self_.push_back({pe, m});
  else port_.send(pe, m);
}

bool sequential_protocol::is_sharer(uint32_t page, int pe) const {
  return (sharers_[page * words_ + static_cast<size_t>(pe) / 64] >> (pe % 64) & 1) != 0;
}

void sequential_protocol::set_sharer(uint32_t page, int pe, bool on) {
  uint64_t& w = sharers_[page * words_ + static_cast<size_t>(pe) / 64];
  const uint64_t bit = uint64_t{1} << (pe % 64);
  w = on ? (w | bit) : (w & ~bit);
}

void sequential_protocol::clear_sharers(uint32_t page) {
  std::fill_n(sharers_.begin() + static_cast<ptrdiff_t>(page * words_), words_, 0);
}

namespace {
// How long a page stays with a thread after it resumed from its fault (until then, held_ keeps it): enough
// to return from the signal handler and run the faulting instruction, 1-3 us here. Without it, two PEs
// writing one page can take it from each other again and again before either thread runs (a livelock, not
// an error). Every request for the page waits this long after the grant, so it is the lock hand-off's
// floor: 20 us made a locked histogram's hand-off 39-40 us, 5 us 22-27 us.
constexpr uint64_t hold_ns = 5000;
}  // namespace

bool sequential_protocol::must_hold(uint32_t page) const {
  return held_[page].load(std::memory_order_acquire) != 0 ||
         monotonic_ns() - resumed_ns_[page].load(std::memory_order_acquire) < hold_ns;
}

bool sequential_protocol::defer(int from, const message& m) const {
  if (m.page >= pages_.pages() || from == my_pe_) return false;
  switch (m.kind) {
    case msg_kind::recall:
    case msg_kind::inv: return must_hold(m.page);
    case msg_kind::read_req:
    case msg_kind::write_req:
      // At the home, a peer's request may take the home's own access (a recall of itself, or the drop of
      // its copy).
      return pages_.state(m.page) != page_state::invalid && must_hold(m.page);
    default: return false;
  }
}

void sequential_protocol::handle(int from, const message& m) {
  if (m.page >= pages_.pages()) fatal("dsm: protocol message for page %u out of range from PE %d", m.page, from);
  RDSM_LOG_TRACE("dsm", "<- PE %d %s page %u", from, msg_name(m.kind), m.page);
  std::atomic_thread_fence(std::memory_order_acquire);
  switch (m.kind) {
    case msg_kind::read_req:
    case msg_kind::write_req:
    case msg_kind::hand_over: home_request(from, m); break;
    case msg_kind::recall: on_recall(from, m); break;
    case msg_kind::inv: {
      guess_[m.page] = not_guessed;  // (an owner is recalled, never invalidated: for safety only)
      if (pages_.state(m.page) == page_state::shared) {
        pages_.protect(m.page, 1, page_state::invalid);
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

bool sequential_protocol::satisfied(uint32_t page, bool write) const {
  const page_state s = pages_.state(page);
  return write ? s == page_state::modified : s != page_state::invalid;
}

uint32_t sequential_protocol::start_request(uint32_t page, bool write) {
  port_.resolve_home(page);
  const int h = pages_.home(page);
  const bool migratory = pages_.advice(page) == RDSM_DSM_MIGRATORY;
  if (write && pages_.state(page) == page_state::shared) rmw_[page] = 1;  // it read, now it writes
  const bool exclusive_read = !write && !migratory && rmw_[page] != 0;
  const bool take_ownership = write || migratory || exclusive_read;
  asked_read_[page] = exclusive_read ? 1 : 0;
  send_request(page, take_ownership);
  if (exclusive_read) {
    read_before_[page] = 1;
    return page + 1;  // the guess covers this page only
  }
  // The request also covers the following pages of the same home and advice that this PE accessed the
  // same way before and lost since (up to the prefetch): a halo row read again after its writer took it
  // back, or a home's row written again after its readers copied it. The home answers them in the same
  // wake-up, and their grants are applied as they come, whether or not a thread waits for them. Pages
  // never accessed so are not asked for: another PE would lose them for nothing.
  std::vector<uint8_t>& before = take_ownership ? written_before_ : read_before_;
  before[page] = 1;
  uint32_t end = page + 1;
  if (!take_ownership && h == my_pe_) return end;  // a home reads its own pages without asking
  for (; end < page + prefetch_ && end < pages_.pages(); ++end) {
    if (pages_.home(end) != h || pending_[end] != 0 || before[end] == 0 || pages_.advice(end) != pages_.advice(page) ||
        satisfied(end, take_ownership))
      break;
    send_request(end, take_ownership);
  }
  return end;  // pages [page, end) asked for
}

void sequential_protocol::send_request(uint32_t page, bool take_ownership) {
  message m{.kind = take_ownership ? msg_kind::write_req : msg_kind::read_req, .page = page};
  if (take_ownership) {
    m.current = pages_.state(page) == page_state::shared ? 1 : 0;
    m.version = versions_[page];
  }
  pending_[page] = 1;
  send(pages_.home(page), m);
}

void sequential_protocol::on_grant(const message& m) {
  const uint32_t page = m.page;
  // A page handed over with a lock answers no request of this PE: one of its own may still be on its way
  // (the home answers it as a request of the owner), and until its grant comes the page stays here
  // (hand_over skips pages with a request out, whose grant would otherwise find them given away).
  const bool handed = m.handed != 0;
  if (!handed) pending_[page] = 0;
  const bool at_home = pages_.home(page) == my_pe_;
  if (m.kind == msg_kind::read_grant) {
    guess_[page] = not_guessed;
    asked_read_[page] = 0;
    if (!at_home) port_.fetch(page);
    versions_[page] = m.version;
    pages_.protect(page, 1, page_state::shared);
    port_.granted(page);
    return;
  }
  if (pages_.state(page) == page_state::modified) {
    // The grant of a request of this PE, which a hand-over made the owner before the home answered it: the
    // page may be written since (its guess, if opened, still tells), so it stays as it is. Held exclusive
    // instead, a recall would take it without its writes.
    if (!handed) asked_read_[page] = 0;
    versions_[page] = m.version;
    port_.granted(page);
    return;
  }
  if (!at_home && m.current == 0) port_.fetch(page);
  // A page another writer changed since this PE's copy, taken while a thread of this PE holds a DSM lock,
  // or handed over with the lock, may go on with the lock (hand_over).
  if (handed || (noting_ && m.version != versions_[page])) note(page);
  versions_[page] = m.version;
  // Asked for by a read (read-modify-write), or handed over with a lock, not asked for at all. With the home
  // on this host the page opens writable at once: the write that follows needs no fault, and should it not
  // come, the recall finds the page equal to the home's copy. Otherwise it stays read-only until this PE
  // writes (upgrade), so that a recall knows without a copy.
  // A home opens a page handed to it at once too: it has nothing to write back, and its next hand-over
  // passes the page on as written (one hop at most for a page nobody writes: the next PE compares).
  if (asked_read_[page] == 0 && !handed)
    guess_[page] = not_guessed;
  else if (at_home ? handed : port_.home_near(page))
    guess_[page] = guessed_open;
  else
    guess_[page] = guessed_read_only;
  if (guess_[page] == guessed_open) port_.opening_on_guess(page);
  if (!handed) asked_read_[page] = 0;
  pages_.protect(page, 1, guess_[page] == guessed_read_only ? page_state::shared : page_state::modified);
  port_.granted(page);
}

bool sequential_protocol::upgrade(uint32_t page) {
  if (guess_[page] != guessed_read_only || pages_.state(page) != page_state::shared) return false;
  guess_[page] = not_guessed;
  pages_.protect(page, 1, page_state::modified);
  return true;
}

void sequential_protocol::on_recall(int from, const message& m) {
  const uint32_t page = m.page;
  const page_state s = pages_.state(page);
  const uint8_t guess = guess_[page];
  guess_[page] = not_guessed;
  // Owned read-only: never written, nothing to write back, and the read was not followed by a write after all.
  if (guess == guessed_read_only) rmw_[page] = 0;
  if (s == page_state::modified) {
    // Access goes first, so no store slips in after the copy; then the copy reaches the home.
    pages_.protect(page, 1, m.keep_shared != 0 ? page_state::shared : page_state::invalid);
    if (pages_.home(page) != my_pe_) {
      if (guess != guessed_open)
        port_.write_back(page);
      else if (!port_.write_back_changed(page))
        rmw_[page] = 0;  // opened writable for a write that did not come
    }
  } else if (m.keep_shared == 0 && s == page_state::shared) {
    pages_.protect(page, 1, page_state::invalid);
  }
  if (m.keep_shared == 0 && s != page_state::invalid) stats_.invalidations.fetch_add(1, std::memory_order_relaxed);
  send(from, message{.kind = msg_kind::recall_ack, .page = page});
}

// ---- lock hand-offs ----

namespace {
// Pages that go on with one lock hand-off at most: a lock guards a few pages (a histogram's bins, a queue's
// head); more would make every hand-off a long run of protections for pages the next holder may not touch.
constexpr size_t hand_over_max = 8;
}  // namespace

void sequential_protocol::note(uint32_t page) {
  if (handing_.size() < hand_over_max && std::find(handing_.begin(), handing_.end(), page) == handing_.end())
    handing_.push_back(page);
}

size_t sequential_protocol::hand_over(int to) {
  noting_ = false;
  size_t n = 0;
  for (const uint32_t page : handing_) {
    if (to == no_pe || pages_.state(page) != page_state::modified || pending_[page] != 0 ||
        held_[page].load(std::memory_order_acquire) != 0)
      continue;  // not written here (exclusive, or taken away since), or wanted by a thread of this PE now
    const bool home = pages_.home(page) == my_pe_;
    // Opened on a guess and never written: the next holder would not want it either.
    if (guess_[page] == guessed_open && !home && !port_.written_since_opened(page)) continue;
    guess_[page] = not_guessed;
    // Access goes first, so no store slips in after the copy; then the copy reaches the home.
    pages_.protect(page, 1, page_state::invalid);
    if (!home) port_.write_back(page);
    send(pages_.home(page), message{.kind = msg_kind::hand_over,
                                    .page = page,
                                    .version = versions_[page],
                                    .to = static_cast<uint32_t>(to)});
    ++n;
  }
  handing_.clear();
  return n;
}

// ---- home side ----

void sequential_protocol::home_request(int from, const message& m) {
  stats_.requests_served.fetch_add(1, std::memory_order_relaxed);
  request r{m.kind, from, m.version, m.current != 0};
  if (m.kind == msg_kind::hand_over) {
    if (m.to >= static_cast<uint32_t>(n_pes_))
      fatal("dsm: hand_over of page %u to PE %u from PE %d: no such PE (protocol error)", m.page, m.to, from);
    r = request{msg_kind::write_req, static_cast<int>(m.to), m.version, false, from};  // (version: the sender's)
  }
  auto it = busy_.find(m.page);
  if (it != busy_.end()) {
    queued_[m.page].push_back(r);
    return;
  }
  busy_[m.page] = transaction{r};
  home_begin(m.page);
}

void sequential_protocol::home_begin(uint32_t page) {
  transaction& t = busy_[page];
  if (t.req.handed_by != no_pe) {
    // A hand-over: its sender gave the page up and wrote it back before telling. Unless the page was
    // taken from it since (the hand-over raced with a recall, which found it without access; the sender
    // may even own it again, from a later grant: then the version differs, since every change of owner
    // bumps it), it goes to the next holder of the lock as if that PE had asked for it.
    if (owner_[page] != t.req.handed_by || dir_version_[page] != t.req.version) {
      home_next(page);
      return;
    }
    owner_[page] = no_pe;
    ++dir_version_[page];
  }
  const int from = t.req.from;
  const int32_t o = owner_[page];
  if (o >= 0 && o != from) {
    send(o, message{.kind = msg_kind::recall, .keep_shared = t.req.kind == msg_kind::read_req, .page = page});
    ++t.acks;
    t.recalled = true;
  }
  if (t.req.kind == msg_kind::write_req && from != my_pe_ && pages_.state(page) == page_state::shared &&
      pending_[page] == 0) {
    // The home's copy is its frame, which the new owner's writes bypass until they come back by a recall:
    // the home drops its own access here, so a readable home page is always current. Not with a request
    // of its own out (a page handed over with a lock came first): the grant of that request, queued to
    // itself, would open the page again after this; the home is then invalidated as any sharer is, by a
    // message that follows its grant.
    pages_.protect(page, 1, page_state::invalid);
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

void sequential_protocol::home_ack(uint32_t page, bool bump) {
  auto it = busy_.find(page);
  if (it == busy_.end()) fatal("dsm: acknowledgement for page %u without a transaction (protocol error)", page);
  if (bump) ++dir_version_[page];  // the owner's writes are in the home's frame now
  if (--it->second.acks == 0) home_complete(page);
}

void sequential_protocol::home_complete(uint32_t page) {
  const transaction t = busy_[page];
  const int from = t.req.from;
  // A request from the page's owner (it asked before a hand-over made it the owner) keeps it the owner,
  // with its copy, the newest there is.
  const bool from_owner = owner_[page] == from;
  if (t.req.kind == msg_kind::read_req && !from_owner) {
    if (t.recalled) {
      set_sharer(page, owner_[page], true);
      owner_[page] = no_pe;
    }
    set_sharer(page, from, true);
    send(from, message{.kind = msg_kind::read_grant, .page = page, .version = dir_version_[page]});
  } else {
    clear_sharers(page);  // they were invalidated
    message g{.kind = msg_kind::write_grant, .page = page, .version = dir_version_[page]};
    g.current = from_owner || (t.req.has_copy && t.req.version == dir_version_[page]) ? 1 : 0;
    g.handed = t.req.handed_by != no_pe ? 1 : 0;
    owner_[page] = from;
    send(from, g);
  }
  home_next(page);
}

void sequential_protocol::home_next(uint32_t page) {
  busy_.erase(page);
  auto q = queued_.find(page);
  if (q != queued_.end()) {
    request next = q->second.front();
    q->second.pop_front();
    if (q->second.empty()) queued_.erase(q);
    busy_[page] = transaction{next};
    home_begin(page);
  }
}

}  // namespace rdsm::detail::dsm
