// Rendezvous wire protocol: framed messages over TCP, and the socket helpers both ends use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace rdsm::detail::rdv {

/// Every frame is: u32 type, u32 payload length, payload; integers little-endian.
enum class msg_type : uint32_t {
  hello = 1,      // client->server: "RDSM", u32 version, u32 rank, u32 size, secret bytes
  welcome = 2,    // server->client: empty
  refuse = 3,     // server->client: reason text; the server closes after it
  collect = 4,    // client->server: u32 kind, contribution bytes
  result = 5,     // server->client: u32 kind, u32 n, n x (u32 length, bytes)
  abort = 6,      // both ways: u32 rank, i32 code, message text
  abort_ack = 7,  // server->client: empty; the aborting PE may now exit
  peer_lost = 8,  // server->client: u32 rank whose connection closed before finalize
};

/// What a collect message asks for; every PE of one round must ask for the same kind.
enum class collect_kind : uint32_t { allgather = 0, barrier = 1, finalize = 2 };

inline constexpr uint32_t protocol_version = 1;
inline constexpr size_t frame_header = 8;
inline constexpr uint32_t max_hello_payload = 4096;     // before authentication
inline constexpr uint32_t max_payload = 1u << 30;       // after authentication

struct message {
  msg_type type{};
  std::string payload;
};

/// Appends little-endian integers and bytes; reads them back with bounds checks.
class writer {
 public:
  writer& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) buf_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  writer& bytes(std::string_view s) {
    buf_.append(s);
    return *this;
  }
  writer& blob(std::string_view s) { return u32(static_cast<uint32_t>(s.size())).bytes(s); }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

class reader {
 public:
  explicit reader(std::string_view s) : s_(s) {}
  bool u32(uint32_t& v) {
    if (s_.size() - pos_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(s_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return true;
  }
  bool bytes(size_t n, std::string& out) {
    if (s_.size() - pos_ < n) return false;
    out.assign(s_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  bool blob(std::string& out) {
    uint32_t n = 0;
    return u32(n) && bytes(n, out);
  }
  std::string_view rest() const { return s_.substr(pos_); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

/// Encodes one frame (header + payload).
std::string encode(msg_type type, std::string_view payload);

/// Takes one complete frame off the front of `buf` if there is one. Returns an error when the frame
/// announces more than `limit` payload bytes.
result<bool> decode(std::string& buf, message& out, uint32_t limit);

// Message bodies.
std::string hello_payload(int rank, int size, std::string_view secret);
struct hello_fields {
  uint32_t version = 0, rank = 0, size = 0;
  std::string secret;
};
bool parse_hello(std::string_view payload, hello_fields& out);
std::string abort_payload(int rank, int code, std::string_view text);
bool parse_abort(std::string_view payload, int& rank, int& code, std::string& text);
std::string result_payload(collect_kind kind, const std::vector<std::string>& parts);
bool parse_result(std::string_view payload, collect_kind& kind, std::vector<std::string>& parts);

/// Owns a file descriptor.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

/// Splits "host:port" (host may be "[v6]"). The variable name is used in the error message.
result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text, const char* variable);

/// A listening TCP socket bound to host:port (port 0 = ephemeral), non-blocking, close-on-exec.
result<unique_fd> listen_tcp(const std::string& host, uint16_t port);
/// The local port a socket is bound to.
uint16_t local_port(int fd);
/// "addr:port" of the peer of a connected socket.
std::string peer_name(int fd);

/// Connects (blocking, close-on-exec) to host:port, retrying refused/unreachable attempts until
/// `timeout_s` seconds have passed.
result<unique_fd> connect_tcp(const std::string& host, uint16_t port, double timeout_s);

/// RDSM_BOOT_TIMEOUT as the rendezvous uses it: 0 means the default of 60 s, and anything above
/// max_boot_timeout_s (23 days) means that much, so that the time in milliseconds fits an int.
inline constexpr double max_boot_timeout_s = 2'000'000;
double boot_timeout_seconds(uint64_t configured);

/// Blocking send of all bytes (MSG_NOSIGNAL). False on error.
bool send_all(int fd, std::string_view data);
/// Blocking read of one frame. False on EOF or error (errno_out set, 0 for EOF or a malformed frame).
bool recv_message(int fd, message& out, uint32_t limit, int& errno_out);

/// Constant-time comparison of secrets.
bool secret_equal(std::string_view a, std::string_view b);

}  // namespace rdsm::detail::rdv
