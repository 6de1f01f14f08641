/* rdsm's extensions to OpenSHMEM (shmemx_* names). */
#ifndef RDSM_SHMEMX_H
#define RDSM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock time in seconds from a fixed point of this process (CLOCK_MONOTONIC): differences time intervals. */
SHMEM_API double shmemx_wtime(void) SHMEM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* RDSM_SHMEMX_H */
