// Reading and validating experiment files (experiment/runner.hpp): the TOML document, its
// tasks and settings, the cells they expand to, the output folder.
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/job_table.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>
#include <toml++/toml.h>

#include "rhoflow/core/digest.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/detail/run_folder.hpp"
#include "rhoflow/experiment/detail/toml_text.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/read_back.hpp"

namespace rhoflow {

namespace fs = std::filesystem;

namespace {

using detail::hide_unclassifiable;
using detail::restore;

[[noreturn]] void fail_at(const std::string& file, int line, const std::string& key, const std::string& message) {
    throw InvalidArgument("file", fmt::format("{}:{}: key '{}': {}", file, line, restore(key), restore(message)));
}

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string type_of(const toml::node& n) {
    if (n.is_string()) return "a string";
    if (n.is_boolean()) return "a boolean";
    if (n.is_array()) return "an array";
    if (n.is_table()) return "a table";
    if (n.is_number()) return "a number";
    return "a date or time";
}

// The text the parser read (stand-ins in place) with the offset of each line, so that a value can
// be read as the file spells it.
struct Source {
    std::string_view text;
    std::vector<std::size_t> lines;  // lines[k]: offset of line k + 1

    explicit Source(std::string_view t) : text(t), lines{0} {
        for (std::size_t i = 0; i < t.size(); ++i)
            if (t[i] == '\n') lines.push_back(i + 1);
    }

