// A planted violation for the test "layering: a branch on the rank through a header is caught":
// the branch issue 31 found passing the old check (which knew three names), reaching the team
// through an allowed-looking header.
#include "rhoflow/stochastic/detail/forward.hpp"
bool keeps(int ranks) { return ranks == 1 || rhoflow::team_root(); }
