// The vector kernels of core/normal_block.cpp, written once over a vector type V and included
// once per instruction-set variant, each time inside its own `#pragma GCC target` region and
// namespace (so no include guard). V has N 64-bit lanes, processed U registers at a time, and
// provides set1, iota, loadu, add, mul32 (the full 64-bit products of the lanes' low 32 bits),
// srl32, shl32, swap32 (the two halves of each lane exchanged), and_, or_, and_or (a & b | c), xor3,
// store_interleaved and zig (the ziggurat's fast path on N <= 8 draws, returning the mask of the
// lanes it rejects). Only integer arithmetic and exact IEEE operations: every variant gives the
// same bits.

// Philox4x32-10's ten rounds on U * N counters {c0, c1, c2, c3} under the key {k0, k1}
// (Random123's rounds: ctr = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}). One 32-bit word per 64-bit
// lane; the upper halves carry garbage that mul32 ignores and the caller's masking drops. One
// high half is moved down by a shift, the other by a swap of the halves, so that the two kinds
// of instruction share the ports.
[[gnu::always_inline]] inline void philox_rounds(typename V::I* c0, typename V::I* c1, typename V::I* c2,
                                                 typename V::I* c3, std::uint32_t k0, std::uint32_t k1) noexcept {
    const auto m0 = V::set1(kPhiloxM0), m1 = V::set1(kPhiloxM1);
    for (int r = 0; r < 10; ++r) {
        const auto vk0 = V::set1(k0), vk1 = V::set1(k1);
        for (int u = 0; u < V::U; ++u) {
            const auto p0 = V::mul32(c0[u], m0), p1 = V::mul32(c2[u], m1);
            c0[u] = V::xor3(V::srl32(p1), c1[u], vk0);
            c2[u] = V::xor3(V::swap32(p0), c3[u], vk1);
            c1[u] = p1;
            c3[u] = p0;
        }
        k0 += kPhiloxW0;
        k1 += kPhiloxW1;
    }
}

// The two 64-bit draws {w0 | w1 << 32, w2 | w3 << 32} of each of the U * N counters, interleaved.
[[gnu::always_inline]] inline void store_draws(const typename V::I* c0, const typename V::I* c1, const typename V::I* c2,
                                               const typename V::I* c3, std::uint64_t* out) noexcept {
    const auto low = V::set1(0xffffffffu);
    for (int u = 0; u < V::U; ++u) {
        const auto d0 = V::and_or(c0[u], low, V::shl32(c1[u]));
        const auto d1 = V::and_or(c2[u], low, V::shl32(c3[u]));
        V::store_interleaved(out + 2 * u * V::N, d0, d1);
    }
}

// The main draws of the U * N blocks b0 + u * N + lane: counters {lo32(b), hi32(b), h0, h1}.
[[gnu::always_inline]] inline void philox_group(const NormalBlockKey& key, std::uint64_t b0, std::uint64_t* out) noexcept {
    typename V::I c0[V::U], c1[V::U], c2[V::U], c3[V::U];
    for (int u = 0; u < V::U; ++u) {
        const auto b = V::add(V::set1(b0 + static_cast<std::uint64_t>(u * V::N)), V::iota());
        c0[u] = b;
        c1[u] = V::srl32(b);
        c2[u] = V::set1(key.ctr_hi[0]);
        c3[u] = V::set1(key.ctr_hi[1]);
    }
    philox_rounds(c0, c1, c2, c3, key.key[0], key.key[1]);
    store_draws(c0, c1, c2, c3, out);
}

// The slow path's first extra block for normals idx[0 .. n), n a multiple of U * N: counters
// {0, lo32(i), hi32(i), s2} under the key {s0, s1}.
void philox_slow_first(const NormalBlockKey& key, const std::uint64_t* idx, std::size_t n, std::uint64_t* out) noexcept {
    for (std::size_t g = 0; g < n; g += static_cast<std::size_t>(V::U * V::N)) {
        typename V::I c0[V::U], c1[V::U], c2[V::U], c3[V::U];
        for (int u = 0; u < V::U; ++u) {
            const auto i = V::loadu(idx + g + static_cast<std::size_t>(u * V::N));
            c0[u] = V::set1(0);
            c1[u] = i;
            c2[u] = V::srl32(i);
            c3[u] = V::set1(key.slow_ctr);
        }
        philox_rounds(c0, c1, c2, c3, key.slow_key[0], key.slow_key[1]);
        store_draws(c0, c1, c2, c3, out + 2 * g);
    }
}

// Draws of `blocks` blocks from first_block on: whole groups straight into out, the rest
// through a scratch group.
void philox_draws(const NormalBlockKey& key, std::uint64_t first_block, std::uint64_t* out, std::size_t blocks) noexcept {
    constexpr std::size_t G = static_cast<std::size_t>(V::U * V::N);
    std::size_t b = 0;
    for (; b + G <= blocks; b += G) philox_group(key, first_block + b, out + 2 * b);
    if (b < blocks) {
        std::uint64_t scratch[2 * G];
        philox_group(key, first_block + b, scratch);
        for (std::size_t j = 0; j < 2 * (blocks - b); ++j) out[2 * b + j] = scratch[j];
    }
}

// The ziggurat's fast path on r[0..m), m <= kChunk: out[j] for every j, and the positions it
// rejects (their out[j] to be replaced by the exact test or the slow path) in
// rejected[0..returned). The rejection masks first, 64 lanes a word, then their set bits (one
// loop per word with a rejection): cheaper than packing each register's rejected lanes (a
// compress or a table and a store per register, measured), most of which reject none.
// Z::zig is the fast path on one register (V's own by default; a variant may have two forms).
template <class Z = V>
std::size_t zig_fast(const std::uint64_t* r, double* out, std::size_t m, std::uint32_t* rejected) noexcept {
    constexpr std::size_t kWord = 64;
    std::uint64_t masks[kChunk / kWord];
    const std::size_t whole = m / kWord * kWord;
    for (std::size_t w = 0; w < whole; w += kWord) {
        std::uint64_t bits = 0;
        for (std::size_t l = 0; l < kWord; l += V::N)
            bits |= static_cast<std::uint64_t>(Z::zig(r + w + l, out + w + l)) << l;
        masks[w / kWord] = bits;
    }
    std::size_t nrej = 0;
    for (std::size_t w = 0; w < whole; w += kWord)
        for (std::uint64_t bits = masks[w / kWord]; bits != 0; bits &= bits - 1)
            rejected[nrej++] = static_cast<std::uint32_t>(w + static_cast<std::size_t>(std::countr_zero(bits)));
    for (std::size_t j = whole; j < m; ++j)
        if (!zig_fast_scalar(r[j], out[j])) rejected[nrej++] = static_cast<std::uint32_t>(j);
    return nrej;
}
