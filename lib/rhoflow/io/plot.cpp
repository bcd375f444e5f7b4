#include "rhoflow/io/plot.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rhoflow/core/detail/json_hooks.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/number_text.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/detail/fs.hpp"
#include "rhoflow/io/interrupt.hpp"

extern char** environ;

namespace rhoflow {

namespace {

namespace fs = std::filesystem;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define RHOFLOW_SPAWN_CHDIR 1
#endif

struct Finished {
    int status = 0;      // as from waitpid
    std::string output;  // standard output and error, interleaved (at most 64 KiB kept)
    bool timed_out = false;  // killed after `timeout` seconds
};

// This process's environment with every locale variable replaced by LC_ALL=C.UTF-8: gnuplot
// writes the same bytes (decimal points, minus signs) whatever the user's locale.
std::vector<std::string> child_environment() {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        if (v.starts_with("LC_") || v.starts_with("LANG=") || v.starts_with("LANGUAGE=")) continue;
        env.emplace_back(v);
    }
    env.emplace_back("LC_ALL=C.UTF-8");
    return env;
}

std::vector<char*> pointers(const std::vector<std::string>& texts) {
    std::vector<char*> p;
    for (const auto& a : texts) p.push_back(const_cast<char*>(a.c_str()));
    p.push_back(nullptr);
    return p;
}

// Runs `exe` with `args` (args[0] included) in folder `cwd`, without a shell, in a process group
// of its own and the locale of child_environment(); after `timeout` seconds the group is killed
// (SIGKILL) and `timed_out` set.
Finished run_captured(const fs::path& exe, const std::vector<std::string>& args, const fs::path& cwd, double timeout) {
    std::vector<char*> argv = pointers(args);
    const std::vector<std::string> env_text = child_environment();
    std::vector<char*> envp = pointers(env_text);
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        const int err = errno;
        detail::throw_io("cannot create a pipe for gnuplot", err);
    }
    sigset_t empty;
    sigemptyset(&empty);
    pid_t pid = -1;
    int spawn_err = 0;
#ifdef RHOFLOW_SPAWN_CHDIR
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    posix_spawnattr_setsigmask(&attr, &empty);  // interrupt.hpp blocks signals in the parent
    posix_spawnattr_setpgroup(&attr, 0);        // its own group: a timeout kills whatever it started
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    spawn_err = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
#else
    int errpipe[2];  // the child reports a failed chdir/exec here; closed by a successful exec
    if (::pipe2(errpipe, O_CLOEXEC) != 0) {
        spawn_err = errno;
    } else {
        pid = ::fork();
        if (pid == 0) {  // only async-signal-safe calls from here on
            ::sigprocmask(SIG_SETMASK, &empty, nullptr);
            ::setpgid(0, 0);
            const int in = ::open("/dev/null", O_RDONLY);
            int e = 0;
            if (in < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(pipefd[1], STDOUT_FILENO) < 0 ||
                ::dup2(pipefd[1], STDERR_FILENO) < 0 || ::chdir(cwd.c_str()) != 0)
                e = errno;
            else
                ::execve(exe.c_str(), argv.data(), envp.data());
            if (e == 0) e = errno;
            [[maybe_unused]] const ssize_t w = ::write(errpipe[1], &e, sizeof e);
            ::_exit(127);
        }
        if (pid < 0) spawn_err = errno;
        ::close(errpipe[1]);
        int e = 0;
        if (pid > 0 && ::read(errpipe[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e)) {
            spawn_err = e;
            ::waitpid(pid, nullptr, 0);
        }
        ::close(errpipe[0]);
    }
#endif
    ::close(pipefd[1]);
    if (spawn_err != 0) {
        ::close(pipefd[0]);
        throw IoError(fmt::format("cannot run {} in {}: {}", exe.string(), cwd.string(), std::strerror(spawn_err)));
    }
    TerminateOnInterrupt stop(pid);
    Finished r;
    char buf[4096];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{pipefd[0], POLLIN, 0};
        const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            if (std::chrono::steady_clock::now() < deadline) continue;
            r.timed_out = true;  // hung: kill its group (gnuplot and anything it started)
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            break;
        }
        const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (r.output.size() < 65536) r.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipefd[0]);
    while (::waitpid(pid, &r.status, 0) < 0) {
        if (errno != EINTR) {
            r.status = -1;
            break;
        }
    }
    return r;
}

