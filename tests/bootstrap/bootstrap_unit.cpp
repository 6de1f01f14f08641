// In-process tests of the bootstrap: wire encoding, configuration errors, and tcp jobs made of threads.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <limits>
#include <thread>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/rendezvous/server.hpp"
#include "bootstrap/rendezvous/wire.hpp"

using namespace rdsm::detail;

namespace {

uint16_t free_port() {
  auto fd = rdv::listen_tcp("127.0.0.1", 0);
  EXPECT_TRUE(fd.ok());
  return rdv::local_port(fd.value().get());
}

config tcp_config(uint16_t port, int rank, int size, const char* secret = "0123456789abcdef") {
  config c;
  c.boot = "tcp";
  c.boot_addr = "127.0.0.1:" + std::to_string(port);
  c.rank = static_cast<uint64_t>(rank);
  c.size = static_cast<uint64_t>(size);
  c.job_secret = secret;
  c.boot_timeout = 10;
  return c;
}

std::string error_of(const config& c) {
  auto r = bootstrap_create(c);
  return r.ok() ? std::string("(no error)") : r.error().message();
}

}  // namespace

TEST(wire, frames_decode_only_when_complete) {
  std::string stream = rdv::encode(rdv::msg_type::collect, "abc") + rdv::encode(rdv::msg_type::welcome, "");
  std::string buf;
  std::vector<rdv::message> got;
  for (char ch : stream) {  // byte by byte: a frame is taken only once all of it arrived
    buf.push_back(ch);
    rdv::message m;
    auto r = rdv::decode(buf, m, 100);
    ASSERT_TRUE(r.ok());
    if (r.value()) got.push_back(m);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].type, rdv::msg_type::collect);
  EXPECT_EQ(got[0].payload, "abc");
  EXPECT_EQ(got[1].type, rdv::msg_type::welcome);
  EXPECT_TRUE(buf.empty());
}

TEST(wire, oversized_frame_is_an_error) {
  std::string buf = rdv::encode(rdv::msg_type::hello, std::string(5000, 'x'));
  rdv::message m;
  EXPECT_FALSE(rdv::decode(buf, m, rdv::max_hello_payload).ok());
}

TEST(wire, result_round_trip_with_empty_parts) {
  std::vector<std::string> parts{"", std::string(70000, 'a'), "z", ""};
  std::string p = rdv::result_payload(rdv::collect_kind::allgather, parts);
  rdv::collect_kind k{};
  std::vector<std::string> back;
  ASSERT_TRUE(rdv::parse_result(p, k, back));
  EXPECT_EQ(k, rdv::collect_kind::allgather);
  EXPECT_EQ(back, parts);
  EXPECT_FALSE(rdv::parse_result(p.substr(0, p.size() - 1), k, back));
}

TEST(wire, host_port_parsing) {
  auto ok = rdv::parse_host_port("10.0.0.1:7000", "RDSM_BOOT_ADDR");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value().first, "10.0.0.1");
  EXPECT_EQ(ok.value().second, 7000);
  EXPECT_TRUE(rdv::parse_host_port("[::1]:80", "X").ok());
  for (const char* bad : {"host", "host:", ":80", "h:0", "h:70000", "h:8x"}) {
    auto r = rdv::parse_host_port(bad, "RDSM_BOOT_ADDR");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message().find("RDSM_BOOT_ADDR"), std::string::npos);
  }
  EXPECT_TRUE(rdv::secret_equal("abc", "abc"));
  EXPECT_FALSE(rdv::secret_equal("abc", "abd"));
  EXPECT_FALSE(rdv::secret_equal("abc", "abcd"));
}

// RDSM_BOOT_TIMEOUT is a count of up to 18 digits; the server keeps the time in int milliseconds, which
// 99999999999 s overflowed (issue 9 item 14).
TEST(wire, boot_timeout_fits_the_server) {
  EXPECT_EQ(rdv::boot_timeout_seconds(0), 60.0);
  EXPECT_EQ(rdv::boot_timeout_seconds(5), 5.0);
  for (uint64_t huge : {uint64_t{2147484}, uint64_t{99999999999}, uint64_t{999999999999999999}}) {
    const double s = rdv::boot_timeout_seconds(huge);
    EXPECT_GT(s, 2e6 - 1) << huge;
    EXPECT_LE(s * 1000, static_cast<double>(std::numeric_limits<int>::max())) << huge;
  }
}

