// rdsm::detail: the C++ API needs C++20 (concepts, std::span); one clear error instead of hundreds.
#pragma once

#if __cplusplus < 202002L
#error "rdsm's C++ API (rdsm/*.hpp) needs C++20: compile with -std=c++20 (shmem.h alone works from C++11)"
// A missing header is a fatal error: compilation stops here instead of going on to errors in every line.
#include <rdsm-c++-api-needs-c++20>
#endif
