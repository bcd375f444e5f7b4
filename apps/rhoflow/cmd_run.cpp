// rhoflow run FILE.toml: experiment files. Each [[task]] names a subcommand and sets its flags by
// their names (without dashes); an array value sweeps over its elements (for flags that take a
// list, like rho, an array of arrays sweeps over lists). [defaults] applies to every task. Every
// combination is parsed and validated before anything runs, and errors name the key and line.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "common.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/io/report.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunOptions {
    std::string file;
    std::string out;
    bool dry_run = false;
};

// One flag setting of a task: a key, its source line, and the values it sweeps over (one
// value: no sweep). Each value is the list of command-line words for it.
struct Setting {
    std::string key;
    int line = 0;
    std::vector<std::vector<std::string>> values;
};

struct Task {
    std::string name, command;
    int line = 0;
    std::vector<Setting> settings;
};

struct Combination {
    std::size_t task;   // index into the task list
    std::size_t index;  // combination number within its task
    std::vector<std::pair<std::string, std::string>> swept;  // key, value label
    std::vector<std::string> args;
    fs::path dir;
};

[[noreturn]] void fail_at(const std::string& file, int line, const std::string& key, const std::string& message) {
    throw InvalidArgument("file", fmt::format("{}:{}: key '{}': {}", file, line, key, message));
}

std::string scalar_word(const toml::node& n, const std::string& file, const std::string& key) {
    const int line = static_cast<int>(n.source().begin.line);
    if (auto v = n.as_integer()) return std::to_string(v->get());
    if (auto v = n.as_floating_point()) return fmt::format("{}", v->get());
    if (auto v = n.as_string()) return v->get();
    if (auto v = n.as_boolean()) return v->get() ? "true" : "false";
    fail_at(file, line, key, "expected a number, a string or a boolean");
}

// The command's flags: whether each exists and whether it takes a list or is a switch.
struct FlagInfo {
    bool exists = false, list = false, is_flag = false;
};
FlagInfo flag_info(const std::string& command, const std::string& key) {
    std::vector<Command> cmds;
    CLI::App app;
    for (auto add : {add_field_command, add_ode_command, add_phase_command, add_sga_command, add_compare_command,
                     add_check_command}) {
        Command c = add(app);
        if (c.app->get_name() != command) continue;
        const CLI::Option* opt = c.app->get_option_no_throw("--" + key);
        if (!opt) return {};
        return {true, opt->get_items_expected_max() > 1, opt->get_items_expected_max() == 0};
    }
    return {};
}

Setting make_setting(const std::string& command, const std::string& key, const toml::node& node,
                     const std::string& file) {
    const int line = static_cast<int>(node.source().begin.line);
    const FlagInfo info = flag_info(command, key);
    if (!info.exists)
        fail_at(file, line, key, fmt::format("'{}' is not a flag of 'rhoflow {}' (see rhoflow {} --help)", key, command,
                                             command));
    Setting s{key, line, {}};
    auto words_of = [&](const toml::node& v) -> std::vector<std::string> {
        if (info.is_flag) {
            const auto b = v.as_boolean();
            if (!b) fail_at(file, line, key, "this switch takes true or false");
            return b->get() ? std::vector<std::string>{"--" + key} : std::vector<std::string>{};
        }
        if (const auto arr = v.as_array()) {
            if (!info.list) fail_at(file, line, key, "nested arrays are only for flags that take a list");
            std::string joined;
            for (const auto& e : *arr) joined += (joined.empty() ? "" : ",") + scalar_word(e, file, key);
            return {"--" + key, joined};
        }
        return {"--" + key, scalar_word(v, file, key)};
    };
    if (const auto arr = node.as_array()) {
        const bool list_value = info.list && !arr->empty() && !(*arr)[0].is_array();
        if (list_value) {
            s.values.push_back(words_of(node));
        } else {
            if (arr->empty()) fail_at(file, line, key, "an empty array sweeps over nothing");
            for (const auto& e : *arr) s.values.push_back(words_of(e));
        }
    } else {
        s.values.push_back(words_of(node));
    }
    return s;
}

std::string label_of(const std::vector<std::string>& words) {
    if (words.empty()) return "false";
    return words.size() == 1 ? "true" : words[1];
}

