#include "rhoflow/io/paper_table.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "rhoflow/core/errors.hpp"
#include "test_util.hpp"

using namespace rhoflow;

namespace {

Table full(std::size_t rows) {
    Table t;
    t.caption = "full";
    t.meta = {"rhoflow 0.1.0", "d = 50, line\nbreak"};
    t.columns = {{"t", "t", "$t$", "{}"},   {"mean", "mean", "mean", "{}"}, {"lo", "lo", "lo", "{}"},
                 {"hi", "hi", "hi", "{}"},  {"se", "se", "se", "{}"},     {"note", "note", "note", "{}"}};
    for (std::size_t i = 0; i < rows; ++i)
        t.rows.push_back({static_cast<double>(i), -0.5374, -0.55, -0.53, 0.0123, std::string("a|b & c_d")});
    return t;
}

const std::vector<PaperColumn> kColumns = {
    {"t", "t", "$t$", "t", "", "", "", 4, -1, false},
    {"ci", "mean (CI)", "mean", "mean", "", "lo", "hi", 4, -1, false},
    {"se", "mean (se)", "mean", "mean", "se", "", "", 4, -1, false},
    {"fixed", "mean, 2 decimals", "mean", "mean", "", "", "", 4, 2, false},
    {"note", "note", "note", "note", "", "", "", 4, -1, false},
};

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
    return n;
}

}  // namespace

TEST_CASE("paper table: values with their errors, a CI's larger half-width, fixed decimals, escaped text") {
    const PaperTable p = paper_table(full(2), kColumns, "Caption $x$.", "Caption x.", "tab:a-b");
    REQUIRE(p.latex.size() == 2);
    // CI [-0.55, -0.53] around -0.5374: half-widths 0.0126 and 0.0074; the larger one counts
    CHECK(p.latex[1][1] == "$-0.537 \\pm 0.013$");
    CHECK(p.latex[1][2] == "$-0.537 \\pm 0.012$");
    CHECK(p.latex[1][3] == "$-0.54$");
    CHECK(p.markdown[1][3] == "\u22120.54");
    CHECK(p.latex[1][4] == "a|b \\& c\\_d");
    const std::string md = to_markdown(p);
    CHECK(md.find("a\\|b & c_d") != std::string::npos);  // '|' cannot split a Markdown cell
    CHECK(md.find("\u22120.537 \u00b1 0.013") != std::string::npos);
    const std::string tex = to_latex(p);
    CHECK(tex.rfind("% rhoflow table; packages: booktabs, graphicx\n", 0) == 0);
    CHECK(tex.find("% d = 50, line break\n") != std::string::npos);  // provenance stays on its comment line
    CHECK(count(tex, "\\label{tab:a-b}") == 1);
    // One column (a table) unless made for the page (a table*); never scaled.
    CHECK(tex.find("\\begin{table}") != std::string::npos);
    CHECK(tex.find("\\begin{table*}") == std::string::npos);
    CHECK(tex.find("resizebox") == std::string::npos);
    PaperTable wide = p;
    wide.page = true;
    CHECK(to_latex(wide).find("\\begin{table*}") != std::string::npos);
    CHECK(to_latex(wide).find("\\begin{table}") == std::string::npos);
    CHECK(tex.find("longtable") == std::string::npos);
    CHECK(tex.find("e-0") == std::string::npos);
}

TEST_CASE("paper table: past long_rows rows it is a longtable and its header names longtable") {
    PaperTable p = paper_table(full(41), kColumns, "c", "c", "tab:x");
    CHECK(paper_packages(p) == std::vector<std::string>{"booktabs", "graphicx", "longtable"});
    const std::string tex = to_latex(p);
    CHECK(tex.rfind("% rhoflow table; packages: booktabs, graphicx, longtable\n", 0) == 0);
    CHECK(tex.find("\\ifdim\\columnwidth<\\textwidth") != std::string::npos);  // two columns: a float instead
    CHECK(count(tex, "\\begin{longtable}") == 1);
    CHECK(count(tex, "\\endhead") == 1);
    CHECK(count(tex, "\\label{tab:x}") == 1);  // the continued header refers to it, not redefines it
    p.long_rows = 100;
    CHECK(to_latex(p).find("longtable") == std::string::npos);
}

TEST_CASE("paper table: a missing value is a dash, a non-finite one is refused") {
    Table t = full(1);
    t.rows[0][1] = TableCell{};
    PaperTable p = paper_table(t, kColumns, "c", "c", "tab:x");
    CHECK(p.latex[0][1] == "---");
    CHECK(p.markdown[0][1] == "\u2014");
    t.rows[0][1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(paper_table(t, kColumns, "c", "c", "tab:x"), NumericalError);
    std::vector<PaperColumn> wrong = kColumns;
    wrong[0].value = "no_such_column";
    CHECK_THROWS_AS(paper_table(full(1), wrong, "c", "c", "tab:x"), std::logic_error);
}

TEST_CASE("paper table: labels from folder names keep letters, digits and .-= only") {
    CHECK(paper_label("sweep-out-cmp/L=100", "compare") == "tab:sweep-out-cmp-L=100-compare");
    CHECK(paper_label("my run {1}%$\\x", "gap") == "tab:my-run-1-x-gap");
    CHECK(paper_label("", "study") == "tab:rhoflow-study");
    CHECK(paper_label("..", "study") == "tab:rhoflow-study");
    CHECK(paper_label("a", "x") != paper_label("b", "x"));
}

TEST_CASE("paper table: column selection by key, defaults, unknown and repeated keys name the field") {
    const auto d = select_columns(kColumns, {}, {"t", "se"}, "table_columns");
    REQUIRE(d.size() == 2);
    CHECK(d[1].key == "se");
    const auto pick = select_columns(kColumns, {"note", "t"}, {"t"}, "table_columns");
    REQUIRE(pick.size() == 2);
    CHECK(pick[0].key == "note");
    try {
        select_columns(kColumns, {"t", "bogus"}, {}, "table_columns");
        FAIL("accepted an unknown column");
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == "table_columns");
        CHECK(std::string(e.what()).find("accepted: t, ci, se, fixed, note") != std::string::npos);
    }
    CHECK_THROWS_AS(select_columns(kColumns, {"t", "t"}, {}, "table_columns"), InvalidArgument);
}