    // A one-line value as written, '_' digit separators and a leading '+' dropped ("" if it
    // cannot be located). Columns count code points.
    std::string spelling(const toml::node& n) const {
        const auto& r = n.source();
        if (r.begin.line != r.end.line || r.begin.line == 0 || r.begin.line > lines.size() || r.end.column <= r.begin.column)
            return "";
        std::size_t i = lines[r.begin.line - 1];
        auto next = [&] {  // one code point on
            if (i < text.size()) ++i;
            while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
        };
        for (auto c = r.begin.column; c > 1; --c) next();
        const std::size_t from = i;
        for (auto c = r.begin.column; c < r.end.column; ++c) next();
        std::string out;
        for (char ch : text.substr(from, i - from))
            if (ch != '_') out += ch;
        if (!out.empty() && out.front() == '+') out.erase(0, 1);
        return out;
    }
};

// A value as the file gives it: its text (folder names, summaries, dry runs) and its value, of
// the type the setting takes.
struct FileValue {
    std::string text;
    SettingValue value;
};

// An integer setting (integer, seed) given as a TOML float (L = 1e6) must be the integer the
// file spells: the float itself is rounded to 53 bits (9007199254740993.0 reads as ...992), so
// the spelling is parsed as the command line parses the flag's text, and gives the value.
SettingValue spelled_integer(const toml::node& v, const std::string& text, const Setting& s, const Source& src,
                             const std::string& file, int line) {
    const bool seed = s.type == SettingType::seed;
    const std::string spelled = src.spelling(v);
    try {
        if (spelled.empty()) return parse_setting_text(s, text);  // not located: the float's own value
        if (seed) return parse_seed(spelled, s.key);
        return parse_integer(spelled, s.key);
    } catch (const InvalidArgument& e) {
        if (spelled.empty()) fail_at(file, line, s.key, e.what());
        fail_at(file, line, s.key,
                fmt::format("{}{}", e.what(),
                            seed ? "; write a seed as an integer, or past 2^63 as a string of digits "
                                   "(seed = \"18446744073709551615\")"
                                 : ""));
    }
}

// One scalar value for setting `s` (an item, for a list setting), its TOML type checked against
// the setting's. A seed may also be a string of digits (TOML integers stop at 2^63 - 1); a text
// setting given a number takes the number as written on the command line (method = 1 is the
// text "1").
FileValue scalar_value(const toml::node& v, const Setting& s, const std::string& file, int line, const Source& src) {
    const SettingType type = s.type;
    const bool seed = type == SettingType::seed;
    const bool numeric = seed || type == SettingType::number || type == SettingType::integer ||
                         type == SettingType::numbers;
    const bool text = type == SettingType::text || type == SettingType::number_or_text || type == SettingType::names;
    const bool words = type == SettingType::text || type == SettingType::names;  // a number stands for its text
    if (s.is_switch()) {
        if (const auto b = v.as_boolean()) return {b->get() ? "true" : "false", b->get()};
        fail_at(file, line, s.key, fmt::format("this switch takes true or false, not {}", type_of(v)));
    }
    if (const auto i = v.as_integer(); i && (numeric || text)) {
        const std::string t = std::to_string(i->get());
        if (words) return {t, t};
        if (type == SettingType::number || type == SettingType::numbers) return {t, static_cast<double>(i->get())};
        return {t, i->get()};  // integer, seed (which refuses a negative one), number_or_text
    }
    if (const auto f = v.as_floating_point(); f && (numeric || text)) {
        const std::string t = format_number(f->get());
        if (words) return {t, t};
        if (seed || type == SettingType::integer) return {t, spelled_integer(v, t, s, src, file, line)};
        return {t, f->get()};
    }
    if (const auto t = v.as_string(); t && (text || seed)) {
        const std::string r = restore(t->get());
        return {r, r};
    }
    fail_at(file, line, s.key,
            fmt::format("expected {}, got {}", seed ? "a seed (an integer, or a string of digits)"
                                               : numeric ? "a number" : "a string", type_of(v)));
}

// A list setting's value: an array of numbers (or of names), its text the items joined with commas.
FileValue list_value(const toml::array& a, const Setting& s, const std::string& file, int line, const Source& src) {
    if (a.empty()) fail_at(file, line, s.key, "an empty list");
    FileValue out;
    std::vector<double> numbers;
    std::vector<std::string> names;
    for (const auto& e : a) {
        FileValue item = scalar_value(e, s, file, line, src);
        out.text += (numbers.empty() && names.empty() ? "" : ",") + item.text;
        if (s.type == SettingType::names) names.push_back(std::get<std::string>(item.value));
        else numbers.push_back(std::get<double>(item.value));
    }
    if (s.type == SettingType::names) out.value = std::move(names);
    else out.value = std::move(numbers);
    return out;
}

// One value of a setting given alone (not as an array): for a list setting, a list of one
// number, or a names setting's string as a comma-separated list (as on the command line).
FileValue single_value(const toml::node& v, const Setting& s, const std::string& file, int line, const Source& src) {
    FileValue x = scalar_value(v, s, file, line, src);
    if (s.type == SettingType::names) x.value = parse_setting_text(s, x.text);
    if (s.type == SettingType::numbers) x.value = std::vector<double>{std::get<double>(x.value)};
    return x;
}

TaskSetting task_setting(const std::string& command, const std::string& key, const toml::node& node,
                         const std::string& file, const Source& src) {
    const int line = line_of(node);
    const Setting* s = find_setting(command, key);
    if (!s)
        fail_at(file, line, key, fmt::format("'{}' is not a setting of '{}' tasks (see rhoflow {} --help)", key,
                                             command, command));
    TaskSetting t{key, line, {}, {}};
    auto add = [&](FileValue v) {
        t.values.push_back(std::move(v.text));
        t.typed.push_back(std::move(v.value));
    };
    const toml::array* arr = node.as_array();
    if (!arr) {
        add(single_value(node, *s, file, line, src));
    } else if (s->is_list() && !arr->empty() && !(*arr)[0].is_array()) {
        add(list_value(*arr, *s, file, line, src));  // one list value
    } else {
        if (arr->empty()) fail_at(file, line, key, "an empty array sweeps over nothing");
        for (const auto& e : *arr) {
            if (const auto inner = e.as_array()) {
                if (!s->is_list()) fail_at(file, line, key, "nested arrays are only for settings that take a list");
                add(list_value(*inner, *s, file, line, src));
            } else {
                add(single_value(e, *s, file, line, src));
            }
        }
    }
    return t;
}

std::string string_key(const toml::table& t, const char* key, const std::string& file) {
    const toml::node* n = t.get(key);
    if (!n) return "";
    if (const auto s = n->as_string()) return restore(s->get());
    fail_at(file, line_of(*n), key, fmt::format("expected a string, got {}", type_of(*n)));
}

// The longest name of a folder (NAME_MAX of Linux and macOS file systems, in bytes).
constexpr std::size_t kMaxFolderName = 255;

// A name as an error message shows it: its first 60 bytes (whole characters), then "...".
std::string shown(const std::string& name) {
    if (name.size() <= 60) return name;
    std::size_t cut = 60;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    return name.substr(0, cut) + "...";
}

void check_task_name(const std::string& name, const std::string& file, int line) {
    const bool ok = !name.empty() && name != "." && name != ".." && name.front() != '.' &&
                    name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") ==
                        std::string::npos;
    if (!ok)
        fail_at(file, line, "name", fmt::format("task name '{}' must be letters, digits, '_', '-' or '.', not starting "
                                                "with '.' (it names a folder inside the output folder)", shown(name)));
    if (name.size() > kMaxFolderName)
        fail_at(file, line, "name", fmt::format("task name '{}' is {} bytes long: more than {}, the longest folder name",
                                                shown(name), name.size(), kMaxFolderName));
    if (!detail::is_task_name(name))
        fail_at(file, line, "name", fmt::format("task name '{}' is reserved: the output folder holds the run's own {} "
                                                "(in any case)", name, detail::run_file_list()));
}

// The command of a [[task]], checked.
std::string task_command(const toml::table& t, const std::string& file) {
    const std::string command = string_key(t, "command", file);
    if (command.empty())
        fail_at(file, line_of(t), "command", fmt::format("every [[task]] needs command = \"{}\"", job_command_list("|")));
    const auto& cmds = job_commands();
    if (std::find(cmds.begin(), cmds.end(), command) == cmds.end())
        fail_at(file, line_of(*t.get("command")), "command",
                fmt::format("'{}' is not a task command (accepted: {})", command, job_command_list()));
    return command;
}

// A task's `together` key: one group of swept keys (["L", "R"]) or several ([["L", "R"], ["eta0", "k0"]]);
// each key a setting the task sweeps, in one group at most, every key of a group sweeping as many values.
std::vector<std::vector<std::string>> together_groups(const toml::node& node, const std::map<std::string, TaskSetting>& settings,
                                                      const std::string& file) {
    const int line = line_of(node);
    const std::string usage = "together takes the swept keys that step together, [\"L\", \"R\"], or several such "
                              "groups, [[\"L\", \"R\"], [\"eta0\", \"k0\"]]";
    const toml::array* a = node.as_array();
    if (!a || a->empty()) fail_at(file, line, "together", usage);
    std::vector<const toml::array*> groups;
    if ((*a)[0].is_array()) {
        for (const auto& g : *a) groups.push_back(g.as_array());
    } else {
        groups.push_back(a);
    }
    std::vector<std::vector<std::string>> out;
    std::set<std::string> seen;
    for (const toml::array* g : groups) {
        if (!g || g->size() < 2) fail_at(file, line, "together", usage + " (a group names two keys or more)");
        std::vector<std::string> keys;
        for (const auto& k : *g) {
            const auto name = k.as_string();
            if (!name) fail_at(file, line, "together", usage);
            const std::string key = restore(name->get());
            const auto it = settings.find(key);
            if (it == settings.end() || it->second.values.size() < 2)
                fail_at(file, line, "together", fmt::format("'{}' is not a key this task sweeps (an array of values)", key));
            if (!seen.insert(key).second) fail_at(file, line, "together", fmt::format("'{}' is in two groups", key));
            if (it->second.values.size() != settings.at(keys.empty() ? key : keys.front()).values.size())
                fail_at(file, line, "together",
                        fmt::format("'{}' sweeps {} values and '{}' {}: keys that step together sweep as many values",
                                    keys.front(), settings.at(keys.front()).values.size(), key, it->second.values.size()));
            keys.push_back(key);
        }
        out.push_back(std::move(keys));
    }
    return out;
}

ExperimentTask read_task(const toml::table& t, std::size_t i, const toml::table* defaults, const std::string& file,
                         const Source& src) {
    ExperimentTask task;
    task.line = line_of(t);
    task.command = task_command(t, file);
    task.name = string_key(t, "name", file);
    if (task.name.empty() && t.contains("name")) fail_at(file, line_of(*t.get("name")), "name", "must not be empty");
    if (task.name.empty()) task.name = fmt::format("task{}", i + 1);
    check_task_name(task.name, file, t.get("name") ? line_of(*t.get("name")) : task.line);
    std::map<std::string, TaskSetting> settings;
    if (defaults)
        for (const auto& [k, v] : *defaults)
            if (find_setting(task.command, k.str())) settings[std::string(k.str())] = task_setting(task.command, std::string(k.str()), v, file, src);
    for (const auto& [k, v] : t) {
        const std::string key(k.str());
        if (key != "command" && key != "name" && key != "together") settings[key] = task_setting(task.command, key, v, file, src);
    }
    if (const toml::node* g = t.get("together")) task.together = together_groups(*g, settings, file);
    for (auto& [k, s] : settings) task.settings.push_back(std::move(s));
    try {
        check_given(task.command, [&](const std::string& k) { return settings.count(k) > 0; }, SettingSpelling::key);
    } catch (const InvalidArgument& e) {
        fail_at(file, task.line, e.field(), fmt::format("'{}' tasks: {}", task.command, e.what()));
    }
    return task;
}

// What the tasks read so far add up to, against the limits of runner.hpp.
struct Budget {
    std::size_t cells = 0;        // combinations of all tasks
    std::size_t value_bytes = 0;  // bytes of setting values over all cells
};

// Adds a task's cells and value bytes to the budget; refuses the task if a limit is passed.
void count(const ExperimentTask& t, Budget& b, const std::string& file) {
    double combinations = 1;  // exact up to 2^53, far beyond the limit
    for (const std::size_t n : task_axes(t).size) combinations *= static_cast<double>(n);
    if (static_cast<double>(b.cells) + combinations > static_cast<double>(max_experiment_cells))
        fail_at(file, t.line, "task",
                fmt::format("task '{}' sweeps over {} combinations{}: more than the limit of {} cells per experiment "
                            "(sweep fewer values, or split the file)",
                            t.name, format_number(combinations),
                            b.cells ? fmt::format(", after {} cells of the tasks before it", b.cells) : "",
                            max_experiment_cells));
    const auto cells = static_cast<std::size_t>(combinations);
    b.cells += cells;
    for (const auto& s : t.settings) {  // each of a setting's values is in cells / (its count) cells
        std::size_t bytes = 0;
        for (const auto& v : s.values) bytes += v.size();
        b.value_bytes += cells / s.values.size() * bytes;
    }
    if (b.value_bytes > max_experiment_value_bytes)
        fail_at(file, t.line, "task",
                fmt::format("the cells of the tasks up to '{}' hold {} bytes of setting values: more than the limit of "
                            "{} (16 MiB) per experiment (shorter lists, or fewer combinations)",
                            t.name, b.value_bytes, max_experiment_value_bytes));
}

std::vector<ExperimentTask> read_tasks(const toml::table& doc, const std::string& file, const Source& src) {
    const toml::table* defaults = doc["defaults"].as_table();
    if (doc.contains("defaults") && !defaults) fail_at(file, line_of(*doc.get("defaults")), "defaults", "must be a table [defaults]");
    const toml::array* tasks = doc["task"].as_array();
    if (doc.contains("task") && !tasks) fail_at(file, line_of(*doc.get("task")), "task", "must be [[task]] tables");
    if (!tasks || tasks->empty()) throw InvalidArgument("file", fmt::format("{}: no [[task]] to run", file));
    // Commands first, then the defaults they cannot take (a typo): what is left in [defaults] are
    // settings, a few dozen at most, which every task then looks up.
    std::set<std::string> commands;
    for (const auto& t : *tasks) {
        if (!t.is_table()) fail_at(file, line_of(t), "task", "must be a table [[task]]");
        commands.insert(task_command(*t.as_table(), file));
    }
    if (defaults)
        for (const auto& [k, v] : *defaults) {
            bool used = false;
            for (const auto& c : commands) used = used || find_setting(c, k.str());
            if (!used) fail_at(file, line_of(v), std::string(k.str()), "no task has this setting");
        }
    std::vector<ExperimentTask> out;
    std::set<std::string> names;
    Budget budget;
    for (std::size_t i = 0; i < tasks->size(); ++i) {
        out.push_back(read_task(*(*tasks)[i].as_table(), i, defaults, file, src));
        if (!names.insert(out.back().name).second)
            fail_at(file, out.back().line, "name", fmt::format("task name '{}' is used twice", out.back().name));
        count(out.back(), budget, file);
    }
    return out;
}

// A value as a folder-name component: characters outside [A-Za-z0-9.+-] become '_'.
std::string folder_safe(const std::string& v) {
    std::string s = v;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '-') c = '_';
    return s;
}

// The job of one combination: settings applied in order, then validated; errors name the key.
Job build_job(const ExperimentTask& t, const std::vector<std::size_t>& idx, std::size_t number, const std::string& file) {
    Job job = make_job(t.command);
    for (std::size_t i = 0; i < t.settings.size(); ++i) {
        const TaskSetting& s = t.settings[i];
        try {
            find_setting(t.command, s.key)->set(job, s.typed[idx[i]]);
        } catch (const InvalidArgument& e) {
            fail_at(file, s.line, s.key, e.what());
        }
    }
    try {
        finish_settings(job);
        validate(job);
    } catch (const InvalidArgument& e) {
        const std::string key = key_for_field(t.command, e.field());
        int line = t.line;
        for (const auto& s : t.settings)
            if (s.key == key) line = s.line;
        fail_at(file, line, key, fmt::format("{} (task '{}', combination {})", e.what(), t.name, number + 1));
    }
    return job;
}

std::vector<ExperimentCell> expand(const std::vector<ExperimentTask>& tasks, const std::string& file) {
    std::vector<ExperimentCell> cells;
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
        const ExperimentTask& t = tasks[ti];
        const TaskAxes axes = task_axes(t);
        std::vector<std::size_t> at(axes.size.size(), 0), idx(t.settings.size(), 0);
        std::map<std::string, std::size_t> dirs;
        for (std::size_t n = 0;; ++n) {
            for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = at[axes.axis_of[i]];
            ExperimentCell c{ti, n, {}, {}, build_job(t, idx, n, file)};
            std::string stem;
            for (std::size_t i = 0; i < t.settings.size(); ++i)
                if (t.settings[i].values.size() > 1) {
                    c.swept.push_back({t.settings[i].key, t.settings[i].values[idx[i]]});
                    stem += fmt::format("{}{}={}", stem.empty() ? "" : "_", t.settings[i].key,
                                        folder_safe(t.settings[i].values[idx[i]]));
                }
            if (stem.size() > kMaxFolderName)
                fail_at(file, t.line, "task",
                        fmt::format("task '{}': the folder of combination {}, '{}', would be named with {} bytes: more "
                                    "than {}, the longest folder name (sweep fewer keys at once, or shorter values)",
                                    t.name, n + 1, shown(stem), stem.size(), kMaxFolderName));
            c.dir = t.name + "/" + (stem.empty() ? std::string("run") : stem);
            if (const auto [it, fresh] = dirs.emplace(c.dir, n); !fresh)
                fail_at(file, t.line, "task",
                        fmt::format("task '{}': combinations {} and {} would both write {} (a value repeated in a "
                                    "sweep?)", t.name, it->second + 1, n + 1, c.dir));
            cells.push_back(std::move(c));
            std::size_t i = 0;
            for (; i < at.size(); ++i) {
                if (++at[i] < axes.size[i]) break;
                at[i] = 0;
            }
            if (i == at.size()) break;
        }
    }
    return cells;
}

