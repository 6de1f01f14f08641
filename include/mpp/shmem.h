/* Deprecated location of the OpenSHMEM header, still part of OpenSHMEM 1.5. */
#include <shmem.h>
