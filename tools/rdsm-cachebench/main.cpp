// rdsm-cachebench: latency of cleaning CPU caches to the point of coherence when DMA-shared memory is released.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cachectl/cachectl.hpp"
#include "common/config.hpp"
#include "lazy_region.hpp"
#include "report.hpp"

namespace rdsm::cachebench {
namespace {

using detail::byte_range;
using detail::cache_insn;
using detail::cache_op;

constexpr const char* k_usage = R"(usage: rdsm-cachebench [options]
Measures cache maintenance to the point of coherence (the cost an ARMv8 DSM pays when memory shared
with a DMA device is released), reproducing the two experiments of the coherence study:
  pages      fixed allocation order, variable page count (1 .. 2^16 pages by powers of two)
  order      fixed page count, variable allocation order (0 .. 10)
A mapping is reserved PROT_NONE; its first write to each block of 2^order pages faults (SIGSEGV) and the
handler maps the block; the whole mapping is written; on release every touched block is cleaned to the
point of coherence (timed), then unmapped.
  primitive  clean / invalidate / clean+invalidate of a range per instruction, for lines that are dirty,
             clean (cached) or uncached before the operation; issue cost (instruction loop) vs
             completion cost (loop + final fence).

options:
  --experiments LIST   comma-separated subset of pages,order,primitive (default: all)
  --order N            allocation order of the pages experiment (default 0)
  --min-pages N        smallest page count of the pages experiment (default 1)
  --max-pages N        largest page count of the pages experiment (default 65536 = 256 MiB)
  --pages N            page count of the order experiment (default 1024)
  --max-order N        largest order of the order experiment (default 10)
  --sizes LIST         range sizes of the primitive experiment, K/M suffixes (default 64,4K,64K,1M)
  --insn NAME          instruction cleaning in the pages/order experiments (default: the library's
                       choice; clflush, clflushopt, clwb, dc_cvac, dc_civac)
  --reps N             samples per point (default 50)
  --min-reps N         samples per point at least, even past the time budget (default 5)
  --budget-ms N        time budget per point after which sampling stops (default 1500)
  --cpu N              pin to CPU N
  --csv FILE           write every point as CSV
  --plot DIR           write PNG plots (and their data and gnuplot script) into DIR; needs gnuplot
  --quick              short run: <= 256 pages, orders 0..8, sizes 64,4K,64K, 10 samples
  --emulated WORD      auto|yes|no: whether this runs under a user-mode emulator such as qemu-user,
                       whose timings are not hardware timings (default auto: an aarch64 build whose
                       /proc/cpuinfo names no ARM "CPU implementer" is emulated; other builds: no)
  --help               this text
Times are ns; "per page" divides by the pages of the mapping.
)";

struct options {
  bool run_pages = true, run_order = true, run_primitive = true;
  unsigned order = 0;
  uint64_t min_pages = 1, max_pages = 65536;
  uint64_t fixed_pages = 1024;
  unsigned max_order = 10;
  std::vector<uint64_t> sizes = {64, 4096, 65536, 1U << 20};
  cache_insn insn = cache_insn::none;
  bool insn_given = false;
  unsigned reps = 50, min_reps = 5;
  double budget_ms = 1500;
  int cpu = -1;
  std::string csv, plot_dir;
  std::string emulated = "auto";
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "rdsm-cachebench: %s (see --help)\n", message.c_str());
  std::exit(2);
}