std::string describe(int status) {
    if (status == -1) return "status unknown";
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
    return "stopped";
}

void check_name(const std::string& name) {
    bool ok = !name.empty() && name != "." && name != "..";
    for (unsigned char c : name) ok = ok && c >= 0x20 && c != 0x7f && c != '/' && c != '\'' && c != '"' && c != '\\';
    if (!ok) throw std::invalid_argument(fmt::format("figure name '{}' is not a plain file name", name));
}

// The images of one figure (file names in the figure's folder).
struct Outputs {
    std::string png, pdf, svg, tex;  // tex: the cairolatex picture (its graphics: the same stem .pdf)
};

std::string fmt_in(double x) { return fmt::format("{:.3f}", x); }

// The script that renders `f` into `o` at size `g`: each terminal runs the whole body (after a
// reset), so a multiplot body works too.
std::string script(const Figure& f, const Outputs& o, const FigureGeometry& g) {
    const double pt = g.font_pt;
    std::string s = "set encoding utf8\n";
    auto pass = [&](const std::string& terminal, const std::string& output, const std::string& body) {
        s += fmt::format("reset\n{}\nset output '{}'\n{}\nunset output\n", terminal, output, body);
    };
    // set minussign: gnuplot's own tic labels with a real minus sign (U+2212), as axis_tics's.
    pass(fmt::format("set terminal pngcairo size {},{} enhanced font 'sans,{:g}'\nset minussign",
                     std::lround(g.width * 150), std::lround(g.height * 150), pt),
         o.png, f.body);
    pass(fmt::format("set terminal pdfcairo size {}in,{}in enhanced font 'sans,{:g}'\nset minussign", fmt_in(g.width),
                     fmt_in(g.height), pt),
         o.pdf, f.body);
    pass(fmt::format("set terminal svg size {},{} enhanced font 'sans,{:g}' background rgb 'white'\nset minussign",
                     std::lround(g.width * 72), std::lround(g.height * 72), pt),
         o.svg, f.body);
    if (!f.latex_body.empty())
        pass(fmt::format("set terminal cairolatex pdf size {}in,{}in color font ',{:g}' header '{}'", fmt_in(g.width),
                         fmt_in(g.height), pt, g.width < 5 ? "\\footnotesize" : "\\small"),
             o.tex, f.latex_body);
    return s;
}

// NAME.caption.tex: the caption and its label, for \input inside a figure environment.
std::string caption_file(const Figure& f, const std::string& label) {
    return fmt::format("% {0}: caption of {0}.pdf / {0}-latex.tex, written by rhoflow; \\input{{{0}.caption.tex}} "
                       "inside the figure environment (needs amsmath).\n\\caption{{{1}}}\\label{{{2}}}\n",
                       f.name, f.caption, label);
}

