#include "prove_command.hpp"

#include "cli.hpp"

#include <fmt/format.h>
#include <iostream>
#include <utility>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/team.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/table_files.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/prove_output.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"

namespace rhoflow::cli {

namespace {

struct Flag {
    const char* key;
    const char* type;
    const char* help;
    std::function<void(ProveParams&, const std::string&)> set;
};

const std::vector<Flag>& prove_flags() {
    auto range = [](ParamRange ParamBox::*m, const char* key) {
        return [m, key](ProveParams& p, const std::string& t) { p.box.*m = parse_range(t, key); };
    };
    static const std::vector<Flag> flags = {
        {"claim", "TEXT", "required: monotone | positive-drift | attractors=N | hitting-time<=T",
         [](ProveParams& p, const std::string& t) { p.claim = parse_claim(t, "claim"); }},
        {"d", "INT|LO:HI", "ambient dimension (integers; a range is enumerated)", range(&ParamBox::d, "d")},
        {"L", "INT|LO:HI", "tokens, >= 3 (integers; a range is enumerated)", range(&ParamBox::L, "L")},
        {"R", "INT|LO:HI", "informative tokens (integers; a range is enumerated)", range(&ParamBox::R, "R")},
        {"theta", "X|LO:HI", "signal strength: a value or an interval, every point covered", range(&ParamBox::theta, "theta")},
        {"sigma", "X|LO:HI", "noise per coordinate: a value or an interval", range(&ParamBox::sigma, "sigma")},
        {"beta", "X|LO:HI", "inverse temperature: a value or an interval (1e-3 <= beta*sigma <= 4)", range(&ParamBox::beta, "beta")},
        {"precision", "BITS", "ball precision, 64 ... 1024",
         [](ProveParams& p, const std::string& t) { p.rigorous.precision = static_cast<int>(parse_integer(t, "precision")); }},
        {"rel-tol", "NUMBER", "target of each truncation error relative to |j|, 1e-30 ... 1e-3",
         [](ProveParams& p, const std::string& t) { p.rigorous.rel_tol = parse_real(t, "rel-tol"); }},
        {"cells", "INT", "rho cells at the start, 2 ... 4096",
         [](ProveParams& p, const std::string& t) { p.initial_cells = static_cast<int>(parse_integer(t, "cells")); }},
        {"max-depth", "INT", "bisections of a rho cell, 0 ... 40",
         [](ProveParams& p, const std::string& t) { p.max_depth = static_cast<int>(parse_integer(t, "max-depth")); }},
        {"box-depth", "INT", "bisections of a parameter cell, 0 ... 20",
         [](ProveParams& p, const std::string& t) { p.max_box_depth = static_cast<int>(parse_integer(t, "box-depth")); }},
        {"max-cells", "INT", "cap on enclosures computed, 1 ... 1e7",
         [](ProveParams& p, const std::string& t) { p.max_cells = parse_integer(t, "max-cells"); }},
        {"rho0", "NUMBER", "hitting-time: start of the ODE",
         [](ProveParams& p, const std::string& t) { p.rho0 = parse_real(t, "rho0"); }},
        {"hit", "NUMBER", "hitting-time: level 1 - HIT, 1e-12 ... 0.5",
         [](ProveParams& p, const std::string& t) { p.hit_eps = parse_real(t, "hit"); }},
        {"threads", "INT", "threads over cells (0 = all cores); results do not depend on it",
         [](ProveParams& p, const std::string& t) { p.threads = static_cast<int>(parse_integer(t, "threads")); }},
    };
    return flags;
}

const Flag& prove_flag(const std::string& key) {
    for (const Flag& f : prove_flags())
        if (f.key == key) return f;
    throw std::logic_error("prove: no flag --" + key);
}

// ProveParams field -> flag, for errors raised by validate().
std::string flag_of_field(const std::string& f) {
    static const std::map<std::string, std::string> m = {
        {"rigorous.precision", "precision"}, {"precision", "precision"}, {"rel_tol", "rel-tol"},
        {"initial_cells", "cells"}, {"max_depth", "max-depth"}, {"max_box_depth", "box-depth"},
        {"max_cells", "max-cells"}, {"hit_eps", "hit"}, {"rho0", "rho0"}, {"threads", "threads"}, {"claim", "claim"}};
    if (auto it = m.find(f); it != m.end()) return it->second;
    if (f.rfind("box.", 0) == 0) {
        std::string k = f.substr(4);
        return k.substr(0, k.find('.'));
    }
    return f;
}

[[noreturn]] void bad_flag(const std::string& flag, const std::string& message) {
    throw InvalidArgument(flag, fmt::format("invalid --{}: {}", flag, message));
}


}  // namespace

void add_prove_command(CLI::App& app, ProveCommand& p) {
    p.app = app.add_subcommand(
        "prove",
        "Proves or disproves a claim about the exact field rigorously: guaranteed enclosures of j', j'' in ball "
        "arithmetic (Arb), every truncation and quadrature error bounded, over every point of a box of models "
        "(theta, sigma, beta intervals; d, L, R enumerated) and every rho. Claims: monotone (j' > 0 on [-1,1]), "
        "positive-drift (j' > 0 on [0,1]), attractors=N, hitting-time<=T (from --rho0 to 1 - --hit). Verdicts: "
        "proved, disproved (a rigorous counterexample cell), not proved (undecided cells listed). --out DIR writes "
        "certificate.json and summary.md; --verify CERT re-checks a certificate independently (exit 2 if invalid). "
        "Exit code 0 whatever the verdict.");
    const ProveParams defaults;
    for (const Flag& f : prove_flags()) {
        auto* o = p.app->add_option(std::string("--") + f.key, p.texts[f.key], f.help)->type_name(f.type);
        o->group("Claim, box and search");
    }
    auto* g = "Output";
    p.app->add_flag("--json", p.json, "print the certificate (JSON, with \"verdict\") instead of the summary")->group(g);
    p.app->add_option("--output", p.output, "also write the certificate to this file (atomically)")->group(g);
    p.app->add_option("--out", p.out, "folder for certificate.json and summary.md (complete or absent)")->group(g);
    p.app->add_flag("--quiet", p.quiet, "do not list the files written on stderr")->group(g);
    p.app->add_option("--verify", p.verify, "re-check the certificate CERT (untrusted input) instead of proving")
        ->type_name("CERT")
        ->group(g);
    p.app->add_flag("--verify-fast", p.verify_fast,
                    "with --verify: recompute with the prover's own enclosure (faster, not independent of it)")
        ->group(g);
}

std::function<void()> prove_work(const ProveCommand& c) {
    if (c.verify_fast && c.app->count("--verify") == 0) bad_flag("verify-fast", "needs --verify CERT");
    if (c.app->count("--verify") > 0) {
        if (c.verify.empty()) bad_flag("verify", "verify = '' is empty (accepted: a certificate file)");
        for (const Flag& f : prove_flags())
            if (c.app->count(std::string("--") + f.key) > 0 && std::string(f.key) != "threads")
                bad_flag(f.key, "cannot be combined with --verify (the certificate says everything)");
        int threads = 0;  // read now: the parsed command line is gone when the work runs
        if (c.app->count("--threads") > 0) {
            ProveParams p;
            try {
                prove_flag("threads").set(p, c.texts.at("threads"));
                require(p.threads >= 0 && p.threads <= 4096, "threads", p.threads, "0 <= threads <= 4096");
            } catch (const InvalidArgument& e) {
                bad_flag("threads", e.what());
            }
            threads = p.threads;
        }
        return [c, threads] {
            nlohmann::json cert;
            std::string text;
            try {  // untrusted: bounded, never hung by a FIFO or a device (io/read_back.hpp)
                text = read_untrusted_file(c.verify, {max_document_bytes, "a certificate"});
                cert = parse_untrusted_json(text, c.verify, "verify");
            } catch (const IoError& e) {
                throw InvalidArgument("verify", fmt::format("invalid --verify: {}", e.what()));
            } catch (const InvalidArgument& e) {
                throw InvalidArgument("verify", fmt::format("invalid --verify: {}", e.what()));
            }
            VerifyReport r = verify_certificate(cert, threads, Execution::team,
                                                c.verify_fast ? VerifyMethod::fast : VerifyMethod::independent);
            const std::vector<std::string> dups = duplicate_keys(text);
            r.errors.insert(r.errors.begin(), dups.begin(), dups.end());
            r.valid = r.valid && dups.empty();
            if (!team_root()) return;
            if (!r.valid) {
                std::string msg = fmt::format("invalid --verify: the certificate '{}' does not check:", c.verify);
                for (const auto& e : r.errors) msg += "\n  " + without_json_prefixes(e);
                throw InvalidArgument("verify", msg);
            }
            if (c.json)
                std::cout << nlohmann::json{{"valid", true}, {"verdict", to_string(r.verdict)}, {"cells", r.cells}}.dump(2) << "\n";
            else
                std::cout << fmt::format("certificate valid: {} cells recomputed; verdict '{}' confirmed\n", r.cells,
                                         to_string(r.verdict));
        };
    }
    if (c.app->count("--claim") == 0)
        bad_flag("claim", "--claim is required (accepted: monotone, positive-drift, attractors=N, hitting-time<=T; or "
                          "--verify CERT to re-check a certificate)");
    ProveParams p;
    for (const Flag& f : prove_flags())
        if (c.app->count(std::string("--") + f.key) > 0) {
            try {
                f.set(p, c.texts.at(f.key));
            } catch (const InvalidArgument& e) {
                bad_flag(f.key, e.what());
            }
        }
    try {
        p.validate();
    } catch (const InvalidArgument& e) {
        bad_flag(flag_of_field(e.field()), e.what());
    }
    if (c.app->count("--output") > 0 && c.output.empty()) bad_flag("output", "output = '' is empty (accepted: a file name)");
    if (c.app->count("--out") > 0 && c.out.empty()) bad_flag("out", "out = '' is empty (accepted: a folder name)");
    if (!c.out.empty()) check_out_flags(c.out, c.output, "certificate.json");
    if (!c.output.empty()) check_file_writable(c.output);
    if (!c.out.empty()) StagedDirectory::check(c.out);
    return [c, p] {
        const ProveResult r = run_prove(p, Execution::team);
        if (!team_root()) return;
        nlohmann::json cert = certificate(p, r);
        const Provenance provenance = make_provenance("prove", c.command_line);
        cert["provenance"] = provenance;  // optional for the checker (prove/verify.hpp)
        const std::string summary = proof_summary(p, r);
        if (!c.out.empty()) {
            StagedDirectory dir(c.out);
            write_file_atomic(dir.path() / "certificate.json", cert.dump(1) + "\n");
            write_file_atomic(dir.path() / "summary.md", summary);
            write_citation(dir.path(), provenance);
            dir.commit();
            if (!c.quiet) std::cerr << "rhoflow prove: wrote " << c.out << "/certificate.json and summary.md\n";
        }
        if (!c.output.empty()) write_file_atomic(c.output, cert.dump(1) + "\n");
        if (c.json) std::cout << cert.dump(2) << "\n";
        else if (r.diagnostics.ranks > 1)
            std::cout << summary << fmt::format("({:.1f} s on {} MPI ranks)\n", r.diagnostics.seconds, r.diagnostics.ranks);
        else std::cout << summary << fmt::format("({:.1f} s on {} threads)\n", r.diagnostics.seconds, r.diagnostics.threads);
    };
}

std::function<void()> rigorous_field_work(const FieldJob& job, const RigorousParams& rigorous, bool json,
                                          const std::string& command_line) {
    const ModelCell cell = ModelCell::of(job.model);
    try {  // before the work: "invalid --beta: beta = 5 ...", naming the flag
        cell.validate();
    } catch (const InvalidArgument& e) {
        const std::string field = e.field().rfind("cell.", 0) == 0 ? e.field().substr(5) : e.field();
        std::string what = e.what();
        if (what.rfind("cell.", 0) == 0) what.erase(0, 5);
        bad_flag(field, what);
    }
    return [job, rigorous, json, command_line, cell] {
        std::vector<FieldEnclosure> pts;
        for (double rho : job.rho) {
            pts.push_back(enclose_field(cell, {rho, rho}, rigorous));
            // Valid but useless: rounding inside the Taylor arithmetic has eaten the digits.
            const FieldEnclosure& e = pts.back();
            auto mid = [](Interval v) { return std::abs(0.5 * (v.lo + v.hi)); };
            const double size = mid(e.j) + mid(e.dj) + mid(e.d2j);
            for (const auto& [name, v] : {std::pair{"j", e.j}, {"j'", e.dj}, {"j''", e.d2j}})
                if (v.width() > size)
                    throw NumericalError(fmt::format(
                        "rigorous field: at rho = {} the enclosure of {} [{:.6g}, {:.6g}] is wider than the field "
                        "itself at {} bits (rounding in the ball arithmetic); raise --precision (64 ... 1024)",
                        rho, name, v.lo, v.hi, rigorous.precision));
        }
        if (!team_root()) return;
        if (json) {
            std::cout << enclosure_document(make_provenance("field", command_line), job.model, pts).dump(2) << "\n";
            return;
        }
        std::cout << enclosure_text(cell, pts, rigorous.precision);
    };
}

}  // namespace rhoflow::cli
