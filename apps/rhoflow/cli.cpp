#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <memory>

#include "progress.hpp"
#include "stdout.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/exec/team.hpp"
#include "rhoflow/experiment/atlas.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/memory.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/version.hpp"
#include "text.hpp"

namespace rhoflow::cli {

namespace {

// An invalid command-line input, already naming its flag.
struct FlagError {
    std::string flag, message;
};

// The output flags every job subcommand has.
struct OutputOptions {
    bool json = false;
    std::string output;
    bool output_given = false;
    std::string max_memory;  // --max-memory SIZE ("" = the machine's)
};

const char* kMaxMemoryHelp =
    "refuse (exit 2, naming the flag that sizes it) a job whose estimated memory exceeds SIZE (bytes, or with K, M, G, "
    "T: e.g. 512M, 8G); default: this machine's physical memory or its cgroup's limit";

// What a job subcommand collected from the command line.
struct JobCommand {
    std::string name;
    CLI::App* app = nullptr;
    std::map<std::string, std::string> texts;  // setting key -> value text as given
    std::map<std::string, bool> switches;      // switch key -> given
    OutputOptions out;
    std::string folder;                        // kinds that write a folder: --out
    bool no_figures = false, quiet = false;    // --no-figures (kinds with figures), --quiet (with --out)
    std::string command_line;                  // the whole command line (provenance)
};

struct RunCommand {
    CLI::App* app = nullptr;
    std::string file, out, max_memory;
    bool dry_run = false, no_figures = false;
    std::string command_line;  // the whole command line (provenance)
};

// `rhoflow atlas`: an experiment written from its flags (experiment/atlas.hpp), then run as `run` runs a file.
struct AtlasCommand {
    RunCommand run;   // --out, --dry-run, --no-figures, --max-memory, the command line
    AtlasParams p;    // every other flag, one field each
};

// The subcommands' descriptions are the job table's (experiment/job_table.hpp).
// sga and compare have different defaults for the run (compare's are the embedded default
// experiment's): each help text lists its own and names the other's, from the jobs themselves.
std::string run_defaults(const std::string& command) {
    const Job d = make_job(command);
    std::string s;
    for (const char* key : {"steps", "trials", "eta0", "k0", "gamma", "rho0", "seed"})
        if (const Setting* set = find_setting(command, key))
            s += fmt::format("{}{} {}", s.empty() ? "" : ", ", key, set->get(d));
    return s;
}

std::string description(const JobKind& kind) {
    const std::string command(kind.name);
    std::string d(kind.description);
    if (command == "sga")
        d += "\n  Defaults of sga (shown beside each flag): " + run_defaults("sga") +
             ". compare has other defaults (the embedded default experiment): " + run_defaults("compare") +
             ". The model defaults are the same for both.";
    if (command == "compare")
        d += "\n  Defaults of compare (shown beside each flag; the embedded default experiment): " + run_defaults("compare") +
             ". sga has other defaults: " + run_defaults("sga") + ". The model defaults are the same for both.";
    return d;
}

void add_job_command(CLI::App& app, JobCommand& c, const JobKind& kind) {
    c.app = app.add_subcommand(c.name, description(kind));
    const Job defaults = make_job(c.name);
    for (const Setting& s : settings_for(c.name)) {
        CLI::Option* opt = s.is_switch() ? c.app->add_flag("--" + s.key, c.switches[s.key], s.help)
                                         : c.app->add_option("--" + s.key, c.texts[s.key], s.help);
        opt->group(s.group);
        if (!s.is_switch()) opt->type_name(s.type_name);
        if (!s.is_switch() && !s.required) opt->default_str(s.get(defaults));  // a required flag has no default
        if (s.required && s.unless.empty()) opt->required();  // else job_from_flags checks it
    }
    auto* g = "Output";
    c.app->add_flag("--json", c.out.json, "print one JSON document on stdout instead of a table")->group(g);
    c.app->add_option("--output", c.out.output, "also write the JSON document to this file (atomically)")->group(g);
    c.app->add_option("--max-memory", c.out.max_memory, kMaxMemoryHelp)->type_name("SIZE")->group(g);
    if (!kind.out_help.empty()) {  // the kind writes an output folder (experiment/job_table.hpp)
        c.folder = std::string(kind.default_out);
        auto* out = c.app->add_option("--out", c.folder, std::string(kind.out_help))->group(g);
        if (!c.folder.empty()) out->capture_default_str();
        if (kind.figures)
            c.app->add_flag("--no-figures", c.no_figures, "write figure data and gnuplot scripts but do not run gnuplot")->group(g);
        c.app->add_flag("--quiet", c.quiet, "do not list the files written on stderr")->group(g);
    }
}

void add_run_command(CLI::App& app, RunCommand& r) {
    r.app = app.add_subcommand(
        "run",
        "Runs an experiment file (TOML). Each [[task]] has command = " + job_command_list("|") +
            " and sets that subcommand's flags by name (d = 100, eta0 = 0.5, sigma-per-norm = true, ...); an array "
            "sweeps over its values, and several arrays sweep over all combinations ([[...]] for flags that take a "
            "list), except keys named in together = [\"L\", \"R\"], which step together. [defaults] "
        "sets flags for every task that has them; title and out are optional. Every combination is validated before "
        "anything runs (errors name the key and its line). Each run writes into OUT/<task>/<key=value...>/; each task "
        "gets summary.{csv,md,tex}; OUT/run.json indexes everything. OUT is complete or absent: the run is built in "
        ".OUT.partial, which an interrupted or failed run leaves behind and a rerun of the same file resumes.");
    r.app->add_option("file", r.file, "the experiment file")->required();
    r.app->add_option("--out", r.out, "output folder (default: the file's 'out', else <file stem>-out)");
    r.app->add_flag("--dry-run", r.dry_run, "validate and print the cells as command lines without running them");
    r.app->add_flag("--no-figures", r.no_figures, "write figure data and gnuplot scripts but do not run gnuplot");
    r.app->add_option("--max-memory", r.max_memory, std::string(kMaxMemoryHelp) + " (checked for every cell)")
        ->type_name("SIZE");
}

void add_atlas_command(CLI::App& app, AtlasCommand& a) {
    a.run.app = app.add_subcommand(
        "atlas",
        "Decides a claim of rhoflow prove over a map of models and brackets its threshold on every row, "
        "rigorously: theta boxes covering [--theta-lo, --theta-hi] (every theta in a box, not a grid) against rows "
        "of d, L and R = alpha L (every combination of --d, --L and --alpha). It writes the experiment file of "
        "task 'map' (prove, one certificate per cell) and task 'threshold' (rhoflow threshold per row, to "
        "--threshold-width; 0 leaves it out) and runs it as rhoflow run does: resumable, over MPI ranks with the "
        "same bytes. OUT/map/atlas.{md,tex} and fig_atlas show each cell as holds (proved), fails (disproved, with "
        "its witness) or ? (not proved); OUT/threshold/thresholds.{md,tex} the brackets. --dry-run prints the "
        "experiment file (save it to rerun with rhoflow run, or from Python with rhoflow.run) and its cells. "
        "Each certificate can be re-checked with rhoflow prove --verify (the atlas itself does not re-check them).");
    CLI::App* c = a.run.app;
    AtlasParams& p = a.p;
    const std::string g = "Atlas";
    c->add_option("--claim", p.claim, "monotone | positive-drift | attractors=N | recovery | hitting-time<=T | filtering<=EPS")
        ->type_name("CLAIM")->capture_default_str()->group(g);
    c->add_option("--theta-lo", p.theta_lo, "the map's theta range: lower end, >= 0")->type_name("NUMBER")->capture_default_str()->group(g);
    c->add_option("--theta-hi", p.theta_hi, "its upper end, > theta-lo")->type_name("NUMBER")->capture_default_str()->group(g);
    c->add_option("--theta-cells", p.theta_cells, "boxes of equal width covering it, 1 ... 64")->type_name("INT")->capture_default_str()->group(g);
    c->add_option("--L", p.L, "tokens, a row each (integers >= 3, comma-separated)")->delimiter(',')->type_name("LIST")->capture_default_str()->group(g);
    c->add_option("--alpha", p.alpha, "R / L, a row each with every L (alpha L an integer >= 1)")->delimiter(',')->type_name("LIST")->capture_default_str()->group(g);
    c->add_option("--d", p.d, "dimensions, a row each with every (L, alpha) (integers >= 2)")->delimiter(',')->type_name("LIST")->capture_default_str()->group(g);
    c->add_option("--sigma", p.sigma, "noise per coordinate, > 0")->type_name("NUMBER")->capture_default_str()->group(g);
    c->add_option("--beta", p.beta, "inverse temperature, > 0")->type_name("NUMBER")->capture_default_str()->group(g);
    c->add_option("--threshold-width", p.threshold_width, "bracket theta* to this width on every row (0: no threshold task)")
        ->type_name("NUMBER")->capture_default_str()->group(g);
    const std::string q = "Each proof";
    c->add_option("--max-cells", p.max_cells, "enclosures per cell's proof, 1 ... 1e7")->type_name("INT")->capture_default_str()->group(q);
    c->add_option("--box-depth", p.box_depth, "bisections of a theta box, 0 ... 20")->type_name("INT")->capture_default_str()->group(q);
    c->add_option("--threads", p.threads, "threads over cells (0 = all cores); results do not depend on it")->type_name("INT")->capture_default_str()->group(q);
    c->add_option("--out", a.run.out, "output folder (default: atlas-out)");
    c->add_flag("--dry-run", a.run.dry_run, "print the experiment file and its cells as command lines without running them");
    c->add_flag("--no-figures", a.run.no_figures, "write figure data and gnuplot scripts but do not run gnuplot");
    c->add_option("--max-memory", a.run.max_memory, std::string(kMaxMemoryHelp) + " (checked for every cell)")->type_name("SIZE");
}

// The experiment file an atlas's flags give; errors name the flag.
std::string atlas_text(const AtlasParams& p) {
    try {
        return atlas_experiment(p);
    } catch (const InvalidArgument& e) {
        std::string flag = e.field(), message = e.what();
        std::replace(flag.begin(), flag.end(), '_', '-');
        const nlohmann::json fields = AtlasParams{};
        for (const auto& item : fields.items()) {  // every field, as its flag spells it
            const std::string field = item.key();
            std::string spelled = field;  // theta-hi, not theta_hi
            std::replace(spelled.begin(), spelled.end(), '_', '-');
            for (auto at = message.find(field); at != std::string::npos; at = message.find(field, at + 1))
                message.replace(at, field.size(), spelled);
        }
        throw FlagError{flag, message};
    }
}

// The memory limit the flag sets, or the machine's.
MemoryLimit memory_limit(const CLI::App* app, const std::string& text) {
    if (app->count("--max-memory") == 0) return machine_memory_limit();
    try {
        return {parse_memory_size(text, "max-memory"), "--max-memory"};
    } catch (const InvalidArgument& e) {
        throw FlagError{"max-memory", e.what()};
    }
}

// Whether a job subcommand's output needs the whole result (a document), or only its text.
ResultDetail detail_of(const JobCommand& c) {
    return c.out.json || !c.out.output.empty() || !c.folder.empty() ? ResultDetail::full : ResultDetail::summary;
}

// Applies the given flags to a default job, finishes and validates it; errors name the flag.
Job job_from_flags(const JobCommand& c) {
    Job job = make_job(c.name);
    try {  // flags that need, exclude or stand for another (prove: --claim or --verify)
        check_given(c.name, [&](const std::string& k) { return c.app->count("--" + k) > 0; }, SettingSpelling::flag);
    } catch (const InvalidArgument& e) {
        throw FlagError{e.field(), e.what()};
    }
    for (const Setting& s : settings_for(c.name)) {
        try {
            if (s.is_switch()) {
                if (c.switches.at(s.key)) s.set(job, true);
            } else if (c.app->count("--" + s.key) > 0) {
                s.set_text(job, c.texts.at(s.key));  // the flag's text, converted once to the setting's type
            }
        } catch (const InvalidArgument& e) {
            throw FlagError{s.key, e.what()};
        }
    }
    try {
        finish_settings(job);
        validate(job);
    } catch (const InvalidArgument& e) {
        throw FlagError{key_for_field(c.name, e.field()), e.what()};
    }
    return job;
}

void check_path_flag(const CLI::App* app, const std::string& flag, const std::string& value) {
    if (app->count("--" + flag) > 0 && value.empty())
        throw FlagError{flag, fmt::format("{} = '' is empty (accepted: a file or folder name)", flag)};
}

// Writes the document where the output flags say (a file as the kind indents it, stdout by 2),
// and the text otherwise; a failed write to standard output is an error (checked once the
// document or the text is out).
void emit(const OutputOptions& out, const Job& job, const nlohmann::json& doc, const std::string& text) {
    if (!out.output.empty()) write_file_atomic(out.output, document_text(job, doc));
    if (out.json)
        std::cout << doc.dump(2) << "\n";
    else if (out.output.empty() || !text.empty())
        std::cout << text;
    check_stdout();
}

std::function<void()> job_work(const JobCommand& c, Job job) {
    return [c, job = std::move(job)] {
        const Provenance provenance = make_provenance(c.name, c.command_line);  // dated when the work starts
        ProgressCounter progress;
        std::optional<JobResult> kept;
        {
            // The readable text needs only an ensemble's summary: its trials' records are not kept.
            Progress bar(progress, c.name);
            try {
                kept = run(Execution::team, job, &progress, detail_of(c));
            } catch (const InvalidArgument& e) {  // found while running (prove --verify's certificate): name the flag
                const std::string key = key_for_field(c.name, e.field());
                throw FlagError{key, e.what()};
            }
        }
        if (!kept) return;  // under MPI: rank 0 alone has the result, writes and prints
        const JobResult& result = *kept;
        const nlohmann::json doc = document(job, result, provenance);
        if (!c.folder.empty()) {
            StagedDirectory out(c.folder);  // complete or absent under its final name
            std::vector<std::string> lines;
            try {
                lines = write_outputs(job, result, out.path(), !c.no_figures, provenance,
                                      std::filesystem::path(c.folder).lexically_normal().filename().string());
            } catch (const IoError& e) {  // named as the folder the user asked for, not its temporary
                throw IoError(fmt::format("{} (nothing was written: {} is as it was before this run)",
                                          with_final_name(e.what(), out.path(), c.folder), c.folder));
            }
            out.commit();
            if (!c.quiet) std::cerr << "rhoflow " << c.name << ": wrote into " << c.folder << "/:\n";
            for (const auto& l : lines)
                if (!c.quiet || l.rfind("warning: ", 0) == 0) std::cerr << "  " << l << "\n";
        }
        emit(c.out, job, doc, render_text(job, result));
    };
}

// The work of `run` (an experiment file) or, given its `generated` text, of `atlas`.
std::function<void()> run_work(const RunCommand& r, Outcome& outcome, const std::string* generated = nullptr) {
    check_path_flag(r.app, "out", r.out);
    const MemoryLimit limit = memory_limit(r.app, r.max_memory);
    std::shared_ptr<Experiment> e;
    try {
        e = std::make_shared<Experiment>(generated ? read_experiment_text(*generated, "atlas.toml", r.out)
                                                   : read_experiment(r.file, r.out));
    } catch (const InvalidArgument& err) {
        if (err.field() == "out") throw FlagError{"out", err.what()};  // --out itself refused
        throw;
    }
    outcome.input_digest = e->digest;
    outcome.input_file = generated ? "atlas.toml" : r.file;
    if (!r.no_figures) check_gnuplot_timeout();  // read when the figures are drawn, after the cells
    for (const auto& c : e->cells) {  // every cell must fit, before anything runs
        const ExperimentTask& t = e->tasks[c.task];
        try {
            check_memory(c.job, ResultDetail::full, limit);
        } catch (const InvalidArgument& x) {
            const std::string key = key_for_field(t.command, x.field());
            throw InvalidArgument(key, fmt::format("{}: task '{}', cell {}: key '{}': {}", e->file, t.name, c.dir, key,
                                                   x.what()));
        }
    }
    // The CLI::App is gone when the work runs: its name is taken now.
    return [e, r, text = generated ? *generated : std::string(), command = r.app->get_name()] {
        if (team_root())
            std::cerr << fmt::format("rhoflow {}: {} cells from {} into {}/{}\n", command, e->cells.size(), e->file,
                                     e->out.string(), team_size() > 1 ? fmt::format(" on {} ranks", team_size()) : "");
        if (r.dry_run) {
            if (team_root() && !text.empty()) std::cout << text << "\n# its cells:\n";
            if (team_root())
                for (const auto& c : e->cells) std::cout << cell_command_line(*e, c) << "\n";
            return;
        }
        ProgressCounter progress;
        CellCounter cells;
        cells.total = static_cast<std::int64_t>(e->cells.size());  // until the runner knows those to compute
        ExperimentOptions o;
        o.provenance = make_provenance("run", r.command_line);  // the runner adds the file and its hash
        o.render_figures = !r.no_figures;
        o.progress = &progress;
        o.cells = &cells;
        o.execution = Execution::team;
        ExperimentResult res;
        {
            // On a terminal: cells done, the share of the work and the time left, from the start.
            TimeLeft left;  // used by the drawing thread alone
            Progress shown(
                [&](double elapsed) {
                    return run_progress_line(cells.done, cells.total, steps_fraction(progress),
                                             left.at(elapsed, work_fraction(cells.work_done, cells.work_total)));
                },
                progress_wanted(), [](const std::string& bytes) { std::cerr << bytes << std::flush; });
            o.log = [&shown](const std::string& line) { shown.note(line); };
            res = run_experiment(*e, o);
        }
        if (!team_root()) return;
        // Each task's summary.md: its tables with every number rounded to its error (summary.csv
        // keeps every digit).
        for (const auto& [name, table] : res.summaries) {
            std::size_t task = 0;
            while (task < e->tasks.size() && e->tasks[task].name != name) ++task;
            const std::string md = task < e->tasks.size()
                                       ? to_markdown(summary_paper_tables(*e, task, table, task_table_width(*e, task)))
                                       : to_markdown(table);
            std::cout << "## " << name << "\n\n" << md << "\n";
        }
        const bool sweeps = std::any_of(e->tasks.begin(), e->tasks.end(), [](const ExperimentTask& t) {
            return t.command == "compare";
        });
        std::cerr << fmt::format("rhoflow {1}: summaries in {0}/<task>/summary.{{csv,md,tex}}{2}{3}, index in {0}/run.json\n",
                                 e->out.string(), command,
                                 text.empty() ? "" : ", the atlas in " + e->out.string() + "/map/atlas.{md,tex}",
                                 sweeps ? " (a compare task's hitting and plateau times: <task>/sweep.{md,tex})" : "");
    };
}

}  // namespace

void check_out_flags(const std::string& folder, const std::string& output, const std::string& document) {
    if (holds_working_directory(folder))
        throw InvalidArgument("out", fmt::format("invalid --out: --out '{}' is the working directory or holds it: the "
                                                 "folder is replaced whole, which would remove the folder you are in; "
                                                 "name another folder",
                                                 folder));
    if (!output.empty() && is_within(output, folder))
        throw InvalidArgument("output", fmt::format("invalid --output: --output '{}' is the --out folder '{}' or lies "
                                                    "inside it: --out replaces that folder whole (and its {} holds "
                                                    "the JSON document already); give --output a file outside it",
                                                    output, folder, document));
}

namespace {

Outcome failure(int code, const std::string& message, const std::string& flag = "") {
    Outcome o;
    o.code = code;
    o.message = message;
    o.flag = flag;
    return o;
}

template <class F>
Outcome guarded(F&& f) {
    try {
        f();
        return {};
    } catch (const FlagError& e) {
        return failure(2, fmt::format("invalid --{}: {}", e.flag, e.message), e.flag);
    } catch (const InvalidArgument& e) {  // experiment files: "FILE:LINE: key 'K': ..."
        return failure(2, e.what(), e.field());
    } catch (const NumericalError& e) {
        return failure(3, fmt::format("numerical failure: {}", e.what()));
    } catch (const TeamAborted& e) {  // another rank failed; rank 0 reports it
        return failure(e.kind() == FailureKind::invalid_input ? 2 : e.kind() == FailureKind::numerical ? 3 : 1, e.what());
    } catch (const std::bad_alloc&) {  // never the library's text ("std::bad_alloc")
        return failure(1, "out of memory: the job needed more memory than the machine could give, although its "
                          "estimate fitted; reduce its largest size (--trials, --L, --points, ...) or run fewer jobs at once");
    } catch (const nlohmann::json::exception& e) {  // "[json.exception.type_error.316] ...": say what it was about
        std::string what = e.what();
        if (const auto end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && end != std::string::npos)
            what.erase(0, end + 2);
        return failure(1, "the JSON document could not be written: " + what);
    } catch (const std::exception& e) {
        return failure(1, plain_message(e));  // a library's own wording (std::filesystem, JSON) never reaches the user
    }
}

// Edit distance (insertions, deletions, substitutions) between two short names.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// For each --flag the subcommand does not have: "did you mean --eta0?" naming its closest flag
// (the shortest flag it is a prefix of, else one at most 2 edits away), if there is one.
std::string did_you_mean(CLI::App& app, const std::vector<std::string>& args) {
    if (args.empty()) return "";
    CLI::App* sub = nullptr;
    try {
        sub = app.get_subcommand(args[0]);
    } catch (const CLI::OptionNotFound&) {
        return "";
    }
    std::vector<std::string> names;
    for (const CLI::Option* o : sub->get_options())
        for (const auto& n : o->get_lnames()) names.push_back(n);
    std::string out;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
        const std::string name = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
        if (std::find(names.begin(), names.end(), name) != names.end()) continue;
        std::string best;
        std::size_t best_d = 3;
        for (const auto& n : names) {
            const std::size_t d = n.rfind(name, 0) == 0 ? 0 : edit_distance(name, n);  // a prefix first
            if (d < best_d || (d == best_d && !best.empty() && n.size() < best.size())) {
                best = n;
                best_d = d;
            }
        }
        if (!best.empty()) out += fmt::format("\n--{} is not a flag of {}; did you mean --{}?", name, args[0], best);
    }
    return out;
}

}  // namespace

