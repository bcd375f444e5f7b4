#include "progress.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

#include "rhoflow/exec/team.hpp"

namespace rhoflow::cli {

std::optional<double> seconds_left(double elapsed, double fraction) {
    if (!(fraction > 0)) return std::nullopt;
    return elapsed * (1 - std::min(fraction, 1.0)) / std::min(fraction, 1.0);
}

std::string duration_text(double seconds) {
    const auto s = static_cast<std::int64_t>(std::llround(std::max(seconds, 0.0)));
    if (s < 60) return fmt::format("{} s", s);
    if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
    return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

std::optional<double> TimeLeft::at(double elapsed, double fraction) {
    if (fraction != fraction_) {
        fraction_ = fraction;
        since_ = elapsed;
    }
    const auto then = seconds_left(since_, fraction);
    if (!then) return std::nullopt;
    const double countdown = *then - (elapsed - since_);
    return countdown > 0 ? countdown : seconds_left(elapsed, fraction);
}

std::string run_progress_line(std::int64_t cells_done, std::int64_t cells_total, std::optional<double> steps,
                              std::optional<double> left) {
    return fmt::format("rhoflow run: {}/{} cells, {}{}", cells_done, cells_total,
                       steps ? fmt::format("SGA steps {:.0f}%, ", 100 * std::clamp(*steps, 0.0, 1.0)) : std::string(),
                       left ? duration_text(*left) + " left" : std::string("time left after the first cell"));
}

std::optional<double> steps_fraction(const ProgressCounter& steps) {
    const std::int64_t total = steps.total.load();
    if (total <= 0) return std::nullopt;
    return std::min(1.0, static_cast<double>(steps.done.load()) / static_cast<double>(total));
}

double work_fraction(double work_done, double work_total) { return work_total > 0 ? work_done / work_total : 0.0; }

bool progress_wanted() { return ::isatty(STDERR_FILENO) && team_root(); }  // under MPI: rank 0's only

namespace {

void to_stderr(const std::string& bytes) {
    std::fputs(bytes.c_str(), stderr);
    std::fflush(stderr);
}

// compare's and sga's bar: "LABEL [=====     ]  42% 31s left".
std::string bar_line(const ProgressCounter& counter, const std::string& label, double elapsed) {
    const std::int64_t total = counter.total.load();
    const double f =
        total > 0 ? std::min(1.0, static_cast<double>(counter.done.load()) / static_cast<double>(total)) : 0.0;
    const int width = 30, filled = static_cast<int>(f * width);
    std::string bar(static_cast<std::size_t>(filled), '=');
    bar.resize(static_cast<std::size_t>(width), ' ');
    const std::string eta = f > 0.01 ? fmt::format("{:.0f}s left", elapsed * (1 - f) / f) : "";
    return fmt::format("{} [{}] {:3.0f}% {}", label, bar, 100 * f, eta);
}

}  // namespace

Progress::Progress(const ProgressCounter& counter, std::string label)
    : Progress([&counter, label = std::move(label)](double elapsed) { return bar_line(counter, label, elapsed); },
               progress_wanted()) {}

Progress::Progress(std::function<std::string(double)> line, bool draw, Sink sink)
    : line_(std::move(line)), sink_(sink ? std::move(sink) : Sink(to_stderr)) {
    if (draw) thread_ = std::thread([this] { loop(); });
}

namespace {

// "\r" + text + n spaces (built by appending: GCC 12 warns falsely on "\r" + std::string, PR 105329).
std::string from_line_start(const std::string& text, std::size_t spaces) {
    std::string s = "\r";
    s += text;
    s.append(spaces, ' ');
    return s;
}

}  // namespace

void Progress::loop() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
        const std::string l = line_(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        longest_ = std::max(longest_, l.size());
        sink_(from_line_start(l, longest_ - l.size()));  // a shorter line covers the longer one
        wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; });
    }
    sink_(from_line_start("", longest_) + "\r");
}

void Progress::note(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) sink_(from_line_start("", longest_) + "\r");  // redrawn at the next tick
    sink_(line + "\n");
}

Progress::~Progress() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace rhoflow::cli
