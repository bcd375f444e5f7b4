// The rhoflow command line: a thin layer over the library (see docs/cli.md).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "cli.hpp"
#include "stdout.hpp"
#include "rhoflow/exec/team.hpp"
#include "rhoflow/io/interrupt.hpp"

namespace {
// This process's rank as the launcher says (mpirun, srun), before MPI starts: for messages.
std::string launcher_rank() {
    for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
        if (const char* r = std::getenv(v); r && *r) return r;
    return "";
}

// Whether an MPI launcher started this process (mpirun, mpiexec, srun). Without one, MPI is not
// initialised at all: a singleton MPI_Init costs about half a second (Open MPI starts a daemon),
// which every plain `rhoflow ...` would pay for nothing.
bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (const char* x = std::getenv(v); x && *x) return true;
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");  // srun without a PMI variable
    return std::getenv("SLURM_PROCID") && tasks && std::atoi(tasks) > 1;
}

// A rank whose launcher is gone (mpirun killed or crashed before it could end the ranks) would
// go on alone, and rank 0 might even finish the run behind the back of a rerun: it stops itself
// instead, by SIGTERM, so that the interrupt cleanup removes its temporaries.
[[noreturn]] void stop_orphaned_rank() {
    ::kill(::getpid(), SIGTERM);
    std::this_thread::sleep_for(std::chrono::seconds(5));  // the signal thread ends the process meanwhile
    std::_Exit(143);
}
}  // namespace

int main(int argc, char** argv) {
    // Before anything opens a file: descriptors 0-2 open, std::cout's writes checked.
    rhoflow::cli::install_checked_stdout();
    // First, before any thread starts (MPI's included, so that they inherit the blocked signals):
    // SIGINT/SIGTERM/SIGHUP then remove the partial output (temporary files and folders), say so
    // on stderr and exit with 128 + the signal number. Under mpirun, which forwards SIGTERM to
    // every rank, rank 0 alone has temporaries; the others just say they were interrupted.
    const std::string rank = launcher_rank();
    const std::string program = rank.empty() || rank == "0" ? "rhoflow" : "rhoflow (rank " + rank + ")";
    try {
        rhoflow::enable_interrupt_cleanup(program);
    } catch (const std::exception& e) {
        std::cerr << program << ": warning: " << e.what() << "; an interruption may leave temporary files\n";
    }
    std::optional<rhoflow::MpiSession> mpi;
    try {
        mpi.emplace(&argc, &argv, launched_by_mpi(), stop_orphaned_rank);  // without MPI (RHOFLOW_MPI=OFF) a team of one
    } catch (const std::exception& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return 1;
    }
    std::vector<std::string> args(argv + 1, argv + argc);
    const int code = rhoflow::cli::dispatch(args);
    rhoflow::interrupt_work_done();  // a launcher's SIGTERM while MPI shuts down: no "interrupted" message
    return code;
}
