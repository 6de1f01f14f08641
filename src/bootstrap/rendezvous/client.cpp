// The launcher and tcp bootstrap backends: a PE's connection to the rendezvous server.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "bootstrap/backends.hpp"
#include "bootstrap/rendezvous/server.hpp"
#include "bootstrap/rendezvous/wire.hpp"
#include "common/log.hpp"

namespace rdsm::detail {
namespace {

using namespace rdv;

/// Collectives are request/reply over one socket. A reader thread owns the receive side: replies are
/// handed to the caller through `reply_`; abort and peer-lost notices end this process at once, so a PE
/// blocked anywhere (even outside rdsm) is ended when the job ends.
class rendezvous_bootstrap final : public bootstrap {
 public:
  rendezvous_bootstrap(bool tcp, int rank, int size, std::string addr)
      : tcp_(tcp), rank_(rank), size_(size), addr_(std::move(addr)) {}

  ~rendezvous_bootstrap() override { disconnect(); }

  /// Connects and presents the hello. A connection closed before any answer is tried again until the
  /// timeout: the server drops the oldest unauthenticated connections when strangers crowd it.
  status connect(const std::string& host, uint16_t port, const std::string& secret, double timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                             std::chrono::duration<double>(timeout_s));
    message m;
    for (bool first = true;; first = false) {
      double left = first ? timeout_s : std::max(0.1, std::chrono::duration<double>(deadline - clock::now()).count());
      auto fd = connect_tcp(host, port, left);
      if (!fd.ok()) return fd.error();
      fd_ = fd.take();
      int err = 0;
      bool sent = send_all(fd_.get(), encode(msg_type::hello, hello_payload(rank_, size_, secret)));
      if (!sent) err = errno;
      if (sent) {
        timeval tv{static_cast<time_t>(left), static_cast<suseconds_t>((left - std::floor(left)) * 1e6)};
        setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (recv_message(fd_.get(), m, max_hello_payload, err)) break;
      }
      bool dropped = err == 0 || err == ECONNRESET || err == EPIPE;
      if (!dropped || clock::now() + std::chrono::milliseconds(100) >= deadline) {
        if (!sent)
          return status::error(format("cannot send to the rendezvous at RDSM_BOOT_ADDR=%s: %s", addr_.c_str(),
                                      std::strerror(err)));
        return status::error(format("the rendezvous at RDSM_BOOT_ADDR=%s did not answer PE %d's hello (%s)",
                                    addr_.c_str(), rank_, err != 0 ? std::strerror(err) : "connection closed"));
      }
      RDSM_LOG_DEBUG("boot", "PE %d: the rendezvous closed the connection before answering; trying again", rank_);
      fd_.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (m.type == msg_type::refuse)
      return status::error(format("the rendezvous at RDSM_BOOT_ADDR=%s refused PE %d: %s; check RDSM_JOB_SECRET, "
                                  "RDSM_RANK and RDSM_SIZE", addr_.c_str(), rank_, m.payload.c_str()));
    if (m.type != msg_type::welcome)
      return status::error(format("unexpected answer from the rendezvous at RDSM_BOOT_ADDR=%s", addr_.c_str()));
    timeval tv{0, 0};
    setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    reader_ = std::thread([this] { read_loop(); });
    return {};
  }

