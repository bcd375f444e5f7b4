#include "progress.hpp"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

#include "rhoflow/exec/team.hpp"

namespace rhoflow::cli {

Progress::Progress(const ProgressCounter& counter, std::string label) : counter_(counter), label_(std::move(label)) {
    if (!::isatty(STDERR_FILENO) || !team_root()) return;  // under MPI: rank 0's bar only
    thread_ = std::thread([this] {
        const auto start = std::chrono::steady_clock::now();
        while (!stop_.load()) {
            const std::int64_t total = counter_.total.load();
            const double f = total > 0 ? std::min(1.0, static_cast<double>(counter_.done.load()) /
                                                           static_cast<double>(total))
                                       : 0.0;
            const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const int width = 30, filled = static_cast<int>(f * width);
            std::string bar(static_cast<std::size_t>(filled), '=');
            bar.resize(static_cast<std::size_t>(width), ' ');
            const std::string eta = f > 0.01 ? fmt::format("{:.0f}s left", el * (1 - f) / f) : "";
            std::fprintf(stderr, "\r%s [%s] %3.0f%% %s   ", label_.c_str(), bar.c_str(), 100 * f, eta.c_str());
            std::fflush(stderr);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 60, "");
        std::fflush(stderr);
    });
}

Progress::~Progress() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

}  // namespace rhoflow::cli
