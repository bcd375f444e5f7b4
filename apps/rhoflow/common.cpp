#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <map>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/report.hpp"

namespace rhoflow::cli {

void ModelFlags::add(CLI::App& app) {
    auto* g = "Model (defaults: the embedded default experiment)";
    app.add_option("--d", d, "ambient dimension, integer >= 2")->type_name("INT")->capture_default_str()->group(g);
    app.add_option("--L", L, "number of tokens, integer >= 1 (1e6 accepted)")->type_name("INT")->capture_default_str()->group(g);
    app.add_option("--R", R, "informative tokens, integer 0 <= R <= L")->type_name("INT")->capture_default_str()->group(g);
    app.add_option("--theta", theta, "signal strength, >= 0")->capture_default_str()->group(g);
    app.add_option("--sigma", sigma, "noise standard deviation per coordinate, > 0")->capture_default_str()->group(g);
    app.add_option("--beta", beta, "inverse temperature of the softmax, > 0")->capture_default_str()->group(g);
    app.add_flag("--sigma-per-norm", sigma_per_norm,
                 "read --sigma as the noise norm: per-coordinate deviation sigma/sqrt(d), E||z||^2 = sigma^2")
        ->group(g);
}

std::int64_t require_integer(const std::string& name, double value, double lo, double hi,
                             const std::string& range) {
    require(std::isfinite(value) && value == std::floor(value) && value >= lo && value <= hi, name, value,
            range.empty() ? fmt::format("integer {} <= {} <= {}", format_number(lo), name, format_number(hi))
                          : range);
    return static_cast<std::int64_t>(value);
}

void add_ode_field_flags(CLI::App& app, std::string& field, FieldTableParams& table) {
    app.add_option("--field", field, "exact | meanfield")->capture_default_str();
    app.add_option("--threads", table.threads, "threads tabulating the exact field (0 = all cores)")->capture_default_str();
    app.add_option("--table-tol", table.tol, "Chebyshev table target relative to max |j'|")->capture_default_str();
    app.add_option("--table-points", table.max_points, "largest Chebyshev grid for the exact field")->capture_default_str();
}

FieldMethod ode_field_method(const std::string& field, const ModelParams& model, const FieldTableParams& table) {
    const FieldMethod method = parse_field_method(field, "field");
    if (method == FieldMethod::montecarlo)
        throw InvalidArgument("field", "field = 'montecarlo' cannot drive the ODE (accepted: exact, meanfield)");
    table.validate();
    if (method == FieldMethod::exact) validate_exact_field(model, table.exact);
    return method;
}

ModelParams ModelFlags::model() const {
    const std::int64_t di = require_integer("d", d, 2, 1e9);
    const std::int64_t Li = require_integer("L", L, 1, 1e12);
    const std::int64_t Ri =
        require_integer("R", R, 0, static_cast<double>(Li), fmt::format("integer 0 <= R <= L = {}", Li));
    ModelParams m = ModelParams::with_noise(di, Li, Ri, theta, sigma, beta, convention());
    m.validate();
    return m;
}

NoiseConvention ModelFlags::convention() const {
    return sigma_per_norm ? NoiseConvention::per_norm : NoiseConvention::per_coordinate;
}

void OutputFlags::add(CLI::App& app) {
    app.add_flag("--json", json, "print one JSON document on stdout instead of a table");
    app.add_option("--output", output, "write the JSON document to this file (atomically) instead of stdout");
}

void emit(const OutputFlags& out, const nlohmann::json& doc, const std::function<std::string()>& text) {
    ensure_finite(doc);
    if (!out.output.empty()) {
        write_file_atomic(out.output, doc.dump(2) + "\n");
        if (!out.json) std::cout << text();
        return;
    }
    if (out.json)
        std::cout << doc.dump(2) << "\n";
    else
        std::cout << text();
}

namespace {

std::unique_ptr<CLI::App> make_app(std::vector<Command>& commands) {
    auto app = std::make_unique<CLI::App>(
        "rhoflow: exact population field, mean-field ODE and stochastic gradient ascent for softmax-\n"
        "attention signal recovery. A query q on the sphere is learned by projected SGA on\n"
        "E||softmax(beta X q)^T X||^2 over L tokens, R of which carry a hidden direction xi with\n"
        "strength theta in N(0, sigma^2 I_d) noise; rho = <q, xi> obeys d rho/dt = (1 - rho^2) j'(rho).\n"
        "Every number comes with its error estimate. Exit codes: 0 ok, 1 other error, 2 invalid\n"
        "input (the message names the flag and its accepted range), 3 numerical failure.",
        "rhoflow");
    app->require_subcommand(1, 1);
    app->set_help_all_flag("--help-all", "help for every subcommand");
    commands.push_back(add_field_command(*app));
    commands.push_back(add_ode_command(*app));
    commands.push_back(add_phase_command(*app));
    commands.push_back(add_sga_command(*app));
    commands.push_back(add_compare_command(*app));
    commands.push_back(add_check_command(*app));
    commands.push_back(add_run_command(*app));
    return app;
}

}  // namespace

const std::vector<std::string>& command_names() {
    static const std::vector<std::string> names = {"field", "ode", "phase", "sga", "compare", "check", "run"};
    return names;
}

std::string flag_for_field(const std::string& path) {
    // Fields whose flag is not their name with dashes; keyed by the last one or two components.
    static const std::map<std::string, std::string> special = {
        {"hit_eps", "hit"},       {"scan_cells", "scan"},          {"table.tol", "table-tol"},
        {"table.max_points", "table-points"}, {"record_steps", "record"}, {"times", "t-end"},
        {"exact.rel_tol", "rel-tol"}, {"exact.inner_resolution", "inner-resolution"}};
    const auto dot = path.rfind('.');
    const std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
    if (dot != std::string::npos) {
        const auto dot2 = path.rfind('.', dot - 1);
        const std::string two = path.substr(dot2 == std::string::npos ? 0 : dot2 + 1);
        if (auto it = special.find(two); it != special.end()) return it->second;
    }
    if (auto it = special.find(last); it != special.end()) return it->second;
    std::string flag = last;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

namespace {

Outcome failure(int code, const std::string& message, const std::string& param = "") {
    return {code, message, param};
}

template <class F>
Outcome guarded(F&& f) {
    try {
        f();
        return {};
    } catch (const InvalidArgument& e) {
        if (e.field() == "file") return failure(2, e.what(), e.field());  // experiment files: FILE:LINE: ...
        const std::string flag = flag_for_field(e.field());
        return failure(2, fmt::format("invalid --{}: {}", flag, e.what()), flag);
    } catch (const NumericalError& e) {
        return failure(3, fmt::format("numerical failure: {}", e.what()));
    } catch (const std::exception& e) {
        return failure(1, e.what());
    }
}

}  // namespace

Outcome prepare(const std::vector<std::string>& args, std::function<void()>* work) {
    *work = {};
    if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
        const auto& names = command_names();
        if (std::find(names.begin(), names.end(), args[0]) == names.end()) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            return failure(2, fmt::format("unknown subcommand '{}' (accepted: {})", args[0], list));
        }
    }
    std::vector<Command> commands;
    const auto app = make_app(commands);
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
        app->parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        app->exit(e);
        return {};
    } catch (const CLI::CallForAllHelp& e) {
        app->exit(e);
        return {};
    } catch (const CLI::ParseError& e) {
        return failure(2, std::string(e.what()) +
                              "\nRun 'rhoflow --help' or 'rhoflow SUBCOMMAND --help' for the flags and their ranges.");
    }
    return guarded([&] {
        for (auto& c : commands)
            if (c.app->parsed()) *work = c.prepare();
    });
}

Outcome execute(const std::function<void()>& work) { return work ? guarded(work) : Outcome{}; }

int dispatch(const std::vector<std::string>& args) {
    std::function<void()> work;
    Outcome o = prepare(args, &work);
    if (o.code == 0) o = execute(work);
    if (o.code != 0) std::cerr << "rhoflow: " << (o.code == 3 ? "" : "error: ") << o.message << "\n";
    return o.code;
}

}  // namespace rhoflow::cli
