// The experiment runner at library level: complete runs, resumption (byte-identical reruns,
// recomputing only what changed), a failed cell (named in the error, recorded in the manifest,
// the final folder absent, resumed by a corrected rerun), refused task names and sweeps, and
// output folders that are not rhoflow run folders.
#include "rhoflow/experiment/runner.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"

using namespace rhoflow;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
}

// Every regular file under `dir` (relative path -> content), except the run's own records.
std::map<std::string, std::string> outputs(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        const std::string rel = fs::relative(e.path(), dir).string();
        if (rel == "run.json" || rel == "manifest.json") continue;
        files[rel] = slurp(e.path());
    }
    return files;
}

struct Logged {
    ExperimentResult result;
    std::vector<std::string> log;
};

Logged run_file(const fs::path& file, const fs::path& out) {
    Logged l;
    ExperimentOptions o;
    o.render_figures = false;
    o.log = [&](const std::string& s) { l.log.push_back(s); };
    // One date for every run: reruns are compared byte for byte (the date is when a run started).
    o.provenance = make_provenance("run", "rhoflow run e.toml");
    o.provenance.date = "2026-12-01T00:00:00Z";
    l.result = run_experiment(read_experiment(file, out), o);
    return l;
}

int count_containing(const std::vector<std::string>& log, const std::string& text) {
    int n = 0;
    for (const auto& l : log) n += l.find(text) != std::string::npos;
    return n;
}

// The message of the InvalidArgument read_experiment throws for `text` ("" if none).
std::string file_error(const fs::path& dir, const std::string& text) {
    const fs::path f = write(dir, "bad.toml", text);
    try {
        read_experiment(f, dir / "never");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "file");
        return e.what();
    }
    return "";
}

const std::string kSweep =
    "title = \"runner test\"\n"
    "[defaults]\nd = 8\nL = 20\nR = 4\n"
    "[[task]]\nname = \"s\"\ncommand = \"sga\"\nsteps = 200\ntrials = 3\nthreads = 1\ntheta = [0.5, 1.5]\n"
    "[[task]]\nname = \"p\"\ncommand = \"phase\"\nfield = \"meanfield\"\nscan = 64\n";

}  // namespace

TEST_CASE("runner: a run writes every cell, the summaries and run.json, and no .partial folder remains") {
    const fs::path dir = test::temp_dir("runner_complete");
    const fs::path out = dir / "out";
    const Logged l = run_file(write(dir, "e.toml", kSweep), out);
    for (const char* f : {"s/theta=0.5/result.json", "s/theta=1.5/result.json", "p/run/result.json", "s/summary.csv",
                          "s/summary.md", "s/summary.tex", "p/summary.csv", "p/summary.md", "p/summary.tex",
                          "run.json", "manifest.json"}) {
        CAPTURE(f);
        CHECK(fs::is_regular_file(out / f));
    }
    CHECK_FALSE(fs::exists(partial_folder(out)));
    CHECK(partial_folder(out) == dir / ".out.partial");
    CHECK(partial_folder(dir / "out/") == dir / ".out.partial");
    // No temporary cell folders left.
    for (const auto& e : fs::recursive_directory_iterator(out)) CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
    CHECK(l.result.results.size() == 3);
    CHECK(l.result.resumed == std::vector<bool>{false, false, false});
    const json index = json::parse(slurp(out / "run.json"));
    CHECK(index["command"] == "run");
    CHECK(index["title"] == "runner test");
    REQUIRE(index["runs"].size() == 3);
    CHECK(index["runs"][0]["dir"] == "s/theta=0.5");
    CHECK(index["runs"][0]["swept"]["theta"] == "0.5");
    CHECK(index["runs"][0]["params"]["model"]["theta"] == 0.5);
    CHECK(index["runs"][0]["params"]["model"]["d"] == 8);  // from [defaults]
    CHECK(index["runs"][2]["params"]["phase"]["scan_cells"] == 64);
    const json manifest = json::parse(slurp(out / "manifest.json"));
    for (const char* cell : {"s/theta=0.5", "s/theta=1.5", "p/run"}) CHECK(manifest["cells"][cell]["status"] == "complete");
    // Each cell's document is the job's: its params and its result.
    const json doc = json::parse(slurp(out / "s/theta=1.5/result.json"));
    CHECK(doc["command"] == "sga");
    CHECK(doc["params"]["sga"]["steps"] == 200);
    CHECK(doc["trials"].size() == 3);
    // The summary has one row per cell with the swept value and the headline numbers.
    const std::string csv = slurp(out / "s/summary.csv");
    CHECK(csv.find("theta") != std::string::npos);
    CHECK(csv.find("mean_abs_rho_final") != std::string::npos);
    CHECK(l.result.summaries.at("s").rows.size() == 2);
}

