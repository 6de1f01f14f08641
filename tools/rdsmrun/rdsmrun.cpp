// rdsmrun: starts N PEs on this machine, runs their rendezvous and returns the job's exit status.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bootstrap/rendezvous/server.hpp"
#include "bootstrap/rendezvous/wire.hpp"
#include "common/config.hpp"
#include "common/job_dir.hpp"
#include "common/limits.hpp"
#include "common/log.hpp"

namespace {

using namespace rdsm::detail;
using clock_type = std::chrono::steady_clock;

constexpr const char* usage =
    "usage: rdsmrun -n N [--timeout S] [--] program [args...] [: -n M program2 [args...]]...\n"
    "\n"
    "Starts N PEs of `program` on this machine and connects them (RDSM_BOOT=launcher). Also installed as\n"
    "oshrun in the directory `rdsm-info --osh-path` prints. Across hosts use srun --mpi=pmix or mpirun.\n"
    "After `:`, M more PEs run program2, numbered after the previous ones: e.g. an x86-64 build and an\n"
    "aarch64 build under emulation in one job, `rdsmrun -n 2 ./app : -n 2 qemu-aarch64 ./app.arm64`.\n"
    "  -n, -np, --np N  number of PEs (required, at least 1); also -nN, --np=N\n"
    "  --timeout S      end the job after S seconds (exit status 124; more than 1e9 s is taken as 1e9 s); also\n"
    "                   --timeout=S\n"
    "  -h, --help       show this help\n"
    "\n"
    "Exit status: 0 when every PE exits 0 after shmem_finalize; otherwise the status of the first PE that\n"
    "failed (128+signal when killed), the code given to shmem_global_exit (1 when its low 8 bits are 0), 124\n"
    "on --timeout, 128+signal when rdsmrun itself is interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2,\n"
    "SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU and SIGXFSZ are passed on to the PEs; SIGTSTP stops them with\n"
    "rdsmrun until it continues). When one PE fails, every other PE is ended within 2 s. The job's shared\n"
    "memory files live in a directory of its own (in RDSM_SHM_DIR, default /dev/shm), removed when the job\n"
    "ends. The PEs' network traffic stays on loopback (UCX_NET_DEVICES=lo) unless UCX_NET_DEVICES is set.\n"
    "\n"
    "A stuck job: SIGUSR1 to rdsmrun (kill -USR1 PID) makes every PE write one line per waiting thread to\n"
    "stderr (the call it waits in and on what: PE, address, value); rdsmrun names stopped PEs itself.\n"
    "RDSM_HANG_REPORT=60s makes each PE write that line by itself after 60 s in one call.\n";

// Passed on to the PEs; each ends the job (as the PEs' default actions would end them).
constexpr int forwarded_signals[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR2,
                                     SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};

[[noreturn]] void die(int code, const std::string& msg) {
  std::fprintf(stderr, "rdsmrun: %s\n", msg.c_str());
  std::exit(code);
}

// Longer than any job runs (31 years), and far from where a steady_clock time point overflows.
constexpr double max_timeout_s = 1e9;

/// A program and the number of PEs that run it; PEs are numbered in the order the programs are given.
struct app {
  int n = 0;
  std::vector<std::string> argv;
  std::string program;  // argv[0] as found on PATH
};

struct options {
  int n = 0;  // PEs in all
  std::optional<double> timeout;
  std::vector<app> apps;
};

options parse_args(int argc, char** argv) {
  options o;
  auto number = [](const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    out = std::strtod(s.c_str(), &end);
    return errno == 0 && *end == '\0' && std::isfinite(out);
  };
  // An -n option in any of its spellings (-n N, -np N, --np N, --np=N, -nN): the count it gives, read from the
  // next argument when not attached; nullopt when `a` is not one. Before the first program and after each `:`.
  auto pe_count = [&](const std::string& a, int& i) -> std::optional<int> {
    std::string value;
    if (a == "-n" || a == "-np" || a == "--np")
      value = i + 1 < argc ? argv[++i] : "";
    else if (a.rfind("--np=", 0) == 0)
      value = a.substr(5);
    else if (a.size() > 2 && a.rfind("-n", 0) == 0 && a != "-np" && std::isdigit(static_cast<unsigned char>(a[2])))
      value = a.substr(2);
    else
      return std::nullopt;
    double d = 0;
    if (!number(value, d) || d < 1 || d != std::floor(d)) die(2, "-n needs a positive number, got '" + value + "'");
    if (d > 1e6) die(2, "-n " + value + " is more PEs than rdsmrun starts (at most 1000000 on one host)");
    return static_cast<int>(d);
  };
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (auto n = pe_count(a, i)) {
      if (o.n != 0 && o.n != *n)
        die(2, "-n is given twice (" + std::to_string(o.n) + " and " + std::to_string(*n) + "); give the number of PEs once");
      o.n = *n;
      continue;
    }
    std::string value;
    bool inline_value = false;
    std::string name = a;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (name == "--timeout") {
      if (!inline_value) value = i + 1 < argc ? argv[++i] : "";
      double d = 0;
      if (!number(value, d) || d <= 0) die(2, "--timeout needs a positive number of seconds");
      o.timeout = std::min(d, max_timeout_s);
    } else {
      die(2, "unknown option '" + a + "'; see rdsmrun --help");
    }
  }
  if (o.n == 0) die(2, "-n needs a positive number (the number of PEs); see rdsmrun --help");
  if (i >= argc) die(2, "no program given; see rdsmrun --help");
  o.apps.push_back(app{o.n, {}, {}});
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], ":") != 0) {
      o.apps.back().argv.emplace_back(argv[i]);
      continue;
    }
    // Another program: `-n M [--] program [args...]`.
    const std::string next = i + 1 < argc ? argv[++i] : "";
    const std::optional<int> n = pe_count(next, i);
    if (!n) die(2, "after ':' give -n M and the next program; see rdsmrun --help");
    if (i + 1 < argc && std::strcmp(argv[i + 1], "--") == 0) ++i;
    if (i + 1 >= argc || std::strcmp(argv[i + 1], ":") == 0) die(2, "no program given after ':'; see rdsmrun --help");
    o.apps.push_back(app{*n, {}, {}});
    o.n += *n;
    if (o.n > 1000000) die(2, "more than 1000000 PEs in all");
  }
  return o;
}

