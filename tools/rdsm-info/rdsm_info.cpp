// rdsm-info: version, configuration table with effective values and their source, transports, osh names.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "shmem.h"

#include "common/config.hpp"

namespace {

void print_config() {
  auto cfg = rdsm::detail::config_load();
  if (!cfg.ok()) {
    std::fprintf(stderr, "rdsm-info: %s\n", cfg.error().message().c_str());
    std::exit(1);
  }
  std::printf("%-22s %-8s %-12s %-12s %s\n", "variable", "kind", "value", "source", "meaning");
  for (const auto& e : rdsm::detail::config_describe())
    std::printf("%-22s %-8s %-12s %-12s %s\n", e.variable, e.kind, e.value.empty() ? "\"\"" : e.value.c_str(),
                e.from_environment ? "environment" : "default", e.help);
}

constexpr const char* k_usage =
    "usage: rdsm-info [--config | --osh-path | --help]\n"
    "\n"
    "Without options: rdsm's version and the configuration table (variable, kind, effective value, its source,\n"
    "meaning). Started as a job (`rdsmrun -n 2 rdsm-info`, mpirun, srun --mpi=pmix), PE 0 prints the\n"
    "configuration and how it reaches every other PE: transports, load/store, native or emulated atomics.\n"
    "  --config     only the configuration table\n"
    "  --osh-path   the directory holding rdsm's oshcc, oshc++, oshCC and oshrun, for\n"
    "               export PATH=\"$(rdsm-info --osh-path):$PATH\"\n"
    "  -h, --help   this text\n"
    "A program's DSM counters come from rdsm_dsm_stats (rdsm::dsm::stats in C++), in the program itself.\n";

/// Prints <directory of this executable>/RDSM_OSH_FROM_BIN, resolved; fails when it is not there.
int print_osh_path() {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    std::fprintf(stderr, "rdsm-info: cannot read /proc/self/exe: %s\n", std::strerror(errno));
    return 1;
  }
  exe[len] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.rfind('/')) + "/" RDSM_OSH_FROM_BIN;
  char resolved[PATH_MAX];
  if (realpath(dir.c_str(), resolved) == nullptr) {
    std::fprintf(stderr, "rdsm-info: %s: %s (an incomplete install?)\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  std::printf("%s\n", resolved);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* opt = argc > 1 ? argv[1] : "";
  bool config_only = std::strcmp(opt, "--config") == 0;
  if (std::strcmp(opt, "--osh-path") == 0 && argc == 2) return print_osh_path();
  if (argc > 2 || (argc > 1 && !config_only)) {
    bool help = argc == 2 && (std::strcmp(opt, "--help") == 0 || std::strcmp(opt, "-h") == 0);
    if (!help) std::fprintf(stderr, "rdsm-info: unknown option '%s'\n", argc > 2 ? argv[2] : opt);
    std::fputs(k_usage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  char name[SHMEM_MAX_NAME_LEN];
  int major = 0, minor = 0;
  shmem_info_get_name(name);
  shmem_info_get_version(&major, &minor);
  // Started as a job (rdsmrun -n 2 rdsm-info, mpirun): start OpenSHMEM and let PE 0 report the
  // configuration and how it reaches every other PE (SHMEM_INFO): transports, native or emulated atomics.
  if (!config_only && (std::getenv("RDSM_BOOT_ADDR") != nullptr || std::getenv("PMIX_RANK") != nullptr)) {
    setenv("SHMEM_INFO", "1", 1);
    shmem_init();
    shmem_finalize();
    return 0;
  }
  std::printf("rdsm %s (%s, OpenSHMEM %d.%d)\n\n", RDSM_VERSION_STRING, name, major, minor);
  print_config();
  if (!config_only)
    std::printf("\nrun `rdsmrun -n 2 rdsm-info` to see how PEs reach each other (transports, atomics)\n");
  return 0;
}