uint64_t number(const std::string& flag, const std::string& text) {
  auto r = detail::parse_size(text);
  if (!r.ok()) usage_error(flag + " " + text + ": expected a number (K/M/G suffixes allowed)");
  return r.value();
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

options parse(int argc, char** argv) {
  options o;
  bool quick = false;
  std::vector<std::pair<std::string, std::string>> given;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(k_usage, stdout);
      std::exit(0);
    }
    if (a == "--quick") {
      quick = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) usage_error("unexpected argument " + a);
    std::string value;
    const size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    static const char* const k_flags[] = {"--experiments", "--order", "--min-pages", "--max-pages", "--pages",
                                          "--max-order", "--sizes", "--insn", "--reps", "--min-reps",
                                          "--budget-ms", "--cpu", "--csv", "--plot", "--emulated"};
    if (std::find(std::begin(k_flags), std::end(k_flags), a) == std::end(k_flags)) usage_error("unknown option " + a);
    if (eq == std::string::npos) {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      value = argv[++i];
    }
    given.emplace_back(a, value);
  }
  if (quick) {  // defaults of the short run; explicit flags below still override them
    o.max_pages = 256;
    o.fixed_pages = 256;
    o.max_order = 8;
    o.sizes = {64, 4096, 65536};
    o.reps = 10;
    o.min_reps = 3;
    o.budget_ms = 300;
  }
  for (const auto& [flag, value] : given) {
    if (flag == "--experiments") {
      o.run_pages = o.run_order = o.run_primitive = false;
      for (const std::string& e : split(value)) {
        if (e == "pages") o.run_pages = true;
        else if (e == "order") o.run_order = true;
        else if (e == "primitive") o.run_primitive = true;
        else usage_error("unknown experiment " + e);
      }
    } else if (flag == "--order") {
      o.order = static_cast<unsigned>(number(flag, value));
    } else if (flag == "--min-pages") {
      o.min_pages = number(flag, value);
    } else if (flag == "--max-pages") {
      o.max_pages = number(flag, value);
    } else if (flag == "--pages") {
      o.fixed_pages = number(flag, value);
    } else if (flag == "--max-order") {
      o.max_order = static_cast<unsigned>(number(flag, value));
    } else if (flag == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(value)) o.sizes.push_back(number(flag, s));
    } else if (flag == "--insn") {
      bool found = false;
      for (cache_insn i : {cache_insn::clflush, cache_insn::clflushopt, cache_insn::clwb, cache_insn::dc_cvac,
                           cache_insn::dc_civac}) {
        if (value != detail::cache_insn_name(i)) continue;
        if (!detail::cache_insn_available(i)) usage_error(value + " is not available on this CPU");
        o.insn = i;
        found = o.insn_given = true;
      }
      if (!found) usage_error("unknown instruction " + value);
    } else if (flag == "--reps") {
      o.reps = static_cast<unsigned>(number(flag, value));
    } else if (flag == "--min-reps") {
      o.min_reps = static_cast<unsigned>(number(flag, value));
    } else if (flag == "--budget-ms") {
      o.budget_ms = static_cast<double>(number(flag, value));
    } else if (flag == "--cpu") {
      o.cpu = static_cast<int>(number(flag, value));
    } else if (flag == "--csv") {
      o.csv = value;
    } else if (flag == "--plot") {
      o.plot_dir = value;
    } else if (flag == "--emulated") {
      if (value != "auto" && value != "yes" && value != "no") usage_error("--emulated " + value + ": expected auto, yes or no");
      o.emulated = value;
    } else {
      usage_error("unknown option " + flag);
    }
  }
  if (o.order > 20 || o.max_order > 20) usage_error("orders above 20 (4 GiB blocks) are not supported");
  if (o.min_pages == 0 || o.max_pages < o.min_pages || o.fixed_pages == 0) usage_error("page counts must be >= 1");
  if (o.reps == 0) usage_error("--reps must be >= 1");
  if (o.min_reps > o.reps) o.min_reps = o.reps;
  for (uint64_t s : o.sizes)
    if (s == 0) usage_error("--sizes must be >= 1 byte");
  if (!o.insn_given) o.insn = detail::cache_choose(cache_op::clean);
  return o;
}

double now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// One line on stderr, rewritten in place on a terminal; elsewhere only at the start of each experiment.
class progress {
 public:
  progress(std::string name, size_t total) : name_(std::move(name)), total_(total), tty_(isatty(STDERR_FILENO)) {
    if (!tty_) std::fprintf(stderr, "rdsm-cachebench: experiment %s, %zu points\n", name_.c_str(), total_);
  }
  ~progress() {
    if (tty_) std::fprintf(stderr, "\r%-100s\r", "");
  }
  void step(const std::string& what) {
    ++done_;
    if (tty_) std::fprintf(stderr, "\r[%s %zu/%zu] %-70s", name_.c_str(), done_, total_, what.c_str());
  }

 private:
  std::string name_;
  size_t total_;
  size_t done_ = 0;
  bool tty_;
};

// Runs `once` (which appends one sample per metric) after one warm-up, until `reps` samples, or the
// time budget with at least `min_reps`.
template <class F>
void sample(const options& o, F once) {
  once(true);
  const double start = now_ns();
  for (unsigned n = 0; n < o.reps; ++n) {
    if (n >= o.min_reps && now_ns() - start > o.budget_ms * 1e6) break;
    once(false);
  }
}

