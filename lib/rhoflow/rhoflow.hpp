// The umbrella header: every public header of the library, part by part (lib/rhoflow/README.md).
//   #include <rhoflow/rhoflow.hpp>      and link rhoflow::rhoflow (find_package(rhoflow)).
#pragma once

#include "rhoflow/version.hpp"

// core
#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"

// exec
#include "rhoflow/exec/parallel.hpp"
#include "rhoflow/exec/team.hpp"

// model
#include "rhoflow/model/model.hpp"
#include "rhoflow/model/sample.hpp"
#include "rhoflow/model/update_rule.hpp"

// field
#include "rhoflow/field/drift_field.hpp"
#include "rhoflow/field/exact_field.hpp"
#include "rhoflow/field/field.hpp"
#include "rhoflow/field/gradient_moments.hpp"
#include "rhoflow/field/meanfield.hpp"
#include "rhoflow/field/montecarlo_field.hpp"

// ode
#include "rhoflow/ode/ode.hpp"
#include "rhoflow/ode/phase.hpp"

// stochastic
#include "rhoflow/stochastic/ensemble.hpp"
#include "rhoflow/stochastic/full_sampler.hpp"
#include "rhoflow/stochastic/reduced_sampler.hpp"
#include "rhoflow/stochastic/schedule.hpp"

// effective
#include "rhoflow/effective/effective.hpp"
#include "rhoflow/effective/explain_gap.hpp"
#include "rhoflow/effective/stationary.hpp"
#include "rhoflow/effective/step_moments.hpp"

// compare
#include "rhoflow/compare/compare.hpp"
#include "rhoflow/compare/outcomes.hpp"
#include "rhoflow/compare/pseudotrajectory.hpp"

// io
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/folder_lock.hpp"
#include "rhoflow/io/interrupt.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/table.hpp"
#include "rhoflow/io/uncertain.hpp"

// check
#include "rhoflow/check/box.hpp"
#include "rhoflow/check/certify.hpp"
#include "rhoflow/check/check.hpp"
#include "rhoflow/check/claim.hpp"
#include "rhoflow/check/output.hpp"

// experiment
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/memory.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/settings.hpp"
