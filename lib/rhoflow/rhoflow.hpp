// The umbrella header of the numerics: every public header of the numeric parts and their
// result types, part by part (lib/rhoflow/README.md), with nlohmann's declarations only
// (<nlohmann/json_fwd.hpp>: every struct's to_json/from_json is declared, none needs all of
// nlohmann/json to be used). The output code (io/), the job table and the experiment runner come
// with rhoflow/rhoflow_all.hpp. A ctest ("umbrella: ...") checks that this header reaches none of
// them.
//   #include <rhoflow/rhoflow.hpp>      and link rhoflow::rhoflow (find_package(rhoflow)).
#pragma once

#include "rhoflow/version.hpp"

// core
#include "rhoflow/core/cancel.hpp"
#include "rhoflow/core/chebyshev.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/normal_block.hpp"
#include "rhoflow/core/random.hpp"
#include "rhoflow/core/stats.hpp"

// exec
#include "rhoflow/exec/execution.hpp"
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

// check
#include "rhoflow/check/box.hpp"
#include "rhoflow/check/certify.hpp"
#include "rhoflow/check/check.hpp"
#include "rhoflow/check/claim.hpp"

// rigorous, prove
#include "rhoflow/rigorous/enclosure.hpp"
#include "rhoflow/rigorous/independent_enclosure.hpp"
#include "rhoflow/prove/prove.hpp"
#include "rhoflow/prove/verify.hpp"