std::vector<Task> read_tasks(const std::string& file, std::string* title, std::string* out) {
    toml::table doc;
    try {
        doc = toml::parse_file(file);
    } catch (const toml::parse_error& e) {
        throw InvalidArgument("file", fmt::format("{}:{}:{}: {}", file, e.source().begin.line, e.source().begin.column,
                                                  e.description()));
    }
    for (const auto& [k, v] : doc) {
        const std::string key(k.str());
        if (key != "title" && key != "out" && key != "defaults" && key != "task")
            fail_at(file, static_cast<int>(v.source().begin.line), key,
                    "unknown top-level key (accepted: title, out, [defaults], [[task]])");
    }
    if (auto t = doc["title"].value<std::string>()) *title = *t;
    if (auto o = doc["out"].value<std::string>()) *out = *o;
    const toml::table* defaults = doc["defaults"].as_table();
    if (doc.contains("defaults") && !defaults) fail_at(file, 1, "defaults", "must be a table [defaults]");
    const toml::array* tasks = doc["task"].as_array();
    if (!tasks || tasks->empty()) throw InvalidArgument("file", fmt::format("{}: no [[task]] to run", file));
    std::vector<Task> out_tasks;
    std::map<std::string, int> names;
    for (std::size_t i = 0; i < tasks->size(); ++i) {
        const toml::table* t = (*tasks)[i].as_table();
        if (!t) fail_at(file, static_cast<int>((*tasks)[i].source().begin.line), "task", "must be a table [[task]]");
        Task task;
        task.line = static_cast<int>(t->source().begin.line);
        const auto cmd = (*t)["command"].value<std::string>();
        if (!cmd) fail_at(file, task.line, "command", "every [[task]] needs command = \"field|ode|phase|sga|compare|check\"");
        task.command = *cmd;
        const auto& cmds = command_names();
        if (task.command == "run" || std::find(cmds.begin(), cmds.end(), task.command) == cmds.end())
            fail_at(file, static_cast<int>((*t)["command"].node()->source().begin.line), "command",
                    fmt::format("'{}' is not a subcommand (accepted: field, ode, phase, sga, compare, check)", task.command));
        task.name = (*t)["name"].value<std::string>().value_or(fmt::format("task{}", i + 1));
        if (names[task.name]++) fail_at(file, task.line, "name", fmt::format("task name '{}' is used twice", task.name));
        std::map<std::string, Setting> settings;
        if (defaults)
            for (const auto& [k, v] : *defaults) {
                const std::string key(k.str());
                if (flag_info(task.command, key).exists) settings[key] = make_setting(task.command, key, v, file);
            }
        for (const auto& [k, v] : *t) {
            const std::string key(k.str());
            if (key == "command" || key == "name") continue;
            settings[key] = make_setting(task.command, key, v, file);
        }
        for (auto& [k, s] : settings) task.settings.push_back(std::move(s));
        out_tasks.push_back(std::move(task));
    }
    if (defaults)  // a default no task can take is a typo
        for (const auto& [k, v] : *defaults) {
            const std::string key(k.str());
            bool used = false;
            for (const auto& t : out_tasks) used = used || flag_info(t.command, key).exists;
            if (!used) fail_at(file, static_cast<int>(v.source().begin.line), key, "no task has this flag");
        }
    return out_tasks;
}

std::vector<Combination> expand(const std::vector<Task>& tasks, const fs::path& out) {
    std::vector<Combination> all;
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
        const Task& t = tasks[ti];
        std::vector<std::size_t> idx(t.settings.size(), 0);
        std::size_t n = 0;
        for (;;) {
            Combination c{ti, n, {}, {t.command}, {}};
            std::string stem;
            for (std::size_t i = 0; i < t.settings.size(); ++i) {
                const auto& s = t.settings[i];
                const auto& words = s.values[idx[i]];
                c.args.insert(c.args.end(), words.begin(), words.end());
                if (s.values.size() > 1) {
                    c.swept.push_back({s.key, label_of(words)});
                    stem += fmt::format("{}{}={}", stem.empty() ? "" : "_", s.key, label_of(words));
                }
            }
            c.dir = out / t.name / (stem.empty() ? std::string("run") : stem);
            if (t.command == "compare") {
                c.args.insert(c.args.end(), {"--out", c.dir.string(), "--quiet"});
            } else if (t.command == "check") {  // certificate.json is the result; figures beside it
                c.args.insert(c.args.end(), {"--out", c.dir.string()});
            } else {
                c.args.insert(c.args.end(), {"--json", "--output", (c.dir / "result.json").string()});
            }
            all.push_back(std::move(c));
            ++n;
            std::size_t i = 0;
            for (; i < idx.size(); ++i) {
                if (++idx[i] < t.settings[i].values.size()) break;
                idx[i] = 0;
            }
            if (i == idx.size()) break;
        }
    }
    return all;
}

