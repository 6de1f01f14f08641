// UCX configuration choices made before ucp_init, and the description of an endpoint's lanes.
#pragma once

#include <ucp/api/ucp.h>

#include <string>

#include "common/job_dir.hpp"
#include "common/status.hpp"

namespace rdsm::detail {

/// This PE's own directory for UCX's POSIX shared memory files, when it made one: removed by its destructor,
/// and by a helper process if the PE dies first.
class ucx_shm_dir {
 public:
  ucx_shm_dir() = default;
  ucx_shm_dir(const ucx_shm_dir&) = delete;
  ucx_shm_dir& operator=(const ucx_shm_dir&) = delete;
  ~ucx_shm_dir() { remove(); }

  /// Unless UCX_POSIX_DIR is set (rdsmrun sets it to the job's directory), makes a directory in `parent`
  /// and points `cfg`'s POSIX transport at it. A failure is a warning: UCX then uses its default.
  void use(ucp_config_t* cfg, const std::string& parent);
  void remove();

 private:
  job_dir_lease dir_;
};

/// A job of several PEs needs a transport that detects a peer's failure (rdsm ends the job when a PE dies,
/// and asks UCX for endpoints with UCP_ERR_HANDLING_MODE_PEER): TCP here, or an InfiniBand transport. A
/// UCX_TLS that lists none of them is an error naming UCX_TLS and what to set, before UCX prints its own
/// ("no peer failure handler", then "Destination is unreachable"). A list of exclusions ("^...") is left
/// to UCX.
status check_tls(int n_pes);

/// UCX's library catches signals when it loads: SIGHUP (UCX_DEBUG_SIGNO) to turn on its debug output, so a
/// hang-up did not end a PE, and SIGSEGV, SIGBUS, SIGILL and SIGFPE (UCX_ERROR_SIGNALS) to print a backtrace
/// of a dozen lines before rdsmrun's one line naming the PE and the signal. Each handler that is UCX's goes
/// back to the default action, unless the variable that chooses it (UCX_DEBUG_SIGNO; UCX_HANDLE_ERRORS or
/// UCX_ERROR_SIGNALS) is set; a handler of the program's own is kept.
void restore_signals();

/// The transports of an endpoint as UCX printed its configuration ("tcp,posix"), and whether an atomic lane
/// is native.
std::string describe_lanes(ucp_ep_h ep, bool& native_amo);

}  // namespace rdsm::detail
