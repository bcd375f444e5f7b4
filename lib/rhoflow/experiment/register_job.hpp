// A kind of job added from one file. register_job<P, R>(row, type) puts a row into the job
// table (experiment/job_table.hpp) for a params struct P and a result struct R that only the
// registering file knows; the command line (a subcommand with a flag per setting), experiment
// files (`command = "NAME"`), the Python module (rhoflow.NAME(...)) and MPI (the job runs whole
// on every rank, rank 0 keeps its result) then run it like a built-in job, and its documents
// record every parameter. P needs validate() (InvalidArgument naming the field) and nlohmann's
// to_json/from_json, R to_json/from_json (an object: its keys go beside the document's own). The
// document file is result.json (rhoflow.load of a folder looks for it; leave document_file unset).
// Register at static initialisation, in a file linked into the program (an object file, not only
// a member of a static library), and read the job table (job_commands(), make_job(), ...) in no
// static initialiser: the first read closes the table, and a registration after it throws.
//
//     const bool registered = rhoflow::register_job<ToyJob, ToyResult>(row, {.run = &run_toy});
//
// The whole recipe: lib/rhoflow/README.md, "Adding a job".
#pragma once

#include <any>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/settings.hpp"

namespace rhoflow {

/// The typed functions of a registered kind of job, of params P and result R.
template <class P, class R>
struct JobType {
    std::function<R(const P&)> run;                                        ///< runs a job (required)
    std::function<std::string(const P&, const R&)> text;                   ///< what the terminal prints (empty: the result's JSON)
    std::function<std::vector<HeadlineRow>(const P&, const R&)> headline;  ///< a sweep summary's rows (empty: none)
    std::function<const ModelParams*(const P&)> model;                     ///< its model, the documents' "model" (empty: none)
};

/// The params of a registered job whose params type is P; std::bad_any_cast for another kind.
template <class P>
const P& params_of(const Job& job) {
    return std::any_cast<const P&>(std::get<RegisteredJob>(job).params);
}
/// The same, to set.
template <class P>
P& params_of(Job& job) {
    return std::any_cast<P&>(std::get<RegisteredJob>(job).params);
}

/// A setting of a registered job that sets the member `member` of its params P, typed by the
/// member: double (NUMBER), int or int64 (INT, range-checked), uint64 (SEED), vector<double>
/// (LIST), bool (a switch), std::string (TEXT). `field` is the member's name as errors name it.
template <class P, class T>
Setting member_setting(std::string key, std::string field, std::string help, std::string group, T P::*member) {
    Setting s;
    s.key = std::move(key);
    s.field = std::move(field);
    s.help = std::move(help);
    s.group = std::move(group);
    if constexpr (std::is_same_v<T, double>) s.type = SettingType::number, s.type_name = "NUMBER";
    else if constexpr (std::is_same_v<T, bool>) s.type = SettingType::toggle;
    else if constexpr (std::is_same_v<T, std::uint64_t>) s.type = SettingType::seed, s.type_name = "SEED";
    else if constexpr (std::is_integral_v<T>) s.type = SettingType::integer, s.type_name = "INT";
    else if constexpr (std::is_same_v<T, std::vector<double>>) s.type = SettingType::numbers, s.type_name = "LIST";
    else if constexpr (std::is_same_v<T, std::string>) s.type = SettingType::text, s.type_name = "TEXT";
    else static_assert(!sizeof(T), "member_setting: a member of another type needs a Setting of its own");
    s.set = [member, f = s.field](Job& job, const SettingValue& v) {
        T& x = params_of<P>(job).*member;
        if constexpr (std::is_same_v<T, double>) x = number_of(v, f);
        else if constexpr (std::is_same_v<T, bool>) x = switch_of(v, f) || x;  // false leaves the default (false)
        else if constexpr (std::is_same_v<T, std::uint64_t>) x = seed_of(v, f);
        else if constexpr (std::is_integral_v<T>) {
            const std::int64_t i = integer_of(v, f);
            if (!std::in_range<T>(i))
                throw InvalidArgument(f, fmt::format("{} = {} is out of range (accepted: an integer in {} ... {})", f, i,
                                                     std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
            x = static_cast<T>(i);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) x = numbers_of(v, f);
        else x = text_of_value(v, f);
    };
    s.value = [member](const Job& job) {
        const T& x = params_of<P>(job).*member;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, std::uint64_t>)
            return SettingValue(static_cast<std::int64_t>(x));
        else return SettingValue(x);
    };
    s.get = [value = s.value](const Job& job) { return text_of_setting(value(job)); };
    if constexpr (std::is_same_v<T, bool>)  // a switch turns on; one on by default could not be turned off
        if (P{}.*member) throw std::logic_error(fmt::format("member_setting('{}'): a switch must default to false", s.key));
    return s;
}

/// Throws std::logic_error unless a registered result's JSON (`keys`, of a default R) is an object
/// whose keys leave the document's own alone (command, params, model, the provenance's): a
/// document is the provenance, "model", "params" and the result's keys side by side.
void check_result_keys(std::string_view name, const nlohmann::json& keys);

/// Adds a kind of job of params P and result R to the job table: `row` gives its name,
/// description, summary, settings (required) and outputs (write defaults to the document
/// alone, document_file to result.json); `type` its run and, optionally, its text, headline
/// and model. The row's texts are string_views kept for the program's life: give literals.
/// Throws std::logic_error when the name is taken or the table was read already.
template <class P, class R>
bool register_job(JobKind row, JobType<P, R> type) {
    if (!type.run || !row.settings) throw std::logic_error(fmt::format("register_job('{}'): run and settings are required", row.name));
    check_result_keys(row.name, nlohmann::json(R{}));
    const std::string_view name = row.name;
    if (!row.write) row.write = &write_document_output;
    if (!row.document_file) row.document_file = [](const Job&) { return std::string("result.json"); };
    row.make = [name] {
        RegisteredJob j;
        j.kind = find_job_kind(name);
        j.params = P{};
        return Job(std::move(j));
    };
    row.run = [run = type.run](const Job& job, ProgressCounter*, ResultDetail, Execution) -> JobResult {
        const auto& j = std::get<RegisteredJob>(job);
        return RegisteredResult{j.kind, run(std::any_cast<const P&>(j.params))};
    };
    JobOps& ops = row.ops;
    ops.params_json = [](const RegisteredJob& j) { return nlohmann::json(std::any_cast<const P&>(j.params)); };
    ops.params_from_json = [](const nlohmann::json& j, RegisteredJob& v) { v.params = j.get<P>(); };
    ops.validate = [](const RegisteredJob& j) { std::any_cast<const P&>(j.params).validate(); };
    ops.result_json = [](const RegisteredResult& r) { return nlohmann::json(std::any_cast<const R&>(r.value)); };
    ops.result_from_json = [name](const nlohmann::json& j) { return RegisteredResult{find_job_kind(name), j.get<R>()}; };
    if (type.model)
        ops.model = [f = type.model](const RegisteredJob& j) { return f(std::any_cast<const P&>(j.params)); };
    ops.text = [f = type.text](const RegisteredJob& j, const RegisteredResult& r) {
        const R& result = std::any_cast<const R&>(r.value);
        return f ? f(std::any_cast<const P&>(j.params), result) : nlohmann::json(result).dump(2) + "\n";
    };
    if (type.headline)
        ops.headline = [f = type.headline](const RegisteredJob& j, const RegisteredResult& r) {
            return f(std::any_cast<const P&>(j.params), std::any_cast<const R&>(r.value));
        };
    return register_job_kind(std::move(row));
}

}  // namespace rhoflow