TEST_CASE("runner: a rerun skips every cell and is byte-identical, a changed cell alone is recomputed") {
    const fs::path dir = test::temp_dir("runner_rerun");
    const fs::path out = dir / "out";
    const fs::path file = write(dir, "e.toml", kSweep);
    run_file(file, out);
    const auto first = outputs(out);
    // 3 documents, 2 summaries x (csv, csv.meta.json, md, tex), run.json, CITATION.bib, and the
    // sga sweep's summary across its cells: sweep_theta.dat, sweep.{tex,md},
    // fig_final_theta.{gp,caption.tex} (experiment/sweep.hpp).
    REQUIRE(first.size() == 17);

    const Logged again = run_file(file, out);
    CHECK(count_containing(again.log, "complete from an earlier run") == 3);
    CHECK(again.result.resumed == std::vector<bool>{true, true, true});
    CHECK(outputs(out) == first);
    CHECK_FALSE(fs::exists(partial_folder(out)));

    // One cell's parameter changes (p has one cell): only that cell is recomputed.
    std::string changed = kSweep;
    changed.replace(changed.find("scan = 64"), 9, "scan = 128");
    const Logged third = run_file(write(dir, "e.toml", changed), out);
    CHECK(third.result.resumed == std::vector<bool>{true, true, false});
    CHECK(count_containing(third.log, "complete from an earlier run") == 2);
    const auto now = outputs(out);
    CHECK(now.at("s/theta=0.5/result.json") == first.at("s/theta=0.5/result.json"));
    CHECK(now.at("s/theta=1.5/result.json") == first.at("s/theta=1.5/result.json"));
    CHECK(json::parse(now.at("p/run/result.json"))["params"]["phase"]["scan_cells"] == 128);
    // A swept value replaced: the old cell's folder is dropped, the new one computed.
    std::string swept = changed;
    swept.replace(swept.find("[0.5, 1.5]"), 10, "[0.5, 2.5]");
    const Logged fourth = run_file(write(dir, "e.toml", swept), out);
    CHECK(fourth.result.resumed == std::vector<bool>{true, false, true});
    CHECK_FALSE(fs::exists(out / "s/theta=1.5"));
    CHECK(fs::exists(out / "s/theta=2.5/result.json"));
    const json manifest = json::parse(slurp(out / "manifest.json"));
    CHECK_FALSE(manifest["cells"].contains("s/theta=1.5"));
}