/// Finds the program as execvp would; exits 127/126 with one line when it cannot be executed.
std::string resolve_program(const std::string& prog) {
  auto check = [](const std::string& path) -> int {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (::access(path.c_str(), X_OK) != 0) return errno;
    return 0;
  };
  int err = ENOENT;
  if (prog.find('/') != std::string::npos) {
    err = check(prog);
    if (err == 0) return prog;
  } else {
    const char* path_env = std::getenv("PATH");
    std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      std::string dir = path.substr(start, end - start);
      std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
      int e = check(cand);
      if (e == 0) return cand;
      if (e != ENOENT && e != ENOTDIR) err = e;  // remember "permission denied" over "not found"
      start = end + 1;
    }
  }
  die(err == ENOENT || err == ENOTDIR ? 127 : 126,
      "cannot execute '" + prog + "': " + std::strerror(err));
}

std::string make_secret() {
  unsigned char b[16];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      die(1, std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  std::string hex;
  char tmp[3];
  for (unsigned char c : b) {
    std::snprintf(tmp, sizeof tmp, "%02x", c);
    hex += tmp;
  }
  return hex;
}

// The job's directory for UCX's shared memory files: every PE's POSIX segments (UCX_POSIX_DIR), so that
// nothing stays in /dev/shm when a PE dies before UCX has unlinked its files. Removed when rdsmrun exits, and
// by its helper when rdsmrun is killed (SIGKILL left it behind; the PEs end with rdsmrun).
job_dir_lease g_job_dir;

void remove_job_dir() { job_dir_release(g_job_dir); }

void make_job_dir(const config& cfg) {
  if (std::getenv("UCX_POSIX_DIR") != nullptr) return;  // the user chose one: theirs to manage
  auto dir = job_dir_create_removed_at_exit(cfg.shm_dir, "rdsm-job", "RDSM_SHM_DIR");
  if (!dir.ok()) {
    std::fprintf(stderr, "rdsmrun: %s; UCX's shared memory files go to /dev/shm\n", dir.error().message().c_str());
    return;
  }
  g_job_dir = dir.take();
  std::atexit(remove_job_dir);
  ::setenv("UCX_POSIX_DIR", g_job_dir.path.c_str(), 1);
}

// Checks the job's configuration once, here, as every PE would read it: a malformed variable is one line
// from rdsmrun, not one per PE. The launcher's own variables are set first (every PE gets them).
config check_config(int n, const std::string& secret) {
  ::setenv("RDSM_BOOT", "launcher", 1);
  ::setenv("RDSM_BOOT_ADDR", "127.0.0.1:1", 1);  // the real port is set per PE
  ::setenv("RDSM_RANK", "0", 1);
  ::setenv("RDSM_SIZE", std::to_string(n).c_str(), 1);
  ::setenv("RDSM_JOB_SECRET", secret.c_str(), 1);
  auto cfg = config_load(/*warn_unknown=*/true);
  if (!cfg.ok()) die(1, cfg.error().message());
  const host_memory mem = host_memory_size();
  fit_default_heap(cfg.value(), n, mem);  // as every PE will
  status limits = check_host_limits(cfg.value(), n, n, mem);
  if (!limits.ok()) die(1, limits.message());
  status base = check_dsm_base(cfg.value(), /*mappings=*/false);  // each PE checks its own mappings
  if (!base.ok()) die(1, base.message());
  // The PEs' own page size is checked by each (a job may mix architectures).
  status dsm = check_dsm_settings(cfg.value(), /*this_host=*/false);
  if (!dsm.ok()) die(1, dsm.message());
  return cfg.take();
}

struct pe {
  pid_t pid = -1;
  bool reaped = false;
};

class job final : public rdv::server_listener {
 public:
  explicit job(options o) : opts_(std::move(o)) {}

  int run() {
    for (app& a : opts_.apps) a.program = resolve_program(a.argv[0]);
    std::string secret = make_secret();
    const config cfg = check_config(opts_.n, secret);
    make_job_dir(cfg);
    // SIGHUP passed on to the PEs must end them: UCX's library catches it at load to turn on debug output
    // (UCX_DEBUG_SIGNO, SIGHUP by default), unless told not to. A value the user set is kept.
    ::setenv("UCX_DEBUG_SIGNO", "0", 0);
    // Every PE runs on this host: shared memory carries their data and tcp over loopback their peer-failure
    // detection, so UCX needs no other network device, and without this each PE would listen on every
    // interface of the host. A UCX_NET_DEVICES the user set is kept (`all` is UCX's own default).
    ::setenv("UCX_NET_DEVICES", "lo", 0);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGUSR1);  // the on-demand report
    // Signals to forward; one that rdsmrun was started with ignored (nohup, `cmd &`) stays ignored by
    // rdsmrun and its PEs alike.
    for (int s : forwarded_signals) {
      struct sigaction old {};
      if (sigaction(s, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaddset(&mask, s);
    }
    struct sigaction tstp {};  // job control (Ctrl-Z): the PEs stop and continue with rdsmrun
    if (sigaction(SIGTSTP, nullptr, &tstp) == 0 && tstp.sa_handler != SIG_IGN) sigaddset(&mask, SIGTSTP);
    if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) die(1, std::string("sigprocmask: ") + std::strerror(errno));
    sigfd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd_ < 0) die(1, std::string("signalfd: ") + std::strerror(errno));
    std::signal(SIGPIPE, SIG_IGN);

    rdv::server_options so;
    so.size = opts_.n;
    so.secret = secret;
    // A PE that never calls shmem_init keeps the others waiting in theirs: with RDSM_BOOT_TIMEOUT set, the job
    // ends after it, naming the missing PEs. Unset, rdsmrun waits (a program may work long before
    // shmem_init), and a PE that exits without calling it ends the job.
    if (std::getenv("RDSM_BOOT_TIMEOUT") != nullptr)
      so.join_timeout_ms = static_cast<int>(rdv::boot_timeout_seconds(cfg.boot_timeout) * 1000);
    auto srv = rdv::server::create("127.0.0.1", 0, so, this);
    if (!srv.ok()) die(1, "cannot start the rendezvous: " + srv.error().message());
    server_ = srv.take();
    std::string addr = "127.0.0.1:" + std::to_string(server_->port());

    pes_.resize(static_cast<size_t>(opts_.n));
    for (int r = 0; r < opts_.n && !ending_; ++r) spawn(r, app_of(r), addr, secret);
    if (opts_.timeout) timeout_at_ = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                                std::chrono::duration<double>(*opts_.timeout));
    loop();
    server_->flush_notices();
    // Strays: anything a PE left in its process group.
    for (const pe& p : pes_)
      if (p.pid > 0) ::kill(-p.pid, SIGKILL);
    remove_job_dir();
    // A code the exit status cannot hold (shmem_global_exit(256)) must not read as success.
    if (!ending_ || exit_code_ == 0) return 0;
    return (exit_code_ & 0xff) != 0 ? exit_code_ & 0xff : 1;
  }

  void on_connected(int rank) override {
    if (!ending_ && exited_unjoined_ >= 0)
      fail_unjoined(exited_unjoined_);
    (void)rank;
  }

  void on_abort(int rank, int code, const std::string& message) override {
    // A PE often aborts because it noticed that a peer died, sometimes before the kernel reports that
    // death to us: wait briefly for it, so the line names the real cause (the aborter's own exit is not one).
    aborter_ = rank;
    for (int i = 0; i < 30 && !ending_; ++i) {
      reap();
      if (!ending_) ::usleep(10000);
    }
    if (ending_) return;
    if (rank >= 0)
      end_job(code, rdsm::detail::format("PE %d ended the job (code %d): %s", rank, code, message.c_str()));
    else
      end_job(code, "the rendezvous ended the job: " + message);
  }

  void on_refused(const std::string& peer, const std::string& why) override {
    std::fprintf(stderr, "rdsmrun: refused a rendezvous connection from %s: %s\n", peer.c_str(), why.c_str());
  }

  void on_warning(const std::string& line) override { std::fprintf(stderr, "rdsmrun: %s\n", line.c_str()); }

 private:
  const app& app_of(int rank) const {
    for (const app& a : opts_.apps) {
      if (rank < a.n) return a;
      rank -= a.n;
    }
    return opts_.apps.back();  // not reached: ranks are below the total
  }

  void spawn(int rank, const app& what, const std::string& addr, const std::string& secret) {
    int errpipe[2];
    if (::pipe2(errpipe, O_CLOEXEC) != 0) die(1, std::string("pipe2: ") + std::strerror(errno));
    pid_t parent = ::getpid();
    bool stdin_tty = ::isatty(STDIN_FILENO) != 0;
    pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "rdsmrun: fork failed: %s\n", std::strerror(errno));
      end_job(1, "");
      return;
    }
    if (pid == 0) {
      ::close(errpipe[0]);
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);  // rdsmrun already gone
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      std::signal(SIGPIPE, SIG_DFL);
      // Until its runtime installs the report, a PE ignores SIGUSR1 (the default would end it).
      std::signal(SIGUSR1, SIG_IGN);
      // Outside the terminal's foreground process group, output to it under `stty tostop` or a tcsetattr
      // would stop the PE (SIGTTOU) and the job would hang: ignored, they proceed as in the foreground.
      std::signal(SIGTTOU, SIG_IGN);
      // A PE in its own process group must not read the terminal (it would stop); rank 0 keeps a piped stdin.
      if (rank != 0 || stdin_tty) {
        int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      }
      ::setenv("RDSM_BOOT", "launcher", 1);
      ::setenv("RDSM_BOOT_ADDR", addr.c_str(), 1);
      ::setenv("RDSM_RANK", std::to_string(rank).c_str(), 1);
      ::setenv("RDSM_SIZE", std::to_string(opts_.n).c_str(), 1);
      ::setenv("RDSM_JOB_SECRET", secret.c_str(), 1);
      std::vector<char*> args;
      for (auto& a : what.argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(what.program.c_str(), args.data());
      int e = errno;
      ssize_t rc = ::write(errpipe[1], &e, sizeof e);
      (void)rc;
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also in the parent, so kill(-pid) works before the child runs
    pes_[static_cast<size_t>(rank)].pid = pid;
    ::close(errpipe[1]);
    int e = 0;
    ssize_t n;
    do n = ::read(errpipe[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    ::close(errpipe[0]);
    if (n == static_cast<ssize_t>(sizeof e))
      end_job(e == ENOENT ? 127 : 126, "cannot execute '" + what.argv[0] + "': " + std::strerror(e));
  }

  void loop() {
    while (std::any_of(pes_.begin(), pes_.end(), [](const pe& p) { return p.pid > 0 && !p.reaped; })) {
      std::vector<pollfd> fds{{sigfd_, POLLIN, 0}};
      size_t n = server_->add_pollfds(fds);
      int timeout = server_->poll_timeout_ms();
      auto now = clock_type::now();
      for (auto t : {timeout_at_, kill_at_})
        if (t) {
          int ms = static_cast<int>(
              std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(*t - now).count() + 1));
          timeout = timeout < 0 ? ms : std::min(timeout, ms);
        }
      if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR)
        die(1, std::string("poll: ") + std::strerror(errno));
      if (fds[0].revents & POLLIN) read_signals();
      server_->process(fds.data() + 1, n);
      now = clock_type::now();
      if (timeout_at_ && now >= *timeout_at_) {
        timeout_at_.reset();
        end_job(124, rdsm::detail::format("job exceeded --timeout %g s; ending it", *opts_.timeout));
      }
      if (kill_at_ && now >= *kill_at_) {
        kill_at_.reset();
        signal_all(SIGKILL, -1);
      }
    }
  }

  void read_signals() {
    signalfd_siginfo si{};
    while (::read(sigfd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
      int sig = static_cast<int>(si.ssi_signo);
      if (sig == SIGCHLD) {
        reap();
        continue;
      }
      if (sig == SIGUSR1) {
        report();
        continue;
      }
      if (sig == SIGTSTP) {  // Ctrl-Z: the PEs (in process groups of their own) stop too, and go on with us
        signal_all(SIGSTOP, -1);
        ::raise(SIGSTOP);
        signal_all(SIGCONT, -1);
        continue;
      }
      if (interrupted_) {  // second signal: no more patience
        signal_all(SIGKILL, -1);
        continue;
      }
      interrupted_ = true;
      signal_all(sig, -1);
      if (!ending_) {
        ending_ = true;
        exit_code_ = 128 + sig;
      }
      auto at = clock_type::now() + std::chrono::seconds(2);
      if (!kill_at_ || at < *kill_at_) kill_at_ = at;
    }
  }

  /// The on-demand report: every running PE writes what it waits for; a stopped PE cannot, so it is named here.
  void report() {
    int running = 0;
    for (const pe& p : pes_) running += p.pid > 0 && !p.reaped ? 1 : 0;
    std::fprintf(stderr, "rdsmrun: report requested (SIGUSR1): %d PE%s running\n", running, running == 1 ? "" : "s");
    std::fflush(stderr);
    for (size_t r = 0; r < pes_.size(); ++r) {
      const pe& p = pes_[r];
      if (p.pid <= 0 || p.reaped) continue;
      const char state = process_state(p.pid);
      if (state == 'T' || state == 't')
        std::fprintf(stderr, "rdsmrun: PE %zu (pid %d) is stopped (SIGSTOP or a debugger) and cannot report; SIGCONT "
                     "resumes it\n", r, static_cast<int>(p.pid));
      else
        ::kill(p.pid, SIGUSR1);
    }
  }

  /// The state letter of /proc/PID/stat (R, S, D, T, t, Z...), or '?'.
  static char process_state(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) return '?';
    char buf[512];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char* close = std::strrchr(buf, ')');  // the command name may hold spaces and parentheses
    return close != nullptr && close[1] == ' ' && close[2] != '\0' ? close[2] : '?';
  }

  void reap() {
    int st = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &st, WNOHANG)) > 0) {
      auto it = std::find_if(pes_.begin(), pes_.end(), [&](const pe& p) { return p.pid == pid; });
      if (it == pes_.end()) continue;
      it->reaped = true;
      int rank = static_cast<int>(it - pes_.begin());
      if (ending_ || rank == aborter_) continue;
      if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        end_job(128 + sig, rdsm::detail::format("PE %d (pid %d) was killed by signal %d (%s); ending the job", rank,
                                                static_cast<int>(pid), sig, strsignal(sig)));
      } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        if (server_->abort_pending(rank)) continue;  // its abort, handled next, names the cause
        bool fin = server_->finalized(rank);
        end_job(WEXITSTATUS(st), rdsm::detail::format("PE %d (pid %d) exited with status %d%s; ending the job", rank,
                                                      static_cast<int>(pid), WEXITSTATUS(st),
                                                      fin ? "" : " before shmem_finalize"));
      } else if (server_->connected_ever(rank) && !server_->finalized(rank)) {
        end_job(1, rdsm::detail::format("PE %d (pid %d) exited with status 0 before shmem_finalize; ending the job",
                                        rank, static_cast<int>(pid)));
      } else if (!server_->connected_ever(rank)) {
        exited_unjoined_ = rank;
        for (int r = 0; r < opts_.n; ++r)
          if (server_->connected_ever(r) && !server_->finalized(r)) {
            fail_unjoined(rank);
            break;
          }
      }
    }
  }

  void fail_unjoined(int rank) {
    end_job(1, rdsm::detail::format("PE %d (pid %d) exited with status 0 without calling shmem_init while other "
                                    "PEs did; ending the job",
                                    rank, static_cast<int>(pes_[static_cast<size_t>(rank)].pid)));
  }

  /// Ends every PE still running: SIGTERM now (except an aborting PE, which exits by itself), SIGKILL in 1 s.
  void end_job(int code, const std::string& line) {
    if (ending_) return;
    ending_ = true;
    exit_code_ = code;
    if (!line.empty()) std::fprintf(stderr, "rdsmrun: %s\n", line.c_str());
    std::fflush(stderr);
    signal_all(SIGTERM, aborter_);
    kill_at_ = clock_type::now() + std::chrono::seconds(1);
  }

  void signal_all(int sig, int except_rank) {
    for (size_t r = 0; r < pes_.size(); ++r)
      if (pes_[r].pid > 0 && !pes_[r].reaped && static_cast<int>(r) != except_rank) ::kill(-pes_[r].pid, sig);
  }

  options opts_;
  int sigfd_ = -1;
  std::unique_ptr<rdv::server> server_;
  std::vector<pe> pes_;
  std::optional<clock_type::time_point> timeout_at_, kill_at_;
  bool ending_ = false;
  bool interrupted_ = false;
  int exit_code_ = 0;
  int aborter_ = -1;
  int exited_unjoined_ = -1;
};

}  // namespace

int main(int argc, char** argv) {
  rdsm::detail::keep_standard_fds();  // before anything opens a descriptor: PEs inherit 0-2
  options o = parse_args(argc, argv);
  rdsm::detail::log_configure(rdsm::detail::log_level::warn, -1);
  job j(std::move(o));
  return j.run();
}
