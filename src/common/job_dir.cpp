// A job's own directory for shared memory files (UCX's POSIX segments), removed when the job ends.
#include "common/job_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <csignal>
#include <cstring>
#include <ctime>

#include "common/log.hpp"

namespace rdsm::detail {

namespace {

status job_dir_error(const std::string& parent, const char* variable, const char* why) {
  return status::error(format("%s=%s: cannot make the job's directory for shared memory files there (%s); set "
                              "%s to a directory of a tmpfs this user may write, e.g. /dev/shm",
                              variable, parent.c_str(), why, variable));
}

// "<parent>/<prefix>-", to which the caller appends the random part; `parent` must be absolute.
result<std::string> name_stem(const std::string& parent, const char* prefix, const char* variable) {
  if (parent.empty() || parent[0] != '/') return job_dir_error(parent, variable, "not an absolute path");
  std::string stem = parent;
  if (stem.back() != '/') stem += '/';
  stem += prefix;
  stem += '-';
  return stem;
}

// The directory and the files in it.
void job_dir_remove(const std::string& path) {
  if (path.empty()) return;
  int dfd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd >= 0) {
    DIR* d = fdopendir(dfd);
    if (d != nullptr) {
      while (dirent* e = readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) unlinkat(dfd, e->d_name, 0);
      closedir(d);  // closes dfd
    } else {
      close(dfd);
    }
  }
  rmdir(path.c_str());
}

// The helper waits on a pipe that nothing writes but "keep": the read ends when every write end has closed,
// that is when this process has ended (the write end is close-on-exec: programs it starts do not hold it).
// Unless it read "keep" it then removes the directory. It is not this process's child: the shell started
// here runs it in the background and exits at once (reaped below), so a program that waits for all of its
// children (`while (wait(NULL) > 0)`) does not wait for it.
result<int> spawn_remover(const std::string& path) {
  int lifeline[2];
  if (pipe2(lifeline, O_CLOEXEC) != 0) return status::error(format("pipe2: %s", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, lifeline[0], 3);  // a background list's stdin is /dev/null
  posix_spawn_file_actions_adddup2(&actions, lifeline[0], STDIN_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group: a terminal's ^C, or a launcher signalling the PE's group, does not reach it first.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  const char* script =
      "{ trap '' HUP INT QUIT TERM PIPE; read -r w; [ \"$w\" = keep ] || rm -rf -- \"$1\"; } <&3 3<&- & exit 0";
  char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(script),
                  const_cast<char*>("rdsm-job-dir"), const_cast<char*>(path.c_str()), nullptr};
  char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(lifeline[0]);
  if (rc != 0) {
    close(lifeline[1]);
    return status::error(format("cannot start /bin/sh to remove %s at exit: %s", path.c_str(), std::strerror(rc)));
  }
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return lifeline[1];
}

// Tells the helper to leave `path` alone, and lets it end.
void release_remover(int lifeline) {
  static const char keep[] = "keep\n";
  [[maybe_unused]] ssize_t n = write(lifeline, keep, sizeof keep - 1);
  close(lifeline);
}

// `stem` and 12 random letters and digits (72 bits).
std::string random_name(const std::string& stem) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[12] = {};
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    const uint64_t mix = static_cast<uint64_t>(t.tv_nsec) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(getpid());
    for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(mix >> (8 * (i % 8)) ^ i);
  }
  std::string path = stem;
  for (unsigned char b : bytes) path += alphabet[b % (sizeof alphabet - 1)];
  return path;
}

}  // namespace

result<job_dir_lease> job_dir_create_removed_at_exit(const std::string& parent, const char* prefix,
                                                     const char* variable) {
  RDSM_ASSIGN_OR_RETURN(const std::string stem, name_stem(parent, prefix, variable));
  // The helper starts before the directory exists, so no moment is left in which a killed PE leaves it:
  // the name is chosen first (72 random bits) and the helper removes it unless told to keep it.
  for (int attempt = 0; attempt < 8; ++attempt) {
    job_dir_lease lease{random_name(stem), -1};
    auto remover = spawn_remover(lease.path);
    if (remover.ok()) {
      lease.lifeline = remover.value();
    } else if (attempt == 0) {
      RDSM_LOG_WARN("boot", "%s; the directory may be left behind if this PE dies", remover.error().message().c_str());
    }
    if (mkdir(lease.path.c_str(), 0700) == 0) return lease;
    const int err = errno;
    if (lease.lifeline >= 0) release_remover(lease.lifeline);  // another's directory, or none: keep it
    if (err != EEXIST) return job_dir_error(parent, variable, std::strerror(err));
  }
  return job_dir_error(parent, variable, "eight random names were all taken");
}

void job_dir_release(job_dir_lease& lease) {
  job_dir_remove(lease.path);
  lease.path.clear();
  if (lease.lifeline >= 0) close(lease.lifeline);
  lease.lifeline = -1;
}

}  // namespace rdsm::detail
