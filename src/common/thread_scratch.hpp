// Per-thread scratch that stays usable after the thread's thread_local objects are destroyed.
#pragma once

namespace rdsm::detail {

/// The calling thread's T, value-initialized at its first use in the thread, usable at any point of the
/// thread's life. A plain thread_local object is destroyed when its thread ends, and for the main thread the
/// C library does that before the atexit and on_exit handlers run, where a PE that returns from main without
/// shmem_finalize finalizes (and syncs its teams). This T is freed when its thread ends; used after that, a
/// new one is made and left to the end of the process.
template <class T>
T& thread_scratch() {
  thread_local T* instance = nullptr;  // trivially destructible: it outlives every thread_local destructor
  if (instance == nullptr) {
    instance = new T();
    struct release {
      ~release() {
        delete instance;
        instance = nullptr;
      }
    };
    thread_local release at_thread_end;  // made once per thread: a T made after it ran is not freed
    (void)at_thread_end;
  }
  return *instance;
}

}  // namespace rdsm::detail
