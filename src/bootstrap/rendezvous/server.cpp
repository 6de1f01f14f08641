// The rendezvous server: one poll() loop, non-blocking sockets with per-connection buffers.
#include "bootstrap/rendezvous/server.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/log.hpp"

namespace rdsm::detail::rdv {

using clock = std::chrono::steady_clock;

struct server::conn {
  unique_fd fd;
  std::string in, out;
  std::string peer;
  int rank = -1;         // -1 until the hello is accepted
  bool closing = false;  // refused: close once `out` is written
  bool dead = false;
  clock::time_point hello_deadline;
};

void server_listener::on_refused(const std::string& peer, const std::string& why) {
  RDSM_LOG_WARN("boot", "refused a rendezvous connection from %s: %s", peer.c_str(), why.c_str());
}

void server_listener::on_warning(const std::string& line) { RDSM_LOG_WARN("boot", "%s", line.c_str()); }

bool rate_limiter::admit(clock::time_point now) {
  if (suppressed_ == 0 && now - start_ >= interval_) {  // a quiet interval passed: a new burst is allowed
    start_ = now;
    shown_ = 0;
  }
  if (shown_ < burst_) {
    ++shown_;
    return true;
  }
  ++suppressed_;
  return false;
}

uint64_t rate_limiter::due(clock::time_point now) {
  if (suppressed_ == 0 || now - start_ < interval_) return 0;
  // The count is reported; while the flood goes on, the next interval again reports only its count.
  start_ = now;
  shown_ = burst_;
  return std::exchange(suppressed_, 0);
}

uint64_t rate_limiter::take() { return std::exchange(suppressed_, 0); }

std::optional<rate_limiter::clock::time_point> rate_limiter::deadline() const {
  if (suppressed_ == 0) return std::nullopt;
  return start_ + interval_;
}

result<std::unique_ptr<server>> server::create(const std::string& host, uint16_t port, server_options opts,
                                               server_listener* listener) {
  auto fd = listen_tcp(host, port);
  if (!fd.ok()) return fd.error();
  return std::unique_ptr<server>(new server(fd.take(), std::move(opts), listener));
}

server::server(unique_fd listen_fd, server_options opts, server_listener* listener)
    : listen_fd_(std::move(listen_fd)), opts_(std::move(opts)), listener_(listener) {
  static server_listener default_listener;
  if (listener_ == nullptr) listener_ = &default_listener;
  port_ = local_port(listen_fd_.get());
  auto n = static_cast<size_t>(opts_.size);
  by_rank_.assign(n, nullptr);
  connected_ever_.assign(n, false);
  finalized_.assign(n, false);
  parts_.assign(n, {});
  have_.assign(n, false);
  created_ = clock::now();
  max_strangers_ = static_cast<size_t>(opts_.max_strangers > 0 ? opts_.max_strangers : opts_.size + 64);
  reserve_fd_ = unique_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
}

server::~server() = default;

size_t server::add_pollfds(std::vector<pollfd>& fds) {
  polled_.clear();
  bool paused = listen_paused_until_ && clock::now() < *listen_paused_until_;
  fds.push_back({listen_fd_.get(), static_cast<short>(paused ? 0 : POLLIN), 0});
  for (auto& c : conns_) {
    short events = c->closing ? 0 : POLLIN;
    if (!c->out.empty()) events |= POLLOUT;
    fds.push_back({c->fd.get(), events, 0});
    polled_.push_back(c.get());
  }
  return polled_.size() + 1;
}

int server::poll_timeout_ms() const {
  auto now = clock::now();
  std::optional<clock::time_point> next;
  for (const auto& c : conns_)
    if (c->rank < 0 && (!next || c->hello_deadline < *next)) next = c->hello_deadline;
  if (opts_.join_timeout_ms > 0 && !joined_ && !ending_) {
    auto t = created_ + std::chrono::milliseconds(opts_.join_timeout_ms);
    if (!next || t < *next) next = t;
  }
  for (auto t : {listen_paused_until_, refusals_.deadline(), accept_errors_.deadline()})
    if (t && (!next || *t < *next)) next = t;
  if (!next) return -1;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - now).count();
  return static_cast<int>(std::clamp<long long>(ms + 1, 0, 60000));
}

