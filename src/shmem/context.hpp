// Contexts and teams as the C API sees them: the structs behind shmem_ctx_t and shmem_team_t.
#pragma once

#include "common/log.hpp"
#include "core/team.hpp"
#include "shmem.h"

/// shmem_team_t points to this.
struct rdsm_team {
  rdsm::detail::team* core;
};

/// shmem_ctx_t points to this. Operations on a context use the PE numbers of its team and their own
/// transport stream (a UCX worker of their own, so threads with private contexts do not contend);
/// fence and quiet on a context order and complete that stream's operations.
struct rdsm_ctx {
  rdsm_team* team;
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

/// The world PE of `pe` on `ctx`'s team (ctx is not SHMEM_CTX_INVALID); ends the job naming `fn` when `pe` is
/// outside the team.
inline int ctx_pe(const char* fn, shmem_ctx_t ctx, int pe) {
  if (ctx == SHMEM_CTX_DEFAULT) return pe;  // world numbering; checked by the operation
  const group& g = ctx->team->core->g;
  if (pe < 0 || pe >= g.size)
    fatal("%s: pe %d out of range [0, %d) of the context's team; use a PE number of that team", fn, pe, g.size);
  return g.pe(pe);
}

/// Points SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED at the core's teams; called once by shmem_init.
void bind_predefined_teams();

/// The transport stream of a context (0 for the default context; ctx is not SHMEM_CTX_INVALID).
inline int ctx_stream(shmem_ctx_t ctx) { return ctx == SHMEM_CTX_DEFAULT ? 0 : ctx->stream; }

/// The core team behind a handle; ends the job naming `fn` for SHMEM_TEAM_INVALID.
inline team* core_team(const char* fn, shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) fatal("%s: team is SHMEM_TEAM_INVALID", fn);
  return t->core;
}

}  // namespace rdsm::detail
