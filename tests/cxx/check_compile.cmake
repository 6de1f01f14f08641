# Compiles one case of compile_fail.cpp: CASE "ok" must compile; any other must fail matching REGEX.
# STD: the language standard (c++20 unless given; the case "cxx17" checks the API's one-line refusal).
if(NOT STD)
  set(STD c++20)
endif()
execute_process(COMMAND ${CXX} -std=${STD} -fsyntax-only -Wall -Wextra -I${INCLUDE} -DRDSM_CASE_${CASE} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(CASE STREQUAL "ok")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the valid calls of compile_fail.cpp do not compile:\n${err}")
  endif()
  message(STATUS "ok: compiles")
elseif(rc EQUAL 0)
  message(FATAL_ERROR "case ${CASE} compiled, but the API must reject it")
elseif(NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "case ${CASE} failed to compile, but not because of ${REGEX}:\n${err}")
else()
  message(STATUS "${CASE}: rejected by ${REGEX}")
endif()
