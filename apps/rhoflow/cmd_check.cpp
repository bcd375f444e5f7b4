// rhoflow check: a claim about the field decided over a box of model parameters, with a
// certified verdict per point (library: lib/rhoflow/check/). This file only maps flags to
// CheckParams and writes what the library builds.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "common.hpp"
#include "rhoflow/core/team.hpp"
#include "rhoflow/check/check.hpp"
#include "rhoflow/check/output.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/plot.hpp"

namespace rhoflow::cli {

namespace {

struct CheckOptions {
    std::string claim;
    std::string d = "50", L = "1000", R = "100", theta = "1", sigma = "1", beta = "1";
    bool sigma_per_norm = false;
    std::string scale = "auto";
    std::string grid = "9", refine = "2", tol = "1e-4", rho0 = "0.05", hit = "0.01", threads = "0",
                max_points = "200000", min_points = "9";
    std::string field = "exact";
    std::string table_points = "129", table_tol = "1e-12", rel_tol = "1e-10", inner_resolution = "0.25";
    std::string out, x_axis;
    bool no_figures = false;
    OutputFlags output;
};

double number(const std::string& text, const std::string& field) { return parse_single(text, field); }

int integer(const std::string& text, const std::string& field, double lo, double hi) {
    const double v = parse_single(text, field);
    const auto dot = field.rfind('.');
    const std::string name = dot == std::string::npos ? field : field.substr(dot + 1);
    require(v == std::floor(v) && v >= lo && v <= hi, name, v,
            fmt::format("integer {} <= {} <= {}", format_number(lo), name, format_number(hi)));
    return static_cast<int>(v);
}

// Re-raises an error of a parse helper under the params-struct path the CLI maps to a flag.
template <class F>
auto as_field(const std::string& field, F&& f) {
    try {
        return f();
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(field, e.what());
    }
}

CheckParams params_of(const CheckOptions& o) {
    CheckParams p;
    p.claim = parse_claim(o.claim, "claim");
    p.box.d = parse_range(o.d, "box.d");
    p.box.L = parse_range(o.L, "box.L");
    p.box.R = parse_range(o.R, "box.R");
    p.box.theta = parse_range(o.theta, "box.theta");
    p.box.sigma = parse_range(o.sigma, "box.sigma");
    p.box.beta = parse_range(o.beta, "box.beta");
    apply_scales(p.box, o.scale);
    p.noise = o.sigma_per_norm ? NoiseConvention::per_norm : NoiseConvention::per_coordinate;
    p.grid = as_field("grid", [&] { return integer(o.grid, "grid", 2, 4097); });
    p.refine = as_field("refine", [&] { return integer(o.refine, "refine", 0, 12); });
    p.threads = as_field("threads", [&] { return integer(o.threads, "threads", 0, 1024); });
    p.max_points = as_field("max_points", [&] { return integer(o.max_points, "max_points", 1, 1e7); });
    p.certify.tol = number(o.tol, "certify.tol");
    p.certify.rho0 = number(o.rho0, "certify.rho0");
    p.certify.hit_eps = number(o.hit, "certify.hit_eps");
    p.certify.min_points = as_field("certify.min_points", [&] { return integer(o.min_points, "min_points", 9, 8193); });
    p.certify.field = parse_field_method(o.field, "certify.field");
    p.certify.table.max_points =
        as_field("certify.table.max_points", [&] { return integer(o.table_points, "table_points", 33, 8193); });
    p.certify.table.tol = number(o.table_tol, "certify.table.tol");
    p.certify.table.exact.rel_tol = number(o.rel_tol, "certify.table.exact.rel_tol");
    p.certify.table.exact.inner_resolution = number(o.inner_resolution, "certify.table.exact.inner_resolution");
    p.validate();
    return p;
}

std::function<void()> prepare(const CheckOptions& o) {
    const CheckParams p = params_of(o);
    int x_axis = -1;
    if (!o.x_axis.empty()) {
        for (int a = 0; a < axis_count; ++a)
            if (axis_name(a) == o.x_axis) x_axis = a;
        if (x_axis < 0 || !p.box.axes()[static_cast<std::size_t>(x_axis)]->ranged()) {
            std::string ranged;
            for (int a = 0; a < axis_count; ++a)
                if (p.box.axes()[static_cast<std::size_t>(a)]->ranged())
                    ranged += (ranged.empty() ? "" : ", ") + std::string(axis_name(a));
            throw InvalidArgument("x_axis", fmt::format("x-axis = '{}' is not a ranged parameter of this box "
                                                        "(accepted: {})",
                                                        o.x_axis, ranged.empty() ? "none, no parameter is ranged" : ranged));
        }
    }
    return [o, p, x_axis] {
        const CheckResult r = run_check(p);
        if (!team_root()) return;  // under MPI every rank computes it (it is not spread); rank 0 writes and prints
        const nlohmann::json doc = check_document(p, r);
        std::vector<std::string> lines;
        if (!o.out.empty()) {
            // Everything is built before anything is written; each file is written atomically.
            const std::filesystem::path dir(o.out);
            const Table t = check_table(p, r);
            const CheckFigures figs = check_figures(p, r, x_axis);
            const std::string csv = to_csv(t), md = to_markdown(t), tex = to_latex(t);
            write_file_atomic(dir / "certificate.json", doc.dump(2) + "\n");
            write_file_atomic(dir / "points.csv", csv);
            write_file_atomic(dir / "points.md", md);
            write_file_atomic(dir / "points.tex", tex);
            lines.push_back("certificate.json; points.{csv,md,tex}");
            for (const auto& [name, content] : figs.data_files) write_file_atomic(dir / name, content);
            for (auto& l : render_figures(dir, figs.figures, !o.no_figures)) lines.push_back(l);
            if (!figs.skipped.empty()) lines.push_back(figs.skipped);
        }
        emit(o.output, doc, [&] { return check_text(p, r); });
        if (!lines.empty()) {
            std::cerr << "rhoflow check: wrote into " << o.out << "/:\n";
            for (const auto& l : lines) std::cerr << "  " << l << "\n";
        }
    };
}

}  // namespace

Command add_check_command(CLI::App& app) {
    auto o = std::make_shared<CheckOptions>();
    auto* sub = app.add_subcommand(
        "check",
        "Decides a claim about the exact field over a box of model parameters, with a certified verdict "
        "(holds / fails / undecided) per point from the field's error bounds. Claims: monotone (F > 0 on "
        "(-1,1)), positive-drift (F > 0 on (0,1)), attractors=N (exactly N stable equilibria), filtering "
        "(1 - E[A_I] decreasing on (0,1)), hitting-time<=T (the ODE from --rho0 reaches |rho| >= 1 - --hit "
        "by time T). Each model flag takes a value or a range LO:HI, sampled on --grid points (log scale "
        "for positive ranges unless --scale linear); cells whose corners disagree are bisected --refine "
        "times. The box holds only if every point holds; between points the result is sampled, not proved. "
        "Exit code 0 whatever the verdict.");
    auto* g = "Model (each a value or a range LO:HI)";
    sub->add_option("--claim", o->claim, "monotone | positive-drift | attractors=N | filtering | hitting-time<=T")
        ->required();
    sub->add_option("--d", o->d, "ambient dimension, integers >= 2")->capture_default_str()->group(g);
    sub->add_option("--L", o->L, "number of tokens, integers >= 1")->capture_default_str()->group(g);
    sub->add_option("--R", o->R, "informative tokens, integers 0 <= R <= L (R's HI <= L's LO)")->capture_default_str()->group(g);
    sub->add_option("--theta", o->theta, "signal strength, >= 0")->capture_default_str()->group(g);
    sub->add_option("--sigma", o->sigma, "noise per coordinate, > 0")->capture_default_str()->group(g);
    sub->add_option("--beta", o->beta, "inverse temperature, > 0")->capture_default_str()->group(g);
    sub->add_flag("--sigma-per-norm", o->sigma_per_norm, "read --sigma as the noise norm (sigma/sqrt(d) per coordinate)")
        ->group(g);
    auto* b = "Box sampling";
    sub->add_option("--scale", o->scale, "log | linear | auto (every range), or a list like theta=linear,R=log")
        ->capture_default_str()->group(b);
    sub->add_option("--grid", o->grid, "points per ranged parameter (2..4097)")->capture_default_str()->group(b);
    sub->add_option("--refine", o->refine, "bisections of cells whose corners disagree (0..12)")->capture_default_str()->group(b);
    sub->add_option("--max-points", o->max_points, "cap on points evaluated")->capture_default_str()->group(b);
    sub->add_option("--threads", o->threads, "threads over parameter points (0 = all cores)")->capture_default_str()->group(b);
    auto* c = "Certification";
    sub->add_option("--tol", o->tol, "largest relative error of the field table accepted for a verdict")
        ->capture_default_str()->group(c);
    sub->add_option("--rho0", o->rho0, "start of the ODE (hitting-time)")->capture_default_str()->group(c);
    sub->add_option("--hit", o->hit, "hitting level |rho| >= 1 - HIT (hitting-time)")->capture_default_str()->group(c);
    sub->add_option("--field", o->field, "exact | meanfield")->capture_default_str()->group(c);
    sub->add_option("--min-points", o->min_points, "first Chebyshev grid of each point's table (2^k + 1)")
        ->capture_default_str()->group(c);
    sub->add_option("--table-points", o->table_points, "largest Chebyshev grid before a point is undecided")
        ->capture_default_str()->group(c);
    sub->add_option("--table-tol", o->table_tol, "Chebyshev tail target (the table's noise floor)")->capture_default_str()->group(c);
    sub->add_option("--rel-tol", o->rel_tol, "accuracy of each exact-field sample")->capture_default_str()->group(c);
    sub->add_option("--inner-resolution", o->inner_resolution, "inner trapezoid step of the exact field, times tau")
        ->capture_default_str()->group(c);
    auto* out = "Output";
    o->output.add(*sub);
    sub->add_option("--out", o->out, "directory for certificate.json, points.{csv,md,tex} and the phase diagram")
        ->group(out);
    sub->add_option("--x-axis", o->x_axis, "ranged parameter on the figure's horizontal axis")->group(out);
    sub->add_flag("--no-figures", o->no_figures, "write figure data and gnuplot scripts but do not run gnuplot")->group(out);
    return {sub, [o] { return prepare(*o); }};
}

}  // namespace rhoflow::cli
