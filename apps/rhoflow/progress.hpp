// A progress bar on stderr for long runs, drawn only when stderr is a terminal (a log file gets
// no bar characters). It polls an atomic step counter from its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace rhoflow::cli {

class Progress {
public:
    /// Starts drawing `label` with the fraction counter / total, if stderr is a terminal.
    Progress(std::atomic<std::int64_t>& counter, std::int64_t total, std::string label);
    /// Stops and clears the bar.
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

private:
    std::atomic<std::int64_t>& counter_;
    std::int64_t total_;
    std::string label_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace rhoflow::cli
