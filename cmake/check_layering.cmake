# Fails when a file of lib/rhoflow/<part>/ includes a part it may not use (lib/rhoflow/README.md):
# dependencies run one way, so that the field and the ODE know nothing of the stochastic side
# (the effective dynamics, which use both, have their own part above them),
# when all output code is not in io/ (io sits above every numeric part and none includes it:
# output knows the result types, not the numerics), when anything in lib/ runs a shell (system,
# popen), and when a second execution path appears: outside exec/ nothing reaches the team or
# its pool (no include of exec/team.hpp or exec/detail/, no name of their API): every spread
# computation is typed units run by execute().
# Run as: cmake -DLIB_DIR=<lib/rhoflow> -P check_layering.cmake
cmake_minimum_required(VERSION 3.20)
set(allowed_core core)
set(allowed_exec core exec)
set(allowed_model core model)
set(allowed_field core exec model field)
set(allowed_ode core exec model field ode)
set(allowed_stochastic core exec model stochastic)
set(allowed_effective core exec model field ode stochastic effective)
set(allowed_compare core exec model field ode stochastic effective compare)
set(allowed_rigorous core model field rigorous)
set(allowed_check core exec model field ode rigorous check)
set(allowed_prove core exec model field rigorous check prove)
set(allowed_io core exec model field ode stochastic effective compare rigorous check prove io)
set(allowed_experiment core exec model field ode stochastic effective compare io rigorous check prove experiment)
set(parts core exec model field ode stochastic effective compare rigorous check prove io experiment)

set(bad "")
file(GLOB_RECURSE sources "${LIB_DIR}/*.hpp" "${LIB_DIR}/*.cpp" "${LIB_DIR}/*.ipp" "${LIB_DIR}/*.inl")
foreach(f ${sources})
  file(RELATIVE_PATH rel "${LIB_DIR}" "${f}")
  string(REGEX MATCH "^[^/]+" part "${rel}")
  if(NOT part IN_LIST parts)
    continue()  # the umbrella headers: rhoflow.hpp (the numerics, its own test) and rhoflow_all.hpp
  endif()
  get_filename_component(name "${f}" NAME)
  if(NOT part STREQUAL "io" AND name MATCHES "output")
    list(APPEND bad "${rel}: output code belongs in io/ (io/<part>_output.*), not in ${part}/")
  endif()
  file(STRINGS "${f}" includes REGEX "^#include \"rhoflow/")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "rhoflow/([^/\"]+)/" _ "${line}")
    set(used "${CMAKE_MATCH_1}")
    if(used AND NOT used IN_LIST allowed_${part})
      list(APPEND bad "${rel}: ${line} (${part}/ may use: ${allowed_${part}})")
    endif()
  endforeach()
  if(NOT part STREQUAL "exec")
    # The rule: only exec/ reaches the team and its pool. Outside it no file includes
    # exec/team.hpp or exec/detail/ (so nothing reaches them through a header either), and no
    # line names the team's or the pool's API, whatever it calls it for: a branch on the rank
    # (`ranks == 1 || team_root()`) is as much a second path as a pool of one's own. Collective
    # results come back as std::optional from the executor (keeps_results, on_keeper).
    file(STRINGS "${f}" team_include REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](rhoflow/)?exec/(team\\.hpp|detail/)")
    if(team_include)
      list(APPEND bad "${rel}: reaches the team beside the executor (exec/units.hpp): ${team_include}")
    endif()
    file(STRINGS "${f}" pool REGEX "(^|[^A-Za-z_])(team_(rank|size|root|spread|has_mpi|root_then_broadcast|min_max|first_differing|failure_shared)|run_pool|Pool(Task|Work|Queue|Error|ResultHook)|MpiSession|TeamAborted|FailureKind|failure_kind)([^A-Za-z_]|$)")
    if(pool)
      list(APPEND bad "${rel}: reaches the team beside the executor (exec/units.hpp): ${pool}")
    endif()
  endif()
  file(STRINGS "${f}" shell REGEX "(^|[^a-z_:.])(std::)?(system|popen)[ ]*\\(")
  if(shell)
    list(APPEND bad "${rel}: runs a shell: ${shell}")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "layering violations:\n${bad}")
endif()
message(STATUS "every include points down; nothing in lib/ runs a shell; one execution path")
