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

namespace {

// What a headline value of a built-in job is: its description, unit and whether it is an integer.
struct ColumnNote {
    const char* description;
    const char* unit;
    bool integer = false;
};

const std::map<std::string, ColumnNote>& common_notes() {
    static const std::map<std::string, ColumnNote> notes = {
        {"mean_abs_rho_final", {"mean over the SGA trials of |rho| at the last step", kUnitless}},
        {"ci95_lo", {"lower end of the 95% confidence interval of that mean (Student t, clipped to [0, 1])", kUnitless}},
        {"ci95_hi", {"upper end of the 95% confidence interval of that mean (Student t, clipped to [0, 1])", kUnitless}},
        {"outcomes", {"trials per basin of the mean-field ODE, 'attractor: count/trials' separated by '; '", kText}},
        {"verdict", {"the job's verdict, in words", kText}},
        {"at_rho", {"alignment rho = <q, xi> at which the field is evaluated", kUnitless}},
        {"attractors", {"number of attractors", kUnitless, true}},
        {"cells", {"number of cells", kUnitless, true}},
    };
    return notes;
}

// The notes of `command`'s own headline keys (experiment/jobs.hpp, headline()).
const std::map<std::string, ColumnNote>& job_notes(const std::string& command) {
    static const std::map<std::string, std::map<std::string, ColumnNote>> notes = {
        {"field",
         {{"j", {"population field j(rho), the objective E||softmax(beta X q)^T X||^2 over the tokens", kUnitless}},
          {"j_err", {"error estimate of j", kUnitless}},
          {"dj", {"derivative j'(rho)", kUnitless}},
          {"dj_err", {"error estimate of j'", kUnitless}},
          {"mass_informative", {"population attention mass on the informative tokens, E[A_I]", kUnitless}},
          {"j_lo", {"lower end of the guaranteed enclosure of j(rho)", kUnitless}},
          {"j_hi", {"upper end of the guaranteed enclosure of j(rho)", kUnitless}},
          {"dj_lo", {"lower end of the guaranteed enclosure of j'(rho)", kUnitless}},
          {"dj_hi", {"upper end of the guaranteed enclosure of j'(rho)", kUnitless}},
          {"mass_lo", {"lower end of the guaranteed enclosure of E[A_I]", kUnitless}},
          {"mass_hi", {"upper end of the guaranteed enclosure of E[A_I]", kUnitless}}}},
        {"ode",
         {{"hit_time", {"ODE time at which |rho| first reaches the hit level (empty: never)", kOdeTime}},
          {"rho_end", {"rho of the mean-field ODE at t-end", kUnitless}},
          {"rho_end_err", {"error estimate of that rho", kUnitless}}}},
        {"phase",
         {{"monotone", {"whether the field F keeps one sign between its equilibria's runs: yes or no", kText}},
          {"equilibria", {"number of equilibria of the mean-field ODE in [-1, 1]", kUnitless, true}},
          {"attractors", {"the stable equilibria rho, separated by spaces", kText}}}},
        {"sga",
         {{"time_avg_abs_rho", {"mean over trials of the time average of |rho| over the last half of the steps",
                                kUnitless}},
          {"time_avg_se", {"standard error of that mean", kUnitless}},
          {"nuisance_mass", {"attention mass on the nuisance tokens, 1 - A_I, at the last step, mean over trials",
                             kUnitless}},
          {"hits", {"trials that reached the hit level", kUnitless, true}}}},
        {"compare",
         {{"abs_rho_ode_final", {"|rho| of the mean-field ODE at the last step's ODE time", kUnitless}},
          {"nuisance_mass_sga", {"attention mass on the nuisance tokens, 1 - A_I, at the last step, mean over trials",
                                 kUnitless}},
          {"nuisance_mass_population", {"population attention mass on the nuisance tokens, 1 - E[A_I], at the "
                                        "ODE's last rho", kUnitless}},
          {"hit_time_ode", {"mean ODE hitting time of the hit level from the trials' starts (empty: none hits)",
                            kOdeTime}},
          {"hit_time_sga", {"mean ODE time at which the SGA trials that hit first reach the hit level (empty: none)",
                            kOdeTime}},
          {"pred_abs_rho_final", {"the effective dynamics' predicted mean |rho| at the last step", kUnitless}},
          {"pred_err", {"standard error of that prediction (chain and moment-table errors)", kUnitless}},
          {"hit_time_pred", {"the effective chain's mean hitting time of the hit level (empty: none)", kOdeTime}},
          {"verdict", {"the SGA against the effective dynamics: consistent or inconsistent", kText}},
          {"max_abs_z", {"largest |z| of the verdict's tests", kUnitless}},
          {"failed_parts", {"the verdict's parts with a rejected test, separated by ','", kText}}}},
        {"stationary",
         {{"mean_abs_rho", {"mean of |rho| under the diffusion approximation (9.5) near +1", kUnitless}},
          {"mean_err", {"error of that mean", kUnitless}},
          {"sd", {"standard deviation of |rho| under (9.5)", kUnitless}},
          {"sd_err", {"error of that standard deviation", kUnitless}},
          {"rho_star", {"effective attractor rho*(eta), root of the effective drift a", kUnitless}},
          {"rho_star_err", {"error of rho*(eta)", kUnitless}},
          {"plain_ode", {"the mean-field ODE's attractor nearest +1", kUnitless}},
          {"chain_mean_abs_rho", {"the resampled chain's mean |rho| at the attractor nearest +1", kUnitless}},
          {"chain_mean_err", {"error of the chain's mean |rho|", kUnitless}},
          {"chain_q999", {"the chain's 99.9% quantile of rho there", kUnitless}},
          {"chain_q999_err", {"error of that quantile", kUnitless}},
          {"chain_tail", {"the chain's probability of the tail beyond its tail level", kUnitless}},
          {"chain_tail_err", {"error of that probability", kUnitless}},
          {"attractors", {"number of effective attractors", kUnitless, true}}}},
        {"check",
         {{"verdict", {"the claim over the box: holds, fails or undecided", kText}},
          {"points", {"points checked", kUnitless, true}},
          {"holds", {"points where the claim holds", kUnitless, true}},
          {"fails", {"points where it fails", kUnitless, true}},
          {"undecided", {"points left undecided", kUnitless, true}},
          {"min_margin", {"smallest signed relative margin over the points", kUnitless}},
          {"witness", {"the model of a point where the claim fails (empty: none)", kText}}}},
        {"prove",
         {{"verdict", {"the proof's verdict over the box", kText}},
          {"param_cells", {"cells of the parameter box", kUnitless, true}},
          {"cells", {"cells decided (parameter and rho cells)", kUnitless, true}},
          {"enclosures", {"guaranteed enclosures computed", kUnitless, true}},
          {"max_dj_width_rel", {"largest width of an enclosure of j' relative to its scale", kUnitless}},
          {"valid", {"whether the certificate verified: true or false", kText}}}},
    };
    static const std::map<std::string, ColumnNote> none;
    const auto it = notes.find(command);
    return it == notes.end() ? none : it->second;
}

// The column of headline value `key` of a `command` job; a job registered without notes gets a
// description that says so.
TableColumn headline_column(const std::string& command, const std::string& key) {
    const auto& own = job_notes(command);
    const auto it = own.find(key);
    const ColumnNote* n = it != own.end() ? &it->second : nullptr;
    if (!n)
        if (const auto c = common_notes().find(key); c != common_notes().end()) n = &c->second;
    if (!n)
        return {key, key, latex_escape(key), "{:.6g}", fmt::format("headline value '{}' of the {} job", key, command),
                "as the job defines it"};
    return {key, key, latex_escape(key), "{:.6g}", n->description, n->unit, n->integer};
}

// The unit of swept setting `key` of type `type`.
std::string setting_unit(const std::string& key, SettingType type) {
    if (type == SettingType::text || type == SettingType::names) return kText;
    if (key == "t-end" || key == "horizon" || key == "study-horizon") return kOdeTime;
    if (key == "steps" || key == "k0" || key == "record" || key == "chain-steps" || key == "chain-burn-in") return kSteps;
    if (key == "eta0" || key == "eta" || key == "study-eta0") return kStepSize;
    return kUnitless;
}

// The column of swept setting `key` of a `command` task, named `name`.
TableColumn swept_column(const std::string& command, const std::string& key, const std::string& name) {
    const Setting* s = find_setting(command, key);
    const std::string help = s ? s->help : "";
    const SettingType type = s ? s->type : SettingType::text;
    return {name, key, latex_escape(key), "{:.6g}", fmt::format("swept setting --{}: {}", key, help),
            setting_unit(key, type), type == SettingType::integer};
}

}  // namespace

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
                table.columns.push_back(swept_column(t.command, k, name));
            }
            for (const auto& [k, v] : rows.front()) table.columns.push_back(headline_column(t.command, k));
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