TEST_CASE("paper table: a statistic column keeps its significant zeros, counts and parameters stay trimmed") {
    Table t = full(3);
    t.rows[0][1] = 0.061;
    t.rows[1][1] = 0.0626;
    t.rows[2][1] = 5.0;
    const std::vector<PaperColumn> stat = {{"m", "m", "m", "mean", "", "", "", 3, -1, true},
                                           {"p", "p", "p", "mean", "", "", "", 3, -1, false}};
    const PaperTable p = paper_table(t, stat, "c", "c", "tab:x");
    CHECK(p.latex[0][0] == "$0.0610$");
    CHECK(p.latex[1][0] == "$0.0626$");
    CHECK(p.latex[2][0] == "$5$");
    CHECK(p.latex[0][1] == "$0.061$");
}

TEST_CASE("paper table: estimated widths match pdflatex's at \\small to 3% (measured with pdflatex 2025, article)") {
    // \setbox0\hbox{\small ...}\the\wd0 in a 10 pt article
    const std::pair<const char*, double> measured[] = {
        {"$0.9841 \\pm 0.0019$", 62.69403}, {"$0.99591 \\pm 0.00034$", 71.94397}, {"$-0.39$", 23.63873},
        {"SGA median", 51.71144},            {"$\\rho_{\\mathrm{ODE}}$", 21.28139},  {"$0 = 0$", 21.58319},
        {"---", 9.24994},                   {"$\\eta_0$", 8.78534},                  {"$D_T$", 13.48656},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 172.19441}};
    for (const auto& [text, pt] : measured) {
        CAPTURE(text);
        CHECK(latex_width(text) == doctest::Approx(pt).epsilon(0.03));
    }
    // a table: the widest cell of each column plus 8 pt of column separation
    PaperTable t;
    t.headers_latex = {"$t$", "SGA"};
    t.latex = {{"$0.01$", "$0.9841 \\pm 0.0019$"}, {"$14.5$", "$-0.39$"}};
    CHECK(latex_table_width(t) == doctest::Approx(latex_width("$14.5$") + latex_width("$0.9841 \\pm 0.0019$") + 16));
    CHECK(fits(t, TableWidth{100, false}));
    CHECK_FALSE(fits(t, TableWidth{90, false}));
}

TEST_CASE("paper table: --table-width is column, page or a length with its unit, anything else names width") {
    CHECK(table_width(TableParams{}).pt == 229.5);
    CHECK_FALSE(table_width(TableParams{}).page);
    CHECK(table_width(TableParams{"page"}).pt == 469.0);
    CHECK(table_width(TableParams{"page"}).page);
    CHECK(table_width(TableParams{"3.33in"}).pt == doctest::Approx(3.33 * 72.27));
    CHECK_FALSE(table_width(TableParams{"3.33in"}).page);  // a column (ACM's)
    CHECK(table_width(TableParams{"17cm"}).page);           // beyond 3.5 in: across the page
    CHECK(table_width(TableParams{"240pt"}).pt == 240.0);
    for (const char* bad : {"wide", "3.3", "1in", "11in", "in", "-3in", "nanpt"}) {
        CAPTURE(bad);
        CHECK(test::invalid_param([&] { TableParams{bad}.validate(); }) == "width");
    }
}

TEST_CASE("paper table: constant columns: a column printing one exact value in every row goes to the caption") {
    Table t = full(3);
    t.columns.push_back({"ode", "ode", "ode", "{}"});
    for (auto& row : t.rows) row.push_back(1.0 - 1e-9);  // prints 1.0000 with 4 decimals in every row
    std::vector<PaperColumn> cols = kColumns;
    cols.push_back({"ode", "ODE", "ODE", "ode", "", "", "", 4, 4, false});
    const ConstantSplit s = constant_columns(t, cols);
    // t varies; the CI and SE columns have errors (never constant, though their values are);
    // "fixed" prints -0.54 in every row with no error, "note" is text; ODE prints 1.0000.
    REQUIRE(s.constant.size() == 2);
    CHECK(s.constant[0].first.key == "fixed");
    CHECK(s.constant[0].second == "$-0.54$");
    CHECK(s.constant[1].first.key == "ode");
    CHECK(s.constant[1].second == "$1.0000$");
    REQUIRE(s.kept.size() == 4);
    CHECK(s.kept[0].key == "t");
    CHECK(s.kept[3].key == "note");
    // One row at 0.9998, which prints as such: the ODE column is kept.
    t.rows[1].back() = 0.9998;
    CHECK(constant_columns(t, cols).constant.size() == 1);
    // A single row is never "the same in every row".
    CHECK(constant_columns(full(1), kColumns).constant.empty());
}
