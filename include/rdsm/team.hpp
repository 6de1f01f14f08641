// rdsm C++ API: rdsm::team, a copyable value wrapping shmem_team_t with shared ownership of split teams.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include <shmem.h>

#include <memory>
#include <string>
#include <utility>

#include "rdsm/status.hpp"

namespace rdsm {

namespace detail {
// Owns one C team handle. Predefined teams (world, shared) are not owned; split teams are destroyed
// (shmem_team_destroy, collective over the team) when the last rdsm::team copy referring to them goes.
struct team_state {
  shmem_team_t handle_ = SHMEM_TEAM_INVALID;
  bool owned_ = false;
  team_state(shmem_team_t handle, bool owned) noexcept : handle_(handle), owned_(owned) {}
  team_state(const team_state&) = delete;
  team_state& operator=(const team_state&) = delete;
  ~team_state() {
    if (owned_ && handle_ != SHMEM_TEAM_INVALID) shmem_team_destroy(handle_);
  }
};
}  // namespace detail

/// A team of PEs, as a value. Copies share one underlying OpenSHMEM team; a team made by a split is
/// destroyed when its last copy is destroyed or reassigned. That destruction calls shmem_team_destroy,
/// which is collective over the team: every member must drop its last copy at a matching point in its
/// program (as with construction), and before the rdsm::runtime is destroyed. The predefined world()
/// and shared() teams are never destroyed. A PE that is not a member of a split result holds an invalid
/// team (valid() == false, rank() == -1).
///
/// Thread safety: copies may be made and destroyed from several threads (shared_ptr counting); the
/// team operations follow the C API at the runtime's thread level.
class team {
 public:
  /// The invalid team.
  team() = default;

  /// Every PE of the job (SHMEM_TEAM_WORLD). Requires a started runtime.
  static team world() { return team(SHMEM_TEAM_WORLD, false); }
  /// The PEs whose symmetric memory this PE can load and store (SHMEM_TEAM_SHARED): for every member,
  /// global_ptr::local() is not nullptr.
  static team shared() { return team(SHMEM_TEAM_SHARED, false); }
  /// Takes ownership of a C team handle (it will be destroyed with the last copy).
  static team adopt(shmem_team_t handle) { return team(handle, true); }

  /// Splits this team: the new team holds members start, start + stride, ... (`size` of them, numbered
  /// in this team), in that order (a negative stride counts down). Collective over this team; every member
  /// must call it with the same arguments.
  /// Members outside the new team get an invalid team. Throws rdsm::error when the C split fails.
  team split_strided(int start, int stride, int size) const {
    shmem_team_t out = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(handle(), start, stride, size, nullptr, 0, &out) != 0)
      throw error("rdsm::team::split_strided(" + std::to_string(start) + ", " + std::to_string(stride) + ", " +
                  std::to_string(size) + ") failed");
    return team(out, true);
  }

  /// Splits this team into a 2-D grid `xrange` members wide: returns {x team (this PE's row),
  /// y team (this PE's column)}. Collective over this team. Throws rdsm::error when the C split fails.
  std::pair<team, team> split_2d(int xrange) const {
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(handle(), xrange, nullptr, 0, &x, nullptr, 0, &y);
    // Own whatever was made even on failure, so nothing leaks.
    std::pair<team, team> result{team(x, true), team(y, true)};
    if (rc != 0) throw error("rdsm::team::split_2d(" + std::to_string(xrange) + ") failed");
    return result;
  }

  /// True unless this is the invalid team (e.g. this PE is not a member of the split that made it).
  bool valid() const noexcept { return handle() != SHMEM_TEAM_INVALID; }
  explicit operator bool() const noexcept { return valid(); }
  /// This PE's number in the team, or -1 when not a member.
  int rank() const noexcept { return valid() ? shmem_team_my_pe(handle()) : -1; }
  /// The number of members, or -1 for the invalid team.
  int size() const noexcept { return valid() ? shmem_team_n_pes(handle()) : -1; }
  /// The number in team `to` of this team's member `team_rank`, or -1 when it is not a member of `to`.
  int translate(int team_rank, const team& to) const noexcept {
    if (!valid() || !to.valid()) return -1;
    return shmem_team_translate_pe(handle(), team_rank, to.handle());
  }
  /// The world rank of this team's member `team_rank` (what global_ptr::where() expects), or -1.
  int world_rank(int team_rank) const noexcept { return translate(team_rank, world()); }
  /// Returns when every member has called sync() (shmem_team_sync). Does not complete outstanding
  /// operations (use quiet() first, or barrier() for the world team). Collective; blocking.
  void sync() const noexcept {
    if (valid()) shmem_team_sync(handle());
  }

  /// The C handle, for C API calls (SHMEM_TEAM_INVALID for the invalid team). Still owned by the team.
  shmem_team_t handle() const noexcept { return state_ ? state_->handle_ : SHMEM_TEAM_INVALID; }

  /// Teams are equal when they refer to the same OpenSHMEM team.
  friend bool operator==(const team& a, const team& b) noexcept { return a.handle() == b.handle(); }

 private:
  team(shmem_team_t handle, bool owned)
      : state_(handle == SHMEM_TEAM_INVALID ? nullptr : std::make_shared<detail::team_state>(handle, owned)) {}

  std::shared_ptr<detail::team_state> state_;
};

}  // namespace rdsm
