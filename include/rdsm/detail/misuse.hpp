// rdsm::detail: ends the job with one line naming the C++ call that was misused (data-path errors).
#pragma once

#include <shmem.h>

#include <cstdarg>
#include <cstdio>

namespace rdsm::detail {

// Data-path calls do not throw (STYLE.md): a misuse such as a too-small collective destination prints
// one line on stderr and ends every PE through shmem_global_exit, like the C API's argument checks.
// (Its name is not the library's internal `fatal`: an inline function of a user's program with the same
// name and signature would take that symbol's place for the library too.)
[[noreturn]] inline void misuse(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void misuse(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("rdsm: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  shmem_global_exit(1);
}

}  // namespace rdsm::detail
