// This process's mappings (/proc/self/maps), for checks at init and for error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdsm::detail {

/// One line of /proc/self/maps.
struct mapping {
  uint64_t from = 0, to = 0;
  bool writable = false;
  bool shared = false;  // MAP_SHARED
  std::string name;  // the file, "[stack]", "[heap]", ...; empty for an anonymous mapping
};

/// The first mapping of this process that overlaps [lo, hi) (none: also when /proc/self/maps cannot be read).
std::optional<mapping> find_mapping(uint64_t lo, uint64_t hi);

/// Every mapping of this process that overlaps [lo, hi), by address (none: also when /proc/self/maps cannot be
/// read).
std::vector<mapping> find_mappings(uint64_t lo, uint64_t hi);

/// A phrase naming the memory `p` lies in: "on the stack (a local variable)", "in read-only data of <file>
/// (a const global variable or a literal)", "in the data of <file> (globals of shared libraries are not
/// symmetric)", "in memory from malloc or mmap", "in no mapping of this process", and so on. For the line
/// that ends a job over a non-symmetric address (only that path reads the file).
std::string address_kind(const void* p);

}  // namespace rdsm::detail
