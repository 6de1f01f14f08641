// How PEs find each other: rank, size, allgather, barrier and abort, over one of several backends.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"
#include "common/status.hpp"

namespace rdsm::detail {

/// A bootstrap connects the PEs of one job before any transport exists. All calls except abort() are
/// collective over every PE of the job and are called by one thread at a time.
class bootstrap {
 public:
  virtual ~bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Name of the backend ("launcher", "tcp", "pmix", "singleton").
  virtual const char* name() const = 0;
  /// Every PE contributes `mine` (any length); every PE receives all contributions indexed by rank.
  virtual result<std::vector<std::string>> allgather(std::string_view mine) = 0;
  virtual status barrier() = 0;
  /// Ends the whole job: every other PE is ended, the launcher (if any) reports `message` and exits with
  /// `code`. Safe to call from any thread; does not return.
  [[noreturn]] virtual void abort(int code, const std::string& message) = 0;
  /// Called when a peer seems lost: where the backend hears of the job's end by itself (a notice that some PE
  /// died or aborted, which ends this process), waits up to `ms` for such a notice, so that the job's end
  /// names its first cause and not a PE the end has already taken. Returns if none comes. Any thread.
  virtual void await_job_end(int ms) { (void)ms; }
  /// Tells the launcher this PE finalized cleanly (so its exit is not a failure). Collective.
  virtual status finalize() = 0;
};

/// Called every 100 ms by a thread that waits for a collective of the bootstrap (nullptr: none), so that the
/// layer above can watch that wait as it watches its own (a peer that will never join it). Any thread.
void bootstrap_set_wait_hook(void (*hook)());
void bootstrap_wait_hook();

/// Chooses the backend from the configuration (RDSM_BOOT, or auto: launcher if RDSM_BOOT_ADDR is set,
/// PMIx if the process was started by a PMIx server, else singleton) and connects.
result<std::unique_ptr<bootstrap>> bootstrap_create(const config& cfg);

}  // namespace rdsm::detail
