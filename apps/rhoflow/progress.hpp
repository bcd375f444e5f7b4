// A progress bar on stderr for long runs, drawn only when stderr is a terminal (a log file gets
// no bar characters). It polls the library's ProgressCounter from its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "rhoflow/stochastic/ensemble.hpp"

namespace rhoflow::cli {

class Progress {
public:
    /// Starts drawing `label` with the fraction done / total of `counter`, if stderr is a terminal.
    Progress(const ProgressCounter& counter, std::string label);
    /// Stops and clears the bar.
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

private:
    const ProgressCounter& counter_;
    std::string label_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace rhoflow::cli
