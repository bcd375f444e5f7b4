// Checked standard output. rhoflow's main() installs a buffer under std::cout that writes to file
// descriptor 1 with write(2) and remembers the first failure (disk full, an I/O error, a closed
// descriptor), so that a failed write is an error (exit 1, "writing standard output: REASON")
// instead of a silently truncated document. It also makes sure descriptors 0, 1 and 2 are open
// (a closed one is pointed at /dev/null), so that no file rhoflow opens later takes the number of a
// closed standard stream and receives its output; a standard output that was closed when the
// program started (`>&-`) is reported by stdout_closed() and refused before any work.
// Without install_checked_stdout() (the tests run the CLI in-process with std::cout redirected),
// the checks look at std::cout's state only.
#pragma once

#include <string>

namespace rhoflow::cli {

/// Opens /dev/null on whichever of descriptors 0, 1, 2 is closed and puts the checked buffer under
/// std::cout. Call once, first thing in main().
void install_checked_stdout();

/// True when standard output was closed when install_checked_stdout() ran.
bool stdout_closed() noexcept;

/// Flushes std::cout; returns "" or "writing standard output: REASON".
std::string flush_stdout();

/// Flushes std::cout and throws IoError "writing standard output: REASON" when a write failed.
void check_stdout();

}  // namespace rhoflow::cli
