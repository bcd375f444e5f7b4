// The summaries of an experiment's tasks (experiment/runner.hpp): summary_table() for
// summary.csv, summary_paper_table() for a paper's summary.tex and summary.md.
#include "rhoflow/experiment/runner.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "rhoflow/core/number_text.hpp"
#include "rhoflow/experiment/detail/strings.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow {

namespace fs = std::filesystem;

Table summary_table(const Experiment& e, std::size_t task, const std::vector<JobResult>& results) {
    const ExperimentTask& t = e.tasks[task];
    Table table;
    std::size_t runs = 0;
    for (const auto& c : e.cells) runs += c.task == task;
    table.caption = fmt::format("{}: task '{}' ({} runs)", e.title.empty() ? e.file : e.title, t.name, runs);
    std::string fixed;
    for (const auto& s : t.settings)
        if (s.values.size() == 1) fixed += fmt::format("{}{}={}", fixed.empty() ? "" : ", ", s.key, s.values[0]);
    table.meta = {fmt::format("rhoflow {} {}", version, t.command), fixed.empty() ? "defaults" : fixed,
                  "per-run files: " + (e.out / t.name).string()};
    table.label = "tab:rhoflow-" + t.name;
    for (std::size_t i = 0; i < e.cells.size(); ++i) {
        const ExperimentCell& c = e.cells[i];
        if (c.task != task) continue;
        const auto rows = headline(c.job, results[i]);
        if (rows.empty()) continue;  // nothing to show (a field job without points)
        if (table.columns.empty()) {
            // A swept flag's column is named as its params field (t-end as t_end): a name
            // numpy.genfromtxt(names=True) keeps as it is.
            for (const auto& [k, v] : c.swept) {
                std::string name = k;
                std::replace(name.begin(), name.end(), '-', '_');
                table.columns.push_back({name, k, latex_escape(k), "{:.6g}"});
            }
            for (const auto& [k, v] : rows.front()) table.columns.push_back({k, k, latex_escape(k), "{:.6g}"});
        }
        for (const auto& cells : rows) {
            std::vector<TableCell> row;
            for (const auto& [k, v] : c.swept) {
                const auto x = parse_number(v);
                // A swept list ("0,0.5") is written "0;0.5": no comma in a CSV cell (docs/cli.md).
                std::string text = v;
                std::replace(text.begin(), text.end(), ',', ';');
                row.push_back(x ? TableCell(*x) : TableCell(text));
            }
            for (const auto& [k, v] : cells) row.push_back(v);
            table.rows.push_back(row);
        }
    }
    return table;
}

namespace {

// A human header for a headline key (Markdown, LaTeX); unknown keys: underscores as spaces.
std::pair<std::string, std::string> human_header(const std::string& k) {
    static const std::map<std::string, std::pair<std::string, std::string>> known = {
        {"mean_abs_rho_final", {"SGA mean |ρ| at the end", "SGA mean $|\\rho|$ at the end"}},
        {"abs_rho_ode_final", {"ODE |ρ| at the end", "ODE $|\\rho|$ at the end"}},
        {"pred_abs_rho_final", {"predicted |ρ| at the end", "predicted $|\\rho|$ at the end"}},
        {"nuisance_mass_sga", {"nuisance mass (SGA)", "nuisance mass (SGA)"}},
        {"nuisance_mass_population", {"nuisance mass (population)", "nuisance mass (population)"}},
        {"nuisance_mass", {"nuisance mass", "nuisance mass"}},
        {"hit_time_ode", {"ODE hitting time", "ODE hitting time"}},
        {"hit_time_sga", {"SGA hitting time", "SGA hitting time"}},
        {"hit_time_pred", {"predicted hitting time", "predicted hitting time"}},
        {"hit_time", {"hitting time", "hitting time"}},
        {"max_abs_z", {"max |z|", "max $|z|$"}},
        {"outcomes", {"trials per ODE basin (attractor: count/trials)", "trials per ODE basin (attractor: count/trials)"}},
        {"time_avg_abs_rho", {"time average of |ρ|", "time average of $|\\rho|$"}},
        {"mean_abs_rho", {"mean |ρ|", "mean $|\\rho|$"}},
        {"sd", {"sd of |ρ|", "sd of $|\\rho|$"}},
        {"rho_star", {"ρ*(η)", "$\\rho^*(\\eta)$"}},
        {"plain_ode", {"ODE attractor", "ODE attractor"}},
        {"rho_end", {"ρ at the end", "$\\rho$ at the end"}},
        {"at_rho", {"ρ", "$\\rho$"}},
        {"j", {"j", "$j$"}},
        {"dj", {"j′", "$j'$"}},
        {"mass_informative", {"informative mass", "informative mass"}},
        {"min_margin", {"min. margin", "min.\\ margin"}},
        {"d", {"d", "$d$"}},
        {"L", {"L", "$L$"}},
        {"R", {"R", "$R$"}},
        {"theta", {"θ", "$\\theta$"}},
        {"sigma", {"σ", "$\\sigma$"}},
        {"beta", {"β", "$\\beta$"}},
        {"eta", {"η", "$\\eta$"}},
        {"eta0", {"η0", "$\\eta_0$"}},
        {"rho0", {"ρ0", "$\\rho_0$"}},
    };
    if (const auto it = known.find(k); it != known.end()) return it->second;
    std::string words = k;
    std::replace(words.begin(), words.end(), '_', ' ');
    std::replace(words.begin(), words.end(), '.', ' ');
    return {words, latex_escape(words)};
}

using detail::ends_with;

}  // namespace