// The stem of the cairolatex temporary of `tex` (".STEM.tmp.PID.HOST.N", then ".tex" is added:
// cairolatex needs a name ending in .tex and names its graphics after the stem).
fs::path latex_temporary_stem(const fs::path& dir, const std::string& name) {
    return detail::temporary_sibling(dir / (name + "-latex"));
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// The text between `open` and the next `close` after it in `s` ("" if absent).
std::string between(const std::string& s, const std::string& open, const std::string& close) {
    const auto a = s.find(open);
    const auto b = a == std::string::npos ? a : s.find(close, a + open.size());
    return b == std::string::npos ? std::string() : s.substr(a + open.size(), b - a - open.size());
}

// A cairolatex picture whose drawing scales to \rhoflowfigurewidth if the document defines it,
// else (`to_column`) to \columnwidth, else keeps its size; its text stays at the document's size.
// The picture's coordinates are in \unitlength, so setting that to WIDTH / (picture width) and the
// graphics' size in \unitlength scales the whole.
std::string scalable_picture(std::string tex, bool to_column) {
    const std::string size = between(tex, "\\begin{picture}(", ")");
    const std::string graphics = between(tex, "\\includegraphics[width=", "]{");
    const auto comma = size.find(',');
    if (comma == std::string::npos || graphics.empty()) return tex;  // not the form gnuplot 5.4 writes
    const std::string w = size.substr(0, size.find('.')), h = size.substr(comma + 1, size.find('.', comma) - comma - 1);
    const auto digits = [](const std::string& x) {
        return !x.empty() && x.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(w) || !digits(h)) return tex;
    const std::string unit = between(tex, "\\setlength{\\unitlength}{", "}");
    auto scaled = [&](const std::string& width) {
        return fmt::format("\\setlength{{\\unitlength}}{{\\dimexpr {}/{}\\relax}}", width, w);
    };
    replace_all(tex, "\\setlength{\\unitlength}{" + unit + "}",
                "\\ifdefined\\rhoflowfigurewidth" + scaled("\\rhoflowfigurewidth") + "\\else" +
                    (to_column ? scaled("\\columnwidth") : "\\setlength{\\unitlength}{" + unit + "}") + "\\fi");
    replace_all(tex, "\\includegraphics[width=" + graphics + "]",
                fmt::format("\\includegraphics[width={{{}\\unitlength}},height={{{}\\unitlength}}]", w, h));
    return tex;
}

std::string format_seconds(double t) { return fmt::format("{:g}", t); }

std::string read_small_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (!in) throw IoError("cannot read the rendered picture " + p.string());
    return ss.str();
}

// cairo stamps each PDF with its creation time ("/CreationDate (D:YYYYMMDDHHMMSSZ)"); the same
// figure must give the same bytes (reruns write identical folders), so the stamp is replaced by a
// fixed one of the same length (the cross-reference offsets stay valid).
void fix_pdf_date(const fs::path& p) {
    std::string pdf = read_small_file(p);
    const std::string key = "/CreationDate (D:";
    bool changed = false;
    for (std::size_t at = pdf.find(key); at != std::string::npos; at = pdf.find(key, at + 1)) {
        const std::size_t start = at + key.size(), end = pdf.find(')', start);
        if (end == std::string::npos || end - start != 15) continue;  // YYYYMMDDHHMMSSZ
        pdf.replace(start, 15, "20000101000000Z");
        changed = true;
    }
    if (!changed) return;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << pdf;
    if (!out) throw IoError("cannot rewrite the rendered image " + p.string());
}

bool non_empty_file(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

std::optional<fs::path> find_gnuplot() {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        const std::string dir = path.substr(start, end - start);
        start = end + 1;
        if (dir.empty()) continue;  // "the current folder": never run a gnuplot found there
        const fs::path candidate = fs::path(dir) / "gnuplot";
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
            std::error_code ec;
            const fs::path abs = fs::absolute(candidate, ec);  // the child changes folder before exec
            return ec ? candidate : abs;
        }
    }
    return std::nullopt;
}

bool gnuplot_available() { return find_gnuplot().has_value(); }

double gnuplot_timeout() {
    const char* env = std::getenv("RHOFLOW_GNUPLOT_TIMEOUT");
    if (!env || !*env) return kGnuplotTimeout;
    const double t = parse_number(env).value_or(0);
    if (!(t > 0) || !std::isfinite(t))
        throw std::invalid_argument(fmt::format("RHOFLOW_GNUPLOT_TIMEOUT = '{}' is not a number of seconds > 0", env));
    return t;
}

namespace {

// W and H of "WxH" (inches), if the text has that form.
std::optional<std::pair<double, double>> explicit_size(const std::string& t) {
    const auto x = t.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == t.size()) return std::nullopt;
    auto number = [](const std::string& u) -> std::optional<double> {
        if (u.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
        return parse_number(u);
    };
    const auto w = number(t.substr(0, x)), h = number(t.substr(x + 1));
    if (!w || !h) return std::nullopt;
    return std::make_pair(*w, *h);
}

}  // namespace

void FigureParams::validate() const {
    if (size == "column" || size == "page") return;
    const auto wh = explicit_size(size);
    if (!wh || !(wh->first >= 1 && wh->first <= 20 && wh->second >= 1 && wh->second <= 20))
        throw InvalidArgument("size", fmt::format("size = '{}' is not column, page or WxH in inches with 1 <= W, H <= "
                                                  "20 (e.g. 5x3.5)",
                                                  size));
}