// The whole content of an experiment file (io/read_back.hpp); InvalidArgument naming the file if
// it cannot be read.
std::string read_text(const fs::path& file) {
    try {
        return read_untrusted_file(file, {max_experiment_bytes, "an experiment file"});
    } catch (const IoError& e) {
        throw InvalidArgument("file", e.what());
    }
}

// Whether `s` holds a control character (C0, DEL, or as UTF-8 a C1 control, U+2028 or U+2029),
// which would break the one line of a table's caption that a title goes to.
bool has_control(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        const auto next = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
        if (c < 0x20 || c == 0x7F) return true;
        if (c == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) return true;                      // U+0080 ... U+009F
        if (c == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) return true;  // U+2028, U+2029
    }
    return false;
}

// The output folder as a run uses it: trailing separators, "." and ".." resolved lexically
// ("./o/." and "o/" are "o"; a last component "." or ".." gives the absolute folder it names).
// `refuse` is called (and throws) for the root, and for the working directory or a folder that
// holds it: a run replaces its folder whole.
fs::path run_folder_path(const fs::path& given, const std::function<void(const std::string&)>& refuse) {
    auto strip = [](fs::path& p) {
        while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
    };
    if (given.native().find('\0') != std::string::npos) refuse("holds a NUL character (no file name can)");
    fs::path p = given.lexically_normal();
    strip(p);
    if (p.filename() == "." || p.filename() == "..") {
        std::error_code ec;
        const fs::path a = fs::absolute(p, ec);
        if (ec) refuse(fmt::format("'{}' names the working directory or one above it, which cannot be resolved ({})",
                                   given.string(), ec.message()));
        p = a.lexically_normal();
        strip(p);
    }
    if (!p.has_relative_path() || p.filename().empty())
        refuse(fmt::format("'{}' names a root directory; a run needs a folder of its own (such as \"study-out\")",
                           given.string()));
    if (holds_working_directory(p))
        refuse(fmt::format("'{}' is the working directory or holds it: a run replaces its output folder whole, which "
                           "would remove the folder you are in; name a new folder (such as \"study-out\")",
                           given.string()));
    return p;
}

}  // namespace

