// The settings tables of experiment/settings.cpp, one per kind of job, for the job table
// (experiment/job_table.cpp). Not installed: settings_for() is the public way to them.
#pragma once

#include <vector>

#include "rhoflow/experiment/settings.hpp"

namespace rhoflow::detail {

/// The settings of a field job, in --help order.
std::vector<Setting> field_settings();
/// The settings of an ODE job, in --help order.
std::vector<Setting> ode_settings();
/// The settings of a phase-portrait job, in --help order.
std::vector<Setting> phase_settings();
/// The settings of an SGA job, in --help order.
std::vector<Setting> sga_settings();
/// The settings of a comparison, in --help order.
std::vector<Setting> compare_settings();
/// The settings of a stationary-law job, in --help order.
std::vector<Setting> stationary_settings();
/// The settings of a check, in --help order.
std::vector<Setting> check_settings();
/// The settings of a proof (or a certificate re-checked), in --help order.
std::vector<Setting> prove_settings();

}  // namespace rhoflow::detail
