// What kind of memory an address of this process lies in, for error messages.
#pragma once

#include <string>

namespace rdsm::detail {

/// A phrase naming the memory `p` lies in, from /proc/self/maps: "on the stack (a local variable)", "in
/// read-only data of <file> (a const global variable or a literal)", "in the data of the shared library
/// <file>", "in memory from malloc or mmap", "in no mapping of this process", and so on. For the line that
/// ends a job over a non-symmetric address (only that path reads the file).
std::string address_kind(const void* p);

}  // namespace rdsm::detail