RHOFLOW_JSON_HOOKS(FigureParams, size)

FigureGeometry figure_geometry(const FigureParams& p, double aspect) {
    p.validate();
    if (p.size == "column") return {3.4, 3.4 * aspect, 8};
    if (p.size == "page") return {7.0, 7.0 * aspect * 0.75, 9};  // flatter: a page-wide figure is read across
    const auto wh = explicit_size(p.size);
    return {wh->first, wh->second, wh->first < 5 ? 8.0 : 9.0};
}

double key_fraction(const FigureGeometry& g, int entries, int columns) {
    const int rows = (entries + columns - 1) / columns;
    return (rows * g.font_pt * 0.95 / 72.0 + 0.03) / g.height;
}

double latex_extra(const FigureGeometry& g, bool latex) { return latex ? 0.9 * g.font_pt * 1.35 / 72.0 / g.height : 0; }

double label_space(const FigureGeometry& g, bool latex) {
    return 2.0 * g.font_pt * 1.35 / 72.0 / g.height + latex_extra(g, latex);
}

std::string key_below(int entries, int columns) {
    return fmt::format("set key at screen 0.5, screen 0.01 center bottom vertical maxrows {} samplen 2 spacing 1.05 "
                       "reverse Left width -2\n",
                       (entries + columns - 1) / columns);
}

std::string side_margins(const FigureGeometry& g) {
    return fmt::format("set lmargin at screen {:.4f}\nset rmargin at screen {:.4f}\n",
                       std::min(0.35, (g.font_pt * 6.2 / 72.0) / g.width), 1 - 0.12 / g.width);
}

std::string vertical(double bottom, double top) {
    return fmt::format("set bmargin at screen {:.4f}\nset tmargin at screen {:.4f}\n", bottom, top);
}

int key_columns(const FigureGeometry& g) { return g.width < 5 ? 2 : 3; }

std::string FigureText::operator()(const std::string& enhanced, const std::string& latex_text) const {
    std::string t = latex ? latex_text : enhanced;
    replace_all(t, "'", "''");
    return "'" + t + "'";
}

std::string tex_number(double x) {
    std::string s = fmt::format("{:.4g}", x);
    const auto e = s.find('e');
    if (e == std::string::npos) return s;
    const int exponent = std::stoi(s.substr(e + 1));
    const std::string mantissa = s.substr(0, e);
    return (mantissa == "1" ? std::string() : mantissa + " \\times ") + fmt::format("10^{{{}}}", exponent);
}

namespace {
// A tic label: "0.02", "3", "10^{-5}", "2·10^{-5}" (LaTeX: "$2\cdot 10^{-5}$").
std::string tic_text(double v, bool latex) {
    if (v == 0) return latex ? "$0$" : "0";
    const double a = std::abs(v);
    if (a >= 1e-3 && a < 1e5) {
        std::string t = fmt::format("{:.6g}", v);
        if (latex) return "$" + t + "$";
        if (v < 0) t = "−" + t.substr(1);
        return t;
    }
    int e = static_cast<int>(std::floor(std::log10(a) + 1e-9));
    double m = v / std::pow(10.0, e);
    if (std::abs(std::abs(m) - 10) < 1e-6) m /= 10, ++e;
    const std::string ms = fmt::format("{:.3g}", m);
    if (latex) return "$" + (ms == "1" ? std::string() : ms == "-1" ? std::string("-") : ms + "\\cdot ") +
                      fmt::format("10^{{{}}}$", e);
    std::string mu = ms == "1" ? std::string() : ms == "-1" ? std::string("−") : ms + "·";
    if (!mu.empty() && mu[0] == '-') mu = "−" + mu.substr(1);
    return mu + fmt::format("10^{{{}}}", e);
}
}  // namespace

