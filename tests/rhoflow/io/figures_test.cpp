// Figures for papers: sizes, tics and labels, and the files a comparison's and a sweep's figures
// consist of: every fig_*.gp regenerates its images alone (run in a copy of the folder holding
// only the data and the script), and the cairolatex variants and captions of two outputs compile
// with pdflatex in one minimal document (graphicx, color, amsmath; booktabs for sweep.tex)
// without a label clash. The sweep summary has one point per cell with the cell's own numbers.
#include <doctest/doctest.h>

#include <cstdlib>
#include <charconv>
#include <regex>
#include <iterator>
#include <sstream>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/experiment/sweep.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/io_test_util.hpp"
#include "rhoflow/io/plot.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

namespace {

// The provenance every output records (io/json.hpp), as a test run's.
Provenance test_provenance() { return make_provenance("compare", "rhoflow compare --test"); }

bool have_program(const char* name) {
    return std::system(fmt::format("command -v {} >/dev/null 2>&1", name).c_str()) == 0;
}

// Runs `command` in `dir` (test paths only: no user data in them); true on exit status 0.
bool run_in(const fs::path& dir, const std::string& command) {
    return std::system(fmt::format("cd '{}' && {} >/dev/null 2>&1 </dev/null", dir.string(), command).c_str()) == 0;
}

// pdflatex on a document that \inputs `pictures` (cairolatex .tex) and `captions` from `dirs`.
bool compiles(const fs::path& at, const std::vector<std::pair<fs::path, std::string>>& figures,
              const std::string& preamble = "") {
    std::string body;
    std::string paths;
    for (const auto& [dir, name] : figures) {
        paths += "{" + fs::absolute(dir).string() + "/}";
        body += "\\begin{figure}\\centering\\input{" + (fs::absolute(dir) / (name + "-latex.tex")).string() + "}\n\\input{" +
                (fs::absolute(dir) / (name + ".caption.tex")).string() + "}\\end{figure}\n\\clearpage\n";
    }
    write_text(at / "doc.tex", "\\documentclass{article}\n\\usepackage{graphicx}\n\\usepackage{color}\n"
                               "\\usepackage{amsmath}\n" + preamble + "\\graphicspath{" + paths + "}\n\\begin{document}\n" +
                                   body + "\\end{document}\n");
    const bool ok = run_in(at, "pdflatex -interaction=nonstopmode -halt-on-error doc.tex");
    if (!ok) MESSAGE(read_text(at / "doc.log"));
    const std::string log = read_text(at / "doc.log");
    CHECK(log.find("multiply defined") == std::string::npos);
    return ok && fs::file_size(at / "doc.pdf") > 1000;
}

// Copies the data files and NAME.gp of `dir` into `to`, runs gnuplot NAME.gp there, and checks
// it made NAME.png, NAME.pdf and the cairolatex pair alone.
void regenerates_alone(const fs::path& dir, const std::string& name, const fs::path& to) {
    CAPTURE(name);
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (f.size() > 4 && f.substr(f.size() - 4) == ".dat") fs::copy_file(e.path(), to / f, fs::copy_options::overwrite_existing);
    }
    fs::copy_file(dir / (name + ".gp"), to / (name + ".gp"), fs::copy_options::overwrite_existing);
    REQUIRE(run_in(to, "gnuplot " + name + ".gp"));
    for (const std::string ext : {".png", ".pdf", ".svg", "-latex.tex", "-latex.pdf"}) {
        CAPTURE(ext);
        CHECK(fs::exists(to / (name + ext)));
        if (fs::exists(to / (name + ext))) CHECK(fs::file_size(to / (name + ext)) > 200);
    }
}

}  // namespace

// How often `what` occurs in `s`.
std::size_t count_of(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
    return n;
}

