# Test helpers: multi-PE tests run through rdsmrun with a time limit, optionally also over TCP.

# How a job starts: RDSM_RUN is the launcher, RDSM_PE_EMULATOR what each PE's program is run under.
# Natively: this tree's rdsmrun, nothing. Cross-built (scripts/build-aarch64.sh): the native rdsmrun of
# RDSM_HOST_BUILD, and the emulator (qemu-aarch64). The launcher only forks, watches and relays; running it
# natively costs no emulation, and an emulated launcher could not start arm64 programs itself (no binfmt).
# Emulated programs run slower: RDSM_TIME_SCALE stretches every time limit.
if(CMAKE_CROSSCOMPILING)
  set(RDSM_HOST_BUILD "" CACHE PATH "Native build tree of rdsm whose bin/rdsmrun launches the cross-built tests")
  if(NOT EXISTS "${RDSM_HOST_BUILD}/bin/rdsmrun")
    message(FATAL_ERROR "cross-built tests need a native rdsmrun: build rdsm natively and pass "
                        "-DRDSM_HOST_BUILD=<that build tree> (scripts/build-aarch64.sh does), or -DRDSM_BUILD_TESTS=OFF")
  endif()
  set(RDSM_RUN ${RDSM_HOST_BUILD}/bin/rdsmrun)
  set(RDSM_PE_EMULATOR ${CMAKE_CROSSCOMPILING_EMULATOR})
  set(RDSM_TIME_SCALE 3)
else()
  set(RDSM_RUN $<TARGET_FILE:rdsmrun>)
  set(RDSM_PE_EMULATOR "")
  set(RDSM_TIME_SCALE 1)
endif()

# rdsm_add_pe_test(<name> TARGET <executable target> PES <n>... [TCP] [TIMEOUT <s>] [ARGS <arg>...]
#                  [ENV <VAR=value>...] [LABELS <label>...])
# Adds one test <name>.np<n> per PE count, run as `rdsmrun -n <n> --timeout <s> <exe> <args>`; with TCP also
# <name>.np<n>.tcp under UCX_TLS=tcp,self with RDSM_SHARE_HEAP=0, so that the heap is reached through UCX
# (which emulates RMA and atomics over TCP there) rather than mapped by the PEs of the host.
function(rdsm_add_pe_test name)
  cmake_parse_arguments(T "TCP" "TARGET;TIMEOUT" "PES;ARGS;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${RDSM_TIME_SCALE}")
  math(EXPR ctest_timeout "${T_TIMEOUT} + 15")
  set(variants plain)
  if(T_TCP)
    list(APPEND variants tcp)
  endif()
  foreach(n IN LISTS T_PES)
    foreach(variant IN LISTS variants)
      set(test_name ${name}.np${n})
      set(env ${T_ENV})
      if(variant STREQUAL "tcp")
        set(test_name ${test_name}.tcp)
        list(APPEND env UCX_TLS=tcp,self RDSM_SHARE_HEAP=0)
      endif()
      add_test(NAME ${test_name}
               COMMAND ${RDSM_RUN} -n ${n} --timeout ${T_TIMEOUT} ${RDSM_PE_EMULATOR} $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
      set_tests_properties(${test_name} PROPERTIES TIMEOUT ${ctest_timeout} ENVIRONMENT "${env}"
                                                   LABELS "multipe;${T_LABELS}" PROCESSORS 2)
    endforeach()
  endforeach()
endfunction()

# rdsm_add_pe_gtest(<name> SOURCES <src>... <rdsm_add_pe_test options>): a GoogleTest program whose main
# starts OpenSHMEM (tests/support/pe_main.cpp), run on several PEs.
function(rdsm_add_pe_gtest name)
  cmake_parse_arguments(G "TCP" "TIMEOUT" "SOURCES;PES;ARGS;ENV;LABELS" ${ARGN})
  add_executable(${name} ${G_SOURCES})
  target_link_libraries(${name} PRIVATE rdsm_pe_gtest_main)
  set(forward PES ${G_PES} ARGS ${G_ARGS} ENV ${G_ENV} LABELS ${G_LABELS})
  if(G_TCP)
    list(APPEND forward TCP)
  endif()
  if(G_TIMEOUT)
    list(APPEND forward TIMEOUT ${G_TIMEOUT})
  endif()
  rdsm_add_pe_test(${name} TARGET ${name} ${forward})
endfunction()