std::string version_text() {
    return fmt::format("rhoflow {}\ncommit {}{}", version, git_commit(),
                       git_tree_modified() ? " (built with uncommitted changes to tracked files)" : "");
}

const std::vector<std::string>& command_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n = job_commands();
        n.push_back("run");
        n.push_back("atlas");
        return n;
    }();
    return names;
}

namespace {

// A refusal before parsing: an unknown subcommand, or an sga flag given to compare (named,
// rather than CLI11's "not expected"); nothing when there is none.
std::optional<Outcome> refused_early(const std::vector<std::string>& args) {
    if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
        const auto& names = command_names();
        if (std::find(names.begin(), names.end(), args[0]) == names.end()) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            return failure(2, fmt::format("unknown subcommand '{}' (accepted: {})", args[0], list));
        }
    }
    if (!args.empty() && args[0] == "compare")
        for (const auto& a : args)
            for (const char* f : {"first-trial", "record", "records-per-decade"})
                if (a == std::string("--") + f || a.rfind(std::string("--") + f + "=", 0) == 0)
                    return failure(2,
                                   fmt::format("invalid --{0}: compare does not take --{0} (it runs trials 0 ... trials - 1 "
                                               "and chooses its own record steps; --{0} is an sga flag)",
                                               f),
                                   f);
    return std::nullopt;
}

