// rdsm C++ API: the exception types thrown by setup calls (runtime start, allocation, team split).
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <stdexcept>
#include <string>

namespace rdsm {

/// Thrown by setup calls of the C++ API: starting the runtime, splitting a team, allocating symmetric
/// memory. Data-path calls (RMA, atomics, signals, collectives) never throw; they end the job with one
/// line naming the call instead. Thread safety: an ordinary exception object.
class error : public std::runtime_error {
 public:
  /// Builds an error whose what() is `message`.
  explicit error(const std::string& message) : std::runtime_error(message) {}
};

/// Thrown when the symmetric heap cannot hold a requested allocation (the UPC++ bad_shared_alloc of
/// rdsm). what() names the size requested and the variable to raise, SHMEM_SYMMETRIC_SIZE.
class bad_symmetric_alloc : public error {
 public:
  /// Builds the error; `message` already names the size and SHMEM_SYMMETRIC_SIZE.
  explicit bad_symmetric_alloc(const std::string& message) : error(message) {}
};

}  // namespace rdsm
