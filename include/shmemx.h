/* rdsm's extensions to OpenSHMEM (shmemx_* names). */
#ifndef RDSM_SHMEMX_H
#define RDSM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock time in seconds from a fixed point of this process (CLOCK_MONOTONIC): differences time intervals. */
SHMEM_API double shmemx_wtime(void) SHMEM_NOEXCEPT;

/* shmem_collectmem whose dest holds dest_bytes on every member: a member whose block would end past it ends
 * the job with one line naming both sizes, before its data moves (shmem_collectmem cannot know dest's size;
 * rdsm::collect passes its span's). */
SHMEM_API int shmemx_collectmem_bounded(shmem_team_t team, void *dest, size_t dest_bytes, const void *source,
                                        size_t nelems) SHMEM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* RDSM_SHMEMX_H */
