// Access detection: the SIGSEGV handler that turns a fault on the DSM view into a request for the
// progress thread, and chains every other fault to the handler installed before it.
#pragma once

#include "dsm/dsm.hpp"

namespace rdsm::detail::dsm {

void install_fault_handler(space* s);
void remove_fault_handler();
/// Lets the thread waiting on `slot` continue (called by the progress thread).
void complete_fault(fault_slot& slot);
/// True on the progress thread (which serves the protocol and must never fault on the view).
bool on_service_thread();

}  // namespace rdsm::detail::dsm
