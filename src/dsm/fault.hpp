// Access detection: the SIGSEGV handler that turns a fault on the DSM view into a request for the
// progress thread, and chains every other fault to the handler installed before it.
#pragma once

#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {

/// `nudges`: also handle peers' nudges (channel::nudge_stalled; sequential mode).
void install_fault_handler(space* s, bool nudges);
void remove_fault_handler(bool nudges);
/// Lets the thread waiting on `slot` continue (called by the progress thread).
void complete_fault(fault_slot& slot);
/// True on the progress thread (which serves the protocol and must never fault on the view).
bool on_service_thread();

}  // namespace rdsm::detail::dsm
