#include "rhoflow/io/table_files.hpp"

#include <nlohmann/json.hpp>

#include "rhoflow/io/atomic_file.hpp"

namespace rhoflow {

using json = nlohmann::json;

std::string csv_sidecar(const Table& t, const Provenance& provenance) {
    json doc = provenance;
    doc["caption"] = t.caption;
    doc["meta"] = t.meta;
    doc["rows"] = t.json_rows;
    doc["columns"] = json::array();
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        doc["columns"].push_back({{"name", t.columns[i].key},
                                  {"header", t.columns[i].header},
                                  {"json", i < t.json_paths.size() ? t.json_paths[i] : std::string()},
                                  {"description", t.columns[i].description},
                                  {"unit", t.columns[i].unit},
                                  {"integer", t.columns[i].integer}});
    return doc.dump(2) + "\n";
}

void set_json_paths(Table& t, const std::string& rows, const std::vector<std::pair<std::string, std::string>>& renamed) {
    t.json_rows = rows;
    t.json_paths.clear();
    for (const auto& c : t.columns) {
        t.json_paths.push_back(c.key);
        for (const auto& [key, path] : renamed)
            if (key == c.key) t.json_paths.back() = path;
    }
}

void write_table_files(Table t, const std::filesystem::path& dir, const std::string& stem, const Provenance& provenance,
                       const PaperTable* paper) {
    t.provenance = provenance_lines(provenance);
    write_file_atomic(dir / (stem + ".csv"), to_csv(t));
    write_file_atomic(dir / (stem + ".csv.meta.json"), csv_sidecar(t, provenance));
    if (!paper) {
        write_file_atomic(dir / (stem + ".md"), to_markdown(t));
        write_file_atomic(dir / (stem + ".tex"), to_latex(t));
        return;
    }
    PaperTable p = *paper;  // the compact table for a paper, with the build and command line too
    p.provenance.insert(p.provenance.end(), t.provenance.begin(), t.provenance.end());
    write_file_atomic(dir / (stem + ".md"), to_markdown(p));
    write_file_atomic(dir / (stem + ".tex"), to_latex(p));
}

void write_table_files(Table t, const std::filesystem::path& dir, const std::string& stem, const Provenance& provenance,
                       const std::vector<PaperTable>& papers) {
    if (papers.size() == 1) return write_table_files(std::move(t), dir, stem, provenance, &papers.front());
    t.provenance = provenance_lines(provenance);
    write_file_atomic(dir / (stem + ".csv"), to_csv(t));
    write_file_atomic(dir / (stem + ".csv.meta.json"), csv_sidecar(t, provenance));
    std::vector<PaperTable> with = papers;
    for (auto& p : with) p.provenance.insert(p.provenance.end(), t.provenance.begin(), t.provenance.end());
    write_file_atomic(dir / (stem + ".md"), to_markdown(with));
    write_file_atomic(dir / (stem + ".tex"), to_latex(with));
}

void write_citation(const std::filesystem::path& dir, const Provenance& provenance) {
    write_file_atomic(dir / kCitationFile, citation_bib(provenance));
}

}  // namespace rhoflow
