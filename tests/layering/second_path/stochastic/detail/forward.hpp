// A planted violation for the test "layering: a branch on the rank through a header is caught":
// a header that hands the team to whoever includes it.
#pragma once
#include "rhoflow/exec/team.hpp"
