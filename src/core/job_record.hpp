// What the PEs of a job must agree on, exchanged at init in a record of fixed layout: PEs of different
// architectures (x86-64 and aarch64 in one job) read it alike, and a job whose PEs disagree stops at init
// with one line naming both values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/config.hpp"

namespace rdsm::detail {

/// The version of everything whose layout crosses PEs: bootstrap records, the runtime's internal words,
/// DSM protocol messages, directory and notice words, heap metadata. Raise it when one changes.
inline constexpr uint32_t wire_layout_version = 4;  // 4: the DSM message hand_over; 3: the job record's settings of collectives

/// One PE's record: fixed-width fields only, no padding, the same bytes on every architecture.
struct job_record {
  char magic[8];            // "rdsm-pe"
  uint32_t layout_version;  // wire_layout_version of the PE's build
  uint32_t byte_order;      // 0x01020304 as the PE stores it
  uint32_t os_page_size;
  uint32_t long_double_digits;  // LDBL_MANT_DIG: 64 on x86-64, 113 on aarch64 (not checked: see runtime)
  uint64_t dsm_page_size;   // RDSM_DSM_PAGE_SIZE
  uint64_t symmetric_size;  // SHMEM_SYMMETRIC_SIZE
  uint64_t dsm_size;        // RDSM_DSM_SIZE
  uint64_t executable;      // executable_identity(): PEs with equal values share their globals' layout
  char dsm_base[24];        // RDSM_DSM_BASE as written
  char consistency[16];     // RDSM_DSM_CONSISTENCY
  char arch[16];            // "x86_64", "aarch64", ...
  // Settings that choose how collectives run (and so what each PE sends and waits for): a PE with another
  // value would wait for what its peers never send. In the order of size_names and flag_names (job_record.cpp).
  uint64_t sizes[6];  // RDSM_COLL_BCAST_SCATTER, _BCAST_PULL, _BCAST_SPLIT, _ALLTOALL_AGGREGATE, _DELIVER_PULL,
                      // _REDUCE_EXCHANGE
  uint8_t flags[4];   // SHMEM_DEBUG, RDSM_SHARE_GLOBALS, RDSM_SHARE_HEAP, RDSM_COLL_HIERARCHY (0 or 1)
  char dsm_same_host[12];  // RDSM_DSM_SAME_HOST
};
static_assert(sizeof(job_record) == 176, "job_record must have the same layout on every architecture");

/// This PE's record.
job_record job_record_make(const config& cfg, uint64_t executable);

/// The architecture this build runs on ("x86_64", "aarch64" or "other").
const char* build_arch();

/// The first disagreement between the PEs' records, as one line naming both PEs, both values and the
/// remedy; nullopt when they agree. `records[pe]` is PE `pe`'s record. The executables may differ.
std::optional<std::string> job_records_disagree(const std::vector<job_record>& records);

/// The PE that reports a disagreement: the lowest one whose record differs from PE 0's (every PE finds the
/// same), or -1.
int job_records_reporter(const std::vector<job_record>& records);

}  // namespace rdsm::detail
