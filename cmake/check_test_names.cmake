# Fails when a doctest TEST_CASE name contains a character that CTest's test registration
# splits on (';'): such a test would be registered under a truncated name whose filter matches
# no test case, and doctest exits 0 when nothing runs, so the test would pass without running.
# Run as: cmake -DTEST_DIR=<tests dir> -P check_test_names.cmake
file(GLOB_RECURSE sources "${TEST_DIR}/*.cpp")
set(bad "")
foreach(f ${sources})
  file(STRINGS "${f}" lines REGEX "TEST_CASE\\(\"")
  foreach(line IN LISTS lines)
    if(line MATCHES "TEST_CASE\\(\"[^\"]*;")
      list(APPEND bad "${f}: ${line}")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "test names with ';' (CTest would register them truncated and they would not run):\n${bad}")
endif()
message(STATUS "all test names are safe for CTest")
