#include "rhoflow/io/table.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "rhoflow/core/errors.hpp"

using namespace rhoflow;

namespace {

Table sample() {
    Table t;
    t.caption = "ODE vs SGA with eta_k = 0.5/(1 + k/100) & 50% quantiles";
    t.meta = {"rhoflow 0.1.0", "d = 50, L = 1000, seed = 7", "path = a_b#c"};
    t.columns = {{"step", "step", "$k$", "{:.0f}"},
                 {"rho_ode", "rho ODE", "$\\rho$", "{:.5f}"},
                 {"note", "note", "note", "{}"},
                 {"gap", "D_T", "$D_T$", "{:.3g}"}};
    t.rows = {{0.0, 0.1, std::string("start, \"quoted\""), TableCell{}},
              {10.0, 0.123456789012345678, std::string("x_1 & y"), 1.0 / 3.0}};
    return t;
}

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
    return n;
}

}  // namespace

TEST_CASE("table: CSV is a header and rows (no comment lines), numbers in their shortest exact form") {
    const std::string csv = to_csv(sample());
    std::istringstream in(csv);
    std::string line;
    std::vector<std::vector<std::string>> rows;
    while (std::getline(in, line)) {
        CHECK(line.rfind("#", 0) != 0);  // numpy.genfromtxt(names=True) would take it for the header
        rows.push_back(split_csv_line(line));
    }
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == std::vector<std::string>{"step", "rho_ode", "note", "gap"});
    for (const auto& r : rows) CHECK(r.size() == 4);
    CHECK(std::stod(rows[2][1]) == 0.123456789012345678);  // round-trips
    CHECK(rows[1][2] == "start, \"quoted\"");
    CHECK(rows[1][3].empty());  // missing value
    CHECK(csv.find("seed = 7") == std::string::npos);  // the provenance is the sidecar's
}

TEST_CASE("table: numbers print in the shortest form that reads back to the same double") {
    CHECK(shortest(0.0025) == "0.0025");  // not 0.0025000000000000001 (17 digits)
    CHECK(shortest(0.1) == "0.1");
    CHECK(shortest(1e4) == "10000");
    CHECK(shortest(-0.0) == "-0");
    CHECK(shortest(1e-300) == "1e-300");
    CHECK(shortest(5e-324) == "5e-324");
    CHECK(shortest(0.1 + 0.2) == "0.30000000000000004");  // 17 digits when 16 would not read back
    for (double v : {0.123456789012345678, 2.0 / 3.0, 1e22, 123456789.125, -7.25e-12, 1.7976931348623157e308})
        CHECK(std::stod(shortest(v)) == v);
}

TEST_CASE("table: LaTeX has balanced environments, booktabs rules and escaped specials") {
    const std::string tex = to_latex(sample());
    CHECK(count(tex, "\\begin{table*}") == 1);  // every column of a full table: across the page
    CHECK(count(tex, "\\end{table*}") == 1);
    CHECK(count(tex, "\\begin{tabular}{rrrr}") == 1);
    CHECK(count(tex, "\\end{tabular}") == 1);
    CHECK(count(tex, "\\toprule") == 1);
    CHECK(count(tex, "\\midrule") == 1);
    CHECK(count(tex, "\\bottomrule") == 1);
    // Braces balance outside escaped ones.
    int depth = 0;
    for (std::size_t i = 0; i < tex.size(); ++i) {
        if (tex[i] == '\\' && i + 1 < tex.size() && (tex[i + 1] == '{' || tex[i + 1] == '}')) {
            ++i;
            continue;
        }
        depth += tex[i] == '{';
        depth -= tex[i] == '}';
        CHECK(depth >= 0);
    }
    CHECK(depth == 0);
    // Plain text (caption, provenance, text cells) has _ & # % escaped; math headers are kept.
    const std::string caption = tex.substr(tex.find("\\caption{"), tex.find("\\label") - tex.find("\\caption{"));
    CHECK(caption.find("eta\\_k") != std::string::npos);
    CHECK(caption.find("\\&") != std::string::npos);
    CHECK(caption.find("50\\%") != std::string::npos);
    CHECK(caption.find("a\\_b\\#c") != std::string::npos);
    CHECK(tex.find("x\\_1 \\& y") != std::string::npos);
    CHECK(tex.find("$\\rho$") != std::string::npos);
    // Every body row has one cell per column.
    CHECK(count(tex, " & ") == 3 * 3);
    CHECK(tex.find("---") != std::string::npos);  // the missing cell
}

TEST_CASE("table: Markdown has one cell per column on every row") {
    const std::string md = to_markdown(sample());
    std::istringstream in(md);
    std::string line;
    int table_lines = 0;
    while (std::getline(in, line)) {
        if (line.rfind("|", 0) != 0) continue;
        ++table_lines;
        CHECK(count(line, "|") == 5);
    }
    CHECK(table_lines == 4);
    CHECK(md.find("—") != std::string::npos);
    CHECK(md.find("0.33") != std::string::npos);
}

TEST_CASE("table: a non-finite value is an error naming the cell, never printed") {
    Table t = sample();
    t.rows[1][3] = std::numeric_limits<double>::quiet_NaN();
    try {
        to_csv(t);
        FAIL("no exception");
    } catch (const NumericalError& e) {
        CHECK(std::string(e.what()).find("'gap'") != std::string::npos);
    }
    CHECK_THROWS_AS(to_latex(t), NumericalError);
    CHECK_THROWS_AS(to_markdown(t), NumericalError);
}

TEST_CASE("table: no text adds a line: captions and provenance stay on theirs, Markdown cells escape '|'") {
    Table t = sample();
    t.caption = "title\n1,2,3\r\n| fake | row |\tend";
    t.meta.push_back("per-run files: out\nput");
    t.rows[0][2] = std::string("a | b\nc");
    const std::string csv = to_csv(t), md = to_markdown(t), tex = to_latex(t);
    auto lines = [](const std::string& s) { return count(s, "\n"); };
    const Table plain = sample();
    CHECK(lines(csv) == lines(to_csv(plain)) + 1);  // the quoted cell's own newline (captions are not in the CSV)
    CHECK(csv.find("fake") == std::string::npos);
    CHECK(csv.find("\"a | b\nc\"") != std::string::npos);  // quoted: a CSV reader keeps it one field
    std::istringstream in(md);
    int table_lines = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("|", 0) != 0) continue;
        ++table_lines;
        CHECK(count(line, "|") - count(line, "\\|") == 5);
    }
    CHECK(table_lines == 4);
    CHECK(md.find("a \\| b\\nc") != std::string::npos);
    CHECK(tex.find("\\caption{title\\textbackslash{}n1,2,3") != std::string::npos);
    CHECK(lines(tex) == lines(to_latex(plain)));
}
