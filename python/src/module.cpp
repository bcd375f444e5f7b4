// The compiled half of the Python package rhoflow (docs/python.md): the library's jobs
// (experiment/jobs.hpp) run from Python, thin like the command line.
//  - Parameters arrive as (setting key, Python value) pairs, converted to typed values
//    (setting_value.hpp: no text in between) and set through the settings table
//    (experiment/settings.hpp), the one table behind the command line's flags and the experiment
//    files' keys: the same checks, the same validate(), the same job, hence the same bits as
//    `rhoflow SUB --json`; the defaults come back typed the same way. An InvalidArgument becomes
//    rhoflow.InvalidArgument (a ValueError) with the library's message, prefixed by the Python
//    keyword when the library names the field otherwise ("hit: hit_eps = 2 is out of range ...").
//  - Every run happens on a worker thread with the GIL released; the calling thread waits in
//    steps of 50 ms, and between them (holding the GIL) checks for signals (PyErr_CheckSignals:
//    Ctrl-C in the main thread) and calls the progress callback. On a signal it requests the
//    run's CancelFlag (exec/parallel.hpp), waits for the worker to stop at its next check
//    (between tasks, every 1000 SGA steps) and raises the KeyboardInterrupt; nothing is written.
//  - A result stays typed in C++ (Result: the job and its result), for to_json and save through
//    the library's hooks and writers. Python gets it with its data converted once (convert.hpp):
//    the ODE's t, rho, rho_err and an ensemble's record steps and times as read-only NumPy views
//    of the result's own vectors (no copy), an ensemble's per-trial records stacked into
//    (trials x records) arrays, everything else by the generic JSON rule.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <fmt/format.h>
#include <filesystem>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "convert.hpp"
#include "setting_value.hpp"
#include "rhoflow/io/check_output.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/core/cancel.hpp"
#include "rhoflow/experiment/atlas.hpp"
#include "rhoflow/experiment/job_table.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "rhoflow/experiment/memory.hpp"
#include "rhoflow/experiment/runner.hpp"
#include "rhoflow/experiment/settings.hpp"
#include "rhoflow/io/atomic_file.hpp"
#include "rhoflow/io/compare_output.hpp"
#include "rhoflow/io/output_dir.hpp"
#include "rhoflow/io/read_back.hpp"
#include "rhoflow/version.hpp"

namespace rhoflow::python {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Pairs = std::vector<std::pair<std::string, py::object>>;

// ------------------------------------------------------------------------------- errors

py::object& invalid_argument_type() {
    static py::object* t = new py::object();
    return *t;
}
py::object& numerical_error_type() {
    static py::object* t = new py::object();
    return *t;
}

[[noreturn]] void raise_invalid(const std::string& message, const std::string& field, std::string parameter) {
    std::replace(parameter.begin(), parameter.end(), '-', '_');
    const std::string leaf = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    const std::string text = leaf == parameter || parameter.empty() ? message : parameter + ": " + message;
    py::object e = invalid_argument_type()(text);
    e.attr("field") = field;
    e.attr("parameter") = parameter.empty() ? leaf : parameter;
    PyErr_SetObject(invalid_argument_type().ptr(), e.ptr());
    throw py::error_already_set();
}

// The exceptions that reach Python from any call of the module.
void translate(std::exception_ptr p) {
    try {
        if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
        try {
            raise_invalid(e.what(), e.field(), "");
        } catch (py::error_already_set& err) {
            err.restore();
        }
    } catch (const NumericalError& e) {
        PyErr_SetString(numerical_error_type().ptr(), e.what());
    } catch (const Interrupted&) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const IoError& e) {
        PyErr_SetString(PyExc_OSError, e.what());
    } catch (const fs::filesystem_error& e) {
        PyErr_SetString(PyExc_OSError, e.what());
    } catch (const json::exception& e) {
        PyErr_SetString(PyExc_ValueError, plain_message(e).c_str());
    }
}

// ------------------------------------------------------------------------------- jobs

// A setting's key as its Python keyword ("t-end" -> "t_end").
std::string keyword(const std::string& key) { return spelled(key, SettingSpelling::keyword); }