std::string axis_tics(char axis, double lo, double hi, bool log, bool latex) {
    std::vector<double> tics;
    double a = lo, b = hi;
    if (log) {
        if (lo > 0 && !(hi > lo)) lo /= 3, hi = 9 * lo;  // one value: a range around it, not a point
        const double f = std::pow(hi / lo, 0.08);
        a = lo / f, b = hi * f;
        const int e0 = static_cast<int>(std::floor(std::log10(a))), e1 = static_cast<int>(std::ceil(std::log10(b)));
        const int decades = e1 - e0;
        const int every = decades > 12 ? (decades + 5) / 6 : 1;
        const double span = std::log10(b / a);
        const bool linear = span < 0.6;
        if (linear) {  // less than a factor 4: round linear steps on the log axis
            const double raw = (b - a) / 4, mag = std::pow(10.0, std::floor(std::log10(raw)));
            const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
            for (double k = std::ceil(a / step); k * step <= b; k += 1) tics.push_back(k * step);
        }
        // Up to 2.2 decades 1, 2, 5 per decade, up to 4.5 decades 1 and 3, beyond decades.
        const std::vector<double> marks = span <= 2.2 ? std::vector<double>{1, 2, 5}
                                          : span <= 4.5 ? std::vector<double>{1, 3}
                                                        : std::vector<double>{1};
        for (int e = e0 - 1; e <= e1 && !linear; ++e)
            if (marks.size() > 1 || e % every == 0)
                for (double m : marks) tics.push_back(m * std::pow(10.0, e));
        if (!linear && marks.size() > 1) {  // the range ends on labelled tics: no point beyond the last label
            double below = a, above = b;
            for (double t : tics) {
                if (t <= lo * (1 + 1e-12)) below = t;
                if (t >= hi * (1 - 1e-12) && above == b) above = t;
            }
            a = std::min(a, below), b = std::max(b, above);
        }
    } else {
        const double pad = hi > lo ? 0.05 * (hi - lo) : 0.05 * std::max(1.0, std::abs(lo));
        a = lo - pad, b = hi + pad;
        const double raw = (b - a) / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
        const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
        for (double k = std::ceil(a / step); k * step <= b; k += 1) tics.push_back(std::abs(k) < 1e-9 ? 0.0 : k * step);
    }
    std::string list;
    for (double t : tics)
        if (t >= a * (1 - 1e-12) && t <= b * (1 + 1e-12))
            list += fmt::format("{}'{}' {:.17g}", list.empty() ? "" : ", ", tic_text(t, latex), t);
    return fmt::format("set {0}range [{1:.17g}:{2:.17g}]\nset {0}tics ({3})\n", axis, a, b, list);
}

std::string figure_label(const std::string& stem, const std::string& figure) {
    std::string s;
    for (unsigned char c : stem) s += std::isalnum(c) || c == '-' || c == '.' || c == ':' ? static_cast<char>(c) : '-';
    if (s.empty()) s = "rhoflow";
    return "fig:" + s + "-" + figure;
}

std::string output_stem(const fs::path& dir) {
    std::string n = fs::path(dir).lexically_normal().filename().string();
    if (n.empty()) n = fs::path(dir).lexically_normal().parent_path().filename().string();
    const auto tmp = n.find(".tmp");
    if (n.size() > 1 && n[0] == '.' && tmp != std::string::npos && tmp > 1) n = n.substr(1, tmp - 1);
    return n;
}

