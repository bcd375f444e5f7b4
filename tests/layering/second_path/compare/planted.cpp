// A planted violation for the test "layering: a second execution path beside the executor is
// caught": a one-process branch beside the units, as compare.cpp once had.
#include "rhoflow/exec/team.hpp"
void run_twice() {
    if (rhoflow::team_spread()) return;
}