TEST(create, validation_errors_name_the_variable) {
  config c = tcp_config(1, 0, 4);
  c.boot_addr = "";
  EXPECT_NE(error_of(c).find("RDSM_BOOT_ADDR"), std::string::npos);
  c = tcp_config(1, 5, 4);
  EXPECT_NE(error_of(c).find("RDSM_RANK=5 is out of range for RDSM_SIZE=4"), std::string::npos);
  c = tcp_config(1, 0, 0);
  EXPECT_NE(error_of(c).find("RDSM_SIZE=0"), std::string::npos);
  c = tcp_config(1, 0, 2, "");
  EXPECT_NE(error_of(c).find("RDSM_JOB_SECRET"), std::string::npos);
  c = tcp_config(1, 0, 2);
  c.boot = "launcher";
  c.boot_addr = "nonsense";
  EXPECT_NE(error_of(c).find("RDSM_BOOT_ADDR=\"nonsense\""), std::string::npos);
}

TEST(create, singleton) {
  config c;
  c.boot = "singleton";
  auto r = bootstrap_create(c);
  ASSERT_TRUE(r.ok());
  auto& b = *r.value();
  EXPECT_STREQ(b.name(), "singleton");
  EXPECT_EQ(b.rank(), 0);
  EXPECT_EQ(b.size(), 1);
  auto all = b.allgather("hello");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value(), std::vector<std::string>{"hello"});
  EXPECT_TRUE(b.barrier().ok());
  EXPECT_TRUE(b.finalize().ok());
}

