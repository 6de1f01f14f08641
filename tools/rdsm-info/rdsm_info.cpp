// rdsm-info: version, configuration table with effective values and their source, transports.
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

}  // namespace

int main(int argc, char** argv) {
  bool config_only = argc > 1 && std::strcmp(argv[1], "--config") == 0;
  if (argc > 1 && !config_only) {
    std::printf("usage: rdsm-info [--config]\n  prints rdsm's version, configuration and transports\n");
    return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
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