  void host_server(std::unique_ptr<server_thread> s) { server_ = std::move(s); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* name() const override { return tcp_ ? "tcp" : "launcher"; }

  result<std::vector<std::string>> allgather(std::string_view mine) override {
    return collective(collect_kind::allgather, mine);
  }

  status barrier() override {
    auto r = collective(collect_kind::barrier, {});
    return r.ok() ? status{} : r.error();
  }

  status finalize() override {
    auto r = collective(collect_kind::finalize, {});
    if (!r.ok()) return r.error();
    RDSM_LOG_INFO("boot", "PE %d: bootstrap traffic: %d collectives, %zu bytes sent, %zu bytes received", rank_,
                  collectives_, sent_bytes_, received_bytes_);
    clean_ = true;
    disconnect();
    return {};
  }

  void await_job_end(int ms) override {
    // The reader thread ends the process when a notice arrives: waiting is all there is to do.
    if (reader_.joinable() && !finished_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  [[noreturn]] void abort(int code, const std::string& message) override {
    abort_code_.store(code);
    aborting_.store(true);
    // In the tcp backend nobody else prints this PE's reason; rdsmrun prints it in the launcher backend.
    if (tcp_) boot_last_words(format("PE %d ended the job (code %d): %s", rank_, code, message.c_str()));
    std::string frame = encode(msg_type::abort, abort_payload(rank_, code, message));
    // Another thread may be stuck mid-send; do not wait for it for long.
    std::unique_lock<std::timed_mutex> lock(send_mutex_, std::chrono::seconds(1));
    if (lock.owns_lock() && fd_ && reader_.joinable() && send_all(fd_.get(), frame)) {
      // The reader exits the process when the server acknowledges (after it has told the others).
      std::unique_lock<std::mutex> l(mutex_);
      cv_.wait_for(l, std::chrono::seconds(2), [] { return false; });
    }
    std::_Exit(code);
  }

 private:
  result<std::vector<std::string>> collective(collect_kind kind, std::string_view mine) {
    if (!reader_.joinable())
      return status::error("the bootstrap is finalized or was never connected; collectives need a live job");
    std::string frame = encode(msg_type::collect, writer().u32(static_cast<uint32_t>(kind)).bytes(mine).take());
    {
      std::lock_guard<std::timed_mutex> lock(send_mutex_);
      if (!send_all(fd_.get(), frame)) lost("cannot send to it");
    }
    ++collectives_;
    sent_bytes_ += frame.size();
    std::unique_lock<std::mutex> l(mutex_);
    while (!cv_.wait_for(l, std::chrono::milliseconds(100), [&] { return reply_.has_value(); })) {
      l.unlock();
      bootstrap_wait_hook();
      l.lock();
    }
    message m = std::move(*reply_);
    reply_.reset();
    received_bytes_ += frame_header + m.payload.size();
    l.unlock();
    collect_kind got{};
    std::vector<std::string> parts;
    if (!parse_result(m.payload, got, parts) || got != kind ||
        (kind == collect_kind::allgather && parts.size() != static_cast<size_t>(size_)))
      return status::error(format("malformed collective result from the rendezvous at %s", addr_.c_str()));
    return parts;
  }

  [[noreturn]] void lost(const char* what) {
    if (aborting_.load()) std::_Exit(abort_code_.load());
    boot_last_words(format("PE %d lost the rendezvous at %s (%s before finalize; %s ended?); ending the job",
                           rank_, addr_.c_str(), what, tcp_ ? "PE 0" : "rdsmrun"));
    std::_Exit(1);
  }

  void read_loop() {
    for (;;) {
      message m;
      int err = 0;
      if (!recv_message(fd_.get(), m, max_payload, err)) {
        if (finished_.load()) return;
        lost(err != 0 ? std::strerror(err) : "connection closed");
      }
      switch (m.type) {
        case msg_type::result: {
          std::lock_guard<std::mutex> l(mutex_);
          reply_ = std::move(m);
          cv_.notify_all();
          break;
        }
        case msg_type::abort: {
          int rank = 0, code = 0;
          std::string text;
          (void)parse_abort(m.payload, rank, code, text);
          drain_server();
          if (rank >= 0)
            boot_last_words(format("PE %d ended the job (code %d): %s", rank, code, text.c_str()));
          else
            boot_last_words(format("the rendezvous ended the job: %s", text.c_str()));
          std::_Exit(code);
        }
        case msg_type::abort_ack:
          drain_server();
          std::_Exit(aborting_.load() ? abort_code_.load() : 1);
        case msg_type::peer_lost: {
          reader r(m.payload);
          uint32_t who = 0;
          (void)r.u32(who);
          drain_server();
          if (aborting_.load()) std::_Exit(abort_code_.load());
          boot_last_words(format("PE %u lost (connection to the rendezvous closed before finalize); ending the job",
                                 who));
          std::_Exit(1);
        }
        default:
          boot_last_words(format("unexpected message (type %u) from the rendezvous at %s; ending the job",
                                 static_cast<unsigned>(m.type), addr_.c_str()));
          std::_Exit(1);
      }
    }
  }

  /// rank 0 of tcp, before exiting: lets the server thread write the job's end to the others (<= ~1 s).
  void drain_server() {
    if (server_) server_->join();
  }

  void disconnect() {
    finished_.store(true);
    if (fd_) ::shutdown(fd_.get(), SHUT_RDWR);
    if (reader_.joinable()) reader_.join();
    fd_.reset();
    // rank 0 of tcp: the server thread ends once every PE has finalized and disconnected.
    if (server_ && clean_) server_->join();
    server_.reset();
  }

  bool tcp_;
  int rank_, size_;
  std::string addr_;
  unique_fd fd_;
  std::thread reader_;
  std::unique_ptr<server_thread> server_;
  std::timed_mutex send_mutex_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<message> reply_;
  bool clean_ = false;  // finalize() completed
  std::atomic<bool> finished_{false};
  // What this PE's collectives moved through the rendezvous (one thread at a time calls them).
  int collectives_ = 0;
  size_t sent_bytes_ = 0;
  size_t received_bytes_ = 0;
  std::atomic<bool> aborting_{false};
  std::atomic<int> abort_code_{1};
};

}  // namespace

result<std::unique_ptr<bootstrap>> rendezvous_bootstrap_create(const config& cfg, bool tcp) {
  const char* mode = tcp ? "tcp" : "launcher";
  if (cfg.boot_addr.empty())
    return status::error(format("RDSM_BOOT=%s needs RDSM_BOOT_ADDR=host:port of the rendezvous%s", mode,
                                tcp ? " (rank 0 listens there)" : "; start the program with rdsmrun"));
  auto hp = parse_host_port(cfg.boot_addr, "RDSM_BOOT_ADDR");
  if (!hp.ok()) return hp.error();
  if (cfg.size < 1 || cfg.size > 1u << 20)
    return status::error(format("RDSM_SIZE=%llu is out of range; it must be the number of PEs (1 or more)",
                                static_cast<unsigned long long>(cfg.size)));
  if (cfg.rank >= cfg.size)
    return status::error(format("RDSM_RANK=%llu is out of range for RDSM_SIZE=%llu; ranks are 0..%llu",
                                static_cast<unsigned long long>(cfg.rank), static_cast<unsigned long long>(cfg.size),
                                static_cast<unsigned long long>(cfg.size - 1)));
  if (cfg.job_secret.empty())
    return status::error(format("RDSM_JOB_SECRET is empty; the %s bootstrap needs the same secret on every PE%s",
                                mode, tcp ? " (e.g. from `openssl rand -hex 16`)" : " (rdsmrun sets it)"));
  auto [host, port] = hp.value();
  int rank = static_cast<int>(cfg.rank), size = static_cast<int>(cfg.size);
  const double timeout = boot_timeout_seconds(cfg.boot_timeout);  // * 1000 fits an int
  auto b = std::make_unique<rendezvous_bootstrap>(tcp, rank, size, cfg.boot_addr);
  if (tcp && rank == 0) {
    server_options opts;
    opts.size = size;
    opts.secret = cfg.job_secret;
    opts.broadcast = true;
    opts.join_timeout_ms = static_cast<int>(timeout * 1000);
    auto s = server_thread::start(host, port, opts);
    if (!s.ok())
      return status::error(format("rank 0 cannot host the rendezvous at RDSM_BOOT_ADDR=%s: %s", cfg.boot_addr.c_str(),
                                  s.error().message().c_str()));
    b->host_server(s.take());
  }
  RDSM_TRY(b->connect(host, port, cfg.job_secret, timeout));
  RDSM_LOG_DEBUG("boot", "%s bootstrap: PE %d of %d joined the rendezvous at %s", mode, rank, size,
                 cfg.boot_addr.c_str());
  return std::unique_ptr<bootstrap>(std::move(b));
}

}  // namespace rdsm::detail