void server::process(const pollfd* fds, size_t n) {
  if (listen_paused_until_ && clock::now() >= *listen_paused_until_) listen_paused_until_.reset();
  if (n > 0 && (fds[0].revents & POLLIN)) accept_all();
  for (size_t i = 1; i < n && i - 1 < polled_.size(); ++i) {
    conn& c = *polled_[i - 1];
    if (c.dead) continue;
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(c);
    if (!c.dead && !c.out.empty()) flush(c);
  }
  expire();
  report_suppressed(false);
  // Writes queued to connections other than the one being handled (round results, broadcasts).
  for (auto& c : conns_)
    if (!c->dead && !c->out.empty()) flush(*c);
  polled_.clear();
  std::erase_if(conns_, [](const std::unique_ptr<conn>& c) { return c->dead; });
}

void server::accept_all() {
  // Bounded per wake-up so that a stream of connections cannot starve the PEs' traffic.
  for (int i = 0; i < 1024; ++i) {
    int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (err == EINTR || err == ECONNABORTED) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) return;
      if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        if (make_room(err)) continue;
        return;
      }
      // Anything else: say so (rate-limited) and let the listener rest rather than poll it in a tight loop.
      if (accept_errors_.admit(clock::now()))
        listener_->on_warning(format("rendezvous accept failed: %s", std::strerror(err)));
      last_accept_error_ = std::strerror(err);
      listen_paused_until_ = clock::now() + std::chrono::milliseconds(100);
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (strangers_.size() >= max_strangers_)
      drop_oldest_stranger(format("dropped as the oldest of more than %zu unauthenticated connections",
                                  max_strangers_));
    auto c = std::make_unique<conn>();
    c->fd = unique_fd(fd);
    c->peer = peer_name(fd);
    c->hello_deadline = clock::now() + std::chrono::milliseconds(opts_.hello_timeout_ms);
    conn& added = *c;
    conns_.push_back(std::move(c));
    strangers_.push_back(&added);
    // A PE sends its hello right after connecting: it is often here already, and once read the connection
    // is no longer a stranger that a crowd arriving behind it could push out.
    read_from(added);
  }
}

bool server::make_room(int err) {
  auto now = clock::now();
  if (accept_errors_.admit(now)) {
    rlimit rl{};
    std::string limit = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                            ? format(" (descriptor limit %llu)", static_cast<unsigned long long>(rl.rlim_cur))
                            : std::string();
    listener_->on_warning(format("rendezvous cannot accept a connection: %s%s; unauthenticated connections are "
                                 "dropped, oldest first; raise the limit (ulimit -n) if the job needs more",
                                 std::strerror(err), limit.c_str()));
  }
  last_accept_error_ = std::strerror(err);
  if (!strangers_.empty()) {
    drop_oldest_stranger(format("unauthenticated, dropped to make room: %s", std::strerror(err)));
    return true;
  }
  // Nothing of ours to drop: take the pending connection with the reserve descriptor and close it.
  if (reserve_fd_) {
    reserve_fd_.reset();
    int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    std::string peer = fd >= 0 ? peer_name(fd) : std::string();
    if (fd >= 0) ::close(fd);
    reserve_fd_ = unique_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (fd >= 0) report_refusal(peer, format("unauthenticated, closed at once: %s", std::strerror(err)));
    if (fd >= 0 && reserve_fd_) return true;
  }
  // Not even that: pause the listener briefly; the queue waits in the kernel meanwhile.
  listen_paused_until_ = now + std::chrono::milliseconds(100);
  return false;
}

void server::drop_oldest_stranger(const std::string& why) {
  if (strangers_.empty()) return;
  conn* c = strangers_.front();
  report_refusal(c->peer, why);
  close_conn(*c);  // also takes it off strangers_
}

void server::forget_stranger(conn& c) {
  auto it = std::find(strangers_.begin(), strangers_.end(), &c);
  if (it != strangers_.end()) strangers_.erase(it);
}

