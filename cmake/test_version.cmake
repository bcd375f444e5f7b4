# ctest "rhoflow --version prints the commit of the build": the second line of `rhoflow
# --version` is "commit SHA" with SHA = git rev-parse HEAD of SOURCE_DIR (the test runs after the
# build, which recomputed it), or "commit unknown" when SOURCE_DIR is not a git checkout.
execute_process(COMMAND ${RHOFLOW} --version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rhoflow --version exited ${rc}: ${out}")
endif()
if(NOT out MATCHES "^rhoflow ${VERSION}\ncommit ([0-9a-f]+|unknown)( \\([^\n]*\\))?\n$")
  message(FATAL_ERROR "rhoflow --version printed an unexpected text:\n${out}")
endif()
set(printed "${CMAKE_MATCH_1}")
set(expected "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --verify HEAD
    OUTPUT_VARIABLE head RESULT_VARIABLE grc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(grc EQUAL 0)
    set(expected "${head}")
  endif()
endif()
if(NOT printed STREQUAL expected)
  message(FATAL_ERROR "rhoflow --version names commit ${printed}, but the source tree is at ${expected} "
    "(rebuild after committing: the commit is recomputed at every build)")
endif()
message(STATUS "rhoflow --version: commit ${printed}")
