// Contexts and teams as the C API sees them: the structs behind shmem_ctx_t and shmem_team_t.
#pragma once

#include "common/log.hpp"
#include "core/team.hpp"
#include "shmem.h"

/// shmem_team_t points to this. A destroyed team's handle stays allocated with `core` null (teams.cpp's
/// handle pools), so a later use or a second destroy is named instead of reading freed memory.
struct rdsm_team {
  rdsm::detail::team* core;  // nullptr once the team is destroyed
};

/// shmem_ctx_t points to this. Operations on a context use the PE numbers of its team and their own
/// transport stream (a UCX worker of their own, so threads with private contexts do not contend);
/// fence and quiet on a context order and complete that stream's operations. A destroyed context's handle
/// stays allocated with `team` null, as for teams.
struct rdsm_ctx {
  rdsm_team* team;  // nullptr once the context is destroyed
  long options;
  int stream;
};

/// Opens every routine that takes a context `ctx` and returns R: on SHMEM_CTX_INVALID OpenSHMEM performs no
/// operation, so the routine returns at once (a fetching routine returns zero, a get leaves dest alone).
#define RDSM_CTX_INVALID_RETURN(R)                                              \
  do {                                                                          \
    if (ctx == SHMEM_CTX_INVALID) return rdsm::detail::no_result<R>();          \
  } while (0)

namespace rdsm::detail {

/// What a routine returns when it performs no operation: nothing, or zero (a template, as `R()` is no
/// expression for type names of several words such as `unsigned long`).
template <class R>
R no_result() {
  return R();
}

/// Ends the job naming `fn`: `ctx` was destroyed, or its team was (out of line: only the checks are inline).
[[noreturn]] void ctx_not_live(const char* fn, shmem_ctx_t ctx);
/// Ends the job naming `fn`: team `t` was destroyed.
[[noreturn]] void team_not_live(const char* fn, shmem_team_t t);

/// The core team of a created context (neither SHMEM_CTX_INVALID nor SHMEM_CTX_DEFAULT); ends the job naming `fn`
/// when the context or its team was destroyed. The check compares pointers every operation loads anyway.
inline team* ctx_core_team(const char* fn, shmem_ctx_t ctx) {
  const rdsm_team* t = ctx->team;
  if (t == nullptr || t->core == nullptr) [[unlikely]]
    ctx_not_live(fn, ctx);
  return t->core;
}

/// The world PE of `pe` on `ctx`'s team (ctx is not SHMEM_CTX_INVALID); ends the job naming `fn` when `pe` is
/// outside the team or the context was destroyed.
inline int ctx_pe(const char* fn, shmem_ctx_t ctx, int pe) {
  if (ctx == SHMEM_CTX_DEFAULT) return pe;  // world numbering; checked by the operation
  const group& g = ctx_core_team(fn, ctx)->g;
  if (pe < 0 || pe >= g.size)
    fatal("%s: pe %d out of range [0, %d) of the context's team; use a PE number of that team", fn, pe, g.size);
  return g.pe(pe);
}

/// Points SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED at the core's teams; called once by shmem_init.
void bind_predefined_teams();

/// The transport stream of a context (0 for the default context; ctx is not SHMEM_CTX_INVALID); ends the job
/// naming `fn` when the context was destroyed. After ctx_pe on the same context the compiler drops the repeated
/// check: nothing is stored between the two.
inline int ctx_stream(const char* fn, shmem_ctx_t ctx) {
  if (ctx == SHMEM_CTX_DEFAULT) return 0;
  ctx_core_team(fn, ctx);
  return ctx->stream;
}

/// The core team behind a handle; ends the job naming `fn` for SHMEM_TEAM_INVALID or a destroyed team.
inline team* core_team(const char* fn, shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) fatal("%s: team is SHMEM_TEAM_INVALID", fn);
  // An address no handle can have (Linux maps nothing in the first 64 KiB; handles are aligned) is named before
  // it is read, where the load below would crash. Other garbage is caught only where it reads as destroyed.
  const auto a = reinterpret_cast<uintptr_t>(t);
  if (a < 65536 || a % alignof(rdsm_team) != 0) [[unlikely]]
    team_not_live(fn, t);
  team* core = t->core;
  if (core == nullptr) [[unlikely]]
    team_not_live(fn, t);
  return core;
}

}  // namespace rdsm::detail