TaskAxes task_axes(const ExperimentTask& t) {
    TaskAxes a;
    std::map<std::string, std::size_t> group_axis;  // a together group's first key -> its axis
    for (const auto& s : t.settings) {
        const auto partners = partners_of(t, s.key);
        std::string first = s.key;
        for (const auto& k : partners) first = std::min(first, k);
        if (const auto it = group_axis.find(first); !partners.empty() && it != group_axis.end()) {
            a.axis_of.push_back(it->second);
            continue;
        }
        if (!partners.empty()) group_axis[first] = a.size.size();
        a.axis_of.push_back(a.size.size());
        a.size.push_back(s.values.size());
    }
    return a;
}

std::vector<std::string> partners_of(const ExperimentTask& t, const std::string& key) {
    for (const auto& g : t.together)
        if (std::find(g.begin(), g.end(), key) != g.end()) {
            std::vector<std::string> out;
            for (const auto& k : g)
                if (k != key) out.push_back(k);
            return out;
        }
    return {};
}

Experiment read_experiment_text(std::string_view text, const std::string& name, const fs::path& out) {
    Experiment e;
    e.file = name;
    if (text.size() > max_experiment_bytes)
        throw InvalidArgument("file", fmt::format("{}: {} bytes, more than the limit of {} (4 MiB) for an experiment file",
                                                  name, text.size(), max_experiment_bytes));
    e.digest = fnv1a_64(text);
    e.sha256 = sha256_hex(text);
    const std::string hidden = hide_unclassifiable(text, e.file);
    toml::table doc;
    try {
        doc = toml::parse(hidden, e.file);
    } catch (const toml::parse_error& err) {
        const std::string what = restore(err.description());
        const bool too_big = what.find("not representable in 64 bits") != std::string::npos;
        throw InvalidArgument("file", fmt::format("{}:{}:{}: {}{}", e.file, err.source().begin.line,
                                                  err.source().begin.column, what,
                                                  too_big ? " (TOML integers end at 2^63 - 1; a seed beyond is written "
                                                            "as a string of digits: seed = \"18446744073709551615\")"
                                                          : ""));
    }
    for (const auto& [k, v] : doc) {
        const std::string key(k.str());
        if (key != "title" && key != "out" && key != "defaults" && key != "task")
            fail_at(e.file, line_of(v), key, "unknown top-level key (accepted: title, out, [defaults], [[task]])");
    }
    e.title = string_key(doc, "title", e.file);
    if (has_control(e.title))
        fail_at(e.file, line_of(*doc.get("title")), "title",
                "a title must not hold control characters (newline, tab, ...): it is the one-line caption of every "
                "summary table");
    const std::string file_out = string_key(doc, "out", e.file);
    if (doc.contains("out") && file_out.empty()) fail_at(e.file, line_of(*doc.get("out")), "out", "must not be empty");
    if (!out.empty())
        e.out = run_folder_path(out, [&](const std::string& m) { throw InvalidArgument("out", "output folder " + m); });
    else if (!file_out.empty())
        e.out = run_folder_path(file_out, [&](const std::string& m) { fail_at(e.file, line_of(*doc.get("out")), "out", m); });
    else
        e.out = run_folder_path(fs::path(name).stem().string() + "-out",
                                [&](const std::string& m) { throw InvalidArgument("file", e.file + ": output folder " + m); });
    const Source src(hidden);
    e.tasks = read_tasks(doc, e.file, src);
    e.cells = expand(e.tasks, e.file);
    return e;
}

Experiment read_experiment(const fs::path& file, const fs::path& out) {
    return read_experiment_text(read_text(file), file.string(), out);
}

std::string cell_command_line(const Experiment& e, const ExperimentCell& c) {
    const ExperimentTask& t = e.tasks.at(c.task);
    std::vector<std::string> args = {t.command};
    for (const auto& s : t.settings) {
        std::string value = s.values.front();
        for (const auto& [k, v] : c.swept)
            if (k == s.key) value = v;
        if (!find_setting(t.command, s.key)->is_switch()) {
            args.push_back("--" + s.key);
            args.push_back(value);
        } else if (value == "true") {
            args.push_back("--" + s.key);
        }
    }
    return command_line_of(args);
}

}  // namespace rhoflow
