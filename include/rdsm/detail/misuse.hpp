// rdsm::detail: ends the job with one line naming the C++ call that was misused (data-path errors).
#pragma once

#include <shmem.h>

#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace rdsm::detail {

// Data-path calls do not throw (STYLE.md): a misuse such as a too-small collective destination prints
// one line on stderr and ends every PE through shmem_global_exit, like the C API's argument checks.
// (Its name is not the library's internal `fatal`: an inline function of a user's program with the same
// name and signature would take that symbol's place for the library too.)
[[noreturn]] inline void misuse(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void misuse(const char* format, ...) {
  // The line goes out whole, in one write to the unbuffered stderr: the lines of PEs that fail at once do not mix.
  char line[1024] = "rdsm: ";
  constexpr std::size_t prefix = 6, room = sizeof line - prefix - 1;  // the text's room, before the newline
  std::va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(line + prefix, room + 1, format, args);
  va_end(args);
  std::size_t length = prefix + (n < 0 ? 0 : static_cast<std::size_t>(n) < room ? static_cast<std::size_t>(n) : room);
  line[length++] = '\n';
  std::fwrite(line, 1, length, stderr);
  shmem_global_exit(1);
}

}  // namespace rdsm::detail
