// Progress on stderr for long runs, drawn only when stderr is a terminal (a log file, the tests
// and CI get no bar characters). A thread redraws one line from the first moment and every
// 200 ms: compare's and sga's bar polls the library's ProgressCounter; `rhoflow run`'s line says
// the cells done of the cells to do, the SGA steps taken (live, inside a cell) and the time left
// at the rate of the cells done so far.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow::cli {

/// Seconds left when `fraction` (0 ... 1) of the work took `elapsed` seconds and the rest goes at
/// the same rate: elapsed (1 - f) / f; none before any work is done (f <= 0).
std::optional<double> seconds_left(double elapsed, double fraction);

/// The time left of a run whose share of work done moves in steps (a cell at a time): from the
/// moment the share last changed, seconds_left() then, counted down; once that runs out, the
/// rate so far again (seconds_left() now).
class TimeLeft {
public:
    /// The seconds left at `elapsed` seconds with `fraction` done; none before any work is done.
    std::optional<double> at(double elapsed, double fraction);

private:
    double fraction_ = -1, since_ = 0;
};

/// A duration for a person: "42 s", "3 min 05 s", "2 h 04 min".
std::string duration_text(double seconds);

/// `rhoflow run`'s line: "rhoflow run: 3/8 cells, SGA steps 42%, 1 min 05 s left". `steps` is the
/// share of the SGA steps taken (none: the run has none, and the line does not name them); `left`
/// the seconds left (none before a cell is done: "time left after the first cell").
std::string run_progress_line(std::int64_t cells_done, std::int64_t cells_total, std::optional<double> steps,
                              std::optional<double> left);

/// The share of the SGA steps taken: done / total, none when the run has no SGA steps.
std::optional<double> steps_fraction(const ProgressCounter& steps);

/// The share of a run's estimated work done: the finished cells' (0 when nothing is to do).
double work_fraction(double work_done, double work_total);

/// Whether progress is drawn: stderr is a terminal, and this process is rank 0.
bool progress_wanted();

class Progress {
public:
    /// Writes bytes to stderr (the default drawing).
    using Sink = std::function<void(const std::string&)>;
    /// Starts drawing `label` with the fraction done / total of `counter`, if progress_wanted().
    Progress(const ProgressCounter& counter, std::string label);
    /// Starts redrawing `line(elapsed seconds)` through `sink`, at once and every 200 ms, if
    /// `draw` (else nothing is ever written); the line is cleared at the end.
    Progress(std::function<std::string(double)> line, bool draw, Sink sink = {});
    /// Writes `line` and a newline through the sink above the drawn line (as is when not drawing).
    void note(const std::string& line);
    /// Stops and clears the line.
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

private:
    void loop();

    std::function<std::string(double)> line_;
    Sink sink_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::size_t longest_ = 0;  // the longest line drawn: what a clear covers
    std::thread thread_;
};

}  // namespace rhoflow::cli