// The application's flags and subcommands: one per job of the job table, then run; each
// records the whole command line (provenance).
void add_commands(CLI::App& app, std::vector<JobCommand>& jobs, RunCommand& runc, AtlasCommand& atlas,
                  const std::vector<std::string>& args) {
    app.require_subcommand(1, 1);
    app.set_version_flag("--version", version_text(), "print the version and the git commit of this build, then exit");
    app.set_help_all_flag("--help-all", "help for every subcommand");
    jobs.resize(job_kinds().size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        jobs[i].name = std::string(job_kinds()[i].name);
        add_job_command(app, jobs[i], job_kinds()[i]);
    }
    add_run_command(app, runc);
    add_atlas_command(app, atlas);
    const std::string command_line = command_line_of(args);
    for (auto& j : jobs) j.command_line = command_line;
    runc.command_line = command_line;
    atlas.run.command_line = command_line;
}

// Parses `args` into `app`: nothing when they parsed, else what prepare returns (help or the
// version printed: success; a parse error: exit 2 with a suggestion).
std::optional<Outcome> parse_failure(CLI::App& app, const std::vector<std::string>& args) {
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        if (team_root()) app.exit(e);  // under MPI: printed once
        return Outcome{};
    } catch (const CLI::CallForAllHelp& e) {
        if (team_root()) app.exit(e);
        return Outcome{};
    } catch (const CLI::CallForVersion& e) {
        if (team_root()) std::cout << e.what() << "\n";
        return Outcome{};
    } catch (const CLI::ParseError& e) {
        return failure(2, std::string(e.what()) + did_you_mean(app, args) +
                              "\nRun 'rhoflow --help' or 'rhoflow SUBCOMMAND --help' for the flags and their ranges.");
    }
    return std::nullopt;
}