// Pages and order experiments: one point = one (pages, order).
void lazy_point(const options& o, const std::string& exp, uint64_t pages, unsigned order, std::vector<row>& rows) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<double> touch, issue, complete, unmap;
  uint64_t cleaned = 0;
  unsigned char value = 1;
  sample(o, [&](bool warm) {
    lazy_region r(pages, order);
    char* p = r.data();
    const double t0 = now_ns();
    for (size_t off = 0; off < r.bytes(); off += page) std::memset(p + off, value, page);  // faults blocks in
    const double t1 = now_ns();
    detail::cache_fence();  // the stores are done; what follows times maintenance only
    const double t2 = now_ns();
    r.issue_touched(o.insn);
    const double t3 = now_ns();
    detail::cache_fence();
    const double t4 = now_ns();
    cleaned = r.touched_blocks() * r.block_bytes();
    r.unmap_touched();
    const double t5 = now_ns();
    ++value;
    if (warm) return;
    touch.push_back(t1 - t0);
    issue.push_back(t3 - t2);
    complete.push_back(t4 - t2);
    unmap.push_back(t5 - t4);
  });
  for (auto [metric, v] : {std::pair{"touch", &touch}, {"issue", &issue}, {"complete", &complete}, {"unmap", &unmap}})
    rows.push_back({exp, "clean", detail::cache_insn_name(o.insn), "dirty", metric, order, pages, cleaned, summarize(*v)});
}

// The instructions that implement `op` on this CPU, the library's choice first.
std::vector<cache_insn> candidates(cache_op op) {
  std::vector<cache_insn> all = op == cache_op::clean
                                    ? std::vector{cache_insn::clwb, cache_insn::clflushopt, cache_insn::clflush,
                                                  cache_insn::dc_cvac, cache_insn::dc_civac}
                                    : std::vector{cache_insn::clflushopt, cache_insn::clflush, cache_insn::dc_civac};
  std::vector<cache_insn> out;
  for (cache_insn i : all)
    if (detail::cache_insn_available(i)) out.push_back(i);
  if (out.empty()) out.push_back(cache_insn::none);
  return out;
}

void primitive_experiment(const options& o, std::vector<row>& rows) {
  uint64_t largest = 0;
  for (uint64_t s : o.sizes) largest = std::max(largest, s);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<char> storage(largest + page);
  char* buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(storage.data()) + page - 1) & ~(page - 1));
  const cache_insn evict = detail::cache_choose(cache_op::clean_invalidate);
  const size_t line = detail::cache_detect().line_size;
  const char* states[] = {"dirty", "clean", "uncached"};
  size_t total = 0;
  for (cache_op op : {cache_op::clean, cache_op::invalidate, cache_op::clean_invalidate})
    total += candidates(op).size() * 3 * o.sizes.size();
  progress bar("primitive", total);
  for (cache_op op : {cache_op::clean, cache_op::invalidate, cache_op::clean_invalidate}) {
    for (cache_insn insn : candidates(op)) {
      for (const char* state : states) {
        for (uint64_t size : o.sizes) {
          bar.step(std::string(detail::cache_op_name(op)) + " " + detail::cache_insn_name(insn) + " " + state + " " +
                   std::to_string(size) + " B");
          const byte_range range{buf, size};
          std::vector<double> issue, complete;
          unsigned char value = 1;
          volatile char sink = 0;
          sample(o, [&](bool warm) {
            std::memset(buf, value++, size);  // dirty
            if (std::strcmp(state, "dirty") != 0) {
              detail::cache_issue(evict, range);  // written back and evicted: uncached
              detail::cache_fence();
              if (std::strcmp(state, "clean") == 0)  // read back: cached and clean
                for (uint64_t off = 0; off < size; off += line) sink = sink + buf[off];
            }
            detail::cache_fence();
            const double t0 = now_ns();
            detail::cache_issue(insn, range);
            const double t1 = now_ns();
            detail::cache_fence();
            const double t2 = now_ns();
            if (warm) return;
            issue.push_back(t1 - t0);
            complete.push_back(t2 - t0);
          });
          const uint64_t pages = (size + page - 1) / page;
          for (auto [metric, v] : {std::pair{"issue", &issue}, {"complete", &complete}})
            rows.push_back({"primitive", detail::cache_op_name(op), detail::cache_insn_name(insn), state, metric, 0,
                            pages, size, summarize(*v)});
        }
      }
    }
  }
}

double timer_overhead_ns() {
  std::vector<double> d;
  for (int i = 0; i < 1001; ++i) {
    const double a = now_ns();
    d.push_back(now_ns() - a);
  }
  return summarize(d).p50;
}

std::string first_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// Whether the process runs under a user-mode emulator, and how that was decided.
struct emulation {
  bool emulated = false;
  std::string why;
};

emulation detect_emulation(const std::string& word) {
  if (word != "auto") return {word == "yes", "--emulated " + word};
#if defined(__aarch64__)
  // qemu-user passes the host's /proc/cpuinfo through (an x86 host's has vendor_id, flags, ...); an
  // arm64 kernel lists "CPU implementer" for every CPU. No EL0 register tells emulation apart.
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("CPU implementer", 0) == 0) return {false, "/proc/cpuinfo has a \"CPU implementer\" line"};
  return {true, "/proc/cpuinfo has no \"CPU implementer\" line"};
