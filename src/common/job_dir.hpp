// A job's own directory for shared memory files, removed when the job ends however it ends.
#pragma once

#include <string>

#include "common/status.hpp"

namespace rdsm::detail {

/// A directory of this process's own, and the descriptor that keeps its helper waiting (-1: none started).
struct job_dir_lease {
  std::string path;
  int lifeline = -1;
};

/// Makes a directory of this user's own (mode 0700) in `parent`, named `<prefix>-<random>` (`variable` names
/// the setting that chose `parent`, for the error), and starts a small process (/bin/sh, its own process
/// group, its signals ignored, not a child of this one) that removes the directory once this process has
/// ended, whether it finalized, exited or was killed at any moment, this call included: the helper starts
/// before the directory is made. It waits for the end of a pipe whose write end only this process holds
/// (close-on-exec), `lifeline`; closing it removes the directory at once. Threads may already run: it is
/// posix_spawn. Should the helper not start, the directory is still made, with a warning, and `lifeline` is
/// -1.
result<job_dir_lease> job_dir_create_removed_at_exit(const std::string& parent, const char* prefix,
                                                     const char* variable);

/// Removes the lease's directory now, with the files in it (one level: UCX makes no subdirectories), and lets
/// its helper end (it finds nothing left); the lease is then empty. Errors are ignored: this runs while a job
/// ends.
void job_dir_release(job_dir_lease& lease);

}  // namespace rdsm::detail
