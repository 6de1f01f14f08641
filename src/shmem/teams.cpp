// OpenSHMEM teams and contexts.
#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_set>

#include "core/runtime.hpp"
#include "core/rma.hpp"
#include "shmem/context.hpp"
#include "shmem/shim.hpp"

using namespace rdsm::detail;

namespace {

rdsm_team g_world_handle{nullptr};
rdsm_team g_shared_handle{nullptr};
rdsm_ctx g_default_ctx{&g_world_handle, 0, 0};

team* bind(const char* fn, shmem_team_t t) {
  runtime::checked(fn);
  return core_team(fn, t);
}

int num_contexts(const shmem_team_config_t* config, long mask) {
  return config != nullptr && (mask & SHMEM_TEAM_NUM_CONTEXTS) != 0 ? config->num_contexts : 0;
}

// Handles are plain pointers the program keeps, so a destroyed handle's memory is not freed: it stays poisoned
// (its pointer field null, which every use already loads) and a second destroy or a later use is named. It is
// reused, oldest first, once more than `quarantine` others of its kind wait, so memory stays bounded by the most
// handles ever live plus the quarantine. A stale handle is caught until `quarantine` more handles of its kind
// were destroyed after it; then its memory may hold a new context or team, which the stale handle reaches
// undetected (a pointer has no room for a generation count).
template <class T>
class handle_pool {
 public:
  T* create(const T& value) {
    {
      std::lock_guard<std::mutex> hold(mu_);
      if (dead_.size() > quarantine) {
        T* reused = dead_.front();
        dead_.pop_front();
        *reused = value;
        return reused;
      }
    }
    T* made = new T(value);
    std::lock_guard<std::mutex> hold(mu_);
    made_.insert(made);
    return made;
  }

  // Whether `handle` was made here (live, or destroyed and kept poisoned): for the error naming a stale handle.
  bool made(const T* handle) {
    std::lock_guard<std::mutex> hold(mu_);
    return made_.count(const_cast<T*>(handle)) != 0;
  }

  // `poisoned` is a T whose pointer field is null.
  void destroy(T* handle, const T& poisoned) {
    *handle = poisoned;
    std::lock_guard<std::mutex> hold(mu_);
    dead_.push_back(handle);
  }

 private:
  static constexpr size_t quarantine = 64;
  std::mutex mu_;
  std::deque<T*> dead_;
  std::unordered_set<T*> made_;  // every handle ever allocated: at most the most live plus the quarantine
};

// Never destroyed: a program may destroy a context or team from an exit handler after static destructors ran.
handle_pool<rdsm_team>& team_handles() {
  static auto* pool = new handle_pool<rdsm_team>;
  return *pool;
}
handle_pool<rdsm_ctx>& ctx_handles() {
  static auto* pool = new handle_pool<rdsm_ctx>;
  return *pool;
}

shmem_team_t wrap(team* t) { return t == nullptr ? SHMEM_TEAM_INVALID : team_handles().create(rdsm_team{t}); }

int create_ctx(const char* fn, shmem_team_t team, long options, shmem_ctx_t* ctx) {
  require_out(fn, "ctx", ctx, "a shmem_ctx_t");
  constexpr long known_options = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
  if ((options & ~known_options) != 0) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      RDSM_LOG_WARN("ctx", "%s: options %#lx include bits that are no context option (ignored); combine "
                    "SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE and SHMEM_CTX_NOSTORE",
                    fn, static_cast<unsigned long>(options));
  }
  if (team == SHMEM_TEAM_INVALID) {
    *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  bind(fn, team);
  // A private or serialized context is used by one thread at a time: its worker needs no locking.
  auto stream = runtime::get().net().create_stream((options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED)) != 0);
  if (!stream.ok()) {
    RDSM_LOG_WARN("ctx", "%s: %s", fn, stream.error().message().c_str());
    *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  *ctx = ctx_handles().create(rdsm_ctx{team, options, stream.value()});
  return 0;
}

}  // namespace

namespace rdsm::detail {

void bind_predefined_teams() {
  g_world_handle.core = team_world();
  g_shared_handle.core = team_shared();
}

void ctx_not_live(const char* fn, shmem_ctx_t ctx) {
  if (!ctx_handles().made(ctx))
    fatal("%s: %p is not a context (never returned by shmem_ctx_create or shmem_team_create_ctx); pass a context "
          "they made, SHMEM_CTX_DEFAULT, or a context routine without one",
          fn, static_cast<void*>(ctx));
  if (ctx->team == nullptr)
    fatal("%s: the context %p was destroyed; use a context only between its creation and its shmem_ctx_destroy", fn,
          static_cast<void*>(ctx));
  fatal("%s: the context %p was destroyed with its team %p (shmem_team_destroy destroys a team's contexts); use a "
        "context only before its team is destroyed",
        fn, static_cast<void*>(ctx), static_cast<void*>(ctx->team));
}

void team_not_live(const char* fn, shmem_team_t t) {
  if (!team_handles().made(t))
    fatal("%s: %p is not a team (never returned by a team split); pass a team a split made, SHMEM_TEAM_WORLD or "
          "SHMEM_TEAM_SHARED",
          fn, static_cast<void*>(t));
  fatal("%s: the team %p was destroyed; use a team only between its creation and its shmem_team_destroy", fn,
        static_cast<void*>(t));
}

}  // namespace rdsm::detail

