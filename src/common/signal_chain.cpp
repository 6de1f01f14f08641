// Passing a signal on to the previous handler (signal_chain.hpp).
#include "common/signal_chain.hpp"

namespace rdsm::detail {

void chain_signal(const struct sigaction& previous, int sig, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else if (sig == SIGSEGV) {
    // Default action (the kernel applies it to an ignored fault too): restore it, and the process ends as it
    // would have without rdsm. A fault's instruction runs again and faults anew; a SIGSEGV sent by kill or
    // raise (si_code SI_USER, SI_TKILL, ... all <= 0) would not come again: it is sent again.
    signal(sig, SIG_DFL);
    if (info->si_code <= 0) raise(sig);
  }
}

}  // namespace rdsm::detail