// Sets the Python value of setting `key` into the job; an InvalidArgument is raised naming the
// keyword and the library's field less its first `strip` characters (a Model's "model.").
void set_python(const Setting& s, Job& job, const std::string& key, py::handle value, std::size_t strip = 0) {
    try {
        s.set_value(job, value_for(s, value, keyword(key)));
    } catch (const InvalidArgument& e) {
        raise_invalid(e.what(), e.field().substr(std::min(strip, e.field().size())), key);
    }
}

// `adjust` (if given) changes the job after the settings and before it is validated.
Job build_job(const std::string& command, const Pairs& settings, const std::function<void(Job&)>& adjust = {}) {
    Job job = make_job(command);
    auto given = [&](const std::string& key) {
        return std::any_of(settings.begin(), settings.end(), [&](const auto& kv) { return kv.first == key; });
    };
    try {  // keywords that need, exclude or stand for another (prove: a claim, or verify=)
        check_given(command, given, SettingSpelling::keyword);
    } catch (const InvalidArgument& e) {
        const Setting* s = find_setting(command, e.field());
        raise_invalid(e.what(), s ? s->field : e.field(), e.field());
    }
    for (const auto& [key, value] : settings) {
        const Setting* s = find_setting(command, key);
        if (!s) throw py::type_error(command + "() got an unexpected keyword argument '" + key + "'");
        set_python(*s, job, key, value);
    }
    try {
        finish_settings(job);
        if (adjust) adjust(job);
        validate(job);
    } catch (const InvalidArgument& e) {
        raise_invalid(e.what(), e.field(), key_for_field(command, e.field()));
    }
    return job;
}

// The job table's rows as Python sees them (experiment/job_table.hpp): the functions of the
// package are made from these, so that a row added there is a function here.
py::list jobs_of() {
    py::list out;
    for (const JobKind& k : job_kinds()) {
        py::dict d;
        d["name"] = std::string(k.name);
        d["summary"] = std::string(k.summary);
        d["params_type"] = std::string(k.params_type);
        py::list positional;
        std::string_view p = k.positional;
        while (!p.empty()) {
            const auto comma = p.find(',');
            positional.append(std::string(p.substr(0, comma)));
            p = comma == std::string_view::npos ? std::string_view() : p.substr(comma + 1);
        }
        d["positional"] = positional;
        d["progress"] = k.progress;
        d["has_model"] = model_of(k.make()) != nullptr;
        out.append(d);
    }
    return out;
}

py::list settings_of(const std::string& command) {
    const Job defaults = make_job(command);
    py::list out;
    for (const Setting& s : settings_for(command)) {
        py::dict d;
        d["key"] = s.key;
        d["field"] = s.field;
        d["help"] = s.help;
        d["type"] = s.type_name;
        d["group"] = s.group;
        d["switch"] = s.is_switch();
        d["list"] = s.is_list();
        d["required"] = s.required;
        d["unless"] = s.unless;
        d["needs"] = s.needs;
        d["default"] = s.value(defaults);  // typed: bool, int, float, str, list, None
        out.append(d);
    }
    return out;
}

// The job `settings` make, validated, as the JSON its run would record under "params".
py::object params_of(const std::string& command, const Pairs& settings) {
    const Job job = build_job(command, settings);
    return to_python(std::visit([](const auto& j) { return json(j); }, job));
}

// The model a Model(...) stands for, validated like a job's: its JSON (sigma per coordinate).
py::object check_model(const Pairs& settings) {
    Job job = make_job("sga");
    for (const auto& [key, value] : settings) {
        const Setting* s = find_setting("sga", key);
        if (!s || s->field.rfind("model.", 0) != 0) throw py::type_error("Model() got an unexpected keyword argument '" + key + "'");
        set_python(*s, job, key, value, 6);  // the field without "model."
    }
    finish_settings(job);
    const ModelParams& m = *model_of(job);
    try {
        m.validate();
    } catch (const InvalidArgument& e) {
        raise_invalid(e.what(), e.field(), e.field());
    }
    return to_python(json(m));
}

// ------------------------------------------------------------------------------- running

