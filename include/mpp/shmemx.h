/* Deprecated location of the OpenSHMEM extensions header, still part of OpenSHMEM 1.5. */
#include <shmemx.h>