namespace {

// The figure's script NAME.gp (after a header: how to regenerate it, the provenance) and its
// caption file; what a killed run left of its images is removed. Returns the header.
std::string write_script_files(const fs::path& dir, const Figure& f, const Outputs& final_names,
                               const FigureGeometry& g, const std::string& stem,
                               const std::vector<std::string>& provenance) {
    std::string header = fmt::format("# {0}: regenerate with `gnuplot {0}.gp` in this directory.\n", f.name);
    for (const auto& line : provenance) header += fmt::format("# {}\n", line);  // one line each (provenance_lines)
    write_file_atomic(dir / (f.name + ".gp"), header + script(f, final_names, g));
    const std::string short_name = f.name.rfind("fig_", 0) == 0 ? f.name.substr(4) : f.name;
    if (!f.caption.empty())
        write_file_atomic(dir / (f.name + ".caption.tex"), caption_file(f, figure_label(stem, short_name)));
    // What a killed run left of this figure's images (the cairolatex pair under its stem too),
    // whether or not this run renders.
    for (const auto& name : {final_names.png, final_names.pdf, final_names.svg}) remove_stale_temporaries(dir / name);
    remove_stale_temporaries(dir / (f.name + "-latex"), {".tex", ".pdf"});
    return header;
}

// The status line of a figure not rendered (gnuplot missing, or rendering not asked for).
std::string not_rendered(const fs::path& dir, const Figure& f, bool render) {
    return render ? fmt::format("warning: {0}: gnuplot not found on the PATH, figure not rendered; data "
                                "and {0}.gp written (apt-get install gnuplot-nox, then run gnuplot "
                                "{0}.gp in {1})",
                                f.name, dir.string())
                  : fmt::format("{}: data and {}.gp written (not rendered)", f.name, f.name);
}

// The temporaries one figure is rendered into, renamed into its final files once all are written.
struct Temporaries {
    std::vector<fs::path> images, tmps;  // the final PNG, PDF and SVG, and their temporaries
    fs::path tex_stem, tex_tmp, tex_pdf_tmp;  // the cairolatex pair's temporary stem and files
    fs::path run;                             // the script gnuplot runs
    void remove() const {
        std::error_code ec;
        for (const auto& p : tmps) fs::remove(p, ec);
        for (const auto* p : {&tex_tmp, &tex_pdf_tmp, &run}) fs::remove(*p, ec);
    }
};

Temporaries temporaries_of(const fs::path& dir, const Figure& f, const Outputs& final_names) {
    Temporaries t;
    t.images = {dir / final_names.png, dir / final_names.pdf, dir / final_names.svg};
    for (const auto& p : t.images) t.tmps.push_back(detail::temporary_sibling(p));
    t.tex_stem = latex_temporary_stem(dir, f.name);
    t.tex_tmp = t.tex_stem.string() + ".tex", t.tex_pdf_tmp = t.tex_stem.string() + ".pdf";
    t.run = detail::temporary_sibling(dir / (f.name + ".gp"));
    return t;
}

// gnuplot run on the script rendering into the temporaries (the script itself removed after).
Finished run_gnuplot(const fs::path& dir, const Figure& f, const FigureGeometry& g, const std::string& header,
                     const Temporaries& t, const fs::path& gnuplot, double timeout) {
    Finished done;
    try {
        const Outputs temporary{t.tmps[0].filename().string(), t.tmps[1].filename().string(),
                                t.tmps[2].filename().string(), t.tex_tmp.filename().string()};
        write_file_atomic(t.run, header + script(f, temporary, g));  // line for line the .gp, for gnuplot's messages
        done = run_captured(gnuplot, {"gnuplot", t.run.filename().string()}, dir, timeout);
    } catch (...) {
        t.remove();
        throw;
    }
    std::error_code ec;
    fs::remove(t.run, ec);
    return done;
}

// Throws (removing the temporaries) unless gnuplot finished in time and wrote every image.
void check_rendered(const Finished& done, const fs::path& dir, const Figure& f, const Temporaries& t,
                    const fs::path& gnuplot, double timeout) {
    if (done.timed_out) {
        t.remove();
        throw IoError(fmt::format("gnuplot ({}) did not finish {} within {} s and was killed "
                                  "(RHOFLOW_GNUPLOT_TIMEOUT sets the limit, in seconds)",
                                  gnuplot.string(), (dir / (f.name + ".gp")).string(), format_seconds(timeout)));
    }
    const bool ok = done.status != -1 && WIFEXITED(done.status) && WEXITSTATUS(done.status) == 0;
    bool wrote = true;
    for (const auto& p : t.tmps) wrote = wrote && non_empty_file(p);
    if (!f.latex_body.empty()) wrote = wrote && non_empty_file(t.tex_tmp) && non_empty_file(t.tex_pdf_tmp);
    if (ok && wrote) return;
    t.remove();
    std::string msg = done.output;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    // gnuplot names the script and images it was given: say the final names instead.
    replace_all(msg, t.run.filename().string(), f.name + ".gp");
    for (std::size_t i = 0; i < t.tmps.size(); ++i) replace_all(msg, t.tmps[i].filename().string(), t.images[i].filename().string());
    replace_all(msg, t.tex_stem.filename().string(), f.name + "-latex");
    throw IoError(fmt::format("gnuplot ({}) failed on {} ({}){}{}", gnuplot.string(), (dir / (f.name + ".gp")).string(),
                              describe(done.status), ok ? ": it wrote no image" : "", msg.empty() ? "" : ":\n" + msg));
}

// Renames the rendered temporaries into the final images (PDF dates fixed; the cairolatex
// picture names its final graphics); a failure removes the temporaries.
void install_images(const fs::path& dir, const Figure& f, const Outputs& final_names, const Temporaries& t,
                    bool to_column) {
    const bool latex = !f.latex_body.empty();
    try {
        fix_pdf_date(t.tmps[1]);
        if (latex) fix_pdf_date(t.tex_pdf_tmp);
        if (latex) {  // the picture names its graphics after the temporary stem: name the final one
            std::string tex = read_small_file(t.tex_tmp);
            replace_all(tex, t.tex_stem.filename().string(), f.name + "-latex");
            tex = scalable_picture(tex, to_column);
            const fs::path pdf = dir / (f.name + "-latex.pdf");
            if (::rename(t.tex_pdf_tmp.c_str(), pdf.c_str()) != 0) {
                const int err = errno;
                detail::throw_io("cannot rename the rendered image into " + pdf.string(), err);
            }
            write_file_atomic(dir / final_names.tex, tex);
        }
        for (std::size_t i = 0; i < t.images.size(); ++i)
            if (::rename(t.tmps[i].c_str(), t.images[i].c_str()) != 0) {
                const int err = errno;
                detail::throw_io("cannot rename the rendered image into " + t.images[i].string(), err);
            }
    } catch (...) {
        t.remove();
        throw;
    }
    std::error_code ec;
    fs::remove(t.tex_tmp, ec);
}

// Renders one figure with gnuplot into its images; returns its status line.
std::string render_one(const fs::path& dir, const Figure& f, const FigureGeometry& g, const std::string& header,
                       const Outputs& final_names, const fs::path& gnuplot, double timeout, bool to_column) {
    const Temporaries t = temporaries_of(dir, f, final_names);
    const std::string what = (dir / final_names.png).string();
    RemoveOnInterrupt g1(t.tmps[0], what), g2(t.tmps[1], what), g3(t.tmps[2], what), g4(t.tex_tmp, what),
        g5(t.tex_pdf_tmp, what), g6(t.run, what);
    check_rendered(run_gnuplot(dir, f, g, header, t, gnuplot, timeout), dir, f, t, gnuplot, timeout);
    install_images(dir, f, final_names, t, to_column);
    return !f.latex_body.empty() ? fmt::format("{0}: {0}.{{png,pdf,svg}}, {0}-latex.{{tex,pdf}}", f.name)
                                 : fmt::format("{0}: {0}.{{png,pdf,svg}}", f.name);
}

}  // namespace