// What the waiting thread does between its waits, holding the GIL: report progress and log
// lines. Returns normally or throws py::error_already_set (the callback raised).
class Reporter {
public:
    Reporter(py::object progress, py::object log) : progress_(std::move(progress)), log_(std::move(log)) {}
    // Called from the worker (no GIL): queues a log line.
    void line(const std::string& s) {
        std::lock_guard<std::mutex> lock(mutex_);
        lines_.push_back(s);
    }
    void report(const ProgressCounter& c, bool last) {
        std::deque<std::string> lines;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            lines.swap(lines_);
        }
        if (!log_.is_none())
            for (const auto& l : lines) log_(l);
        if (progress_.is_none()) return;
        const std::int64_t total = c.total.load(), done = std::min(c.done.load(), total);
        if (total <= 0 || (done == done_ && total == total_)) return;
        if (last && done != total) return;  // an unfinished count at the end: the run did not count all its work
        done_ = done;
        total_ = total;
        progress_(done, total);
    }

private:
    py::object progress_, log_;
    std::mutex mutex_;
    std::deque<std::string> lines_;
    std::int64_t done_ = -1, total_ = -1;
};

// Runs work(counter) on a worker thread with the GIL released, as described at the top.
template <class F>
auto watch(F&& work, Reporter& reporter) -> decltype(work(static_cast<ProgressCounter*>(nullptr))) {
    using R = decltype(work(static_cast<ProgressCounter*>(nullptr)));
    ProgressCounter counter;
    CancelFlag flag;
    std::optional<R> result;
    std::exception_ptr error;
    std::mutex mutex;
    std::condition_variable cv;
    bool finished = false;
    std::thread worker([&] {
        {
            CancelScope scope(&flag);
            try {
                result.emplace(work(&counter));
            } catch (...) {
                error = std::current_exception();
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        finished = true;
        cv.notify_all();
    });
    // Until the worker is joined nothing may leave this loop by an exception.
    std::optional<py::error_already_set> pending;  // KeyboardInterrupt, or what a callback raised
    std::exception_ptr pending_other;
    for (bool over = false; !over;) {
        {
            py::gil_scoped_release nogil;
            std::unique_lock<std::mutex> lock(mutex);
            over = cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; });
        }
        if (pending || pending_other) continue;
        try {
            if (PyErr_CheckSignals() != 0) pending.emplace();
            else reporter.report(counter, false);
        } catch (py::error_already_set& e) {
            pending.emplace(std::move(e));
        } catch (...) {
            pending_other = std::current_exception();
        }
        if (pending || pending_other) flag.request();
    }
    {
        py::gil_scoped_release nogil;
        worker.join();
    }
    if (pending) throw std::move(*pending);
    if (pending_other) std::rethrow_exception(pending_other);
    if (error) std::rethrow_exception(error);
    reporter.report(counter, true);
    return std::move(*result);
}

// ------------------------------------------------------------------------------- results

// A finished job, kept typed for to_json and save.
struct Result {
    Job job;
    JobResult result;
    Provenance provenance;  // made when the job started (or read back from its document)
};

// The provenance of a job run from Python now: the command line is the interpreter's
// (python3 + sys.argv: the script that made the result). Needs the GIL.
Provenance python_provenance(const std::string& command) {
    std::vector<std::string> argv;
    try {
        for (const auto& a : py::module_::import("sys").attr("argv")) argv.push_back(py::str(a));
    } catch (const py::error_already_set&) {
        argv.clear();  // an embedding program without sys.argv: the interpreter alone
    }
    return make_provenance(command, command_line_of(argv, "python3"));
}

// Throws NumericalError naming the first non-finite element, as ensure_finite does for the
// rest of the document (the command line exits 3 on it).
void require_finite(const std::vector<double>& v, const std::string& what) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            throw NumericalError(what + "[" + std::to_string(i) + "] is not finite (" + format_number(v[i]) + ")");
}