TEST_CASE("runner: a failing cell names task and cell, keeps the completed ones, and a corrected rerun resumes") {
    const fs::path dir = test::temp_dir("runner_fail");
    const fs::path out = dir / "out";
    const std::string good = "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = 8\nL = 20\nR = 4\nsteps = 100\n"
                             "trials = 2\nthreads = 1\nseed = [1, 2]\n";
    // beta theta = 60 makes j' far too sharp for a 33-point Chebyshev table.
    const fs::path bad = write(dir, "e.toml", good + "[[task]]\nname = \"ph\"\ncommand = \"phase\"\ntheta = 60\n"
                                                     "table-points = 33\n");
    std::string message;
    try {
        run_file(bad, out);
        FAIL("no exception");
    } catch (const NumericalError& e) {
        message = e.what();
    }
    CHECK(message.find("task 'ph' cell ph/run") == 0);
    CHECK(message.find("not resolved") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    const fs::path partial = partial_folder(out);
    REQUIRE(fs::exists(partial / "manifest.json"));
    const json manifest = json::parse(slurp(partial / "manifest.json"));
    CHECK(manifest["cells"]["s/seed=1"]["status"] == "complete");
    CHECK(manifest["cells"]["s/seed=2"]["status"] == "complete");
    CHECK(manifest["cells"]["ph/run"]["status"] == "failed");
    CHECK(manifest["cells"]["ph/run"]["error"].get<std::string>().find("not resolved") != std::string::npos);
    CHECK(fs::exists(partial / "s/seed=1/result.json"));
    CHECK_FALSE(fs::exists(partial / "ph/run"));
    const std::string kept = slurp(partial / "s/seed=2/result.json");

    // Corrected: the completed cells are reused, the failed one computed, the run finished.
    const fs::path fixed = write(dir, "e.toml", good + "[[task]]\nname = \"ph\"\ncommand = \"phase\"\ntheta = 60\n"
                                                       "field = \"meanfield\"\n");
    const Logged l = run_file(fixed, out);
    CHECK(l.result.resumed == std::vector<bool>{true, true, false});
    CHECK(count_containing(l.log, "resuming the interrupted run") == 1);
    CHECK_FALSE(fs::exists(partial));
    CHECK(slurp(out / "s/seed=2/result.json") == kept);
    CHECK(json::parse(slurp(out / "manifest.json"))["cells"]["ph/run"]["status"] == "complete");
}

TEST_CASE("runner: task names that are not plain folder names are refused, naming key 'name' and its line") {
    const fs::path dir = test::temp_dir("runner_names");
    for (const char* name : {"a/b", "..", ".", "/abs", ".hidden", "a\\\\b", "x y", "../up", ""}) {
        CAPTURE(name);
        const std::string msg =
            file_error(dir, fmt::format("[[task]]\ncommand = \"sga\"\n\nname = \"{}\"\nsteps = 10\n", name));
        CHECK(msg.find("bad.toml:4: key 'name'") != std::string::npos);
    }
    CHECK(file_error(dir, "[[task]]\ncommand = \"sga\"\nname = \"ok.name-1_x\"\n").empty());
    CHECK(file_error(dir, "[[task]]\nname = \"a\"\ncommand = \"sga\"\n[[task]]\nname = \"a\"\ncommand = \"ode\"\n")
              .find("key 'name'") != std::string::npos);
}

TEST_CASE("runner: cells take [defaults], then the task's keys, and a per-norm sigma is divided by sqrt(d) once") {
    const fs::path dir = test::temp_dir("runner_cells");
    const fs::path f = write(dir, "e.toml",
                             "[defaults]\nsigma-per-norm = true\nsigma = 2\nL = 30\nR = 3\n"
                             "[[task]]\nname = \"s\"\ncommand = \"sga\"\nd = [16, 4]\nL = 40\n"
                             "[[task]]\ncommand = \"field\"\nsigma-per-norm = false\nrho = [[0.5, -0.5], [0.25]]\n");
    const Experiment e = read_experiment(f, dir / "out");
    REQUIRE(e.cells.size() == 4);
    CHECK(e.out == dir / "out");
    CHECK(e.cells[0].dir == "s/d=16");
    CHECK(model_of(e.cells[0].job)->sigma == 0.5);  // 2 / sqrt(16)
    CHECK(model_of(e.cells[0].job)->sigma_input() == 2.0);
    CHECK(model_of(e.cells[1].job)->sigma == 1.0);  // 2 / sqrt(4)
    CHECK(model_of(e.cells[0].job)->L == 40);       // the task's key over [defaults]
    // A switch set to false leaves the default (per coordinate); a list of lists sweeps.
    CHECK(e.tasks[1].name == "task2");
    CHECK(model_of(e.cells[2].job)->sigma == 2.0);
    CHECK(model_of(e.cells[2].job)->L == 30);
    CHECK(std::get<FieldJob>(e.cells[2].job).rho == std::vector<double>{0.5, -0.5});
    CHECK(std::get<FieldJob>(e.cells[3].job).rho == std::vector<double>{0.25});
    CHECK(e.cells[2].dir == "task2/rho=0.5_-0.5");
    // Without --out: the file's 'out', else <file stem>-out.
    CHECK(read_experiment(f).out == fs::path("e-out"));
    CHECK(read_experiment(write(dir, "g.toml", "out = \"elsewhere\"\n[[task]]\ncommand = \"sga\"\n")).out ==
          fs::path("elsewhere"));
}

TEST_CASE("runner: a value repeated in a sweep is refused") {
    const fs::path dir = test::temp_dir("runner_repeat");
    for (const char* sweep : {"[0.5, 0.5]", "[1, 1.0]", "[0.5, 1.5, 0.5]"}) {
        CAPTURE(sweep);
        const std::string msg = file_error(dir, fmt::format("[[task]]\ncommand = \"sga\"\ntheta = {}\n", sweep));
        CHECK(msg.find("bad.toml:1: key 'task'") != std::string::npos);
        CHECK(msg.find("a value repeated in a sweep") != std::string::npos);
    }
    CHECK(file_error(dir, "[[task]]\ncommand = \"sga\"\ntheta = [0.5, 1.5]\n").empty());
}

TEST_CASE("runner: an output folder that is not a rhoflow run folder, or a file, is refused and left untouched") {
    const fs::path dir = test::temp_dir("runner_foreign");
    const fs::path file = write(dir, "e.toml", "[[task]]\ncommand = \"sga\"\nsteps = 10\ntrials = 1\n");
    // A folder with someone's data in it.
    const fs::path foreign = dir / "data";
    fs::create_directories(foreign / "sub");
    write(foreign, "thesis.tex", "precious");
    std::string message;
    try {
        run_file(file, foreign);
        FAIL("no exception");
    } catch (const InvalidArgument&) {
        FAIL("not an input error");
    } catch (const NumericalError&) {
        FAIL("not a numerical error");
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    CHECK(message.find("is not a rhoflow run folder") != std::string::npos);
    CHECK(slurp(foreign / "thesis.tex") == "precious");
    CHECK(fs::is_directory(foreign / "sub"));
    CHECK_FALSE(fs::exists(partial_folder(foreign)));
    // A regular file.
    const fs::path afile = write(dir, "afile", "keep me");
    CHECK_THROWS_AS(run_file(file, afile), std::runtime_error);
    try {
        run_file(file, afile);
    } catch (const InvalidArgument&) {
        FAIL("not an input error");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()).find(afile.string()) != std::string::npos);
    }
    CHECK(slurp(afile) == "keep me");
    CHECK_FALSE(fs::exists(partial_folder(afile)));
}

