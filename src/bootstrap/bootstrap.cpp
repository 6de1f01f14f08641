// Chooses the bootstrap backend from RDSM_BOOT and the environment.
#include "bootstrap/bootstrap.hpp"

#include <atomic>
#include <cstdlib>

#include "bootstrap/backends.hpp"
#include "common/log.hpp"

namespace rdsm::detail {

namespace {
std::atomic<void (*)()> g_wait_hook{nullptr};
}  // namespace

void bootstrap_set_wait_hook(void (*hook)()) { g_wait_hook.store(hook, std::memory_order_release); }

void bootstrap_wait_hook() {
  if (auto* hook = g_wait_hook.load(std::memory_order_acquire)) hook();
}

result<std::unique_ptr<bootstrap>> bootstrap_create(const config& cfg) {
  std::string boot = cfg.boot.empty() ? "auto" : cfg.boot;
  if (boot == "auto") {
    if (!cfg.boot_addr.empty()) {
      boot = "launcher";
    } else if (std::getenv("PMIX_RANK") != nullptr || std::getenv("PMIX_NAMESPACE") != nullptr) {
      boot = "pmix";
    } else {
      boot = "singleton";
    }
    RDSM_LOG_DEBUG("boot", "RDSM_BOOT=auto chose the %s bootstrap", boot.c_str());
  }
  if (boot == "launcher") return rendezvous_bootstrap_create(cfg, false);
  if (boot == "tcp") return rendezvous_bootstrap_create(cfg, true);
  if (boot == "pmix") {
#if defined(RDSM_WITH_PMIX)
    return pmix_bootstrap_create(cfg);
#else
    return status::error(
        "the PMIx bootstrap is not in this build of rdsm (configured with RDSM_WITH_PMIX=OFF): start the job "
        "with rdsmrun, or set RDSM_BOOT=tcp with RDSM_BOOT_ADDR, RDSM_SIZE and RDSM_RANK");
#endif
  }
  if (boot == "singleton") {
    if (cfg.size > 1)
      RDSM_LOG_WARN("boot", "RDSM_BOOT=singleton ignores RDSM_SIZE=%llu: this process is PE 0 of 1",
                    static_cast<unsigned long long>(cfg.size));
    return singleton_bootstrap_create();
  }
  return status::error(format("RDSM_BOOT=\"%s\" is not valid: expected auto, launcher, tcp, pmix or singleton",
                              boot.c_str()));
}

}  // namespace rdsm::detail
