// The readable (non-JSON) output of each subcommand, made from the typed job and result.
#pragma once

#include <string>

#include "rhoflow/experiment/jobs.hpp"

namespace rhoflow::cli {

/// The text `rhoflow SUB` prints without --json, for any job and its result.
std::string render_text(const Job& job, const JobResult& result);

}  // namespace rhoflow::cli