TEST_CASE("runner: prove, prove --verify and field --rigorous run as cells: certificates, re-checks and a rerun from them") {
    const fs::path dir = test::temp_dir("runner_prove");
    // A certificate made outside the experiment, for its verify task; and a tampered copy.
    ProveJob made;
    made.prove = test::small_proof();
    const json cert = document(made, run(made), make_provenance("prove", "rhoflow prove"));
    write(dir, "cert.json", document_text(made, cert));
    const std::string text =
        "[defaults]\nthreads = 1\n"
        "[[task]]\nname = \"proofs\"\ncommand = \"prove\"\nclaim = [\"monotone\", \"attractors=1\"]\ntheta = \"0.99:1\"\n"
        "cells = 4\nd = 5\nL = 100\nR = 50\n"
        "[[task]]\nname = \"recheck\"\ncommand = \"prove\"\nverify = \"" + (dir / "cert.json").string() + "\"\n"
        "verify-fast = true\n"
        "[[task]]\nname = \"balls\"\ncommand = \"field\"\nrigorous = true\nrho = [[-1, 0.3]]\nd = 5\nL = 100\nR = 50\n";
    const fs::path out = dir / "out";
    const Logged l = run_file(write(dir, "e.toml", text), out);
    const json a = json::parse(slurp(out / "proofs/claim=monotone/certificate.json"));
    CHECK(a["verdict"] == "proved");
    CHECK(a["params"]["box"]["theta"]["hi"] == 1.0);
    CHECK(a["params"]["initial_cells"] == 4);
    CHECK(fs::is_regular_file(out / "proofs/claim=attractors_1/summary.md"));
    CHECK(json::parse(slurp(out / "proofs/claim=attractors_1/certificate.json"))["verdict"] == "proved");
    const json v = json::parse(slurp(out / "recheck/run/verification.json"));
    CHECK(v == json{{"valid", true}, {"verdict", "proved"}, {"cells", cert["cells"].size()}});
    const json balls = json::parse(slurp(out / "balls/run/result.json"));
    CHECK(balls["rigorous"] == true);
    REQUIRE(balls["enclosures"].size() == 2);
    CHECK(balls["enclosures"][1]["rho"]["lo"] == 0.3);
    // The summaries have the headline numbers.
    CHECK(slurp(out / "proofs/summary.csv").find("verdict") != std::string::npos);
    CHECK(l.result.summaries.at("recheck").rows.size() == 1);
    // Each certificate checks, wherever it was written (by the prover's enclosure: the independent
    // one takes minutes over a theta interval).
    for (const char* c : {"proofs/claim=monotone/certificate.json", "proofs/claim=attractors_1/certificate.json"}) {
        const VerifyReport r = verify_certificate(json::parse(slurp(out / c)), 1, Execution::local, VerifyMethod::fast);
        CAPTURE(c);
        CHECK(r.valid);
    }
    // A rerun reads every cell back (certificates included) and writes the same bytes.
    const auto before = outputs(out);
    const Logged again = run_file(dir / "e.toml", out);
    CHECK(again.result.resumed == std::vector<bool>{true, true, false, true});  // a re-check reads its file again
    CHECK(outputs(out) == before);
    // A tampered certificate fails its cell, naming it and the certificate's error.
    std::string bad = slurp(dir / "cert.json");
    bad.replace(bad.find("\"dj>0\""), 6, "\"dj<0\"");
    write(dir, "cert.json", bad);
    const std::string recheck =
        "[[task]]\nname = \"recheck\"\ncommand = \"prove\"\nverify = \"" + (dir / "cert.json").string() + "\"\n"
        "verify-fast = true\n";
    try {
        run_file(write(dir, "bad.toml", recheck), dir / "out2");
        FAIL("a tampered certificate was accepted");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "verify");
        CHECK(std::string(e.what()).find("task 'recheck' cell recheck/run") != std::string::npos);
        CHECK(std::string(e.what()).find("does not check") != std::string::npos);
    }
    // A prove task needs a claim, or a certificate to re-check.
    CHECK(file_error(dir, "[[task]]\ncommand = \"prove\"\nd = 5\n").find("'prove' tasks: claim is required") !=
          std::string::npos);
    // A re-check takes no proof key (the certificate says everything), even one at its default.
    CHECK(file_error(dir, "[[task]]\ncommand = \"prove\"\nverify = \"c.json\"\ncells = 16\n")
              .find("cells cannot be combined with verify") != std::string::npos);
}
