#include "rhoflow/experiment/memory.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>
#include <unistd.h>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/parallel.hpp"

namespace rhoflow {

namespace {

// One part of an estimate: bytes, the field that sizes it, and a description.
struct Part {
    double bytes;
    std::string field, what;
};

constexpr double kBase = 32.0 * (1 << 20);  // the program, its libraries, small tables

// A job without an overload below needs no more than the base (a job added to the table).
template <class J>
std::vector<Part> parts_of(const J&, ResultDetail) {
    return {};
}

double d(std::int64_t v) { return static_cast<double>(v); }

// The samplers' workspace: one per thread.
Part sampler_part(const ModelParams& m, SamplerKind s, int threads) {
    const int T = resolve_threads(threads);
    if (s == SamplerKind::full) {
        const double per = 8.0 * (d(m.L) * d(m.d) + d(m.L) + 3.0 * d(m.d));
        return {T * per, m.d >= m.L ? "model.d" : "model.L",
                fmt::format("the full sampler's L x d workspace: 8 bytes x L = {} x d = {} per thread, {} threads", m.L,
                            m.d, T)};
    }
    return {T * 40.0 * d(m.L), "model.L",
            fmt::format("the sampler's workspace: 40 bytes x L = {} per thread, {} threads", m.L, T)};
}

std::vector<Part> parts_of(const FieldJob& j, ResultDetail) {
    std::vector<Part> p = {{1024.0 * d(static_cast<std::int64_t>(j.rho.size())), "rho",
                            fmt::format("{} points of the field", j.rho.size())}};
    if (j.method == FieldMethod::montecarlo) p.push_back(sampler_part(j.model, SamplerKind::reduced, j.montecarlo.threads));
    return p;
}

std::vector<Part> parts_of(const OdeJob& j, ResultDetail) {
    const double n = j.times.empty() ? static_cast<double>(j.t_log > 0 ? j.t_log + 1 : j.points)
                                     : static_cast<double>(j.times.size());
    const char* key = !j.times.empty() ? "times" : j.t_log > 0 ? "t_log" : "points";
    return {{300.0 * n * static_cast<double>(j.rho0.size()), key,
             fmt::format("{} output times x {} rho0 x 300 bytes (solution, error solves, document and text)", n,
                         j.rho0.size())}};
}

std::vector<Part> parts_of(const PhaseJob& j, ResultDetail) {
    return {{32.0 * j.phase.scan_cells, "phase.scan_cells", fmt::format("{} scan cells x 32 bytes", j.phase.scan_cells)}};
}

std::vector<Part> parts_of(const SgaJob& j, ResultDetail detail) {
    const double records = d(static_cast<std::int64_t>(record_steps_for(j.sga).size()));
    const double per_trial = detail == ResultDetail::full ? 4640.0 + 125.0 * records : 24.0;  // summary: the quantiles' copy and rho_finals
    return {sampler_part(j.model, j.sga.sampler, j.sga.threads),
            {per_trial * d(j.sga.trials), "sga.trials",
             detail == ResultDetail::full
                 ? fmt::format("the JSON document's per-trial records: {} trials x {:.0f} record steps, about {} each; "
                               "without --json and --output only the summary is kept",
                               j.sga.trials, records, format_bytes(per_trial))
                 : fmt::format("the summary: {} trials x 24 bytes", j.sga.trials)}};
}

std::vector<Part> parts_of(const CompareJob& j, ResultDetail) {
    const CompareParams& c = j.compare;
    SgaParams sp = c.sga;
    sp.record_steps.clear();
    const double records = d(static_cast<std::int64_t>(record_steps_for(sp).size())) + c.rows;
    std::vector<Part> p = {sampler_part(c.model, c.sga.sampler, c.sga.threads),
                           {(200.0 + 40.0 * records) * d(c.sga.trials), "sga.trials",
                            fmt::format("the comparator's trials: {} trials x {:.0f} record steps", c.sga.trials, records)}};
    if (!c.study_eta0.empty())
        p.push_back({400.0 * d(c.study_trials) * d(static_cast<std::int64_t>(c.study_eta0.size())), "study_trials",
                     fmt::format("the step-size study: {} runs x {} trials", c.study_eta0.size(), c.study_trials)});
    if (c.effective.enabled)
        p.push_back({(48.0 + 8.0 * records) * d(c.effective.prediction.paths), "effective.prediction.paths",
                     fmt::format("the effective chain's paths: {} paths x {:.0f} record steps x 8 bytes",
                                 c.effective.prediction.paths, records)});
    return p;
}

std::vector<Part> parts_of(const StationaryJob& j, ResultDetail) {
    const StationaryParams& s = j.stationary;
    std::vector<Part> p = {sampler_part(j.model, SamplerKind::reduced, s.moments.threads),
                           {200.0 * s.cells, "stationary.cells", fmt::format("{} quadrature cells x 200 bytes", s.cells)}};
    if (s.chain.enabled) {
        // the bank (24 bytes a draw, at most 1e6 per node) in the replicas and the original, and
        // one attractor's kept states at a time
        const double draws = d(s.moments.nodes + 1) * d(std::min<std::int64_t>(s.moments.samples, 1000000));
        p.push_back({24.0 * draws * (s.chain.replicas + 1), "stationary.chain.replicas",
                     fmt::format("the chain's bank: {:.0f} draws x 24 bytes, in {} replicas and the original", draws,
                                 s.chain.replicas)});
        p.push_back({16.0 * d(s.chain.steps) * s.chain.replicas * s.chain.paths, "stationary.chain.steps",
                     fmt::format("the chain's kept states: {} replicas x {} paths x {} steps x 16 bytes",
                                 s.chain.replicas, s.chain.paths, s.chain.steps)});
    }
    return p;
}

std::vector<Part> parts_of(const CheckJob& j, ResultDetail) {
    return {{4096.0 * d(j.check.max_points), "check.max_points",
             fmt::format("up to {} points x 4 KiB (their certificates, table and figure data)", j.check.max_points)}};
}

std::vector<Part> parts_of(const ProveJob& j, ResultDetail) {
    if (!j.verify.empty()) {  // the certificate as text and parsed (about 10 times its size), and its cells recomputed
        std::error_code ec;
        const auto size = std::filesystem::is_regular_file(j.verify, ec) ? std::filesystem::file_size(j.verify, ec) : 0;
        const double bytes = 16.0 * 1024 * 1024 + 10.0 * static_cast<double>(ec ? 0 : size);
        return {{bytes, "verify", "the certificate, read and parsed"}};
    }
    return {{1024.0 * d(j.prove.max_cells), "prove.max_cells",
             fmt::format("up to {} enclosures x 1 KiB (the cells and the certificate)", j.prove.max_cells)}};
}

// The first number in a file (cgroup limits), or nothing ("max", missing file).
std::optional<double> number_in(const char* path) {
    std::ifstream in(path);
    std::string s;
    if (!(in >> s)) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !(v > 0)) return std::nullopt;
    return v;
}

}  // namespace

