# Makes DIR an empty folder, removing whatever was there: the scratch folder of a probe script
# (tests/probe/*.sh, run by ctest as "probe: NAME" after the setup test "probe scratch: NAME").
# Run as: cmake -DDIR=<folder> -P fresh_dir.cmake
if(NOT DIR)
  message(FATAL_ERROR "fresh_dir.cmake: DIR is not set")
endif()
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