PaperTable summary_paper_table(const Experiment& e, std::size_t task, const Table& summary) {
    const ExperimentTask& t = e.tasks[task];
    std::vector<PaperColumn> cols;
    std::size_t swept = 0;
    for (const auto& c : e.cells)
        if (c.task == task) {
            swept = c.swept.size();
            break;
        }
    const auto& all = summary.columns;
    auto index_of = [&](const std::string& key) -> std::ptrdiff_t {
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].key == key) return static_cast<std::ptrdiff_t>(i);
        return -1;
    };
    std::vector<bool> is_error(all.size(), false);
    std::vector<PaperColumn> value_cols(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto [md, tex] = human_header(all[i].key);
        value_cols[i] = {all[i].key, md, tex, all[i].key, "", "", "", i < swept ? 6 : 4, -1, i >= swept};
        if (all[i].key == "max_abs_z") value_cols[i].decimals = 2;
        // the nuisance masses stay in summary.csv: a paper's summary shows alignment and times
        if (i >= swept && all[i].key.rfind("nuisance_mass", 0) == 0) is_error[i] = true;
    }
    for (std::size_t i = swept; i < all.size(); ++i) {
        const std::string& k = all[i].key;
        std::ptrdiff_t target = -1;
        if (ends_with(k, "_err") || ends_with(k, "_se")) {
            target = index_of(k.substr(0, k.rfind('_')));
            if (target < 0 && i > swept) target = static_cast<std::ptrdiff_t>(i) - 1;
            if (target >= 0) value_cols[static_cast<std::size_t>(target)].error = k;
        } else if (k == "ci95_lo" && i > swept && i + 1 < all.size() && all[i + 1].key == "ci95_hi") {
            target = static_cast<std::ptrdiff_t>(i) - 1;
            value_cols[static_cast<std::size_t>(target)].lo = "ci95_lo";
            value_cols[static_cast<std::size_t>(target)].hi = "ci95_hi";
            is_error[i + 1] = true;
        }
        if (target >= 0) is_error[i] = true;
    }
    for (std::size_t i = 0; i < all.size(); ++i)
        if (!is_error[i]) cols.push_back(value_cols[i]);
    std::size_t runs = 0;
    for (const auto& c : e.cells) runs += c.task == task;
    std::string fixed, ranged;
    for (const auto& s : t.settings) {
        if (s.values.size() == 1) fixed += fmt::format("{}{} = {}", fixed.empty() ? "" : ", ", s.key, s.values[0]);
        else ranged += fmt::format("{}{}", ranged.empty() ? "" : ", ", s.key);
    }
    const std::string title = e.title.empty() ? fs::path(e.file).filename().string() : e.title;
    const std::string sentence = fmt::format(
        "{}: task '{}', {} run{} of rhoflow {}{}{}; {}. Each number with its error as rhoflow reports it (95% "
        "confidence half-width when the run gives a CI).",
        title, t.name, runs, runs == 1 ? "" : "s", t.command, ranged.empty() ? "" : " over ", ranged,
        fixed.empty() ? "every other parameter at its default" : "fixed " + fixed);
    std::string tex = latex_escape(sentence);
    const std::string pct = "95\\%";
    if (const auto at = tex.find("95%"); at != std::string::npos) tex.replace(at, 3, pct);
    const std::string stem = e.out.lexically_normal().filename().string() + "-" + t.name;
    return paper_table(summary, cols, tex, sentence, paper_label(stem, "summary"));
}

}  // namespace rhoflow
