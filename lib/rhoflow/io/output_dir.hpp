// Output folders that appear complete or not at all.
//
// A StagedDirectory stands for a folder FINAL that a command fills with several files (compare's
// tables, JSON and figures; an experiment file's runs). Everything is written into a sibling
// temporary folder `.NAME.tmp.PID.HOST.N` (NAME = FINAL's name); commit() moves it into place
// under FINAL in one rename. Until then FINAL is untouched: a reader, a crash, an exception or
// an interruption sees the previous FINAL (or none), never a mix of old and new files.
//
//   StagedDirectory out(dir);                        // may throw IoError: nothing is written
//   write_file_atomic(out.path() / "a.json", ...);  // or any plain write under out.path()
//   render_figures(out.path(), figures);
//   out.commit();                                    // FINAL now holds exactly these files
//
// Guarantees and failures:
//  - construction resolves FINAL like write_file_atomic (a symbolic link is followed and its
//    target replaced), creates missing parent folders, removes the temporaries of FINAL left
//    by dead processes (SIGKILL; see atomic_file.hpp), and creates the temporary folder with a
//    marker file `.rhoflow-output`; the temporary folder is registered with interrupt.hpp, so
//    SIGINT/SIGTERM remove it once the program enabled that;
//  - if something other than a folder is in the way of FINAL, construction (and commit) throw
//    IoError; so does an existing folder FINAL that is not empty and holds no `.rhoflow-output`
//    marker, under Replace::marked (the default): replacing it would delete files rhoflow did
//    not write (think `--out ~`). Replace::any replaces any folder. A FINAL that is the working
//    directory or holds it (`--out .` inside an earlier output folder, `--out ..`) is refused
//    whatever `replace` says: replacing it would pull the folder from under the caller's shell;
//  - check() and construction also refuse, before any work, a FINAL whose nearest existing
//    folder on the way may not be written (permissions, an immutable folder, a read-only file
//    system), and an existing FINAL that may not be written (whose old files could not be removed);
//  - commit() syncs every file and folder of the temporary folder to disk, then renames it to
//    FINAL. An existing folder FINAL is swapped with it atomically (Linux renameat2
//    RENAME_EXCHANGE) and the old one then removed; where the exchange is unsupported, the old
//    folder is first renamed aside, so FINAL is briefly absent, never mixed. Failure: IoError,
//    FINAL untouched, the temporary folder left to the destructor;
//  - the destructor of an uncommitted StagedDirectory removes the temporary folder and never throws.
#pragma once

#include <filesystem>
#include <string>

#include "rhoflow/io/interrupt.hpp"

namespace rhoflow {

/// Which existing folder FINAL a StagedDirectory may replace.
enum class Replace {
    marked,  ///< an empty folder or one holding the `.rhoflow-output` marker (written by rhoflow)
    any,     ///< any folder (its whole content is deleted on commit)
};

/// A folder written in a temporary sibling and moved into place whole (see above).
class StagedDirectory {
public:
    /// The marker file each staged folder holds: `.rhoflow-output`.
    static constexpr const char* marker = ".rhoflow-output";

    /// Stages the folder `final_path`; throws IoError if it cannot be (see above).
    explicit StagedDirectory(const std::filesystem::path& final_path, Replace replace = Replace::marked);
    /// Removes the temporary folder unless committed; never throws.
    ~StagedDirectory();
    StagedDirectory(const StagedDirectory&) = delete;
    StagedDirectory& operator=(const StagedDirectory&) = delete;

    /// The temporary folder to write into (before commit), FINAL's temporary sibling.
    const std::filesystem::path& path() const noexcept { return tmp_; }
    /// FINAL as resolved (symbolic links followed): where commit() puts the folder.
    const std::filesystem::path& final_path() const noexcept { return final_; }
    /// Syncs and renames the temporary folder to FINAL, replacing an existing one; throws IoError.
    void commit();
    /// True once commit() succeeded.
    bool committed() const noexcept { return committed_; }

    /// Throws IoError if `final_path` could not be staged and committed now (a non-folder in the
    /// way, a folder `replace` forbids replacing, the working directory, a folder that may not be
    /// written); creates and removes nothing. For checking an output folder before long work.
    static void check(const std::filesystem::path& final_path, Replace replace = Replace::marked);

private:
    std::filesystem::path given_, final_, tmp_;
    Replace replace_;
    RemoveOnInterrupt guard_;
    bool committed_ = false;
};

/// `message` with each mention of the temporary folder `tmp` (a whole path component, alone or
/// followed by '/') replaced by `final_path`: an error met while a folder is written in its
/// temporary names the file the user will look for (StagedDirectory, a run's cells).
std::string with_final_name(std::string message, const std::filesystem::path& tmp,
                            const std::filesystem::path& final_path);

/// True when `p` is `folder` or lies inside it, both made absolute and their symbolic links
/// followed as far as they exist; false when either cannot be resolved.
bool is_within(const std::filesystem::path& p, const std::filesystem::path& folder);

/// True when `p` is the working directory or a folder that holds it (is_within(cwd, p)).
bool holds_working_directory(const std::filesystem::path& p);

}  // namespace rhoflow
