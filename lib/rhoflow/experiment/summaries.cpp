// The summaries of an experiment's tasks (experiment/runner.hpp): summary_table() for
// summary.csv, summary_paper_table() for a paper's summary.tex and summary.md.
#include "rhoflow/experiment/runner.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "rhoflow/core/number_text.hpp"
#include "rhoflow/experiment/detail/strings.hpp"
#include "rhoflow/io/uncertain.hpp"
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
         {{"abs_rho_ode_final", {"mean over the trials' starts of |rho| of the mean-field ODE at the last step's ODE time", kUnitless}},
          {"nuisance_mass_sga", {"attention mass on the nuisance tokens, 1 - A_I, at the last step, mean over trials",
                                 kUnitless}},
          {"nuisance_mass_population", {"population attention mass on the nuisance tokens, 1 - E[A_I], at the "
                                        "ODE's last rho", kUnitless}},
          {"hit_time_ode", {"mean ODE hitting time of the hit level from the trials' starts (empty: none hits)",
                            kOdeTime}},
          {"hit_time_sga", {"mean ODE time at which the SGA trials that hit first reach the hit level (empty: none)",
                            kOdeTime}},
          {"plateau_time_sga", {"first recorded ODE time at which the SGA mean |rho| has risen 90% of the way from its "
                                "start to its final value: when the ensemble reaches its plateau (empty: never)",
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
        {"threshold",
         {{"bracket width", {"hi - lo", kUnitless}},
          {"bracketed", {"the end where the claim is proved, the other disproved: proved at lo, proved at hi, or no", kText}},
          {"point proofs", {"single-model proofs the bisection made", kUnitless, true}}}},
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
        {"plateau_time_sga", {"SGA plateau time", "SGA plateau time"}},
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

TableWidth task_table_width(const Experiment& e, std::size_t task) {
    for (const auto& c : e.cells)
        if (c.task == task)
            return std::visit(
                [](const auto& j) {
                    if constexpr (requires { j.tables; }) return table_width(j.tables);
                    else return TableWidth{};
                },
                c.job);
    return {};
}

namespace {

// The errors that are standard errors (or one-sigma errors): a paper table prints 1.96 of them,
// a 95% half-width, as every other table does. Other *_err columns are numerical error estimates.
bool standard_error(const std::string& key) {
    static const char* const keys[] = {"pred_err", "time_avg_se", "mean_err", "sd_err", "rho_star_err",
                                       "chain_mean_err", "chain_q999_err", "chain_tail_err"};
    return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; });
}

// Which table of a summary a headline column goes to: 0 alignment, 1 hitting times, 2 the rest.
int part_of(const std::string& key) {
    static const char* const alignment[] = {"mean_abs_rho_final", "pred_abs_rho_final", "abs_rho_ode_final",
                                            "time_avg_abs_rho", "mean_abs_rho", "sd", "rho_star", "plain_ode",
                                            "chain_mean_abs_rho", "chain_q999", "chain_tail", "rho_end"};
    for (std::size_t i = 0; i < std::size(alignment); ++i)
        if (key == alignment[i]) return 0;
    return key.rfind("hit_time", 0) == 0 || key == "plateau_time_sga" ? 1 : 2;
}

// The rank of a column within its part (alignment: SGA, prediction, ODE; then file order).
int rank_of(const std::string& key) {
    static const char* const order[] = {"mean_abs_rho_final", "hit_time_sga", "pred_abs_rho_final", "hit_time_pred",
                                        "abs_rho_ode_final", "hit_time_ode", "plateau_time_sga"};
    for (std::size_t i = 0; i < std::size(order); ++i)
        if (key == order[i]) return static_cast<int>(i);
    return 100;
}

// A short LaTeX header for a paper table (the caption gives the long name); "" for human_header's.
std::string short_header(const std::string& k) {
    static const std::map<std::string, std::string> known = {
        {"mean_abs_rho_final", "SGA"}, {"pred_abs_rho_final", "pred."}, {"abs_rho_ode_final", "ODE"},
        {"hit_time_sga", "SGA"},       {"hit_time_pred", "pred."},      {"hit_time_ode", "ODE"},
        {"plateau_time_sga", "plateau"},
        {"max_abs_z", "$\\max |z|$"},  {"failed_parts", "failed"},      {"outcomes", "basins"},
        {"param_cells", "boxes"},      {"enclosures", "encl."},         {"max_dj_width_rel", "$w_{j'}$"},
        {"time_avg_abs_rho", "avg."},  {"mean_abs_rho", "$\\mathrm{E}\\,|\\rho|$"}, {"plain_ode", "ODE"},
        {"chain_mean_abs_rho", "chain"}, {"chain_q999", "$q_{0.999}$"}, {"chain_tail", "tail"},
        {"attractors", "attr."},       {"min_margin", "margin"},        {"undecided", "undec."}};
    const auto it = known.find(k);
    return it == known.end() ? "" : it->second;
}

// The model settings a caption states in symbols; the rest stay in the comments and summary.csv.
std::string fixed_sentence(const ExperimentTask& t) {
    static const std::map<std::string, std::string> symbols = {
        {"d", "d"}, {"L", "L"}, {"R", "R"}, {"theta", "\\theta"}, {"sigma", "\\sigma"}, {"beta", "\\beta"},
        {"eta0", "\\eta_0"}, {"k0", "k_0"}, {"eta", "\\eta"}, {"trials", "\\mathrm{trials}"},
        {"steps", "\\mathrm{steps}"}};
    std::string s;
    for (const auto& x : t.settings) {
        const auto it = symbols.find(x.key);
        const auto v = x.values.size() == 1 ? parse_number(x.values[0]) : std::nullopt;
        if (it == symbols.end() || !v) continue;
        const std::string n = format_exact(*v, 6, UncertainStyle::latex);
        s += fmt::format("{}${} = {}$", s.empty() ? "" : ", ", it->second, n.substr(1, n.size() - 2));
    }
    return s;
}

// What headline column `key` of a `command` job is, in words (its note), for a caption.
std::string description_of(const std::string& command, const std::string& key) {
    if (command == "threshold" && (ends_with(key, " lo") || ends_with(key, " hi")))  // "theta lo": the axis's
        return ends_with(key, " lo") ? "the bracket's lower end" : "the bracket's upper end";  // "bracketed" says which holds
    const auto& own = job_notes(command);
    if (const auto it = own.find(key); it != own.end()) return it->second.description;
    if (const auto c = common_notes().find(key); c != common_notes().end()) return c->second.description;
    return "as the job defines it";
}

// A note's plain words as caption LaTeX: |rho|, rho, |z| and 1 - A_I in math (a bare '|' is a
// dash in a text font).
// Whether s[i, i + n) is a whole word (no letter before or after it).
bool word_at(const std::string& s, std::size_t i, std::size_t n) {
    const auto letter = [&](std::size_t k) { return k < s.size() && std::isalpha(static_cast<unsigned char>(s[k])); };
    return !(i > 0 && letter(i - 1)) && !letter(i + n);
}

std::string caption_math(const std::string& s) {
    static const std::pair<std::string, std::string> words[] = {
        {"|rho|", "$|\\rho|$"}, {"|z|", "$|z|$"}, {"1 - A\\_I", "$1 - A_I$"}, {"E[A\\_I]", "$\\mathrm{E}[A_I]$"},
        {"rho", "$\\rho$"}, {"|", "$|$"}};
    std::string out;
    for (std::size_t i = 0; i < s.size();) {  // left to right: a replacement is never read again
        bool done = false;
        for (const auto& [from, to] : words)
            if (s.compare(i, from.size(), from) == 0 && (!std::isalpha(static_cast<unsigned char>(from[0])) ||
                                                         word_at(s, i, from.size()))) {
                out += to, i += from.size(), done = true;
                break;
            }
        if (!done) out += s[i++];
    }
    return out;
}

// One caption: what the table shows, of which runs, and what each column is.
std::string part_caption(const Experiment& e, const ExperimentTask& t, std::size_t runs, int part,
                         const std::vector<PaperColumn>& cols, bool any_error) {
    const bool final_step = t.command == "compare" || t.command == "sga";  // else a law or a field, not a run's end
    const char* const what[] = {final_step ? "Final alignment" : "Alignment", "Hitting times",
                                "Further results"};
    std::string ranged;
    for (const auto& x : t.settings)
        if (x.values.size() > 1) ranged += fmt::format("{}{}", ranged.empty() ? "" : ", ", human_header(x.key).second);
    const std::string title = e.title.empty() ? fs::path(e.file).filename().string() : e.title;
    const std::string fixed = fixed_sentence(t);
    std::string columns;
    for (const auto& c : cols) {
        if (std::find_if(t.settings.begin(), t.settings.end(), [&](const TaskSetting& x) { return x.key == c.key; }) !=
            t.settings.end())
            continue;  // a swept setting: its symbol says it
        std::string d = caption_math(latex_escape(description_of(t.command, c.key)));
        if (!c.error.empty() || !c.lo.empty()) d += ", $\\pm$ its 95\\% confidence half-width";
        if (c.key == "abs_rho_ode_final" || c.key == "plain_ode") d += " (exact: no error)";
        columns += fmt::format("{}{}: {}", columns.empty() ? "" : "; ", c.latex, d);
    }
    return fmt::format("{}: {} in the {} run{} of task \\texttt{{{}}} (rhoflow {}{}{}){}{}. Columns: {}.{}",
                       latex_escape(title), what[part], runs, runs == 1 ? "" : "s", latex_escape(t.name), t.command,
                       ranged.empty() ? "" : " over ", ranged, fixed.empty() ? "" : "; ", fixed, columns,
                       any_error ? " Every $\\pm$ is a 95\\% confidence half-width (1.96 standard errors)." : "");
}

// The tables of a summary: each part's columns after the swept keys, as many per table as fit `width`.
std::vector<PaperTable> summary_parts(const Experiment& e, std::size_t task, const Table& source,
                                      const std::vector<PaperColumn>& keys,
                                      const std::vector<std::vector<PaperColumn>>& parts, const TableWidth& width,
                                      std::size_t runs) {
    const ExperimentTask& t = e.tasks[task];
    const std::string stem = e.out.lexically_normal().filename().string() + "-" + t.name;
    std::vector<PaperTable> out;
    auto add = [&](int part, const std::vector<PaperColumn>& cols) {
        const bool any_error = std::any_of(cols.begin(), cols.end(),
                                           [](const PaperColumn& c) { return !c.error.empty() || !c.lo.empty(); });
        const std::string tex = part_caption(e, t, runs, part, cols, any_error);
        const std::string what = out.empty() ? "summary" : fmt::format("summary-{}", out.size() + 1);
        PaperTable p = paper_table(source, cols, tex, latex_to_markdown(tex), paper_label(stem, what));
        p.page = width.page || !fits(p, width);
        out.push_back(std::move(p));
    };
    // A column that prints the same exact value in every run (an ODE ending at 1.0000) is said
    // once, in the first table's caption.
    std::string constant;
    for (std::size_t part = 0; part < parts.size(); ++part) {
        std::vector<PaperColumn> cols = keys;
        const ConstantSplit split = constant_columns(source, parts[part]);
        for (const auto& [c, v] : split.constant)
            constant += fmt::format(" {} ({}) is {} in every run{}.", c.latex,
                                    caption_math(latex_escape(description_of(t.command, c.key))), v,
                                    c.key == "abs_rho_ode_final" || c.key == "plain_ode" ? " (exact)" : "");
        for (const auto& c : split.kept) {
            std::vector<PaperColumn> more = cols;
            more.push_back(c);
            if (cols.size() > keys.size() && !fits(paper_table(source, more, "", "", ""), width)) {
                add(static_cast<int>(part), cols);
                more = keys;
                more.push_back(c);
            }
            cols = std::move(more);
        }
        if (cols.size() > keys.size()) add(static_cast<int>(part), cols);
    }
    if (out.empty()) add(2, keys);  // a task without headline numbers: its cells alone
    if (!constant.empty()) {
        out.front().caption_latex += constant;
        out.front().caption_markdown = latex_to_markdown(out.front().caption_latex);
    }
    return out;
}

}  // namespace

std::vector<PaperTable> summary_paper_tables(const Experiment& e, std::size_t task, const Table& summary,
                                             const TableWidth& width) {
    const ExperimentTask& t = e.tasks[task];
    std::size_t swept = 0, runs = 0;
    for (const auto& c : e.cells)
        if (c.task == task) swept = c.swept.size(), ++runs;
    Table source = summary;  // standard errors as 95% half-widths
    for (std::size_t i = 0; i < source.columns.size(); ++i)
        if (standard_error(source.columns[i].key))
            for (auto& row : source.rows)
                if (auto* x = std::get_if<double>(&row[i])) *x *= 1.959963984540054;
    const auto& all = source.columns;
    auto index_of = [&](const std::string& key) -> std::ptrdiff_t {
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].key == key) return static_cast<std::ptrdiff_t>(i);
        return -1;
    };
    std::vector<bool> is_error(all.size(), false);
    std::vector<PaperColumn> value_cols(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto [md, tex] = human_header(all[i].key);
        const std::string brief = short_header(all[i].key);
        value_cols[i] = {all[i].key, md,          brief.empty() ? tex : brief, all[i].key, "", "", "",
                         i < swept ? 6 : 4, -1, i >= swept};
        if (all[i].key == "max_abs_z") value_cols[i].decimals = 2;
        // A threshold's bracket: its ends to the digit that tells them apart (bisection's ends are
        // short binary fractions, 1.0703125), not to 4 digits, which printed 1.077 | 1.077.
        if (t.command == "threshold" && (ends_with(all[i].key, " lo") || ends_with(all[i].key, " hi") || all[i].key == "bracket width"))
            value_cols[i].digits = 10, value_cols[i].statistic = false;
        if (all[i].key == "abs_rho_ode_final" || all[i].key == "plain_ode") value_cols[i].decimals = 4;  // exact: 1.0000
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
    // Hitting times of a compare sweep are sweep.tex's, with their confidence intervals.
    const bool times_in_sweep = t.command == "compare" && swept > 0;
    std::vector<PaperColumn> keys(value_cols.begin(), value_cols.begin() + static_cast<std::ptrdiff_t>(swept));
    std::vector<std::vector<PaperColumn>> parts(3);
    for (std::size_t i = swept; i < all.size(); ++i)
        if (!is_error[i] && !(times_in_sweep && part_of(all[i].key) == 1))
            parts[static_cast<std::size_t>(part_of(all[i].key))].push_back(value_cols[i]);
    for (auto& p : parts)
        std::stable_sort(p.begin(), p.end(),
                         [](const PaperColumn& a, const PaperColumn& b) { return rank_of(a.key) < rank_of(b.key); });
    return summary_parts(e, task, source, keys, parts, width, runs);
}
}  // namespace rhoflow
