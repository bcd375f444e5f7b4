// Uses the installed library: exact and mean-field field at one point; exits 0 if sensible.
#include <rhoflow/field/exact_field.hpp>
#include <rhoflow/field/meanfield.hpp>
#include <rhoflow/version.hpp>

#include <cmath>
#include <cstdio>

int main() {
    const rhoflow::ModelParams m{20, 50, 10, 2.0, 1.0, 1.0};
    const auto p = rhoflow::exact_field(m, 0.7);
    const auto q = rhoflow::meanfield_field(m, 0.7);
    std::printf("rhoflow %s: j = %.15g (reference 4.59605431196181), j_inf = %.15g\n", rhoflow::version, p.j, q.j);
    return std::abs(p.j - 4.59605431196181) < 1e-10 && q.j > 0 ? 0 : 1;
}
