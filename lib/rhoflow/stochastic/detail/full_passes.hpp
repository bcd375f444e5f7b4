// The per-token loops of FullSampler::draw (stochastic/full_sampler.cpp) over a row of d
// coordinates, written once and included once per instruction-set variant, each time inside its
// own namespace and `#pragma GCC target` region, so no include guard.
//
// A dot product over j < d runs in 16 lanes (coordinate j in lane j mod 16 while 16 remain:
// four V4 partial sums), then whole groups of 4 into the first partial sum, added up as
// ((s0 + s1) + (s2 + s3)) lane by lane and then (l0 + l1) + (l2 + l3), and the last d mod 4
// coordinates added one by one in order: the same
// IEEE operations in the same order whatever registers a variant uses (the library is compiled
// without FMA contraction), so every variant gives the same bits. Four independent sums, where
// one would wait on the adder's latency at every register.

// <x, y> in the lanes above.
[[gnu::always_inline]] inline double dot(const double* x, const double* y, std::size_t d) noexcept {
    V4 s0 = {}, s1 = {}, s2 = {}, s3 = {}, a, b;
    std::size_t j = 0;
    for (; j + 4 * kLanes <= d; j += 4 * kLanes) {
        load4(a, x + j);
        load4(b, y + j);
        s0 += a * b;
        load4(a, x + j + kLanes);
        load4(b, y + j + kLanes);
        s1 += a * b;
        load4(a, x + j + 2 * kLanes);
        load4(b, y + j + 2 * kLanes);
        s2 += a * b;
        load4(a, x + j + 3 * kLanes);
        load4(b, y + j + 3 * kLanes);
        s3 += a * b;
    }
    for (; j + kLanes <= d; j += kLanes) {
        load4(a, x + j);
        load4(b, y + j);
        s0 += a * b;
    }
    double s = lane_sum((s0 + s1) + (s2 + s3));
    for (; j < d; ++j) s += x[j] * y[j];
    return s;
}

// x = sigma x (nothing to do when sigma is 1), then x[0] += shift0 unless shift0 is 0;
// returns <x, q> (dot).
inline double scale_dot(double* x, const double* q, std::size_t d, double sigma, double shift0) noexcept {
    if (sigma != 1.0)
        for (std::size_t j = 0; j < d; ++j) x[j] *= sigma;
    if (shift0 != 0.0) x[0] += shift0;
    return dot(x, q, d);
}


// y += w x.
inline void axpy(double* y, double w, const double* x, std::size_t d) noexcept {
    for (std::size_t j = 0; j < d; ++j) y[j] += w * x[j];
}

// y *= w.
inline void scale(double* y, double w, std::size_t d) noexcept {
    for (std::size_t j = 0; j < d; ++j) y[j] *= w;
}