TEST(tcp, connect_timeout_names_the_address) {
  uint16_t port = free_port();  // nobody listens there
  config c = tcp_config(port, 1, 2);
  c.boot_timeout = 1;
  auto t0 = std::chrono::steady_clock::now();
  std::string e = error_of(c);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(e.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << e;
  EXPECT_NE(e.find("RDSM_BOOT_TIMEOUT"), std::string::npos) << e;
}

TEST(tcp, wrong_secret_is_refused) {
  rdv::server_options o;
  o.size = 2;
  o.secret = "right";
  // The server runs in this thread; the PE connects from another.
  auto srv = rdv::server::create("127.0.0.1", 0, o, nullptr);
  ASSERT_TRUE(srv.ok());
  auto& server = *srv.value();
  std::string err;
  std::thread pe([&] { err = error_of(tcp_config(server.port(), 1, 2, "wrong")); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (err.empty() && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> fds;
    size_t n = server.add_pollfds(fds);
    ::poll(fds.data(), fds.size(), 50);
    server.process(fds.data(), n);
  }
  pe.join();
  EXPECT_NE(err.find("wrong job secret"), std::string::npos) << err;
  EXPECT_FALSE(server.connected_ever(1));
}

TEST(tcp, three_pes_in_threads) {
  uint16_t port = free_port();
  constexpr int n = 3;
  std::vector<std::string> errors(n);
  std::vector<std::thread> pes;
  for (int r = 0; r < n; ++r)
    pes.emplace_back([&, r] {
      auto br = bootstrap_create(tcp_config(port, r, n));
      if (!br.ok()) {
        errors[static_cast<size_t>(r)] = br.error().message();
        return;
      }
      auto& b = *br.value();
      for (int round = 0; round < 30; ++round) {
        std::string mine(static_cast<size_t>((r + 1) * round * 37), static_cast<char>('a' + r));
        auto all = b.allgather(mine);
        if (!all.ok() || all.value().size() != n) {
          errors[static_cast<size_t>(r)] = "allgather failed";
          return;
        }
        for (int p = 0; p < n; ++p)
          if (all.value()[static_cast<size_t>(p)] !=
              std::string(static_cast<size_t>((p + 1) * round * 37), static_cast<char>('a' + p)))
            errors[static_cast<size_t>(r)] = "wrong data";
        if (!b.barrier().ok()) errors[static_cast<size_t>(r)] = "barrier failed";
      }
      if (!b.finalize().ok()) errors[static_cast<size_t>(r)] = "finalize failed";
    });
  for (auto& t : pes) t.join();
  for (int r = 0; r < n; ++r) EXPECT_EQ(errors[static_cast<size_t>(r)], "") << "PE " << r;
}

TEST(rate_limiter, a_burst_then_one_count_per_interval) {
  using namespace std::chrono_literals;
  rdv::rate_limiter lim(2, 100ms);
  auto t = std::chrono::steady_clock::now();
  EXPECT_TRUE(lim.admit(t));
  EXPECT_TRUE(lim.admit(t));
  EXPECT_FALSE(lim.admit(t));
  EXPECT_FALSE(lim.admit(t + 10ms));
  EXPECT_EQ(lim.due(t + 50ms), 0u);  // the interval has not passed
  ASSERT_TRUE(lim.deadline().has_value());
  EXPECT_EQ(lim.due(t + 100ms), 2u);
  EXPECT_FALSE(lim.deadline().has_value());
  EXPECT_FALSE(lim.admit(t + 120ms));  // the flood goes on: only counted
  EXPECT_EQ(lim.due(t + 150ms), 0u);
  EXPECT_EQ(lim.due(t + 200ms), 1u);
  EXPECT_TRUE(lim.admit(t + 400ms));  // after a quiet interval, a new burst
  EXPECT_EQ(lim.take(), 0u);
}

namespace {
struct counting_listener : rdv::server_listener {
  int refused = 0, warnings = 0;
  void on_refused(const std::string&, const std::string&) override { ++refused; }
  void on_warning(const std::string&) override { ++warnings; }
};
}  // namespace

TEST(tcp, strangers_beyond_the_cap_drop_the_oldest_and_a_pe_still_joins) {
  rdv::server_options o;
  o.size = 2;
  o.secret = "0123456789abcdef";
  o.max_strangers = 4;
  counting_listener heard;
  auto srv = rdv::server::create("127.0.0.1", 0, o, &heard);
  ASSERT_TRUE(srv.ok());
  auto& server = *srv.value();
  auto pump = [&](int ms) {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      std::vector<pollfd> fds;
      size_t n = server.add_pollfds(fds);
      ::poll(fds.data(), fds.size(), 10);
      server.process(fds.data(), n);
    }
  };
  std::vector<rdv::unique_fd> strangers;
  for (int i = 0; i < 12; ++i) {
    auto fd = rdv::connect_tcp("127.0.0.1", server.port(), 5);
    ASSERT_TRUE(fd.ok());
    strangers.push_back(fd.take());
    pump(5);  // accepted in order
  }
  pump(50);
  EXPECT_EQ(server.strangers(), 4u);
  // The oldest were closed; the newest are still open.
  char b;
  EXPECT_EQ(::recv(strangers.front().get(), &b, 1, MSG_DONTWAIT), 0);
  EXPECT_LT(::recv(strangers.back().get(), &b, 1, MSG_DONTWAIT), 0);
  EXPECT_EQ(heard.refused, 5);  // a burst of lines in full, the rest counted
  std::string err;
  std::thread pe([&] { err = error_of(tcp_config(server.port(), 1, 2)); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.connected_ever(1) && std::chrono::steady_clock::now() < deadline) pump(10);
  EXPECT_TRUE(server.connected_ever(1));
  pump(50);
  pe.join();
  EXPECT_EQ(err, "(no error)");
  EXPECT_LE(server.strangers(), 4u);
  server.flush_notices();  // the three drops held back: one line with their count
  EXPECT_EQ(heard.warnings, 1);
}

TEST(tcp, a_pe_dropped_before_an_answer_connects_again) {
  auto l = rdv::listen_tcp("127.0.0.1", 0);
  ASSERT_TRUE(l.ok());
  rdv::unique_fd listener = l.take();
  uint16_t port = rdv::local_port(listener.get());
  std::string err;
  std::thread pe([&] { err = error_of(tcp_config(port, 1, 2)); });
  // The first connection is closed without an answer, as a crowded server drops its oldest stranger.
  pollfd p{listener.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  int fd = ::accept(listener.get(), nullptr, nullptr);
  ASSERT_GE(fd, 0);
  ::close(fd);
  listener.reset();
  rdv::server_options o;
  o.size = 2;
  o.secret = "0123456789abcdef";
  auto srv = rdv::server::create("127.0.0.1", port, o, nullptr);
  ASSERT_TRUE(srv.ok()) << srv.error().message();
  auto& server = *srv.value();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.connected_ever(1) && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> fds;
    size_t n = server.add_pollfds(fds);
    ::poll(fds.data(), fds.size(), 10);
    server.process(fds.data(), n);
  }
  pe.join();
  EXPECT_TRUE(server.connected_ever(1));
  EXPECT_EQ(err, "(no error)");
}
