# Run at every build (the target rhoflow_build_info): writes OUT, a one-function .cpp holding the
# git commit of SOURCE_DIR and whether its working tree had changes, and touches it only when
# that changed, so a new commit recompiles this one file and relinks, nothing else.
# Outside a git checkout (a release tarball) or without git the commit is "unknown".
set(commit "unknown")
set(modified "false")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --verify HEAD
    OUTPUT_VARIABLE out RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out MATCHES "^[0-9a-f]+$")
    set(commit "${out}")
    # Tracked files changed against the commit (untracked files are not counted).
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
      OUTPUT_VARIABLE status RESULT_VARIABLE rc2 OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc2 EQUAL 0 AND NOT status STREQUAL "")
      set(modified "true")
    endif()
  endif()
endif()
set(content "// Generated at build time by cmake/build_info.cmake: do not edit.
#include \"rhoflow/version.hpp\"

namespace rhoflow {
const char* git_commit() { return \"${commit}\"; }
bool git_tree_modified() { return ${modified}; }
}  // namespace rhoflow
")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
