// A C++ program that includes the C header inside an extern "C" block, as C++ code written for other
// OpenSHMEM libraries often does: shmem.h's C++ overloads keep C++ linkage there. Built with
// -Wold-style-cast too (SHMEM_CTX_INVALID and SHMEM_TEAM_INVALID are C++ casts in C++). Prints "extern_c: ok".
#include <cstdio>

extern "C" {
#include <shmem.h>
}

int main() {
  shmem_init();
  long* box = static_cast<long*>(shmem_calloc(2, sizeof(long)));
  const long value = 41 + shmem_my_pe();
  shmem_put(box, &value, 1, shmem_my_pe());  // the type-generic overload
  shmem_long_p(box + 1, value, shmem_my_pe());
  shmem_barrier_all();
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  shmem_team_t team = SHMEM_TEAM_INVALID;
  const bool ok = box[0] == value && shmem_g(box + 1, shmem_my_pe()) == value && ctx == SHMEM_CTX_INVALID &&
                  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), nullptr, 0, &team) == 0 &&
                  team != SHMEM_TEAM_INVALID;
  if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
  shmem_free(box);
  shmem_finalize();
  std::printf(ok ? "extern_c: ok\n" : "extern_c: wrong values\n");
  return ok ? 0 : 1;
}
