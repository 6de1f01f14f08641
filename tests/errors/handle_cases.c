/* Team and context handles misused: NULL where a routine writes its result (also the query routines), a handle
 * no routine made, and the predefined handles destroyed or unknown context options (warned once, the program
 * goes on).
 * Usage: handle_cases MODE, run by ctest through rdsmrun (tests/errors/CMakeLists.txt). */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  static long fake[8]; /* zeroed memory where a handle's fields would be */
  shmem_init();
  if (strcmp(mode, "split_null_out") == 0) {
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, NULL);
  } else if (strcmp(mode, "split_2d_null_out") == 0) {
    shmem_team_t x;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, NULL);
  } else if (strcmp(mode, "ctx_create_null") == 0) {
    shmem_ctx_create(0, NULL);
  } else if (strcmp(mode, "not_a_team") == 0) {
    shmem_team_sync((shmem_team_t)(void *)fake);
  } else if (strcmp(mode, "not_a_ctx") == 0) {
    shmem_ctx_quiet((shmem_ctx_t)(void *)fake);
  } else if (strcmp(mode, "query_null") == 0) {
    shmem_query_thread(NULL);
  } else if (strcmp(mode, "name_null") == 0) {
    shmem_info_get_name(NULL);
  } else if (strcmp(mode, "destroy_world") == 0) {
    shmem_team_destroy(SHMEM_TEAM_WORLD);
    shmem_team_destroy(SHMEM_TEAM_SHARED);
    shmem_team_destroy(SHMEM_TEAM_WORLD);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    if (shmem_my_pe() == 0 && shmem_team_n_pes(SHMEM_TEAM_WORLD) == shmem_n_pes()) printf("world usable\n");
  } else if (strcmp(mode, "ctx_options") == 0) {
    shmem_ctx_t a, b;
    int ok = shmem_ctx_create(1L << 20, &a) == 0 && shmem_ctx_create(1L << 21, &b) == 0;
    if (ok) {
      shmem_ctx_quiet(a);
      shmem_ctx_destroy(b);
      shmem_ctx_destroy(a);
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0 && ok) printf("contexts made\n");
  } else {
    fprintf(stderr, "handle_cases: unknown mode '%s'\n", mode);
    return 2;
  }
  shmem_finalize();
  return 0;
}