std::string format_bytes(double b) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) {
        b /= 1024;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} bytes", b) : fmt::format("{:.3g} {}", b, units[u]);
}

MemoryEstimate estimate_memory(const Job& job, ResultDetail detail) {
    const std::vector<Part> parts = std::visit([&](const auto& j) { return parts_of(j, detail); }, job);
    MemoryEstimate e;
    e.bytes = kBase;
    for (const Part& p : parts) {
        e.bytes += p.bytes;
        if (p.bytes > e.largest) {
            e.largest = p.bytes;
            e.field = p.field;
            e.what = p.what;
        }
    }
    return e;
}

MemoryLimit machine_memory_limit() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    MemoryLimit m{pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page)
                                        : std::numeric_limits<double>::infinity(),
                  "this machine's physical memory"};
    for (const char* cg : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"})
        if (const auto v = number_in(cg); v && *v < m.bytes) m = {*v, fmt::format("this process's cgroup limit ({})", cg)};
    return m;
}

double parse_memory_size(std::string_view text, const std::string& field) {
    const std::string name = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    auto bad = [&] {
        return InvalidArgument(field, fmt::format("{} = '{}' is not a size (accepted: a number of bytes > 0 with an "
                                                  "optional suffix K, M, G or T, powers of 1024: e.g. 512M, 8G)",
                                                  name, text));
    };
    double v = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (text.empty() || text.front() == '+' || text.front() == '-' || std::isspace(static_cast<unsigned char>(text.front())))
        throw bad();
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || !std::isfinite(v) || !(v > 0)) throw bad();
    std::string suffix(end, last);
    for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    double scale = 1;
    const std::vector<std::pair<std::vector<std::string>, double>> units = {
        {{"", "B"}, 1.0},
        {{"K", "KB", "KIB"}, 1024.0},
        {{"M", "MB", "MIB"}, 1024.0 * 1024},
        {{"G", "GB", "GIB"}, 1024.0 * 1024 * 1024},
        {{"T", "TB", "TIB"}, 1024.0 * 1024 * 1024 * 1024}};
    bool found = false;
    for (const auto& [names, s] : units)
        if (std::find(names.begin(), names.end(), suffix) != names.end()) {
            scale = s;
            found = true;
        }
    if (!found) throw bad();
    return v * scale;
}

void check_memory(const Job& job, ResultDetail detail, const MemoryLimit& limit) {
    const MemoryEstimate e = estimate_memory(job, detail);
    if (e.bytes <= limit.bytes) return;
    throw InvalidArgument(e.field, fmt::format("the job needs about {} of memory, mostly {} ({}), more than the {} of {} "
                                               "(accepted: a job whose estimate fits; {} sets the limit)",
                                               format_bytes(e.bytes), e.what, format_bytes(e.largest),
                                               format_bytes(limit.bytes), limit.source, limit.setter));
}

}  // namespace rhoflow
