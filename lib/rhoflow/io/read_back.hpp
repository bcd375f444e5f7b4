// Files rhoflow reads back (certificates, result documents, run folders' manifests, experiment
// files) are untrusted data, read with bounds whatever the path names:
//  - at most `max_bytes` bytes: a larger regular file is refused from its size, a stream
//    (/dev/zero, a pipe) as soon as it has given more;
//  - a FIFO or another stream is read without blocking: each wait for its writer or for more data
//    lasts at most kFifoWriterWait (5) seconds, then the read is refused, never waited for forever;
//    a thread under a CancelScope (core/cancel.hpp) stops meanwhile with Interrupted;
//  - a directory is refused ("it is a directory"), and so is a name holding a NUL character.
// parse_untrusted_json parses such a document with its nesting bounded (max_json_depth), and says
// what is wrong in rhoflow's words, with the line and column, without nlohmann's
// "[json.exception...]" prefix.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rhoflow {

/// The most bytes of a JSON document read back (1 GiB).
inline constexpr std::size_t max_document_bytes = std::size_t{1} << 30;
/// The deepest nesting of arrays and objects in a JSON document read back (rhoflow writes < 10).
inline constexpr int max_json_depth = 64;
/// How long (seconds) reading a FIFO or another stream waits for a writer or for more data.
inline constexpr int kFifoWriterWait = 5;

/// How an untrusted file is read.
struct ReadLimits {
    std::size_t max_bytes = max_document_bytes;  ///< refused beyond this size
    std::string what = "a document read back";   ///< what the file is, for the message of the limit
    bool regular_only = false;                   ///< refuse all but a regular file (not through a symbolic link)
};

/// The bytes of `path` read as above. Throws IoError "PATH: cannot be read: REASON" or "PATH: more
/// than N bytes (SIZE), the limit for WHAT"; Interrupted when the thread's CancelFlag is requested.
std::string read_untrusted_file(const std::filesystem::path& path, const ReadLimits& limits = {});

/// The JSON document `text` (read from `where`), its nesting at most max_json_depth. Throws
/// InvalidArgument(field) "WHERE is not valid JSON: at line L, column C: REASON" (or "... nested
/// deeper than 64 levels ...").
nlohmann::json parse_untrusted_json(std::string_view text, const std::string& where, const std::string& field);

/// `message` without nlohmann's "[json.exception.KIND.N] " prefixes, wherever they stand (errors
/// collected as text from several exceptions, such as the checker's list).
std::string without_json_prefixes(std::string message);

}  // namespace rhoflow