// The document of a result whose `aside` vectors are moved out meanwhile (they come as views).
json document_without(const Result& r, std::vector<std::vector<double>*> aside,
                      std::vector<std::vector<std::int64_t>*> aside_int = {}) {
    std::vector<std::vector<double>> saved(aside.size());
    std::vector<std::vector<std::int64_t>> saved_int(aside_int.size());
    for (std::size_t i = 0; i < aside.size(); ++i) saved[i].swap(*aside[i]);
    for (std::size_t i = 0; i < aside_int.size(); ++i) saved_int[i].swap(*aside_int[i]);
    auto restore = [&] {
        for (std::size_t i = 0; i < aside.size(); ++i) saved[i].swap(*aside[i]);
        for (std::size_t i = 0; i < aside_int.size(); ++i) saved_int[i].swap(*aside_int[i]);
    };
    try {
        json doc = document(r.job, r.result, r.provenance);
        restore();
        return doc;
    } catch (...) {
        restore();
        throw;
    }
}

py::object ode_data(OdeJobResult& o, const Result& r, py::handle self) {
    OdeSolution& s = o.solution;
    require_finite(s.t, "t");
    require_finite(s.rho, "rho");
    require_finite(s.rho_err, "rho_err");
    py::object data = to_python(document_without(r, {&s.t, &s.rho, &s.rho_err}));
    put(data, "t", view(s.t, self));
    put(data, "rho", view(s.rho, self));
    put(data, "rho_err", view(s.rho_err, self));
    return data;
}

// The ODE's dense solution at the times `t`: (rho, err), each (starts x times). A result read
// back from its document has none (the JSON does not keep it): a ValueError.
py::tuple ode_sol(const Result& r, const std::vector<double>& t) {
    const auto* o = std::get_if<OdeJobResult>(&r.result);
    if (o == nullptr) throw py::type_error("only an ODE result has a dense solution");
    std::vector<const OdeSolution*> all = {&o->solution};
    for (const OdeSolution& s : o->others) all.push_back(&s);
    py::array_t<double> rho({all.size(), t.size()}), err({all.size(), t.size()});
    auto R = rho.mutable_unchecked<2>();
    auto E = err.mutable_unchecked<2>();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i]->sol.empty())
            throw py::value_error("this ODE result was read back from its JSON document, which does not keep the "
                                  "dense solution: run the ODE again to have it");
        for (std::size_t k = 0; k < t.size(); ++k) {
            const OdePoint p = all[i]->sol(t[k]);
            R(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(k)) = p.rho;
            E(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(k)) = p.err;
        }
    }
    return py::make_tuple(rho, err);
}

py::object ensemble_data(EnsembleResult& e, const Result& r, py::handle self) {
    std::vector<std::vector<double>*> aside = {&e.record_times};
    std::vector<const std::vector<double>*> rho, mass;
    for (std::size_t i = 0; i < e.trials.size(); ++i) {
        TrialResult& t = e.trials[i];
        const std::string at = "trials[" + std::to_string(i) + "].";
        require_finite(t.rho, at + "rho");
        require_finite(t.nuisance_mass, at + "nuisance_mass");
        if (t.rho.size() != e.record_steps.size() || t.nuisance_mass.size() != e.record_steps.size())
            throw std::invalid_argument(at + "rho and " + at + "nuisance_mass must have one value per record step (" +
                                        std::to_string(e.record_steps.size()) + ")");
        aside.push_back(&t.rho);
        aside.push_back(&t.nuisance_mass);
        rho.push_back(&t.rho);
        mass.push_back(&t.nuisance_mass);
    }
    require_finite(e.record_times, "record_times");
    if (e.record_times.size() != e.record_steps.size())
        throw std::invalid_argument("record_times must have one value per record step");
    py::object data = to_python(document_without(r, aside, {&e.record_steps}));
    put(data, "record_steps", view(e.record_steps, self));
    put(data, "record_times", view(e.record_times, self));
    put(data, "rho", stack(rho, e.record_steps.size()));
    put(data, "nuisance_mass", stack(mass, e.record_steps.size()));
    // The per-trial scalars as a table; a trial that never hit has hit_step -1.
    py::object trials = data["trials"];
    if (!py::isinstance<py::dict>(trials)) {  // no trials (a rank's empty share) or one: a table all the same
        trials = new_record();
        put(data, "trials", trials);
    }
    for (const char* key : {"rho", "nuisance_mass"})  // they are the 2-D arrays above
        if (PyDict_DelItemString(trials.ptr(), key) != 0) PyErr_Clear();
    py::array_t<std::int64_t> hit(static_cast<py::ssize_t>(e.trials.size()));
    for (std::size_t i = 0; i < e.trials.size(); ++i) hit.mutable_data()[i] = e.trials[i].hit_step.value_or(-1);
    put(trials, "hit_step", hit);
    return data;
}

