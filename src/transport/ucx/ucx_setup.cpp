// UCX configuration choices made before ucp_init, and the description of an endpoint's lanes.
#include "transport/ucx/ucx_setup.hpp"

#include <dlfcn.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/job_dir.hpp"
#include "common/log.hpp"

namespace rdsm::detail {

void ucx_shm_dir::use(ucp_config_t* cfg, const std::string& parent) {
  if (std::getenv("UCX_POSIX_DIR") != nullptr || parent.empty()) return;
  auto dir = job_dir_create_removed_at_exit(parent, "rdsm-pe", "RDSM_SHM_DIR");
  if (!dir.ok()) {
    RDSM_LOG_WARN("boot", "%s; UCX's shared memory files go to its default directory (/dev/shm)",
                  dir.error().message().c_str());
    return;
  }
  dir_ = dir.take();
  // UCX 1.13 applies a key that no UCP setting has to every transport setting of that name: the POSIX
  // transport's DIR (UCX_POSIX_DIR) is the only one.
  ucs_status_t s = ucp_config_modify(cfg, "DIR", dir_.path.c_str());
  if (s != UCS_OK) {
    RDSM_LOG_WARN("boot", "UCX does not take a directory for its shared memory files (%s); it uses /dev/shm",
                  ucs_status_string(s));
    remove();
  }
}

void ucx_shm_dir::remove() { job_dir_release(dir_); }

status check_tls(int n_pes) {
  const char* tls = std::getenv("UCX_TLS");
  if (n_pes < 2 || tls == nullptr || tls[0] == '\0' || tls[0] == '^') return {};
  // Transports and aliases of UCX 1.13 with peer failure handling (the shared memory ones and self have none).
  static const char* const detecting[] = {"all", "tcp", "ib", "rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5",
                                          "dc", "dc_x", "dc_mlx5", "ud", "ud_v", "ud_x", "ud_verbs", "ud_mlx5"};
  // The others UCX 1.13 knows (only named in the message when UCX_TLS has a name of neither list).
  static const char* const other[] = {"sm", "shm", "mm", "posix", "sysv", "xpmem", "cma", "knem", "self",
                                      "cuda", "cuda_copy", "cuda_ipc", "gdr_copy", "rocm", "rocm_copy", "rocm_ipc",
                                      "rocm_gdr", "ugni", "ugni_rdma", "ugni_udt", "ugni_smsg", "rdmacm", "sockcm",
                                      "tcp_sockcm", "srd"};
  auto known = [](const std::string& name, const auto& names) {
    for (const char* n : names)
      if (name == n) return true;
    return false;
  };
  std::string list = tls, unknown;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    if (!name.empty() && name.back() == '\\') name.pop_back();  // "tcp\" is UCX's "exactly tcp"
    if (known(name, detecting)) return {};
    if (!name.empty() && !known(name, other)) unknown += (unknown.empty() ? "" : ", ") + name;
    start = end + 1;
  }
  const std::string note = unknown.empty() ? "" : format(" (%s: no UCX transport of that name)", unknown.c_str());
  return status::error(format("UCX_TLS=%s has no transport that detects a peer's failure%s, which rdsm needs to end "
                              "the job when a PE dies: add tcp (e.g. UCX_TLS=%s,tcp) or unset UCX_TLS; PEs of one "
                              "host still share memory directly",
                              tls, note.c_str(), tls));
}

namespace {
// Puts `sig` back to its default action if its handler is in UCX's libucs.
void restore_if_ucx(int sig) {
  struct sigaction old {};
  if (sigaction(sig, nullptr, &old) != 0) return;
  void* handler = (old.sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<void*>(old.sa_sigaction)
                                                    : reinterpret_cast<void*>(old.sa_handler);
  if (handler == reinterpret_cast<void*>(SIG_DFL) || handler == reinterpret_cast<void*>(SIG_IGN)) return;
  Dl_info info{};
  if (dladdr(handler, &info) == 0 || info.dli_fname == nullptr || std::strstr(info.dli_fname, "libucs") == nullptr)
    return;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}
}  // namespace

void restore_signals() {
  if (std::getenv("UCX_DEBUG_SIGNO") == nullptr) restore_if_ucx(SIGHUP);
  if (std::getenv("UCX_HANDLE_ERRORS") != nullptr || std::getenv("UCX_ERROR_SIGNALS") != nullptr) return;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) restore_if_ucx(sig);
}

std::string describe_lanes(ucp_ep_h ep, bool& native_amo) {
  // UCX 1.13 has no query for an endpoint's lanes; its printed configuration lists them, one per line,
  // as "lane[i]: <rsc>:<transport>/<device> ... <usages>", where an "amo" usage is a native atomic lane.
  native_amo = false;
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (f == nullptr) return "?";
  ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string lanes, line;
  for (const char* c = text; c != nullptr && *c != '\0'; ++c) {
    if (*c != '\n') {
      line += *c;
      continue;
    }
    size_t at = line.find("lane[");
    if (at != std::string::npos) {
      size_t colon = line.find(':', line.find(':', at) + 1);
      size_t end = line.find(' ', colon);
      if (colon != std::string::npos) {
        std::string tl = line.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
        if (lanes.find(tl) == std::string::npos) lanes += (lanes.empty() ? "" : ",") + tl;
      }
      if (line.find(" amo") != std::string::npos) native_amo = true;
    }
    line.clear();
  }
  std::free(text);
  return lanes.empty() ? "?" : lanes;
}

}  // namespace rdsm::detail