// The headline numbers of one finished combination, by command: one row (field: one per point).
using Headline = std::vector<std::pair<std::string, TableCell>>;
std::vector<Headline> headline(const std::string& command, const json& d) {
    auto num = [](const json& v) -> TableCell { return v.is_number() ? TableCell(v.get<double>()) : TableCell(); };
    if (command == "compare") {
        const auto& s = d["summary"];
        return {{{"mean_abs_rho_final", num(s["mean_abs_rho_final"])},
                 {"ci95_lo", num(s["ci95"][0])},
                 {"ci95_hi", num(s["ci95"][1])},
                 {"abs_rho_ode_final", std::abs(s["rho_ode_final"].get<double>())},
                 {"nuisance_mass_sga", num(s["nuisance_mass"])},
                 {"nuisance_mass_population", num(d["table"].back()["nuisance_mass_population"])},
                 {"hit_time_ode", d["hitting_time"]["ode"].is_null() ? TableCell() : num(d["hitting_time"]["ode"]["mean"])},
                 {"hit_time_sga", d["hitting_time"]["sga"].is_null() ? TableCell() : num(d["hitting_time"]["sga"]["mean"])}}};
    }
    if (command == "sga") {
        const auto& s = d["summary"];
        return {{{"mean_abs_rho_final", num(s["mean_abs_rho_final"])}, {"ci95_lo", num(s["ci95"][0])},
                 {"ci95_hi", num(s["ci95"][1])},                       {"nuisance_mass", num(s["nuisance_mass_mean"])},
                 {"hits", num(s["hits"])}}};
    }
    if (command == "check")
        return {{{"verdict", d["verdict"].get<std::string>()}, {"points", num(d["counts"]["total"])},
                 {"holds", num(d["counts"]["holds"])},         {"fails", num(d["counts"]["fails"])},
                 {"undecided", num(d["counts"]["undecided"])}, {"min_margin", num(d["min_margin"])},
                 {"seconds", num(d["diagnostics"]["seconds"])}}};
    if (command == "ode")
        return {{{"hit_time", num(d["hit_time"])}, {"rho_end", num(d["rho"].back())}, {"rho_end_err", num(d["rho_err"].back())}}};
    if (command == "phase") {
        std::string attractors;
        for (const auto& e : d["equilibria"])
            if (e["stable"].get<bool>()) attractors += fmt::format("{}{:.6g}", attractors.empty() ? "" : " ", e["rho"].get<double>());
        return {{{"monotone", std::string(d["monotone"].get<bool>() ? "yes" : "no")},
                 {"equilibria", static_cast<double>(d["equilibria"].size())},
                 {"attractors", attractors}}};
    }
    std::vector<Headline> rows;  // field
    for (const auto& p : d["points"])
        rows.push_back({{"at_rho", num(p["rho"])}, {"j", num(p["j"])}, {"j_err", num(p["j_err"])}, {"dj", num(p["dj"])},
                        {"dj_err", num(p["dj_err"])}, {"mass_informative", num(p["mass_informative"])}});
    return rows;
}