// The result's data (see the top) and its library tables, converted once, while no other
// thread has the result.
py::tuple wrap(Job job, JobResult result, Provenance provenance) {
    auto holder = std::make_shared<Result>(Result{std::move(job), std::move(result), std::move(provenance)});
    py::object self = py::cast(holder);
    Result& r = *holder;
    py::object data;
    py::dict tables;
    if (auto* o = std::get_if<OdeJobResult>(&r.result)) {
        data = ode_data(*o, r, self);
    } else if (auto* e = std::get_if<SgaJobResult>(&r.result)) {
        data = ensemble_data(e->ensemble, r, self);
    } else {
        data = to_python(document(r.job, r.result, r.provenance));
    }
    if (const auto* c = std::get_if<CompareResult>(&r.result)) {
        tables["table"] = to_python(compare_table(*c));
        tables["gap"] = to_python(gap_table(*c));
        tables["study"] = to_python(study_table(*c));
    } else if (const auto* k = std::get_if<CheckResult>(&r.result)) {
        tables["points"] = to_python(check_table(std::get<CheckJob>(r.job).check, *k));
    }
    return py::make_tuple(self, data, tables);
}

// The memory limit of a Python call: max_memory ("" = the machine's), as --max-memory.
MemoryLimit memory_limit(const std::string& max_memory) {
    MemoryLimit limit = machine_memory_limit();
    if (!max_memory.empty()) {
        try {
            limit = {parse_memory_size(max_memory, "max_memory"), "max_memory"};
        } catch (const InvalidArgument& e) {
            raise_invalid(e.what(), e.field(), "max_memory");
        }
    }
    limit.setter = "max_memory=SIZE";
    return limit;
}

// Refuses, before it runs, a job whose estimated memory exceeds the limit (experiment/memory.hpp),
// naming the keyword that sizes it, as the command line does.
void check_job_memory(const std::string& command, const Job& job, const MemoryLimit& limit) {
    try {
        check_memory(job, ResultDetail::full, limit);  // a Python result keeps everything
    } catch (const InvalidArgument& e) {
        raise_invalid(e.what(), e.field(), key_for_field(command, e.field()));
    }
}

py::tuple run_job(const std::string& command, const Pairs& settings, py::object progress,
                  const std::string& max_memory) {
    Job job = build_job(command, settings);
    check_job_memory(command, job, memory_limit(max_memory));
    Provenance provenance = python_provenance(command);
    Reporter reporter(std::move(progress), py::none());
    JobResult result = watch([&](ProgressCounter* c) { return run(job, c); }, reporter);
    return wrap(std::move(job), std::move(result), std::move(provenance));
}