extern "C" {

shmem_team_t SHMEM_TEAM_WORLD = &g_world_handle;
shmem_team_t SHMEM_TEAM_SHARED = &g_shared_handle;
shmem_ctx_t SHMEM_CTX_DEFAULT = &g_default_ctx;

int shmem_team_my_pe(shmem_team_t team) noexcept {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return bind(__func__, team)->g.me;
}

int shmem_team_n_pes(shmem_team_t team) noexcept {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return bind(__func__, team)->g.size;
}

// OpenSHMEM 1.6: a mask of 0 performs no action and config may then be NULL; NULL with a nonzero mask is
// undefined, refused here with a nonzero result rather than a crash.
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) noexcept {
  if (team == SHMEM_TEAM_INVALID) return -1;
  if (config_mask == 0) return 0;
  if (config == nullptr) return -1;
  if ((config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0) config->num_contexts = bind(__func__, team)->num_contexts;
  return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) noexcept {
  if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
  const group& s = bind(__func__, src_team)->g;
  const group& d = bind(__func__, dest_team)->g;
  if (src_pe < 0 || src_pe >= s.size) return -1;
  return d.index_of(s.pe(src_pe));
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team) noexcept {
  require_out(__func__, "new_team", new_team, "a shmem_team_t");
  if (parent_team == SHMEM_TEAM_INVALID) {  // 1.5: no team is created; the other PEs do not wait for this one
    *new_team = SHMEM_TEAM_INVALID;
    return -1;
  }
  team* out = nullptr;
  bool ok = team_split_strided(__func__, bind(__func__, parent_team), start, stride, size,
                               num_contexts(config, config_mask), &out);
  *new_team = wrap(out);
  return ok ? 0 : -1;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team) noexcept {
  require_out(__func__, "xaxis_team", xaxis_team, "a shmem_team_t");
  require_out(__func__, "yaxis_team", yaxis_team, "a shmem_team_t");
  if (parent_team == SHMEM_TEAM_INVALID) {  // as for shmem_team_split_strided
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    return -1;
  }
  team *x = nullptr, *y = nullptr;
  bool ok = team_split_2d(__func__, bind(__func__, parent_team), xrange, num_contexts(xaxis_config, xaxis_mask), &x,
                          num_contexts(yaxis_config, yaxis_mask), &y);
  *xaxis_team = wrap(x);
  *yaxis_team = wrap(y);
  return ok ? 0 : -1;
}

void shmem_team_destroy(shmem_team_t team) noexcept {
  if (team == SHMEM_TEAM_INVALID) return;
  if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
    // Undefined by the specification; said once, and the team stays usable (as for SHMEM_CTX_DEFAULT).
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      RDSM_LOG_WARN("team", "shmem_team_destroy: %s cannot be destroyed (ignored); destroy only teams made by a "
                    "team split",
                    team == SHMEM_TEAM_WORLD ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
    return;
  }
  runtime::checked(__func__);
  if (team->core == nullptr)
    fatal("shmem_team_destroy: the team %p was already destroyed; destroy a team once (set the handle to "
          "SHMEM_TEAM_INVALID after destroying it, if the code may run again)",
          static_cast<void*>(team));
  team_destroy(team->core);
  team_handles().destroy(team, rdsm_team{nullptr});
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) noexcept {
  if (team == SHMEM_TEAM_INVALID) return nullptr;
  const group& g = bind(__func__, team)->g;
  if (pe < 0 || pe >= g.size) return nullptr;
  return pointer_to(dest, g.pe(pe));
}

int shmem_team_sync(shmem_team_t team) noexcept {
  if (team == SHMEM_TEAM_INVALID) return -1;  // no operation, as for the team collectives
  group_sync(__func__, bind(__func__, team)->g);
  return 0;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) noexcept {
  return create_ctx(__func__, team, options, ctx);
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx) noexcept { return create_ctx(__func__, SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx) noexcept {
  if (ctx == SHMEM_CTX_INVALID) return;
  if (ctx == SHMEM_CTX_DEFAULT) {
    // Invalid by the specification, and common where a failed shmem_ctx_create fell back on the default
    // context: said once, and the default context stays usable.
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      RDSM_LOG_WARN("ctx", "shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed (ignored); destroy only contexts "
                    "made by shmem_ctx_create or shmem_team_create_ctx");
    return;
  }
  // Only the context itself is checked: one whose team was destroyed may still be destroyed, releasing its stream.
  if (ctx->team == nullptr)
    fatal("shmem_ctx_destroy: the context %p was already destroyed; destroy a context once (set the handle to "
          "SHMEM_CTX_INVALID after destroying it, if the code may run again)",
          static_cast<void*>(ctx));
  quiet(ctx->stream);  // destroying a context completes its operations
  runtime::get().net().destroy_stream(ctx->stream);
  ctx_handles().destroy(ctx, rdsm_ctx{nullptr, 0, -1});
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) noexcept {
  if (team == nullptr) return -1;
  if (ctx == SHMEM_CTX_INVALID) {  // 1.5: the team handle becomes SHMEM_TEAM_INVALID too
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  if (ctx != SHMEM_CTX_DEFAULT) ctx_core_team(__func__, ctx);
  *team = ctx->team;
  return 0;
}

void shmem_ctx_fence(shmem_ctx_t ctx) noexcept {
  RDSM_CTX_INVALID_RETURN(void);
  fence(ctx_stream(__func__, ctx));
}
void shmem_ctx_quiet(shmem_ctx_t ctx) noexcept {
  RDSM_CTX_INVALID_RETURN(void);
  quiet(ctx_stream(__func__, ctx));
}

}  // extern "C"
