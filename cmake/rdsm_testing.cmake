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
# Sets T_TIMEOUT (the launcher's limit: the given one or `default`, stretched by RDSM_TIME_SCALE) and
# ctest_timeout (15 s more, so that the launcher's own report comes first) in the caller.
macro(rdsm_test_timeouts default)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${default})
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${RDSM_TIME_SCALE}")
  math(EXPR ctest_timeout "${T_TIMEOUT} + 15")
endmacro()

function(rdsm_add_pe_test name)
  cmake_parse_arguments(T "TCP" "TARGET;TIMEOUT" "PES;ARGS;ENV;LABELS" ${ARGN})
  rdsm_test_timeouts(60)
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

# rdsm_add_hosts_test(<name> TARGET <executable target> PLACEMENT <host>x<PEs>... [TIMEOUT <s>] [ARGS <arg>...]
#                     [ENV <VAR=value>...] [EXPECT <regex of a line of output>] [LABELS <label>...])
# Adds <name>: one job on this machine whose PEs believe they run on several hosts (RDSM_HOST_ID differs
# between them: no shared memory across "hosts", UCX between them). PLACEMENT lists, in rank order, groups of
# ranks and their host: "0x2 1x3" puts ranks 0-1 on host 0 and 2-4 on host 1; "0x1 1x1 0x1 1x1" alternates.
function(rdsm_add_hosts_test name)
  cmake_parse_arguments(T "" "TARGET;TIMEOUT;EXPECT" "PLACEMENT;ARGS;ENV;LABELS" ${ARGN})
  rdsm_test_timeouts(120)
  set(command ${RDSM_RUN} --timeout ${T_TIMEOUT})
  set(separator "")
  foreach(group IN LISTS T_PLACEMENT)
    if(NOT group MATCHES "^([0-9]+)x([0-9]+)$")
      message(FATAL_ERROR "rdsm_add_hosts_test(${name}): placement '${group}' is not <host>x<PEs>")
    endif()
    list(APPEND command ${separator} -n ${CMAKE_MATCH_2} env RDSM_HOST_ID=host${CMAKE_MATCH_1} ${T_ENV} ${RDSM_PE_EMULATOR}
         $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set(separator ":")
  endforeach()
  add_test(NAME ${name} COMMAND ${command})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ctest_timeout} LABELS "multipe;${T_LABELS}" PROCESSORS 2)
  if(T_EXPECT)  # the exit status no longer decides alone: a failing PE or test must show in the output
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_EXPECT}"
                                            FAIL_REGULAR_EXPRESSION "FAILED|ending the job")
  endif()
endfunction()
