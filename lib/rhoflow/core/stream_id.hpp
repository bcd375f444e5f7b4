// The identity of a random stream: its master seed, its purpose and its indices (core/random.hpp
// says how a stream is generated from them; docs/cli.md, "Reproducibility", lists the purposes).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace rhoflow {

/// What a stream is used for. Each purpose is a distinct counter word, so two purposes never
/// share a stream. Never renumber: the numbers of published results depend on these values.
enum class StreamPurpose : std::uint64_t {
    sga_trial = 0,         ///< trial `index` of an SGA ensemble (also its random initial query)
    montecarlo_field = 1,  ///< chunk `index` of the Monte Carlo field estimator
    step_size_study = 2,   ///< trial `index` of run `sub` (eta0 rank) of the comparator's step-size study
    one_step_moments = 3,  ///< grid point `index` of the one-step moment table of the rho-chain
    effective_sde = 4,     ///< path block `index` of the effective-dynamics (1-D SDE) ensemble
    bootstrap = 5,         ///< bootstrap replicas: index 0 a Monte Carlo table's, 1 (sub = replica) the effective ODE's tables', 2 (sub = replica) the resampled chain's bank
    effective_chain = 6,   ///< path block `index` of the resampled effective chain (effective/resampled_chain.hpp)
    verdict = 7,           ///< test `index` of the verdict's Monte Carlo null laws (effective/verdict.hpp)
};

/// "sga_trial", "montecarlo_field", ...
std::string_view to_string(StreamPurpose p);
/// Parses a purpose name; throws InvalidArgument naming `field` otherwise.
StreamPurpose parse_stream_purpose(std::string_view s, const std::string& field = "purpose");
/// The purpose's name.
void to_json(nlohmann::json& j, const StreamPurpose& p);
/// Parses a purpose's name.
void from_json(const nlohmann::json& j, StreamPurpose& p);

/// The identity of one stream: master seed, purpose, and indices within the purpose.
struct StreamId {
    std::uint64_t seed = 0;      ///< master seed (the user's --seed)
    StreamPurpose purpose = StreamPurpose::sga_trial;  ///< what the stream is for
    std::uint64_t index = 0;     ///< trial, chunk or grid point (Philox key word 1)
    std::uint64_t sub = 0;       ///< second index within the purpose (counter word 2)
    /// Two ids are equal iff they name the same stream.
    bool operator==(const StreamId&) const = default;
};

}  // namespace rhoflow
