// What `rhoflow prove` writes beside its certificate (prove/prove.hpp's certificate(), which the
// checker prove/verify.hpp reads back): the readable summary, made from the typed result alone.
// When it fails: it does not.
#pragma once

#include <string>

#include "rhoflow/prove/prove.hpp"

namespace rhoflow {

/// A readable summary (Markdown) for a paper's appendix: claim, verdict, box, method (Arb version,
/// precision, rhoflow version and commit), the work done, one row per parameter cell, the
/// counterexample or the first 50 undecided cells, and how to re-check the certificate.
std::string proof_summary(const ProveParams& params, const ProveResult& result);

}  // namespace rhoflow
