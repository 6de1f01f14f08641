// Logging with levels and categories, and the job-wide fatal error path.
#pragma once

#include <cstdarg>
#include <string>

namespace rdsm::detail {

enum class log_level { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };

/// Sets the level below which messages are dropped and the identity printed in the prefix.
void log_configure(log_level level, int pe);
log_level log_current_level();

/// Prints one line "[rdsm pe host pid time] category: message" to stderr.
void log_write(log_level level, const char* category, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Handler run by fatal(): the core installs one that ends the whole job through the bootstrap.
using fatal_handler = void (*)(int code, const std::string& message);
void set_fatal_handler(fatal_handler handler);

/// Reports one line naming the cause and ends the job (every PE) with exit status 1.
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Opens /dev/null on each of the standard descriptors 0-2 that is closed. A process started with one of them
/// closed would hand its number to the next descriptor it opens (a socket, a memory file): the program's
/// printf or read, and this library's log lines, would then go into it. Called first thing at init and by the
/// launcher.
void keep_standard_fds();

std::string vformat(const char* fmt, va_list ap);
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace rdsm::detail

#define RDSM_LOG_ERROR(cat, ...) ::rdsm::detail::log_write(::rdsm::detail::log_level::error, cat, __VA_ARGS__)
#define RDSM_LOG_WARN(cat, ...) ::rdsm::detail::log_write(::rdsm::detail::log_level::warn, cat, __VA_ARGS__)
#define RDSM_LOG_INFO(cat, ...)                                                              \
  do {                                                                                       \
    if (::rdsm::detail::log_current_level() >= ::rdsm::detail::log_level::info)             \
      ::rdsm::detail::log_write(::rdsm::detail::log_level::info, cat, __VA_ARGS__);         \
  } while (0)
// Debug messages are in every build (a level check when off); trace messages, on hot paths, only in
// builds without NDEBUG (a release build says so once when RDSM_LOG_LEVEL=trace asks for them).
#define RDSM_LOG_DEBUG(cat, ...)                                                             \
  do {                                                                                       \
    if (::rdsm::detail::log_current_level() >= ::rdsm::detail::log_level::debug)            \
      ::rdsm::detail::log_write(::rdsm::detail::log_level::debug, cat, __VA_ARGS__);        \
  } while (0)
#ifdef NDEBUG
#define RDSM_LOG_TRACE(cat, ...) ((void)0)
#else
#define RDSM_LOG_TRACE(cat, ...)                                                             \
  do {                                                                                       \
    if (::rdsm::detail::log_current_level() >= ::rdsm::detail::log_level::trace)            \
      ::rdsm::detail::log_write(::rdsm::detail::log_level::trace, cat, __VA_ARGS__);        \
  } while (0)
#endif