TEST_CASE("figures: sizes are column, page or WxH inches, anything else names figure.size's field") {
    FigureParams p;
    CHECK(figure_geometry(p).width == 3.4);
    CHECK(figure_geometry(p, 1.0).height == doctest::Approx(3.4));
    p.size = "page";
    CHECK(figure_geometry(p).width == 7.0);
    CHECK(figure_geometry(p).font_pt == 9);
    p.size = "5x3.5";
    CHECK(figure_geometry(p, 2.0).width == 5.0);
    CHECK(figure_geometry(p, 2.0).height == 3.5);  // explicit sizes win over the aspect
    for (const char* bad : {"", "columns", "0x3", "30x2", "5x", "x3", "5x3.5in", "-5x3", "5 x 3"}) {
        CAPTURE(bad);
        p.size = bad;
        CHECK(test::invalid_param([&] { p.validate(); }) == "size");
    }
}

TEST_CASE("figures: tics, numbers and labels for LaTeX and enhanced text") {
    CHECK(tex_number(1.5e-7) == "1.5 \\times 10^{-7}");
    CHECK(tex_number(1e4) == "10^{4}");
    CHECK(tex_number(0.25) == "0.25");
    // A narrow log range still gets several labelled tics (one decade would show one).
    const std::string narrow = axis_tics('y', 0.45, 0.67, true, false);
    CAPTURE(narrow);
    const auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
    CHECK(count(narrow) >= 2);
    CHECK(narrow.find("'0.5' 0.5") != std::string::npos);
    const std::string wide = axis_tics('x', 1e-9, 1, true, true);
    CHECK(wide.find("$10^{-6}$") != std::string::npos);
    const std::regex label("'([^']*)' [-+.0-9e]+");  // a tic: 'label' position
    int labels = 0;
    for (auto it = std::sregex_iterator(wide.begin(), wide.end(), label); it != std::sregex_iterator(); ++it, ++labels)
        CHECK((*it)[1].str().find('e') == std::string::npos);  // no C exponent in a label
    CHECK(labels >= 4);
    CHECK(axis_tics('y', -2e-5, 4e-5, false, false).find("2·10^{-5}") != std::string::npos);
    CHECK(axis_tics('y', -2e-5, 4e-5, false, false).find("'−2·10^{-5}'") != std::string::npos);  // a real minus
    // A log axis of a decade ends on labelled 1-2-5 tics (fig_study's lowest point sat below its
    // lowest label): [0.027, 0.26] is labelled from 0.02 to 0.5.
    const std::string decade = axis_tics('y', 0.027, 0.26, true, false);
    CAPTURE(decade);
    CHECK(decade.find("'0.02' ") != std::string::npos);
    CHECK(decade.find("'0.5' ") != std::string::npos);
    // Up to four and a half decades 1 and 3 per decade (the trajectory's 1 - rho had three labels).
    const std::string three = axis_tics('y', 0.003, 1, true, false);
    CAPTURE(three);
    for (const char* tic : {"'0.003' ", "'0.01' ", "'0.03' ", "'0.1' ", "'0.3' ", "'1' "})
        CHECK(three.find(tic) != std::string::npos);
    // One value (a run of one step): a log range around it, with tics, never a point gnuplot refuses.
    for (const std::string& one : {axis_tics('x', 0.01, 0.01, true, false), axis_tics('x', 2, 2, false, false)}) {
        CAPTURE(one);
        const std::size_t open = one.find('['), colon = one.find(':'), close = one.find(']');
        double a = 0, b = 0;
        std::from_chars(one.data() + open + 1, one.data() + colon, a);
        std::from_chars(one.data() + colon + 1, one.data() + close, b);
        CHECK(a > 0);
        CHECK(a < b);
        CHECK(count(one) >= 1);
    }
    CHECK(output_stem(".my out.tmp.123.host.4") == "my out");
    CHECK(output_stem("a/b/cell") == "cell");
    CHECK(figure_label("recovery/L=1000_theta=1", "final") == "fig:recovery-L-1000-theta-1-final");
    CHECK(FigureText{true}("ρ's", "$\\rho$'s") == "'$\\rho$''s'");
}