// The work of the parsed job subcommand `c`, after what can be checked before it: the output
// paths, figures' settings and the memory estimate (throws naming the flag).
std::function<void()> checked_job_work(const JobCommand& c, const JobKind& kind) {
    check_path_flag(c.app, "output", c.out.output);
    if (!kind.out_help.empty()) check_path_flag(c.app, "out", c.folder);
    Job job = job_from_flags(c);
    if (!c.folder.empty()) check_out_flags(c.folder, c.out.output, document_file(job));
    if (!c.out.output.empty()) check_file_writable(c.out.output);  // fail before the work, not after
    // A file, a foreign folder in the way, or a folder that may not be written: fail before the work.
    if (!c.folder.empty()) StagedDirectory::check(c.folder);
    if (!c.folder.empty() && kind.figures && !c.no_figures) check_gnuplot_timeout();  // read when drawn
    const MemoryLimit limit = memory_limit(c.app, c.out.max_memory);
    try {
        check_memory(job, detail_of(c), limit);  // refused up front, not by bad_alloc late
    } catch (const InvalidArgument& e) {
        throw FlagError{key_for_field(c.name, e.field()), e.what()};
    }
    return job_work(c, std::move(job));
}

}  // namespace

Outcome prepare(const std::vector<std::string>& args, std::function<void()>* work) {
    *work = {};
    if (auto refused = refused_early(args)) return *refused;
    CLI::App app(
        "rhoflow: exact population field, mean-field ODE and stochastic gradient ascent for softmax-\n"
        "attention signal recovery. A query q on the sphere is learned by projected SGA on\n"
        "E||softmax(beta X q)^T X||^2 over L tokens, R of which carry a hidden direction xi with\n"
        "strength theta in N(0, sigma^2 I_d) noise; rho = <q, xi> obeys d rho/dt = (1 - rho^2) j'(rho).\n"
        "Every number comes with its error estimate. Exit codes: 0 ok, 1 other error, 2 invalid\n"
        "input (the message names the flag and its accepted range), 3 numerical failure.",
        "rhoflow");
    std::vector<JobCommand> jobs;
    RunCommand runc;
    AtlasCommand atlas;
    add_commands(app, jobs, runc, atlas, args);
    if (auto stop = parse_failure(app, args)) return *stop;
    Outcome prepared;
    Outcome o = guarded([&] {
        if (runc.app->parsed()) {
            *work = run_work(runc, prepared);
            return;
        }
        if (atlas.run.app->parsed()) {
            const std::string text = atlas_text(atlas.p);
            *work = run_work(atlas.run, prepared, &text);
            return;
        }
        for (std::size_t i = 0; i < jobs.size(); ++i)
            if (jobs[i].app->parsed()) *work = checked_job_work(jobs[i], job_kinds()[i]);
    });
    o.input_digest = prepared.input_digest;
    o.input_file = prepared.input_file;
    return o;
}