// compare() on an sga result's ensemble (compare/compare.hpp): the comparison of what one
// already has, without running the ensemble again. The model and the SGA settings are the
// ensemble's; D_T and the tracking error come from its record steps (every_step = false).
py::tuple compare_ensemble(Result& ensemble, const Pairs& settings) {
    const auto* sga_job = std::get_if<SgaJob>(&ensemble.job);
    auto* sga_result = std::get_if<SgaJobResult>(&ensemble.result);
    if (!sga_job || !sga_result)
        throw py::type_error(std::string("compare_ensemble() takes the result of rhoflow.sga (or one loaded), not a ") +
                             std::string(command_of(ensemble.job)) + " result");
    for (const auto& [key, value] : settings) {
        const Setting* s = find_setting("compare", key);
        if (s && (s->field.starts_with("sga.") || s->field.starts_with("model.")))
            throw py::type_error("compare_ensemble() takes the model and the SGA settings from the ensemble; '" + key +
                                 "' is one of them (pass it to rhoflow.sga)");
    }
    EnsembleResult& ens = sga_result->ensemble;
    ens.model = sga_job->model;  // the ensemble's run is its document's "params" (as result_from_document sets it)
    ens.sga = sga_job->sga;
    Job job = build_job("compare", settings, [&](Job& j) {
        CompareParams& p = std::get<CompareJob>(j).compare;
        p.model = ens.model;
        p.sga = ens.sga;
        p.study_eta0.clear();  // no study: it needs ensembles of its own
    });
    const CompareParams& p = std::get<CompareJob>(job).compare;
    Reporter reporter{py::none(), py::none()};
    auto composed = [&](ProgressCounter*) {
        // The theory's field: the field times field_scale, the explicit step run_compare takes too.
        const DriftField F = theory_field(DriftField::make(p.model, p.field, p.table), p.field_scale);
        CompareResult c = compare(ens, F, p.settings());
        if (p.effective.enabled) add_effective_prediction(c, ens, F);
        return c;
    };
    CompareResult r;
    try {
        r = watch(composed, reporter);
    } catch (const InvalidArgument& e) {  // what the ensemble holds is not a keyword: name it
        const bool of_ensemble = e.field().starts_with("sga.") || e.field().starts_with("ensemble.") ||
                              e.field() == "model" || e.field().starts_with("model.");
        if (!of_ensemble) throw;
        raise_invalid(std::string("the ensemble: ") + e.what(), e.field(), "ensemble");
    }
    return wrap(std::move(job), JobResult(std::move(r)), python_provenance("compare"));
}

// A result from its JSON document (untrusted: the job is validated, the hooks check types).
py::tuple from_document(const json& doc) {
    Job job = job_from_document(doc);  // validated
    JobResult result = result_from_document(job, doc);
    check_result_fits(job, result);  // derived numbers recomputed, shapes against the params
    Provenance provenance = provenance_of_document(job, doc);  // its own
    return wrap(std::move(job), std::move(result), std::move(provenance));
}

// A re-check's report (verification.json: valid, verdict, cells) with the job its run recorded
// (run.json's params of the cell): both untrusted, the job validated.
py::tuple from_report(const std::string& params_text, const std::string& report_text, const std::string& where) {
    try {
        ProveJob job;
        parse_untrusted_json(params_text, where, "params").get_to(job);
        job.validate();
        if (job.verify.empty()) throw std::invalid_argument(where + " is not a re-checked certificate's report");
        JobResult result = result_from_document(job, parse_untrusted_json(report_text, where, "document"));
        Provenance provenance;
        provenance.command = "prove";  // the report records none; the run's index does
        return wrap(Job(std::move(job)), std::move(result), std::move(provenance));
    } catch (const json::exception& e) {
        throw std::invalid_argument(where + " is not a re-check's report: " + plain_message(e));
    } catch (const InvalidArgument& e) {
        throw std::invalid_argument(where + " is not a valid re-check's report: " + e.what());
    }
}

py::tuple from_document_text(const std::string& text, const std::string& where) {
    const json doc = parse_untrusted_json(text, where, "document");
    try {
        return from_document(doc);
    } catch (const json::exception& e) {
        throw std::invalid_argument(where + " is not a rhoflow result document: " + plain_message(e));
    } catch (const InvalidArgument& e) {
        throw std::invalid_argument(where + " is not a valid rhoflow result document: " + e.what());
    }
}

// The bytes of an untrusted file (io/read_back.hpp), read on a worker thread with the GIL
// released: a FIFO or a slow stream freezes no other thread, and Ctrl-C stops the wait.
std::string read_back(const std::string& path, std::size_t max_bytes, const std::string& what) {
    if (path.find('\0') != std::string::npos) {
        std::string shown;
        for (char c : path) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
        throw std::invalid_argument("the path '" + shown + "' holds a NUL character (no file name can)");
    }
    Reporter reporter{py::none(), py::none()};
    return watch([&](ProgressCounter*) { return read_untrusted_file(path, {max_bytes, what}); }, reporter);
}