TEST_CASE("figures: a comparison's figures regenerate alone and their LaTeX variants compile, two outputs in one document") {
    if (!gnuplot_available()) {
        MESSAGE("gnuplot not installed: figures not checked");
        return;
    }
    CompareParams p = small_compare();
    p.effective.enabled = false;
    const CompareResult r = run_compare(p);
    TempDir t("figures_compare");
    const fs::path a = t / "run-a", b = t / "run-b";
    write_compare(r, a, true, test_provenance());
    write_compare(r, b, true, test_provenance(), FigureParams{"page"});
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(a)) {
        const std::string f = e.path().filename().string();
        if (f.rfind("fig_", 0) == 0 && f.size() > 3 && f.substr(f.size() - 3) == ".gp") names.push_back(f.substr(0, f.size() - 3));
    }
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"fig_field", "fig_gap", "fig_seed", "fig_study", "fig_trajectory"});
    // fig_seed, the seed paper's figure: per row the step k whose ODE time t_k is the row's t, the
    // ODE's |rho| and |rho| of every trial.
    std::istringstream seed(read_text(a / "fig_seed.dat"));
    std::string row;
    std::getline(seed, row);
    std::size_t rows = 0;
    while (std::getline(seed, row)) {
        std::istringstream in(row);
        std::int64_t k = 0;
        double tk = 0, x = 0;
        in >> k >> tk;
        CHECK(r.params.sga.schedule.time_at(k) == doctest::Approx(tk).epsilon(1e-9));
        std::size_t columns = 0;
        for (; in >> x; ++columns) CHECK((x >= 0 && x <= 1));
        CHECK(columns == 1 + static_cast<std::size_t>(r.params.sga.trials));
        ++rows;
    }
    CHECK(rows == r.trajectory.size());
    for (const auto& n : names) {
        CAPTURE(n);
        for (const std::string ext : {".png", ".pdf", ".svg", "-latex.tex", "-latex.pdf", ".caption.tex"})
            CHECK(fs::exists(a / (n + ext)));
        const std::string tex = read_text(a / (n + "-latex.tex"));
        CHECK(tex.find("{" + n + "-latex}") != std::string::npos);  // the graphics under its final name
        CHECK(tex.find(".tmp.") == std::string::npos);
        const std::string gp = read_text(a / (n + ".gp"));
        CHECK(gp.find("set title") == std::string::npos);  // captions, not parameter dumps
        CHECK(gp.find("size 3.400in") != std::string::npos);
        CHECK(read_text(b / (n + ".gp")).find("size 7.000in") != std::string::npos);
        regenerates_alone(a, n, t / ("alone_" + n));
    }
    CHECK(read_text(a / "fig_trajectory.gp").find("1 − ρ") != std::string::npos);  // the log panel of the gap
    CHECK(read_text(a / "fig_trajectory.caption.tex").find("\\label{fig:run-a-trajectory}") != std::string::npos);
    CHECK(temporaries(a).empty());
    // The same figure gives the same bytes (cairo's creation date is fixed): reruns are identical.
    write_compare(r, t / "again", true, test_provenance());
    for (const auto& n : names) {
        CAPTURE(n);
        CHECK(read_text(t / "again" / (n + ".pdf")) == read_text(a / (n + ".pdf")));
        CHECK(read_text(t / "again" / (n + "-latex.pdf")) == read_text(a / (n + "-latex.pdf")));
    }
    if (!have_program("pdflatex")) {
        MESSAGE("pdflatex not installed: the cairolatex variants not compiled");
        return;
    }
    std::vector<std::pair<fs::path, std::string>> all;
    for (const auto& n : names) all.push_back({a, n}), all.push_back({b, n});
    CHECK(compiles(t.path, all));
}