std::vector<std::string> render_figures(const fs::path& dir, const std::vector<Figure>& figures, bool render,
                                        const FigureParams& size, const std::string& label_stem,
                                        const std::vector<std::string>& provenance) {
    for (const auto& f : figures) check_name(f.name);
    size.validate();
    const std::string stem = label_stem.empty() ? output_stem(dir) : label_stem;
    std::vector<std::string> status;
    const std::optional<fs::path> gnuplot = render ? find_gnuplot() : std::nullopt;
    const double timeout = gnuplot ? gnuplot_timeout() : 0.0;
    for (const auto& f : figures) {
        const FigureGeometry g = figure_geometry(size, f.aspect);
        const Outputs final_names{f.name + ".png", f.name + ".pdf", f.name + ".svg", f.name + "-latex.tex"};
        const std::string header = write_script_files(dir, f, final_names, g, stem, provenance);
        const bool to_column = size.size == "column" || size.size == "page";  // presets; W x H keeps its size
        status.push_back(gnuplot ? render_one(dir, f, g, header, final_names, *gnuplot, timeout, to_column)
                                 : not_rendered(dir, f, render));
    }
    return status;
}

void check_gnuplot_timeout() {
    try {
        gnuplot_timeout();
    } catch (const std::invalid_argument& e) {
        throw InvalidArgument("RHOFLOW_GNUPLOT_TIMEOUT", e.what());
    }
}

}  // namespace rhoflow
