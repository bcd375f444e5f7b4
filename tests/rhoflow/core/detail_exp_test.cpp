#include "rhoflow/core/detail/exp_nonpositive.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

TEST_CASE("detail::exp_nonpositive: within 4 ulp of std::exp on [-708, 0], 0 below -708.39") {
    const std::size_t n = 200001;
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = -708.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    x[1] = -1e-300;
    x[2] = -0.3466;  // the edge of the reduced range
    rhoflow::detail::exp_nonpositive(x.data(), y.data(), n);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double e = std::exp(x[i]);
        const double ulp = std::nextafter(e, 1.0 / 0.0) - e;
        worst = std::max(worst, std::abs(y[i] - e) / ulp);
    }
    CHECK(worst <= 4.0);
    CHECK(y[0] == 1.0);
    std::vector<double> tiny = {-708.4, -800.0, -1e300, -1.0 / 0.0};
    rhoflow::detail::exp_nonpositive(tiny.data(), tiny.data(), tiny.size());
    for (double v : tiny) CHECK(v == 0.0);
}