std::function<void()> prepare_run(const RunOptions& o) {
    std::string title, out_name;
    const std::vector<Task> tasks = read_tasks(o.file, &title, &out_name);
    const fs::path out = !o.out.empty() ? fs::path(o.out)
                         : !out_name.empty() ? fs::path(out_name)
                                             : fs::path(fs::path(o.file).stem().string() + "-out");
    std::vector<Combination> combos = expand(tasks, out);
    // Validate every combination before running any.
    std::vector<std::function<void()>> work(combos.size());
    for (std::size_t i = 0; i < combos.size(); ++i) {
        const Outcome r = prepare(combos[i].args, &work[i]);
        if (r.code != 0) {
            const Task& t = tasks[combos[i].task];
            int line = t.line;
            for (const auto& s : t.settings)
                if (s.key == r.param) line = s.line;
            const std::string key = r.param.empty() ? "task '" + t.name + "'" : "key '" + r.param + "'";
            throw InvalidArgument("file", fmt::format("{}:{}: {} (task '{}', combination {}): {}", o.file, line, key,
                                                      t.name, combos[i].index + 1, r.message));
        }
    }
    return [o, tasks, combos, work, out, title] {
        std::cerr << fmt::format("rhoflow run: {} combinations from {} into {}/\n", combos.size(), o.file, out.string());
        if (o.dry_run) {
            for (const auto& c : combos) {
                std::string cmd = "rhoflow";
                for (const auto& a : c.args) cmd += " " + a;
                std::cout << cmd << "\n";
            }
            return;
        }
        json index = provenance();
        index["command"] = "run";
        index["file"] = o.file;
        index["title"] = title;
        index["runs"] = json::array();
        std::map<std::string, Table> summaries;
        for (std::size_t i = 0; i < combos.size(); ++i) {
            const auto& c = combos[i];
            const Task& task = tasks[c.task];
            std::cerr << fmt::format("[{}/{}] {} {}\n", i + 1, combos.size(), task.name, c.dir.filename().string());
            std::ostringstream sink;  // the subcommand's stdout goes to its files, not the terminal
            auto* old = std::cout.rdbuf(sink.rdbuf());
            const Outcome r = execute(work[i]);
            std::cout.rdbuf(old);
            if (r.code != 0)
                throw NumericalError(fmt::format("task '{}' combination {} failed: {}", task.name, c.index + 1, r.message));
            const fs::path result = task.command == "compare" ? c.dir / "compare.json"
                                    : task.command == "check" ? c.dir / "certificate.json"
                                                              : c.dir / "result.json";
            std::ifstream in(result);
            const json d = json::parse(in);
            Table& t = summaries[task.name];
            const auto rows = headline(task.command, d);
            if (t.columns.empty()) {
                t.caption = fmt::format("{}: task '{}' ({} runs)", title.empty() ? o.file : title, task.name,
                                        std::count_if(combos.begin(), combos.end(),
                                                      [&](const Combination& x) { return x.task == c.task; }));
                std::string fixed;
                for (const auto& s : task.settings)
                    if (s.values.size() == 1) fixed += fmt::format("{}{}={}", fixed.empty() ? "" : ", ", s.key, label_of(s.values[0]));
                t.meta = {fmt::format("rhoflow {} {}", d["version"].get<std::string>(), task.command),
                          fixed.empty() ? "defaults" : fixed, "per-run files: " + (out / task.name).string()};
                t.label = "tab:rhoflow-" + task.name;
                for (const auto& [k, v] : c.swept) t.columns.push_back({k, k, latex_escape(k), "{:.6g}"});
                for (const auto& [k, v] : rows.front()) t.columns.push_back({k, k, latex_escape(k), "{:.6g}"});
            }
            for (const auto& cells : rows) {
                std::vector<TableCell> row;
                for (const auto& [k, v] : c.swept) {
                    char* end = nullptr;
                    const double x = std::strtod(v.c_str(), &end);
                    row.push_back(end && *end == 0 && !v.empty() ? TableCell(x) : TableCell(v));
                }
                for (const auto& [k, v] : cells) row.push_back(v);
                t.rows.push_back(row);
            }
            json entry = {{"task", task.name}, {"dir", c.dir.string()}, {"args", c.args}, {"swept", json::object()}};
            for (const auto& [k, v] : c.swept) entry["swept"][k] = v;
            index["runs"].push_back(entry);
        }
        for (const auto& [name, t] : summaries) {
            write_file_atomic(out / name / "summary.csv", to_csv(t));
            write_file_atomic(out / name / "summary.md", to_markdown(t));
            write_file_atomic(out / name / "summary.tex", to_latex(t));
            std::cout << "## " << name << "\n\n" << to_markdown(t) << "\n";
        }
        write_file_atomic(out / "run.json", index.dump(2) + "\n");
        std::cerr << fmt::format("rhoflow run: summaries in {}/<task>/summary.{{csv,md,tex}}, index in {}/run.json\n",
                                 out.string(), out.string());
    };
}

}  // namespace

Command add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand(
        "run",
        "Runs an experiment file (TOML). Each [[task]] has command = field|ode|phase|sga|compare|check and sets "
        "that subcommand's flags by name (d = 100, eta0 = 0.5, sigma-per-norm = true, ...); an array "
        "sweeps over its values, and several arrays sweep over all combinations ([[...]] for flags that "
        "take a list). [defaults] sets flags for every task that has them; title and out are optional. "
        "Every combination is validated before anything runs (errors name the key and its line). Each "
        "run writes into OUT/<task>/<key=value...>/; each task gets summary.{csv,md,tex}.");
    sub->add_option("file", o->file, "the experiment file")->required();
    sub->add_option("--out", o->out, "output directory (default: the file's 'out', else <file stem>-out)");
    sub->add_flag("--dry-run", o->dry_run, "validate and print the command lines without running them");
    return {sub, [o] { return prepare_run(*o); }};
}

}  // namespace rhoflow::cli
