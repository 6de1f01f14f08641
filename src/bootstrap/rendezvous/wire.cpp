// Rendezvous wire protocol: frame encoding and the TCP socket helpers.
#include "bootstrap/rendezvous/wire.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/log.hpp"

namespace rdsm::detail::rdv {

std::string encode(msg_type type, std::string_view payload) {
  return writer().u32(static_cast<uint32_t>(type)).u32(static_cast<uint32_t>(payload.size())).bytes(payload).take();
}

result<bool> decode(std::string& buf, message& out, uint32_t limit) {
  if (buf.size() < frame_header) return false;
  reader r(buf);
  uint32_t type = 0, len = 0;
  (void)r.u32(type);
  (void)r.u32(len);
  if (len > limit) return status::error(format("frame of %u bytes exceeds the limit of %u", len, limit));
  if (buf.size() - frame_header < len) return false;
  out.type = static_cast<msg_type>(type);
  out.payload.assign(buf, frame_header, len);
  buf.erase(0, frame_header + len);
  return true;
}

std::string hello_payload(int rank, int size, std::string_view secret) {
  return writer()
      .bytes("RDSM")
      .u32(protocol_version)
      .u32(static_cast<uint32_t>(rank))
      .u32(static_cast<uint32_t>(size))
      .bytes(secret)
      .take();
}

bool parse_hello(std::string_view payload, hello_fields& out) {
  reader r(payload);
  std::string magic;
  if (!r.bytes(4, magic) || magic != "RDSM") return false;
  if (!r.u32(out.version) || !r.u32(out.rank) || !r.u32(out.size)) return false;
  out.secret = std::string(r.rest());
  return true;
}

std::string abort_payload(int rank, int code, std::string_view text) {
  return writer().u32(static_cast<uint32_t>(rank)).u32(static_cast<uint32_t>(code)).bytes(text).take();
}

bool parse_abort(std::string_view payload, int& rank, int& code, std::string& text) {
  reader r(payload);
  uint32_t rk = 0, c = 0;
  if (!r.u32(rk) || !r.u32(c)) return false;
  rank = static_cast<int>(rk);
  code = static_cast<int>(c);
  text = std::string(r.rest());
  return true;
}

std::string result_payload(collect_kind kind, const std::vector<std::string>& parts) {
  writer w;
  w.u32(static_cast<uint32_t>(kind)).u32(static_cast<uint32_t>(parts.size()));
  for (const auto& p : parts) w.blob(p);
  return w.take();
}

bool parse_result(std::string_view payload, collect_kind& kind, std::vector<std::string>& parts) {
  reader r(payload);
  uint32_t k = 0, n = 0;
  if (!r.u32(k) || !r.u32(n)) return false;
  if (n > payload.size() / 4) return false;  // each part needs at least its length field
  kind = static_cast<collect_kind>(k);
  parts.assign(n, {});
  for (auto& p : parts)
    if (!r.blob(p)) return false;
  return r.rest().empty();
}

void unique_fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text, const char* variable) {
  auto bad = [&] {
    return status::error(format("%s=\"%s\" is not valid: expected host:port, e.g. 10.0.0.1:7000", variable, text.c_str()));
  };
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return bad();
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5) return bad();
  unsigned long p = std::strtoul(port.c_str(), nullptr, 10);
  if (p == 0 || p > 65535) return bad();
  return std::make_pair(host, static_cast<uint16_t>(p));
}

namespace {

result<addrinfo*> resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) return status::error(format("cannot resolve host '%s': %s", host.c_str(), gai_strerror(rc)));
  return res;
}

}  // namespace

result<unique_fd> listen_tcp(const std::string& host, uint16_t port) {
  auto resolved = resolve(host, port, true);
  if (!resolved.ok()) return resolved.error();
  addrinfo* res = resolved.value();
  int err = 0;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    unique_fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) {
      err = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd.get(), 128) == 0) {
      freeaddrinfo(res);
      return fd;
    }
    err = errno;
  }
  freeaddrinfo(res);
  return status::error(format("cannot listen on %s:%u: %s", host.c_str(), port, std::strerror(err)));
}

uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

std::string peer_name(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
  getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv,
              NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string(host) + ":" + serv;
}

double boot_timeout_seconds(uint64_t configured) {
  if (configured == 0) return 60.0;
  return std::min(static_cast<double>(configured), max_boot_timeout_s);
}

result<unique_fd> connect_tcp(const std::string& host, uint16_t port, double timeout_s) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + std::chrono::duration<double>(timeout_s);
  int err = 0;
  for (;;) {
    auto res = resolve(host, port, false);
    if (res.ok()) {
      addrinfo* list = res.value();
      for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
        unique_fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0));
        if (!fd) {
          err = errno;
          continue;
        }
        if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
          int one = 1;
          setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          freeaddrinfo(list);
          return fd;
        }
        err = errno;
      }
      freeaddrinfo(list);
    }
    if (clock::now() >= deadline) {
      std::string why = res.ok() ? std::strerror(err) : res.error().message();
      return status::error(format("cannot reach the rendezvous at %s:%u within RDSM_BOOT_TIMEOUT=%g s (%s); "
                                  "check RDSM_BOOT_ADDR and that rank 0 / rdsmrun is running",
                                  host.c_str(), port, timeout_s, why.c_str()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

namespace {
bool recv_exact(int fd, char* p, size_t n, int& errno_out) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r == 0) {
      errno_out = 0;
      return false;
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      errno_out = errno;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}
}  // namespace

bool recv_message(int fd, message& out, uint32_t limit, int& errno_out) {
  char hdr[frame_header];
  if (!recv_exact(fd, hdr, sizeof hdr, errno_out)) return false;
  reader r(std::string_view(hdr, sizeof hdr));
  uint32_t type = 0, len = 0;
  (void)r.u32(type);
  (void)r.u32(len);
  if (len > limit) {
    errno_out = 0;
    return false;
  }
  out.type = static_cast<msg_type>(type);
  out.payload.resize(len);
  return recv_exact(fd, out.payload.data(), len, errno_out);
}

bool secret_equal(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

}  // namespace rdsm::detail::rdv
