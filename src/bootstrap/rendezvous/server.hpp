// The rendezvous server: authenticates PEs by the job secret and runs allgather/barrier/finalize rounds.
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/rendezvous/wire.hpp"
#include "common/status.hpp"

namespace rdsm::detail::rdv {

struct server_options {
  int size = 1;
  std::string secret;
  /// tcp backend: tell every PE when one PE's connection closes before finalize, and broadcast aborts.
  /// rdsmrun leaves this off and ends the job itself (it sees the PE's exit through waitpid).
  bool broadcast = false;
  /// A connection must present its hello within this time or it is dropped.
  int hello_timeout_ms = 10000;
  /// When > 0, every rank must have connected within this time of create() or the job is aborted.
  int join_timeout_ms = 0;
  /// At most this many connections without an accepted hello are kept; beyond it the oldest is dropped, so a
  /// crowd of strangers cannot keep a PE out or use up the process's descriptors. 0 means size + 64.
  int max_strangers = 0;
};

/// Lets a burst of events be reported in full, then counts the rest and reports them as one line per
/// interval, so that a flood of refused connections cannot flood the log.
class rate_limiter {
 public:
  using clock = std::chrono::steady_clock;
  rate_limiter(int burst, std::chrono::milliseconds interval) : burst_(burst), interval_(interval) {}
  /// True when this event may be reported in full; otherwise it is counted.
  bool admit(clock::time_point now);
  /// The number of events counted, once the interval they fell in has passed (a new one starts); else 0.
  uint64_t due(clock::time_point now);
  /// The count so far, whether or not the interval has passed (for a last report); resets it.
  uint64_t take();
  /// When due() will next report a count; none when nothing is counted.
  std::optional<clock::time_point> deadline() const;
  int interval_s() const { return static_cast<int>((interval_.count() + 999) / 1000); }

 private:
  int burst_;
  std::chrono::milliseconds interval_;
  clock::time_point start_{};
  int shown_ = 0;
  uint64_t suppressed_ = 0;
};

/// What the owner of a server hears about. Called from within server::process().
class server_listener {
 public:
  virtual ~server_listener() = default;
  virtual void on_connected(int /*rank*/) {}
  /// A PE asked to end the job; rank -1 means the server ends it (a PE broke the protocol, or the join
  /// timeout passed). Called once per job.
  virtual void on_abort(int /*rank*/, int /*code*/, const std::string& /*message*/) {}
  /// The connection of `rank` closed before it finalized.
  virtual void on_lost(int /*rank*/) {}
  /// A connection was refused or dropped (wrong secret, bad hello, duplicate rank, no hello in time, too many
  /// strangers...). Logs one line by default. Rate-limited: beyond a few per interval, on_warning() reports
  /// how many more there were.
  virtual void on_refused(const std::string& peer, const std::string& why);
  /// Anything else worth one line (rate-limited counts, running out of descriptors). Logs it by default.
  virtual void on_warning(const std::string& line);
};

/// Single-threaded, poll()-driven. The owner appends the server's descriptors to its own poll set with
/// add_pollfds(), polls, and hands the same entries back to process(). Not thread-safe.
class server {
 public:
  static result<std::unique_ptr<server>> create(const std::string& host, uint16_t port, server_options opts,
                                                server_listener* listener);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  uint16_t port() const { return port_; }
  /// Appends this server's entries; returns how many were appended.
  size_t add_pollfds(std::vector<pollfd>& fds);
  /// Milliseconds until the server next needs process() without I/O (a deadline), -1 for none.
  int poll_timeout_ms() const;
  /// Handles the entries add_pollfds() appended (after poll()); `fds` points to the first of them.
  void process(const pollfd* fds, size_t n);

  bool connected_ever(int rank) const { return connected_ever_[static_cast<size_t>(rank)]; }
  bool finalized(int rank) const { return finalized_[static_cast<size_t>(rank)]; }
  bool all_finalized() const;
  /// Whether PE `rank` has sent an abort that is not handled yet (read now from its connection, kept for
  /// process()): a PE that aborts exits once acknowledged, or after a bounded wait when the server lags, so
  /// its exit may be seen first; its own message names the cause.
  bool abort_pending(int rank);
  /// The job is ending (an abort or a lost PE was handled); nothing more will be served.
  bool ending() const { return ending_; }
  /// Every rank finalized and every authenticated connection closed.
  bool all_done() const;
  /// Waits (bounded) until every queued byte is written or the connection fails.
  void flush_blocking(int timeout_ms);
  /// Reports what the rate limits still hold back (call once, before the server is destroyed).
  void flush_notices();
  /// Connections that have not (yet) sent an accepted hello.
  size_t strangers() const { return strangers_.size(); }

 private:
  struct conn;
  server(unique_fd listen_fd, server_options opts, server_listener* listener);
  void accept_all();
  bool make_room(int err);
  void drop_oldest_stranger(const std::string& why);
  void forget_stranger(conn& c);
  void report_refusal(const std::string& peer, const std::string& why);
  void report_suppressed(bool all);
  /// Appends what has arrived on `c` to its input (nothing once it is closing); false at its end or an error.
  bool take_input(conn& c);
  void read_from(conn& c);
  void handle(conn& c, message& m);
  void handle_hello(conn& c, const message& m);
  void handle_collect(conn& c, const message& m);
  void handle_abort(int rank, int code, const std::string& text);
  void refuse(conn& c, const std::string& why);
  void close_conn(conn& c);
  void queue(conn& c, msg_type type, std::string_view payload);
  void flush(conn& c);
  void expire();

  unique_fd listen_fd_;
  uint16_t port_ = 0;
  server_options opts_;
  server_listener* listener_;
  std::vector<std::unique_ptr<conn>> conns_;
  std::vector<conn*> polled_;  // conns in the order add_pollfds() listed them
  std::vector<conn*> by_rank_;
  std::deque<conn*> strangers_;  // live connections without an accepted hello, oldest first
  size_t max_strangers_ = 0;
  // Kept open so that, out of descriptors with no stranger to drop, one pending connection can still be
  // taken off the queue and closed instead of leaving poll() to wake at once, again and again.
  unique_fd reserve_fd_;
  std::optional<std::chrono::steady_clock::time_point> listen_paused_until_;
  rate_limiter refusals_{5, std::chrono::seconds(5)};
  rate_limiter accept_errors_{1, std::chrono::seconds(5)};
  std::string last_refused_;  // "peer: why" of the latest refusal held back
  std::string last_accept_error_;
  std::vector<bool> connected_ever_, finalized_;
  std::chrono::steady_clock::time_point created_;
  bool joined_ = false;
  bool ending_ = false;
  // The round in progress.
  collect_kind kind_ = collect_kind::allgather;
  int arrived_ = 0;
  int first_rank_ = -1;
  std::vector<std::string> parts_;
  std::vector<bool> have_;
};

/// A server running in a background thread (rank 0 of the tcp backend). The thread ends once every rank
/// has finalized and disconnected (or 5 s after all finalized), once the job is ending and the notices
/// are written (bounded by 1 s), or when stop() is called.
class server_thread {
 public:
  static result<std::unique_ptr<server_thread>> start(const std::string& host, uint16_t port, server_options opts);
  ~server_thread();
  /// Waits for the thread to end by itself (after finalize: at most ~5 s; when ending: at most ~1 s).
  void join();
  void stop();

 private:
  server_thread() = default;
  void run();
  std::unique_ptr<server> server_;
  unique_fd wake_read_, wake_write_;
  std::thread thread_;
};

}  // namespace rdsm::detail::rdv