TEST_CASE("figures: a sweep's summary has one point per cell with the cell's own numbers, and compiles") {
    const std::string toml = R"(
out = "sweep-out"
[[task]]
name = "grid"
command = "compare"
d = 8
R = 4
L = [20, 40]
theta = [0.5, 1.0]
field = "meanfield"
trials = 3
steps = 600
eta0 = 0.05
k0 = 200
threads = 1
horizon = 1
anchors = 4
rows = 4
no-study = true
no-effective = true
)";
    TempDir t("figures_sweep");
    const Experiment e = read_experiment_text(toml, "sweep.toml", t / "sweep-out");
    std::vector<JobResult> results;
    for (const auto& c : e.cells) results.push_back(run(c.job));
    const SweepSummary s = sweep_summary(e, 0, results);
    std::map<std::string, std::string> files(s.files.begin(), s.files.end());
    REQUIRE(files.count("sweep_L.dat") == 1);
    REQUIRE(files.count("sweep_theta.dat") == 1);
    CHECK(files.count("sweep_eta_final.dat") == 0);  // no step-size sweep
    // sweep_L.dat: one block per theta, one row per L, the cell's own mean and CI.
    std::size_t rows = 0;
    std::istringstream in(files["sweep_L.dat"]);
    std::string line;
    int block = 0;
    bool blank = false;
    while (std::getline(in, line)) {
        if (line.empty()) {
            if (!blank) ++block;
            blank = true;
            continue;
        }
        blank = false;
        if (line[0] == '#') continue;
        double L = 0, mean = 0, lo = 0, hi = 0;
        std::istringstream row(line);
        row >> L >> mean >> lo >> hi;
        const double theta = block == 0 ? 0.5 : 1.0;
        bool found = false;
        for (std::size_t i = 0; i < e.cells.size(); ++i) {
            const auto& m = std::get<CompareJob>(e.cells[i].job).compare.model;
            if (static_cast<double>(m.L) != L || m.theta != theta) continue;
            const auto& f = std::get<CompareResult>(results[i]).summary.abs_rho_final;
            CHECK(mean == doctest::Approx(f.mean).epsilon(1e-9));
            CHECK(lo == doctest::Approx(f.lo).epsilon(1e-9));
            CHECK(hi == doctest::Approx(f.hi).epsilon(1e-9));
            found = true;
        }
        CHECK(found);
        ++rows;
    }
    CHECK(rows == 4);
    CHECK(block == 1);  // two blocks (theta = 0.5, 1)
    std::vector<std::string> names;
    for (const auto& f : s.figures) names.push_back(f.name);
    CHECK(names == std::vector<std::string>{"fig_final_L", "fig_hit_L", "fig_final_theta", "fig_hit_theta"});
    // The hitting figures' captions explain themselves as the tables do (issue 33), and a cell
    // where no trial hit has its mark at the run's end (column 15 of the data; '?' where one hit).
    for (const auto& f : s.figures) {
        if (f.name.rfind("fig_hit_", 0) != 0) continue;
        CAPTURE(f.name);
        CHECK(f.caption.find("first reaches the level $1 - \\varepsilon = 0.99$") != std::string::npos);
        CHECK(f.caption.find("the runs end at $t") != std::string::npos);
        CHECK(f.caption.find("filled triangle at the run's end marks a cell where no trial hit") != std::string::npos);
        CHECK(f.caption.find("measures the finite-step bias as much as the speed of recovery") != std::string::npos);
    }
    {
        std::istringstream d(files["sweep_L.dat"]);
        std::size_t marks = 0;
        while (std::getline(d, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream row(line);
            std::vector<std::string> col((std::istream_iterator<std::string>(row)), std::istream_iterator<std::string>());
            REQUIRE(col.size() == 17);
            const double L = std::stod(col[0]);
            for (std::size_t i = 0; i < e.cells.size(); ++i) {
                const auto& m = std::get<CompareJob>(e.cells[i].job).compare.model;
                if (static_cast<double>(m.L) != L || m.theta != (marks < 2 ? 0.5 : 1.0)) continue;
                const auto& r = std::get<CompareResult>(results[i]);
                if (r.hitting_time.sga) CHECK(col[14] == "?");
                else CHECK(std::stod(col[14]) == doctest::Approx(r.t_final).epsilon(1e-9));
                if (r.hitting_time.sga_plateau) CHECK(std::stod(col[15]) == doctest::Approx(*r.hitting_time.sga_plateau).epsilon(1e-9));
            }
            ++marks;
        }
        CHECK(marks == 4);
    }
    const std::string md = files["sweep.md"];
    // two tables (final alignment, hitting times): sentence, blank, header, rule, 4 rows; a blank
    // line between them
    CHECK(std::count(md.begin(), md.end(), '\n') == 2 * (2 + 2 + 4) + 1);
    CHECK(files["sweep.tex"].find("e-0") == std::string::npos);
    CHECK(count_of(files["sweep.tex"], "\\begin{table}") == 2);  // each fits one column
    // The captions say the level, the run's end, what a missing hitting time means and what an
    // SGA hitting time measures; every error is a 95% half-width.
    for (const char* f : {"sweep.md", "sweep.tex"}) {
        CAPTURE(f);
        CHECK(files[f].find("first reaches the level") != std::string::npos);
        CHECK(files[f].find("the runs end at") != std::string::npos);
        CHECK(files[f].find("no trial (or path) reached the level by the run's end") != std::string::npos);
        CHECK(files[f].find("measures the finite-step bias as much as the speed of recovery") != std::string::npos);
        CHECK(files[f].find("is a 95") != std::string::npos);
    }
    if (!gnuplot_available() || !have_program("pdflatex")) {
        MESSAGE("gnuplot or pdflatex not installed: the sweep figures not compiled");
        return;
    }
    const fs::path dir = t / "summary";
    fs::create_directories(dir);
    for (const auto& [n, c] : s.files) write_text(dir / n, c);
    render_figures(dir, s.figures, true, {}, "grid");
    std::vector<std::pair<fs::path, std::string>> all;
    for (const auto& n : names) all.push_back({dir, n});
    write_text(dir / "tables.tex", "\\input{" + (fs::absolute(dir) / "sweep.tex").string() + "}\n");
    CHECK(compiles(dir, all, "\\usepackage{booktabs}\n\\AtEndDocument{\\input{" + (fs::absolute(dir) / "sweep.tex").string() + "}}\n"));
}

