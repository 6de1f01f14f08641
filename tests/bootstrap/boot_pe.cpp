// Test PE for the bootstrap tests: collectives with checks, and ways to die (see usage below).
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/rendezvous/wire.hpp"
#include "common/log.hpp"

using namespace rdsm::detail;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "boot_pe: FAIL: %s\n", what.c_str());
  std::exit(99);
}

// Contribution of `rank` in round `round`: variable length (0 .. ~3000 bytes), content checkable.
std::string contribution(int rank, int round) {
  size_t len = static_cast<size_t>((rank * 131 + round * 977) % 3001);
  if (round % 7 == 0) len = 0;
  std::string s(len, '\0');
  for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>((rank * 31 + round * 7 + static_cast<int>(i)) & 0xff);
  return s;
}

void rounds(bootstrap& b, int n) {
  for (int round = 0; round < n; ++round) {
    auto r = b.allgather(contribution(b.rank(), round));
    if (!r.ok()) fail("allgather: " + r.error().message());
    auto& all = r.value();
    if (all.size() != static_cast<size_t>(b.size())) fail("allgather returned the wrong count");
    for (int p = 0; p < b.size(); ++p)
      if (all[static_cast<size_t>(p)] != contribution(p, round))
        fail("allgather round " + std::to_string(round) + ": wrong data from PE " + std::to_string(p));
    if (round % 5 == 0) {
      auto s = b.barrier();
      if (!s.ok()) fail("barrier: " + s.message());
    }
  }
}

// Connects to the rendezvous with a wrong secret and checks it is refused.
void stranger(const std::string& addr) {
  auto hp = rdv::parse_host_port(addr, "RDSM_BOOT_ADDR");
  if (!hp.ok()) fail(hp.error().message());
  auto fd = rdv::connect_tcp(hp.value().first, hp.value().second, 5);
  if (!fd.ok()) fail(fd.error().message());
  if (!rdv::send_all(fd.value().get(), rdv::encode(rdv::msg_type::hello, rdv::hello_payload(0, 1, "not-the-secret"))))
    fail("stranger send");
  rdv::message m;
  int err = 0;
  bool got = rdv::recv_message(fd.value().get(), m, 4096, err);
  if (got && m.type != rdv::msg_type::refuse) fail("stranger was not refused");
  // After the refusal the server closes the connection.
  if (got && rdv::recv_message(fd.value().get(), m, 4096, err)) fail("stranger connection stayed open");
  std::fprintf(stderr, "boot_pe: stranger refused\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ok";
  int target = argc > 2 ? std::atoi(argv[2]) : -1;
  int code = argc > 3 ? std::atoi(argv[3]) : 0;
  if (mode == "help") {
    std::puts("boot_pe [freeport | ok [rounds] | kill R | segv R | exit R CODE | exit0 R | sleep | abort R CODE | stranger | noinit R | big]");
    return 0;
  }
  if (mode == "freeport") {  // prints a free loopback port for the tcp tests
    auto fd = rdv::listen_tcp("127.0.0.1", 0);
    if (!fd.ok()) fail(fd.error().message());
    std::printf("%u\n", rdv::local_port(fd.value().get()));
    return 0;
  }
  auto cfg = config_load();
  if (!cfg.ok()) fail(cfg.error().message());
  if (const char* dir = std::getenv("BOOT_PE_PIDDIR")) {
    std::ofstream(std::string(dir) + "/pid." + std::to_string(getpid())) << getpid() << "\n";
  }
  if (mode == "noinit" && static_cast<int>(cfg.value().rank) == target) return 0;  // never joins the job
  if (mode == "stranger" && cfg.value().rank == 0) stranger(cfg.value().boot_addr);
  auto br = bootstrap_create(cfg.value());
  if (!br.ok()) {
    std::fprintf(stderr, "boot_pe: %s\n", br.error().message().c_str());
    return 2;
  }
  auto b = br.take();
  log_configure(log_level::warn, b->rank());
  int nrounds = mode == "ok" && target > 0 ? target : 50;
  rounds(*b, 3);
  if (b->rank() == target || (mode == "sleep")) {
    if (mode == "kill") raise(SIGKILL);
    if (mode == "segv") raise(SIGSEGV);
    if (mode == "exit") std::exit(code);
    if (mode == "exit0") std::exit(0);
    if (mode == "abort") b->abort(code, "test abort from PE " + std::to_string(b->rank()));
    if (mode == "sleep")
      for (;;) pause();
  }
  if (mode == "stranger" && b->rank() == 0) stranger(cfg.value().boot_addr);
  if (mode == "big") {  // megabytes per PE through the rendezvous
    for (int round = 0; round < 3; ++round) {
      std::string mine(static_cast<size_t>(4 << 20) + static_cast<size_t>(b->rank()), static_cast<char>('A' + b->rank() + round));
      auto r = b->allgather(mine);
      if (!r.ok()) fail("big allgather: " + r.error().message());
      for (int p = 0; p < b->size(); ++p)
        if (r.value()[static_cast<size_t>(p)] != std::string((4u << 20) + static_cast<size_t>(p), static_cast<char>('A' + p + round)))
          fail("big allgather: wrong data from PE " + std::to_string(p));
    }
  }
  rounds(*b, nrounds);
  auto s = b->finalize();
  if (!s.ok()) fail("finalize: " + s.message());
  if (b->rank() == 0) std::printf("boot_pe: %d PEs ok (%s)\n", b->size(), b->name());
  return 0;
}
