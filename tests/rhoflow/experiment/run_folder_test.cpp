// A run folder read back as untrusted data: cell names of the runner's layout only, folders and
// regular files only, manifests of the runner's shape, errors naming the file without a JSON
// library's own wording.
#include "rhoflow/experiment/detail/run_folder.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/io_test_util.hpp"

using namespace rhoflow;
using namespace rhoflow::test;

TEST_CASE("run folder: only names of the runner's layout are cell names") {
    for (const char* ok : {"s/run", "s/theta=0.5", "task-1.b/L=1000_theta=1e-05", "s/rho=0_0.5", "x/seed=18446744073709551615"})
        CHECK(detail::is_cell_name(ok));
    for (const char* bad : {"/abs/victim", "../victim", "s/../../x", "s/a/b", "s/", "/s/run", "s", "", ".s/run", "s/.x",
                            "s/..", "s/ run", "manifest.json/run", "run.json/run", "s/a\nb", "s/=1", "s/1=2"})
        CHECK_FALSE(detail::is_cell_name(bad));
    CHECK_FALSE(detail::is_cell_name("s/" + std::string(256, 'a')));
    CHECK(detail::is_task_name("paper.v2"));
    CHECK_FALSE(detail::is_task_name("manifest.json"));
    CHECK_FALSE(detail::is_task_name(".hidden"));
}

TEST_CASE("run folder: a symbolic link, a FIFO or the root as a link are refused, naming the entry") {
    TempDir t("run_tree");
    fs::create_directories(t / "o" / "s" / "run");
    write_text(t / "o" / "s" / "run" / "result.json", "{}");
    CHECK(error_of<IoError>([&] { detail::check_run_tree(t / "o"); }).empty());
    fs::create_symlink("/etc", t / "o" / "s" / "link");
    CHECK(error_of<IoError>([&] { detail::check_run_tree(t / "o"); }).find("s/link is a symbolic link") != std::string::npos);
    fs::remove(t / "o" / "s" / "link");
    REQUIRE(::mkfifo((t / "o" / "s" / "run" / "fifo").c_str(), 0600) == 0);
    CHECK(error_of<IoError>([&] { detail::check_run_tree(t / "o"); }).find("run/fifo is a FIFO") != std::string::npos);
    fs::remove(t / "o" / "s" / "run" / "fifo");
    fs::create_directory_symlink(t / "o", t / "l");
    CHECK(error_of<IoError>([&] { detail::check_run_tree(t / "l"); }).find("is a symbolic link") != std::string::npos);
}

TEST_CASE("run folder: a manifest of another shape, or not JSON, is an IoError naming the file") {
    TempDir t("run_manifest");
    const fs::path m = t / "manifest.json";
    write_text(m, R"({"program": "rhoflow", "cells": {"s/run": {"status": "complete", "params": {}, "figures": false}}})");
    CHECK(detail::read_manifest(m)["cells"].size() == 1);
    for (const std::string bad : {"{\"cells\": 5}", "[]", "{}", "{\"cells\": {\"s/run\": 7}}", "{\"cells\": {\"s/run\": {}}}",
                                  "{\"cells\": {\"s/run\": {\"status\": \"complete\", \"figures\": 1}}}", "{\"cells\"", "",
                                  "\xff"}) {
        CAPTURE(bad);
        write_text(m, bad);
        const std::string e = error_of<IoError>([&] { detail::read_manifest(m); });
        CHECK(e.find(m.string()) != std::string::npos);
        CHECK(e.find("json.exception") == std::string::npos);
        CHECK(e.find("type_error") == std::string::npos);
    }
    fs::remove(m);
    fs::create_symlink(t / "elsewhere.json", m);
    CHECK(error_of<IoError>([&] { detail::read_json_file(m); }).find("it is a symbolic link") != std::string::npos);
}
