// Atomic file output: content goes to a temporary file in the target's directory, which is
// flushed and then renamed over the target. An interrupted or failed run therefore never
// leaves a partial file under the final name (rename is atomic within a file system).
#pragma once

#include <filesystem>
#include <string>

namespace rhoflow {

/// Writes `content` to `path` atomically; creates missing parent directories. Throws
/// std::runtime_error naming the path on failure (and removes the temporary file).
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

}  // namespace rhoflow
