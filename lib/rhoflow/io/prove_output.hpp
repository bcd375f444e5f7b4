// What `rhoflow prove` writes beside its certificate (prove/prove.hpp's certificate(), which the
// checker prove/verify.hpp reads back): the readable summary, made from the typed result alone;
// and what `rhoflow field --rigorous` prints: the guaranteed enclosures as text or a document.
// When it fails: it does not.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rhoflow/io/json.hpp"
#include "rhoflow/io/result_output.hpp"
#include "rhoflow/model/model.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/rigorous/enclosure.hpp"

namespace rhoflow {

/// The exact decimal value of a double ("0.1000000000000000055511151231257827021181583404541015625"
/// for 0.1): finite, since a double is an integer times a power of two.
std::string exact_decimal(double x);

/// A readable summary (Markdown) for a paper's appendix: claim, verdict, box, method (Arb version,
/// precision, rhoflow version and commit), the work done, one row per parameter cell, the
/// counterexample or the first 50 undecided cells, and how to re-check the certificate.
std::string proof_summary(const ProveParams& params, const ProveResult& result);

/// What `rhoflow prove` prints: the summary and the time the search took, on how many threads or ranks.
std::string proof_text(const ProveParams& params, const ProveResult& result);
/// What `rhoflow prove --verify` prints: "certificate valid: N cells recomputed; verdict 'V' confirmed".
std::string verification_text(const VerifyReport& report);
/// A sweep's headline row of a proof: verdict, parameter cells, cells, enclosures, largest relative width.
HeadlineRow proof_headline(const ProveResult& result);
/// A sweep's headline row of a certificate re-checked: valid, verdict, cells.
HeadlineRow verification_headline(const VerifyReport& report);

/// A sweep's headline rows of guaranteed enclosures: one per rho, with j, j' and E[A_I]'s lo and hi.
std::vector<HeadlineRow> enclosure_headline(const std::vector<FieldEnclosure>& enclosures);

/// The guaranteed enclosures of j, j', j'' and E[A_I] at each rho of the (point) `cell` as text: a
/// header naming Arb, the precision and the exact doubles enclosed, then each interval to 17
/// digits with its width.
std::string enclosure_text(const ModelCell& cell, const std::vector<FieldEnclosure>& enclosures, int precision);
/// Their document: the provenance's keys, "model", "rigorous": true, "arb_version", "enclosures".
nlohmann::json enclosure_document(const Provenance& provenance, const ModelParams& model,
                                  const std::vector<FieldEnclosure>& enclosures);

}  // namespace rhoflow
