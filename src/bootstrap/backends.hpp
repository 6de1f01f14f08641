// Internal: the factories of each bootstrap backend, called by bootstrap_create().
#pragma once

#include <unistd.h>

#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace rdsm::detail {

/// launcher (tcp == false: started by rdsmrun) or tcp (rank 0 hosts the rendezvous server).
result<std::unique_ptr<bootstrap>> rendezvous_bootstrap_create(const config& cfg, bool tcp);
result<std::unique_ptr<bootstrap>> pmix_bootstrap_create(const config& cfg);
std::unique_ptr<bootstrap> singleton_bootstrap_create();

/// Writes "rdsm: <text>\n" to stderr in one write; for the last words of a PE that is ending the job.
inline void boot_last_words(const std::string& text) {
  std::string line = "rdsm: " + text + "\n";
  ssize_t rc = ::write(STDERR_FILENO, line.data(), line.size());
  (void)rc;
}

}  // namespace rdsm::detail