// Reads the result document of an output folder (or a document file) back.
py::tuple load(const std::string& path) {
    fs::path file = path;
    if (path.find('\0') == std::string::npos && fs::is_directory(file)) {
        fs::path found;
        for (const char* name : {"compare.json", "check.json", "certificate.json", "result.json"})
            if (fs::is_regular_file(file / name)) {
                found = file / name;
                break;
            }
        if (found.empty())
            throw std::invalid_argument(path + " holds no rhoflow output (compare.json, check.json, certificate.json, "
                                               "result.json or run.json)");
        file = found;
    }
    const std::string text = read_back(file.string(), max_document_bytes, "a result document");
    return from_document_text(text, file.string());
}

// The text of a file of an output folder read back (run.json, a table), checked to be JSON
// within the limits when `json_document`.
std::string read_file_text(const std::string& path, bool json_document) {
    std::string text = read_back(path, max_document_bytes, json_document ? "a result document" : "a table");
    if (json_document) parse_untrusted_json(text, path, "document");
    return text;
}

py::dict run_file(const std::string& path, const std::string& out, bool figures, py::object progress,
                  py::object log, const std::string& max_memory, const std::string& text) {
    // `text`: the experiment itself (an atlas's), named `path`; else the file at `path`.
    const Experiment e = text.empty() ? read_experiment(path, out) : read_experiment_text(text, path, out);
    const MemoryLimit limit = memory_limit(max_memory);
    for (const ExperimentCell& c : e.cells) {  // every cell must fit before anything runs, as `rhoflow run` checks
        const ExperimentTask& t = e.tasks[c.task];
        try {
            check_memory(c.job, ResultDetail::full, limit);
        } catch (const InvalidArgument& x) {
            const std::string key = key_for_field(t.command, x.field());
            throw InvalidArgument(key, e.file + ": task '" + t.name + "', cell " + c.dir + ": key '" + key + "': " +
                                           x.what());
        }
    }
    Reporter reporter(std::move(progress), std::move(log));
    ExperimentOptions o;
    o.provenance = python_provenance("run");
    o.render_figures = figures;
    o.log = [&reporter](const std::string& line) { reporter.line(line); };
    ExperimentResult res = watch(
        [&](ProgressCounter* c) {
            o.progress = c;
            return run_experiment(e, o);
        },
        reporter);
    py::list cells;
    for (std::size_t i = 0; i < e.cells.size(); ++i) {
        const ExperimentCell& c = e.cells[i];
        py::dict cell;
        cell["task"] = e.tasks[c.task].name;
        cell["dir"] = c.dir;
        py::dict swept;
        for (const auto& [k, v] : c.swept) swept[py::str(k)] = v;
        cell["swept"] = swept;
        cell["resumed"] = static_cast<bool>(res.resumed.at(i));
        Provenance cell_provenance = o.provenance;
        cell_provenance.experiment_file = e.file;
        cell_provenance.experiment_sha256 = e.sha256;
        cell_provenance.cell_command_line = cell_command_line(e, c);
        cell["result"] = wrap(c.job, std::move(res.results.at(i)), std::move(cell_provenance));
        cells.append(cell);
    }
    py::dict summaries;
    for (const auto& [name, table] : res.summaries) summaries[py::str(name)] = to_python(table);
    py::dict d;
    d["title"] = e.title;
    d["file"] = e.file;
    d["out"] = res.out.string();
    d["cells"] = cells;
    d["summaries"] = summaries;
    return d;
}

}  // namespace
}  // namespace rhoflow::python

