/* rdsm's extensions to OpenSHMEM (shmemx_* names). */
#ifndef RDSM_SHMEMX_H
#define RDSM_SHMEMX_H

#include <shmem.h>

#endif /* RDSM_SHMEMX_H */