#else
  return {false, std::string("not checked on ") + detail::cache_detect().arch};
#endif
}

int run(int argc, char** argv) {
  const options o = parse(argc, argv);
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) usage_error("--cpu " + std::to_string(o.cpu) + ": " + std::strerror(errno));
  }
  const detail::cache_features& f = detail::cache_detect();
  std::string report = detail::cache_describe(f);
  std::printf("# rdsm-cachebench\n# ");
  for (char c : report) std::fputs(c == '\n' ? "\n# " : std::string(1, c).c_str(), stdout);
  const double overhead = timer_overhead_ns();
  std::printf("\n# timer: CLOCK_MONOTONIC, back-to-back reads %.0f ns (included in every sample)\n", overhead);
  std::printf("# load average: %s\n", first_line("/proc/loadavg").c_str());
  std::printf("# pages/order experiments clean with: %s\n", detail::cache_insn_name(o.insn));
  const emulation emu = detect_emulation(o.emulated);
  constexpr const char* k_emulated_note = "timings under qemu-user are not hardware timings";
  if (emu.emulated) {
    std::printf("# emulated: yes (%s): %s\n", emu.why.c_str(), k_emulated_note);
    std::fprintf(stderr, "rdsm-cachebench: warning: running under a user-mode emulator (%s): %s; the emulator has "
                 "no cache model, so these numbers say nothing about cache maintenance on hardware\n",
                 emu.why.c_str(), k_emulated_note);
  } else {
    std::printf("# emulated: no (%s)\n", emu.why.c_str());
  }
  const bool vm = f.hypervisor == detail::cache_features::tristate::yes;
  if (vm)
    std::fprintf(stderr,
                 "rdsm-cachebench: warning: running under a hypervisor (%s): cache flushes, page faults and timers "
                 "are virtualised and the host's other guests share the caches; these are not bare-metal numbers\n",
                 f.hypervisor_vendor.empty() ? "unknown" : f.hypervisor_vendor.c_str());
  else if (f.hypervisor == detail::cache_features::tristate::unknown)
    std::fprintf(stderr, "rdsm-cachebench: note: cannot tell whether this runs under a hypervisor on %s\n", f.arch);
  if (o.insn == cache_insn::none)
    std::fprintf(stderr, "rdsm-cachebench: warning: no cache maintenance instruction on this CPU; measuring fences only\n");

  std::vector<row> rows;
  if (o.run_pages) {
    std::vector<uint64_t> counts;
    for (uint64_t p = o.min_pages; p <= o.max_pages; p *= 2) counts.push_back(p);
    if (counts.back() != o.max_pages) counts.push_back(o.max_pages);
    progress bar("pages", counts.size());
    for (uint64_t p : counts) {
      bar.step("order " + std::to_string(o.order) + ", " + std::to_string(p) + " pages");
      lazy_point(o, "pages", p, o.order, rows);
    }
  }
  if (o.run_order) {
    progress bar("order", o.max_order + 1);
    for (unsigned order = 0; order <= o.max_order; ++order) {
      bar.step(std::to_string(o.fixed_pages) + " pages, order " + std::to_string(order));
      lazy_point(o, "order", o.fixed_pages, order, rows);
    }
  }
  if (o.run_primitive) primitive_experiment(o, rows);

  print_table(rows);
  std::fflush(stdout);
  int rc = 0;
  std::string error;
  if (!o.csv.empty()) {
    std::vector<std::string> comments;
    if (emu.emulated) comments.push_back(std::string("emulated: ") + k_emulated_note + " (" + emu.why + ")");
    if (write_csv(o.csv, rows, comments, error)) {
      std::fprintf(stderr, "rdsm-cachebench: wrote %s (%zu rows)\n", o.csv.c_str(), rows.size());
    } else {
      std::fprintf(stderr, "rdsm-cachebench: %s\n", error.c_str());
      rc = 1;
    }
  }
  if (!o.plot_dir.empty()) {
    std::string note = (f.model.empty() ? std::string(f.arch) : f.model) +
                       (vm ? ", virtual machine (" + f.hypervisor_vendor + ")" : std::string()) +
                       (emu.emulated ? std::string(", EMULATED: ") + k_emulated_note : std::string());
    if (write_plots(o.plot_dir, rows, note, error))
      std::fprintf(stderr, "rdsm-cachebench: wrote plots into %s\n", o.plot_dir.c_str());
    else
      std::fprintf(stderr, "rdsm-cachebench: %s\n", error.c_str());
  }
  return rc;
}

}  // namespace
}  // namespace rdsm::cachebench

int main(int argc, char** argv) {
  try {
    return rdsm::cachebench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rdsm-cachebench: %s\n", e.what());
    return 1;
  }
}
