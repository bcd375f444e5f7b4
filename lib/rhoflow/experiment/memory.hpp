// The memory a job needs, estimated from its sizes before it runs, so that a job the machine
// cannot hold is refused up front (InvalidArgument naming the setting that dominates, exit 2)
// instead of failing late with std::bad_alloc or being killed (docs/cli.md, "Memory").
//
// Method: a sum of the parts that grow with the job's sizes, each a measured cost per unit with
// headroom (peak resident memory under /usr/bin/time, docs/benchmarks.md "Memory"): the samplers'
// workspaces per thread (reduced: 40 bytes x L; full: 8 bytes x L x d), per-trial records of an
// ensemble when the result keeps them (about 4.5 KB + 125 bytes per record step as a JSON
// document; 16 bytes per trial for a summary), the comparator's trials (200 bytes + 40 per record
// step) and effective paths (8 bytes per record step + 48), ODE output points (300 bytes: solution,
// error solves, document and text), phase scan cells, stationary quadrature cells and check points.
// It fails (underestimates) for sizes outside these terms (e.g. a huge --record list is counted,
// a pathological refinement is capped by --max-points), and it does not know what else runs on the
// machine: the limit is the machine's memory (or a cgroup's limit) unless the user sets another.
#pragma once

#include <string>
#include <string_view>

#include "rhoflow/experiment/jobs.hpp"

namespace rhoflow {

/// The estimated peak memory of a job, with the part that dominates it.
struct MemoryEstimate {
    double bytes = 0;      ///< estimated peak resident bytes
    double largest = 0;    ///< bytes of the largest part
    std::string field;     ///< the job field that sizes the largest part ("sga.trials", "model.L", ...)
    std::string what;      ///< what the largest part is, in words, with its sizes
};

/// Estimates the memory of `job` run with `detail` (ResultDetail::summary keeps no per-trial records).
MemoryEstimate estimate_memory(const Job& job, ResultDetail detail = ResultDetail::full);

/// The memory limit when none is given: the smaller of the physical memory and the limit of
/// this process's cgroup (v2 memory.max or v1 memory.limit_in_bytes), with a description.
struct MemoryLimit {
    double bytes = 0;      ///< the limit in bytes
    std::string source;    ///< where it comes from ("physical memory", "cgroup limit", "--max-memory")
    std::string setter = "--max-memory SIZE";  ///< how the user sets another limit, for the message
};
/// The machine's limit as described above.
MemoryLimit machine_memory_limit();

/// A size in bytes: a positive number with an optional binary suffix K, M, G or T (also KiB,
/// MB, ...: powers of 1024), e.g. "512M", "8G", "1.5e9"; InvalidArgument naming `field` otherwise.
double parse_memory_size(std::string_view text, const std::string& field);

/// Bytes as text with a binary unit ("1.5 GiB").
std::string format_bytes(double bytes);

/// Throws InvalidArgument naming the dominating field (as estimate_memory) when the estimate of
/// `job` exceeds `limit`; the message gives the estimate, its largest part and the limit.
void check_memory(const Job& job, ResultDetail detail, const MemoryLimit& limit);

}  // namespace rhoflow
