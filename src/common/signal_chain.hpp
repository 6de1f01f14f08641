// Passing a signal this library's handler does not claim on to the handler installed before it.
#pragma once

#include <signal.h>

namespace rdsm::detail {

/// Runs `previous` for `sig` as the kernel would have: its SA_SIGINFO or plain handler; for a SIGSEGV under
/// SIG_DFL or SIG_IGN, the default action (the process ends); nothing for another signal. Async-signal-safe.
void chain_signal(const struct sigaction& previous, int sig, siginfo_t* info, void* context);

}  // namespace rdsm::detail
