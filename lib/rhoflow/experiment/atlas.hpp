// `rhoflow atlas`: a claim of `rhoflow prove` decided over a map of models, theta boxes against
// rows of (d, L, R = alpha L), and its threshold theta* bracketed on every row, as one
// experiment (experiment/runner.hpp) that atlas_experiment() writes: a `map` task (prove, one
// certificate per cell; its summary is the atlas, experiment/sweep.hpp atlas_summary) and a
// `threshold` task (rhoflow threshold per row). Being an experiment, it is resumable, spreads
// over MPI ranks with the same bytes as one process, and runs from Python (rhoflow.run of the
// text saved as a file); `rhoflow atlas --dry-run` prints the file.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rhoflow {

/// What an atlas covers: the claim, the theta boxes, the rows of models, the threshold's width.
struct AtlasParams {
    std::string claim = "monotone";             ///< a claim of prove (monotone, recovery, attractors=N, filtering<=EPS, ...)
    double theta_lo = 0.25;                     ///< the map's theta range: lower end, >= 0
    double theta_hi = 1.5;                      ///< its upper end, > theta_lo
    int theta_cells = 5;                        ///< boxes of equal width covering [theta_lo, theta_hi], 1 ... 64
    std::vector<double> L = {100, 1000, 10000}; ///< tokens, one row each (integers, 3 ... 1e9)
    std::vector<double> alpha = {0.1};          ///< R / L, one row each with every L; alpha L an integer >= 1
    std::vector<double> d = {50};               ///< dimensions, one row each with every (L, alpha) (integers >= 2)
    double sigma = 1;                           ///< noise per coordinate, > 0
    double beta = 1;                            ///< inverse temperature, > 0
    double threshold_width = 1e-4;              ///< theta* bracketed to this width on every row (0: no threshold task)
    std::int64_t max_cells = 20000;             ///< enclosures per cell's proof (prove's --max-cells)
    int box_depth = 4;                          ///< bisections of a theta box (prove's --box-depth)
    int threads = 0;                            ///< threads over cells (0 = all cores)
    /// Throws InvalidArgument naming the first field out of range.
    void validate() const;
};

/// JSON hooks of AtlasParams: one key per field.
void to_json(nlohmann::json& j, const AtlasParams& p);
/// Reads them back: a missing key keeps its default; a key that is not a field throws
/// InvalidArgument naming it.
void from_json(const nlohmann::json& j, AtlasParams& p);

/// The experiment file (TOML) of an atlas: a `map` task and, unless threshold_width is 0, a
/// `threshold` task, both over the rows; validates first.
std::string atlas_experiment(const AtlasParams& p);

}  // namespace rhoflow
