// The command line derives its subcommands from the job table (experiment/job_table.hpp): each
// job is a subcommand listed by `rhoflow --help` with its table description, accepted by the
// unknown-subcommand message's list, and has its own --help.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cli_run.hpp"
#include "rhoflow/experiment/job_table.hpp"

using rhoflow::test::Run;
using rhoflow::test::rhoflow_cli;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Help text with CLI11's line wrapping undone (runs of blanks and newlines as one blank).
std::string flat(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::string out;
    for (char c : s)
        if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
    return out;
}

}  // namespace

TEST_CASE("cli jobs: every job of the table is a subcommand, in --help, with its description") {
    const Run help = rhoflow_cli({"--help"});
    REQUIRE(help.code == 0);
    for (const rhoflow::JobKind& k : rhoflow::job_kinds()) {
        const std::string name(k.name);
        CAPTURE(name);
        CHECK(has(help.out, "\n  " + name + " "));
        const Run sub = rhoflow_cli({name, "--help"});
        CHECK(sub.code == 0);
        CHECK(has(flat(sub.out), flat(std::string(k.description.substr(0, 60)))));
        for (const rhoflow::Setting& s : rhoflow::settings_for(name)) CHECK(has(sub.out, "--" + s.key));
    }
}

TEST_CASE("cli jobs: the unknown-subcommand message lists every job (prove too), then run and atlas") {
    const Run r = rhoflow_cli({"bogus"});
    CHECK(r.code == 2);
    CHECK(has(r.err, "(accepted: " + rhoflow::job_command_list() + ", run, atlas)"));
}