void server::report_refusal(const std::string& peer, const std::string& why) {
  if (refusals_.admit(clock::now())) {
    listener_->on_refused(peer, why);
  } else {
    last_refused_ = peer + ": " + why;
  }
}

void server::report_suppressed(bool all) {
  auto now = clock::now();
  uint64_t n = all ? refusals_.take() : refusals_.due(now);
  if (n > 0)
    listener_->on_warning(format("refused or dropped %llu more rendezvous connections in the last %d s (the latest "
                                 "from %s)",
                                 static_cast<unsigned long long>(n), refusals_.interval_s(), last_refused_.c_str()));
  n = all ? accept_errors_.take() : accept_errors_.due(now);
  if (n > 0)
    listener_->on_warning(format("rendezvous accept failed %llu more times in the last %d s (%s)",
                                 static_cast<unsigned long long>(n), accept_errors_.interval_s(),
                                 last_accept_error_.c_str()));
}

void server::flush_notices() { report_suppressed(true); }

bool server::take_input(conn& c) {
  char buf[65536];
  for (;;) {
    ssize_t r = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (r > 0) {
      if (!c.closing) c.in.append(buf, static_cast<size_t>(r));
      if (static_cast<size_t>(r) < sizeof buf) return true;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void server::read_from(conn& c) {
  if (!take_input(c)) {
    // EOF or error: handle what arrived first (a PE may send abort and exit at once), then close.
    message m;
    while (!c.dead && !c.closing) {
      auto got = decode(c.in, m, c.rank < 0 ? max_hello_payload : max_payload);
      if (!got.ok() || !got.value()) break;
      handle(c, m);
    }
    close_conn(c);
    return;
  }
  message m;
  while (!c.dead && !c.closing) {
    auto got = decode(c.in, m, c.rank < 0 ? max_hello_payload : max_payload);
    if (!got.ok()) {
      if (c.rank < 0) {
        refuse(c, got.error().message());
      } else {
        handle_abort(-1, 1, format("PE %d broke the rendezvous protocol: %s", c.rank, got.error().message().c_str()));
      }
      return;
    }
    if (!got.value()) break;
    handle(c, m);
  }
}

bool server::abort_pending(int rank) {
  if (rank < 0 || static_cast<size_t>(rank) >= by_rank_.size()) return false;
  conn* c = by_rank_[static_cast<size_t>(rank)];
  if (c == nullptr || c->dead || c->closing) return false;
  (void)take_input(*c);  // what has arrived, without handling it (an end of file is seen again by read_from)
  std::string frames = c->in;
  message m;
  for (;;) {
    auto got = decode(frames, m, max_payload);
    if (!got.ok() || !got.value()) return false;
    if (m.type == msg_type::abort) return true;
  }
}

void server::handle(conn& c, message& m) {
  if (c.rank < 0) {
    handle_hello(c, m);
    return;
  }
  switch (m.type) {
    case msg_type::collect:
      handle_collect(c, m);
      return;
    case msg_type::abort: {
      int rank = 0, code = 0;
      std::string text;
      if (!parse_abort(m.payload, rank, code, text)) text = "(malformed abort message)";
      handle_abort(c.rank, code, text);
      return;
    }
    default:
      handle_abort(-1, 1, format("PE %d sent an unexpected rendezvous message (type %u)", c.rank,
                                     static_cast<unsigned>(m.type)));
  }
}

void server::handle_hello(conn& c, const message& m) {
  hello_fields h;
  if (m.type != msg_type::hello || !parse_hello(m.payload, h)) return refuse(c, "not an rdsm hello");
  if (h.version != protocol_version)
    return refuse(c, format("protocol version %u, this rendezvous speaks %u (mixed rdsm versions?)", h.version,
                            protocol_version));
  if (!secret_equal(h.secret, opts_.secret)) return refuse(c, "wrong job secret");
  if (static_cast<int>(h.size) != opts_.size)
    return refuse(c, format("RDSM_SIZE=%u but this job has %d PEs", h.size, opts_.size));
  if (h.rank >= h.size) return refuse(c, format("RDSM_RANK=%u is out of range for RDSM_SIZE=%u", h.rank, h.size));
  auto r = static_cast<size_t>(h.rank);
  if (by_rank_[r] != nullptr || connected_ever_[r])
    return refuse(c, format("RDSM_RANK=%u has already joined this job; every PE needs its own rank", h.rank));
  c.rank = static_cast<int>(h.rank);
  forget_stranger(c);
  by_rank_[r] = &c;
  connected_ever_[r] = true;
  joined_ = std::all_of(connected_ever_.begin(), connected_ever_.end(), [](bool b) { return b; });
  queue(c, msg_type::welcome, {});
  RDSM_LOG_DEBUG("boot", "PE %d joined the rendezvous from %s", c.rank, c.peer.c_str());
  listener_->on_connected(c.rank);
}

void server::handle_collect(conn& c, const message& m) {
  reader r(m.payload);
  uint32_t k = 0;
  if (!r.u32(k) || k > static_cast<uint32_t>(collect_kind::finalize))
    return handle_abort(-1, 1, format("PE %d sent a malformed collective request", c.rank));
  auto kind = static_cast<collect_kind>(k);
  auto rank = static_cast<size_t>(c.rank);
  static const char* const names[] = {"allgather", "barrier", "finalize"};
  if (finalized_[rank] || have_[rank])
    return handle_abort(-1, 1, format("PE %d called %s after %s", c.rank, names[k],
                                          finalized_[rank] ? "finalize" : "joining a collective it had not left"));
  if (arrived_ > 0 && kind != kind_)
    return handle_abort(-1, 1, format("PE %d called %s while PE %d called %s; every PE must make the same "
                                          "collective calls in the same order",
                                          c.rank, names[k], first_rank_, names[static_cast<int>(kind_)]));
  if (arrived_ == 0) {
    kind_ = kind;
    first_rank_ = c.rank;
  }
  parts_[rank] = std::string(r.rest());
  have_[rank] = true;
  if (kind == collect_kind::finalize) finalized_[rank] = true;
  if (++arrived_ < opts_.size) return;
  std::string payload = result_payload(kind_, kind_ == collect_kind::allgather ? parts_ : std::vector<std::string>());
  for (conn* p : by_rank_)
    if (p != nullptr) queue(*p, msg_type::result, payload);
  arrived_ = 0;
  for (auto& p : parts_) std::string().swap(p);
  std::fill(have_.begin(), have_.end(), false);
}

void server::handle_abort(int rank, int code, const std::string& text) {
  if (!ending_) {
    ending_ = true;
    listener_->on_abort(rank, code, text);
    if (opts_.broadcast) {
      std::string payload = abort_payload(rank, code, text);
      for (conn* p : by_rank_)
        if (p != nullptr && (rank < 0 || p->rank != rank)) queue(*p, msg_type::abort, payload);
      // Others must hear before the aborting PE exits: in the tcp backend that PE may host this server.
      flush_blocking(1000);
    }
  }
  if (rank < 0) return;
  conn* c = by_rank_[static_cast<size_t>(rank)];
  if (c != nullptr) queue(*c, msg_type::abort_ack, {});
}

void server::refuse(conn& c, const std::string& why) {
  report_refusal(c.peer, why);
  queue(c, msg_type::refuse, why);
  c.closing = true;
  c.in.clear();
  flush(c);
}

void server::close_conn(conn& c) {
  if (c.dead) return;
  c.dead = true;
  c.fd.reset();
  if (c.rank < 0) {
    forget_stranger(c);
    return;
  }
  auto rank = static_cast<size_t>(c.rank);
  by_rank_[rank] = nullptr;
  if (finalized_[rank] || ending_) return;
  listener_->on_lost(c.rank);
  if (opts_.broadcast) {
    ending_ = true;
    std::string payload = writer().u32(static_cast<uint32_t>(c.rank)).take();
    for (conn* p : by_rank_)
      if (p != nullptr) queue(*p, msg_type::peer_lost, payload);
  }
}

void server::queue(conn& c, msg_type type, std::string_view payload) {
  if (c.dead) return;
  c.out += encode(type, payload);
}

void server::flush(conn& c) {
  while (!c.out.empty() && !c.dead) {
    ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      c.out.clear();
      close_conn(c);
      return;
    }
    c.out.erase(0, static_cast<size_t>(n));
  }
  if (c.closing && c.out.empty()) close_conn(c);
}

void server::flush_blocking(int timeout_ms) {
  auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<conn*> which;
    for (auto& c : conns_) {
      if (!c->dead && !c->out.empty()) flush(*c);
      if (!c->dead && !c->out.empty()) {
        fds.push_back({c->fd.get(), POLLOUT, 0});
        which.push_back(c.get());
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (fds.empty() || left <= 0) return;
    if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) return;
  }
}

void server::expire() {
  auto now = clock::now();
  for (auto& c : conns_)
    if (!c->dead && c->rank < 0 && !c->closing && now >= c->hello_deadline) {
      report_refusal(c->peer, "no hello within the time limit");
      close_conn(*c);
    }
  if (opts_.join_timeout_ms > 0 && !joined_ && !ending_ &&
      now >= created_ + std::chrono::milliseconds(opts_.join_timeout_ms)) {
    std::string missing;
    for (size_t r = 0; r < connected_ever_.size(); ++r)
      if (!connected_ever_[r]) missing += (missing.empty() ? "" : ",") + std::to_string(r);
    handle_abort(-1, 1, format("PE(s) %s did not reach the rendezvous within RDSM_BOOT_TIMEOUT=%d s (started but "
                               "not in shmem_init, or not started); check that every PE calls shmem_init, or raise "
                               "RDSM_BOOT_TIMEOUT if start-up is slow",
                               missing.c_str(), opts_.join_timeout_ms / 1000));
  }
}

bool server::all_finalized() const {
  return std::all_of(finalized_.begin(), finalized_.end(), [](bool b) { return b; });
}

bool server::all_done() const {
  return all_finalized() && std::none_of(by_rank_.begin(), by_rank_.end(), [](conn* c) { return c != nullptr; });
}

result<std::unique_ptr<server_thread>> server_thread::start(const std::string& host, uint16_t port,
                                                            server_options opts) {
  auto s = server::create(host, port, std::move(opts), nullptr);
  if (!s.ok()) return s.error();
  std::unique_ptr<server_thread> t(new server_thread());
  t->server_ = s.take();
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
    return status::error(format("pipe2 failed: %s", std::strerror(errno)));
  t->wake_read_ = unique_fd(p[0]);
  t->wake_write_ = unique_fd(p[1]);
  t->thread_ = std::thread([raw = t.get()] { raw->run(); });
  return t;
}

void server_thread::run() {
  struct notices_at_end {
    server& s;
    ~notices_at_end() { s.flush_notices(); }
  } at_end{*server_};
  std::optional<clock::time_point> finalized_at;
  for (;;) {
    std::vector<pollfd> fds{{wake_read_.get(), POLLIN, 0}};
    size_t n = server_->add_pollfds(fds);
    int timeout = server_->poll_timeout_ms();
    if (finalized_at) timeout = timeout < 0 ? 100 : std::min(timeout, 100);
    int rc = ::poll(fds.data(), fds.size(), timeout);
    if (rc < 0 && errno != EINTR) {
      RDSM_LOG_ERROR("boot", "rendezvous poll failed: %s", std::strerror(errno));
      return;
    }
    if (fds[0].revents & POLLIN) return;
    server_->process(fds.data() + 1, n);
    if (server_->ending()) {
      // The hosting process is about to exit: the other PEs must get the notice first.
      server_->flush_blocking(1000);
      return;
    }
    if (server_->all_done()) return;
    if (server_->all_finalized()) {
      if (!finalized_at) finalized_at = clock::now();
      if (clock::now() - *finalized_at > std::chrono::seconds(5)) return;
    }
  }
}

void server_thread::join() {
  if (thread_.joinable()) thread_.join();
}

void server_thread::stop() {
  if (!thread_.joinable()) return;
  char b = 1;
  ssize_t rc = ::write(wake_write_.get(), &b, 1);
  (void)rc;
  thread_.join();
}

server_thread::~server_thread() { stop(); }

}  // namespace rdsm::detail::rdv