TEST_CASE("figures: a sweep over a decade of L draws it on a log axis") {
    // The paper study sweeps L over 1000 ... 10500 (a factor 10.5): on a linear axis its points
    // crowd at the left. Over a factor 12.5 here; over a factor 2 (the case above) it stays linear.
    const std::string toml = R"(
title = "log axis"
[[task]]
name = "wide"
command = "compare"
d = 8
R = 4
L = [20, 250]
field = "meanfield"
trials = 2
steps = 300
eta0 = 0.05
k0 = 200
threads = 1
horizon = 1
anchors = 4
rows = 4
no-study = true
no-effective = true
)";
    TempDir t("figures_log_axis");
    const Experiment e = read_experiment_text(toml, "log.toml", t / "out");
    std::vector<JobResult> results;
    for (const auto& c : e.cells) results.push_back(run(c.job));
    const SweepSummary s = sweep_summary(e, 0, results);
    REQUIRE_FALSE(s.figures.empty());
    CHECK(s.figures.front().name == "fig_final_L");
    CHECK(s.figures.front().body.find("set logscale x") != std::string::npos);
    CHECK(s.figures.front().latex_body.find("set logscale x") != std::string::npos);
}

TEST_CASE("figures: a 2-D check map labels both edges of the box, regenerates alone and compiles") {
    if (!gnuplot_available()) {
        MESSAGE("gnuplot not installed: figures not checked");
        return;
    }
    CheckJob job;
    job.check.claim = parse_claim("attractors=1", "claim");
    job.check.box.d = ParamRange{50, 50};
    job.check.box.R = ParamRange{25, 25};
    job.check.box.L = ParamRange{50, 1000};
    job.check.box.theta = ParamRange{0.5, 3};
    job.check.grid = 3;
    job.check.refine = 0;
    job.check.certify.field = FieldMethod::meanfield;
    Job j = job;
    finish_settings(j);
    validate(j);
    const JobResult r = run(j);
    TempDir t("figures_check");
    const fs::path dir = t / "map";
    fs::create_directories(dir);
    write_outputs(j, r, dir, true, test_provenance());
    const std::string gp = read_text(dir / "check_map.gp");
    CAPTURE(gp);
    CHECK(gp.find("'50' 50") != std::string::npos);      // L's edges
    CHECK(gp.find("'1000' 1000") != std::string::npos);
    CHECK(gp.find("'0.5' 0.5") != std::string::npos);    // theta's edges
    CHECK(gp.find("'3' 3") != std::string::npos);
    CHECK(gp.find("set title") == std::string::npos);
    for (const std::string n : {"check_map", "check_attractors"}) regenerates_alone(dir, n, t / ("alone_" + n));
    if (!have_program("pdflatex")) return;
    CHECK(compiles(dir, {{dir, "check_map"}, {dir, "check_attractors"}}));
}
