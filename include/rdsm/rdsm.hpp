// rdsm C++ API umbrella: include this one header for the whole typed API over <shmem.h>.
#pragma once

#include "rdsm/detail/cxx20.hpp"

#include "rdsm/atomic.hpp"       // fetch_add, compare_swap, ... on global_ptr<T>
#include "rdsm/collectives.hpp"  // broadcast, collect, fcollect, alltoall, reduce over std::span
#include "rdsm/concepts.hpp"     // remote_copyable, atomic_value, atomic_integral, wait_value
#include "rdsm/context.hpp"      // context: put/get/AMOs ordered and completed apart from other contexts
#include "rdsm/dsm.hpp"          // dsm::array<T>, dsm::mutex, dsm::barrier: coherent pages
#include "rdsm/future.hpp"       // future<>: completion of non-blocking operations
#include "rdsm/global_ptr.hpp"   // global_ptr<T>: (PE, symmetric address)
#include "rdsm/rma.hpp"          // put, get, put_nbi, get_nbi, fence, quiet
#include "rdsm/runtime.hpp"      // runtime (RAII init/finalize), barrier, thread_level
#include "rdsm/signal.hpp"       // put_signal, signal_wait_until, wait_until, test
#include "rdsm/status.hpp"       // error, bad_symmetric_alloc
#include "rdsm/symmetric.hpp"    // symmetric<T>, symmetric_array<T>
#include "rdsm/team.hpp"         // team: world, shared, split_strided, split_2d
#include "rdsm/waits.hpp"        // wait_until_all/any/some, test_all/any/some on several variables
