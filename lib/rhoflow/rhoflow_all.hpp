// The whole library: the numerics (rhoflow/rhoflow.hpp), the output code that turns their
// results into documents, tables, figures and text (io/), the executor's typed units
// (exec/units.hpp), and the job table, settings and experiment runner (experiment/). Includes all of nlohmann/json.
//   #include <rhoflow/rhoflow_all.hpp>  and link rhoflow::rhoflow (find_package(rhoflow)).
#pragma once

#include "rhoflow/rhoflow.hpp"

// exec: the typed units and their executor (with nlohmann/json)
#include "rhoflow/exec/units.hpp"

// io
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/check_output.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/folder_lock.hpp"
#include "rhoflow/io/interrupt.hpp"
#include "rhoflow/io/json.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/plot.hpp"
#include "rhoflow/io/prove_output.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/io/result_output.hpp"
#include "rhoflow/io/table.hpp"
#include "rhoflow/io/table_files.hpp"
#include "rhoflow/io/uncertain.hpp"

// experiment
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/register_job.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/memory.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/settings.hpp"
