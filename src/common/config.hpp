// The runtime configuration, generated from config.def, with where each value came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace rdsm::detail {

#ifdef NDEBUG
#define RDSM_DEFAULT_DEBUG "0"
#else
#define RDSM_DEFAULT_DEBUG "1"
#endif

struct config {
#define RDSM_CONFIG_TYPE_size uint64_t
#define RDSM_CONFIG_TYPE_flag bool
#define RDSM_CONFIG_TYPE_switch bool
#define RDSM_CONFIG_TYPE_count uint64_t
#define RDSM_CONFIG_TYPE_choice std::string
#define RDSM_CONFIG_TYPE_text std::string
#define RDSM_CONFIG_TYPE_duration uint64_t  // nanoseconds, 0: off
#define RDSM_CONFIG(field, var, kind, def, help) RDSM_CONFIG_TYPE_##kind field{};
#include "common/config.def"
#undef RDSM_CONFIG
};

/// One row of the table, for rdsm-info and SHMEM_INFO.
struct config_entry {
  const char* variable;
  const char* kind;
  const char* default_value;
  const char* help;
  std::string value;   // effective value as text
  bool from_environment;
};

/// Reads every variable of the table from the environment. A SHMEM_ variable that is unset is read from its
/// deprecated SMA_ name (OpenSHMEM keeps those for backward compatibility). A malformed value is an error
/// naming the variable; unknown RDSM_* variables produce one warning each when `warn_unknown` (PEs started by rdsmrun
/// leave that to rdsmrun, which warns once for the job).
result<config> config_load(bool warn_unknown = true);

/// The table with effective values (after config_load; defaults before).
std::vector<config_entry> config_describe();

/// Parses a byte count as SHMEM_SYMMETRIC_SIZE is specified: a non-negative integer or decimal with an
/// optional K, M, G or T suffix (any case, powers of 1024); fractional bytes round up.
result<uint64_t> parse_size(const std::string& text);

/// Parses a duration: a non-negative integer or decimal with an optional unit ms, s, m (or min) or h; a plain
/// number is seconds. 0, off and no yield 0 (nothing timed). Returns nanoseconds; at most 1e9 s.
result<uint64_t> parse_duration(const std::string& text);

}  // namespace rdsm::detail
