// A table's files, whatever it tabulates: STEM.csv with its sidecar STEM.csv.meta.json (the
// provenance, the caption and each column's JSON path in the result document), STEM.md and
// STEM.tex (the compact paper table when there is one); and CITATION.bib. Each file is written
// whole or not at all (io/atomic_file.hpp). Used by every writer: compare, check, the runner's
// summaries and prove.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "rhoflow/io/json.hpp"
#include "rhoflow/io/paper_table.hpp"
#include "rhoflow/io/table.hpp"

namespace rhoflow {

/// The CSV's sidecar STEM.csv.meta.json: the provenance's keys, "caption", "meta" (the
/// parameters), "rows" (the document array the rows come from, if any) and "columns" (name,
/// header, "json": the value's path within a row of that array, "description", "unit" and
/// "integer": whether every value is an integer, a step or a count).
std::string csv_sidecar(const Table& t, const Provenance& provenance);
/// Sets each column's JSON path (its key, or `renamed`'s entry) and the table's json_rows.
void set_json_paths(Table& t, const std::string& rows, const std::vector<std::pair<std::string, std::string>>& renamed);
/// Writes a table as STEM.csv (every column, + STEM.csv.meta.json) and STEM.md, STEM.tex: the
/// compact `paper` table when given (docs/cli.md, "Tables for papers"), else `t` whole; each
/// carrying `provenance`.
void write_table_files(Table t, const std::filesystem::path& dir, const std::string& stem, const Provenance& provenance,
                       const PaperTable* paper = nullptr);
/// The same with several paper tables in STEM.md and STEM.tex (one after the other; the .tex's
/// first line names the packages all of them need).
void write_table_files(Table t, const std::filesystem::path& dir, const std::string& stem, const Provenance& provenance,
                       const std::vector<PaperTable>& papers);
/// The name of an output folder's citation file.
inline constexpr const char* kCitationFile = "CITATION.bib";
/// Writes DIR/CITATION.bib (io/json.hpp, citation_bib).
void write_citation(const std::filesystem::path& dir, const Provenance& provenance);

}  // namespace rhoflow