PYBIND11_MODULE(_rhoflow, m) {
    namespace py = pybind11;
    namespace rp = rhoflow::python;
    using rhoflow::python::Result;
    m.doc() = "The compiled half of the rhoflow package: the library's jobs, results and outputs (docs/python.md).";
    m.attr("version") = std::string(rhoflow::version);

    rp::invalid_argument_type() = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc("rhoflow.InvalidArgument",
                                  "A parameter outside its accepted range (a ValueError). `parameter` is the keyword "
                                  "argument, `field` the params-struct field the library names.",
                                  PyExc_ValueError, nullptr));
    rp::numerical_error_type() = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc("rhoflow.NumericalError",
                                  "A numerical method could not deliver a finite result to the requested accuracy "
                                  "(a RuntimeError; the command line's exit code 3).",
                                  PyExc_RuntimeError, nullptr));
    m.attr("InvalidArgument") = rp::invalid_argument_type();
    m.attr("NumericalError") = rp::numerical_error_type();
    py::register_exception_translator(&rp::translate);

    py::class_<Result, std::shared_ptr<Result>>(m, "Result", "A finished job, typed as the library keeps it.")
        .def_property_readonly("command", [](const Result& r) { return std::string(rhoflow::command_of(r.job)); })
        .def(
            "document",
            [](const Result& r, int indent) { return rhoflow::document(r.job, r.result, r.provenance).dump(indent); },
            py::arg("indent") = 2, "The JSON document `rhoflow SUB --json` prints for this job and result.")
        .def(
            "save",
            [](const Result& r, const std::string& dir, bool figures) {
                py::gil_scoped_release nogil;
                rhoflow::StagedDirectory out(dir);
                // the folder's name makes the tables' LaTeX labels unique, as `rhoflow SUB --out DIR` does
                auto lines = rhoflow::write_outputs(r.job, r.result, out.path(), figures, r.provenance,
                                                    std::filesystem::path(dir).lexically_normal().filename().string());
                out.commit();
                return lines;
            },
            py::arg("dir"), py::arg("figures") = true,
            "Writes the outputs the command line writes into a folder, complete or absent.")
        .def("ode_sol", &rp::ode_sol, py::arg("t"),
             "An ODE result's dense solution at times t: (rho, err), one row per start.");

    m.def("commands", &rhoflow::job_commands, "The job names, in the order of the command line.");
    m.def("jobs", &rp::jobs_of, "The job table: per job its name, summary, params type, positional keys, progress.");
    m.def("settings", &rp::settings_of, py::arg("command"),
          "The settings table of a job: key, field, help, type, group, switch, list, required, unless, needs, default "
          "(typed).");
    m.def("check_model", &rp::check_model, py::arg("settings"),
          "Validates model settings (key, value) like a job's; the model's JSON.");
    m.def("params", &rp::params_of, py::arg("command"), py::arg("settings"),
          "The job (key, value) settings make, validated, as its JSON params (what a run records), without running it.");
    m.def("run", &rp::run_job, py::arg("command"), py::arg("settings"), py::arg("progress") = py::none(),
          py::arg("max_memory") = "",
          "Runs a job from (key, value) settings: (Result, data, tables).");
    m.def("compare_ensemble", &rp::compare_ensemble, py::arg("ensemble"), py::arg("settings"),
          "compare() on an sga result's ensemble, from (key, value) compare settings: (Result, data, tables).");
    m.def("run_file", &rp::run_file, py::arg("path"), py::arg("out") = "", py::arg("figures") = true,
          py::arg("progress") = py::none(), py::arg("log") = py::none(), py::arg("max_memory") = "",
          py::arg("text") = "", "Runs an experiment file (or `text`, named path).");
    m.def("atlas_experiment", [](const std::string& settings) {
              return rhoflow::atlas_experiment(nlohmann::json::parse(settings).get<rhoflow::AtlasParams>());
          }, py::arg("settings"), "The experiment file of an atlas from its settings (JSON).");
    m.def("load", &rp::load, py::arg("path"), "Reads a result document (or an output folder's) back.");
    m.def("read_text", &rp::read_file_text, py::arg("path"), py::arg("json_document"),
          "The text of a file read back as untrusted (bounded, GIL released); checked as JSON if json_document.");
    m.def("from_report", &rp::from_report, py::arg("params"), py::arg("report"), py::arg("where"),
          "A re-check's result from its job's params (run.json) and its verification.json.");
    m.def("from_document", &rp::from_document_text, py::arg("text"), py::arg("where") = "the document",
          "A result from its JSON document.");
    m.def("set_types", &rp::set_types, py::arg("record"), py::arg("table"));
}
