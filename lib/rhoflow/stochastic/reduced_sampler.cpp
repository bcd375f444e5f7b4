#include "rhoflow/stochastic/reduced_sampler.hpp"

#include <cmath>

namespace rhoflow {

ReducedSampler::ReducedSampler(const ModelParams& model) : drawer_(model) {}

GradientDraw ReducedSampler::draw(double rho, RandomStream& rng) { return drawer_.draw(rho, rng); }

double ReducedSampler::step(double rho, double eta, const GradientDraw& g, UpdateRule rule) noexcept {
    return updated_rho(rho, eta, g, rule);
}

double ReducedSampler::step(double rho, double eta, UpdateRule rule, RandomStream& rng, GradientDraw* g) {
    const GradientDraw d = drawer_.draw(rho, rng);
    if (g) *g = d;
    return step(rho, eta, d, rule);
}

double uniform_sphere_rho(std::int64_t d, RandomStream& rng) {
    const double z = rng.normal();
    return z / std::sqrt(z * z + rng.chi_squared(d - 1));
}

}  // namespace rhoflow
