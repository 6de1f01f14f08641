// sync_team.c compiled as C++: there shmem_sync(team) and the deprecated active-set form are overloads.
#include "sync_team.c"
