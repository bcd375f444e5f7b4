// Template definition of ks_one_sample (declared in stats.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace rhoflow {

template <class Cdf>
KSResult ks_one_sample(std::vector<double> x, Cdf cdf) {
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());
    double D = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double F = cdf(x[i]);
        D = std::max({D, static_cast<double>(i + 1) / n - F, F - static_cast<double>(i) / n});
    }
    const double sn = std::sqrt(n);
    return {D, kolmogorov_survival((sn + 0.12 + 0.11 / sn) * D)};
}

}  // namespace rhoflow
