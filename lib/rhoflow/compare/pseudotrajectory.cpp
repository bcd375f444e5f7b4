#include "rhoflow/compare/pseudotrajectory.hpp"

#include <algorithm>
#include <cmath>

namespace rhoflow {

GapTracker::GapTracker(std::function<double(double)> drift, GapConfig config, bool clamp)
    : drift_(std::move(drift)), cfg_(std::move(config)), clamp_(clamp) {
    gaps_.assign(cfg_.anchors.size(), std::nullopt);
    anchor_t_.assign(cfg_.anchors.size(), 0.0);
}

void GapTracker::on_step(std::int64_t k, double t, double rho, double) {
    if (k == 0) ode_.emplace(drift_, rho, cfg_.rtol, cfg_.atol, clamp_);
    // Tracking error from the run's own start.
    const double ode_rho = ode_->at(t);
    sup_track_ = std::max(sup_track_, std::abs(rho - ode_rho));
    while (next_record_ < cfg_.record_steps.size() && cfg_.record_steps[next_record_] < k) ++next_record_;
    if (next_record_ < cfg_.record_steps.size() && cfg_.record_steps[next_record_] == k) {
        ode_records_.push_back(ode_rho);
        ++next_record_;
    }
    // Close the windows this step lies beyond; update the others, closing those whose end this
    // step reaches (up to rounding of the time sum).
    for (auto it = open_.begin(); it != open_.end();) {
        if (t > it->end) {
            gaps_[it->anchor] = it->sup;
            it = open_.erase(it);
            continue;
        }
        it->sup = std::max(it->sup, std::abs(rho - it->flow.at(t - it->t0)));
        if (t >= it->end * (1 - 1e-12)) {
            gaps_[it->anchor] = it->sup;
            it = open_.erase(it);
        } else {
            ++it;
        }
    }
    // Open the windows anchored at this step (the flow restarted from this state); a window of
    // zero length is complete at once with gap 0.
    while (next_anchor_ < cfg_.anchors.size() && cfg_.anchors[next_anchor_] <= k) {
        if (cfg_.anchors[next_anchor_] == k) {
            anchor_t_[next_anchor_] = t;
            const double end = t + cfg_.horizon;
            if (t >= end * (1 - 1e-12))
                gaps_[next_anchor_] = 0.0;
            else
                open_.push_back(Window{next_anchor_, t, end, FlowTracker(drift_, rho, cfg_.rtol, cfg_.atol, clamp_), 0.0});
        }
        ++next_anchor_;
    }
}

}  // namespace rhoflow