Outcome execute(const std::function<void()>& work) { return work ? guarded(work) : Outcome{}; }

namespace {

// A digest of a command line (each argument with its length, so no two lines share one).
std::uint64_t digest_of(const std::vector<std::string>& args) {
    std::uint64_t h = fnv1a_64("");
    for (const auto& a : args) h = fnv1a_64(std::to_string(a.size()) + ":" + a, h);
    return h;
}

}  // namespace

int dispatch(const std::vector<std::string>& args) {
    // Under MPI every rank must do the same work: the same command line (mpirun's ':' can start
    // ranks with different ones) and, once prepared, the same bytes of the experiment file (node-
    // local copies can differ). Collective and before any work: every rank exits 2, rank 0 names
    // the first rank that differs.
    if (const int r = team_first_differing(digest_of(args)); r >= 0) {
        if (team_root())
            std::cerr << fmt::format("rhoflow: error: rank {} was started with a command line that differs from rank "
                                     "0's; every rank must run the same command (mpirun ... : ... with other "
                                     "arguments?)\n", r);
        return 2;
    }
    std::function<void()> work;
    // A standard output closed from the start (>&-) would lose whatever is printed: refused
    // before any work, like an output file that cannot be written.
    Outcome o = stdout_closed() ? failure(1, "standard output is closed (>&-): redirect it to a file, or to /dev/null to "
                                             "discard it")
                                : prepare(args, &work);
    // Under MPI every rank checks the same input (flags, experiment file, output paths) and the
    // ranks agree on the outcome before any collective work: a rank that refused the input alone
    // (a file only some nodes see) must not leave the others waiting. If every rank refused it,
    // rank 0 reports; otherwise each refusing rank reports its own message, naming itself.
    const auto [fewest, most] = team_min_max(o.code);
    const bool prepared = most == 0;
    if (!prepared && o.code == 0) o.code = most;  // refused elsewhere: fail alike, silently (no message)
    if (prepared) {
        if (const int r = team_first_differing(o.input_digest); r >= 0) {
            if (team_root())
                std::cerr << fmt::format("rhoflow: error: rank {} read a file {} whose bytes differ from rank 0's; every "
                                         "rank must read the same input (node-local copies must be identical)\n",
                                         r, o.input_file);
            return 2;
        }
        o = execute(work);
    }
    if (o.code == 0) {
        const std::string e = flush_stdout();  // help texts, dry runs, summaries: every write is checked
        if (!e.empty()) o = failure(1, e);
    }
    if (o.code == 0) return 0;
    auto report = [&](bool name_rank) {
        const std::string who = team_size() > 1 && name_rank ? fmt::format("rank {}: ", team_rank()) : "";
        std::cerr << "rhoflow: " << who << (o.code == 3 ? "" : "error: ") << o.message << "\n";
    };
    if (!prepared) {
        const bool all_refused = fewest != 0;
        if (all_refused ? team_root() : !o.message.empty()) report(!all_refused);
        return o.code;
    }
    // A failure inside shared work reaches rank 0 (which names the rank): rank 0 reports. A
    // failure on one rank alone is reported by that rank, and ends the job, since other ranks may
    // be waiting for it.
    const bool shared = team_failure_shared();
    if (team_root() || !shared) report(!team_root());
    if (!shared && team_size() > 1) MpiSession::abort(o.code);
    return o.code;
}

}  // namespace rhoflow::cli
