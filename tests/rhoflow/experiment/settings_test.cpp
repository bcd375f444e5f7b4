// The settings table: strict parsing of values (exactly what settings.hpp documents), and for
// every command and setting: get/set round trips, the setting changes exactly the job field it
// names, key_for_field maps that field back to the setting, and a per-norm sigma is divided
// by sqrt(d) exactly once.
#include "rhoflow/experiment/settings.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "rhoflow/check/box.hpp"
#include "rhoflow/core/errors.hpp"
#include "rhoflow/experiment/jobs.hpp"
#include "test_util.hpp"

using namespace rhoflow;
using nlohmann::json;

namespace {

json job_json(const Job& job) {
    return std::visit([](const auto& j) { return json(j); }, job);
}

// The message of the InvalidArgument f() throws ("" if none), checking it names `field`.
template <class F>
std::string refusal(F&& f, const std::string& field) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        CHECK(e.field() == field);
        return e.what();
    }
    return "";
}

// A value of the setting's kind different from every default (the job JSON must change).
std::string sample_value(const std::string& command, const Setting& s) {
    if (s.is_switch()) return "true";
    static const std::map<std::string, std::string> text = {
        {"method", "montecarlo"}, {"field", "meanfield"}, {"sampler", "full"}, {"update", "tangent"},
        {"rho0", "-0.30000000000000004"}, {"figure-size", "5x3.5"}, {"table-width", "3.33in"},
        {"derivative", "estimate"},         {"effective-chain", "gaussian"}};
    if (const auto it = text.find(s.key); it != text.end()) {
        if (s.key == "rho0" && command == "ode") return "-0.30000000000000004";
        return it->second;
    }
    if (s.key == "record") return "5,17";
    if (s.key == "table-columns") return "z,step,sga";
    static const std::map<std::string, std::string> check = {  // check: a claim, ranges, spacing, axis
        {"claim", "attractors=2"}, {"d", "10:20"},   {"L", "1000:2000"}, {"R", "5:50"},       {"theta", "0.5:2"},
        {"sigma", "0.5:2"},        {"beta", "0.5:2"}, {"scale", "linear"}, {"x-axis", "theta"}};
    if (command == "check")
        if (const auto it = check.find(s.key); it != check.end()) return it->second;
    static const std::map<std::string, std::string> prove = {  // prove: a claim, integer ranges, intervals, a file
        {"claim", "attractors=2"}, {"d", "10:20"},  {"L", "1000:2000"}, {"R", "5:50"},
        {"theta", "0.5:2"},        {"sigma", "0.5:2"}, {"beta", "0.5:2"}, {"verify", "proof/certificate.json"}};
    if (command == "prove")
        if (const auto it = prove.find(s.key); it != prove.end()) return it->second;
    static const std::map<std::string, std::string> threshold = {  // threshold: a claim and an axis
        {"claim", "attractors=2"}, {"axis", "sigma"}};
    if (command == "threshold")
        if (const auto it = threshold.find(s.key); it != threshold.end()) return it->second;
    if (s.type_name == "SEED") return "18446744073709551615";
    if (s.type_name == "INT") return "7";
    if (s.type_name == "LIST") return "0.1,-0.30000000000000004,1";
    REQUIRE(s.type_name == "NUMBER");
    return "0.30000000000000004";
}

// The JSON pointer of a setting's field within the job's JSON.
std::string pointer_of(const std::string& field) {
    std::string p = "/" + field;
    for (char& c : p)
        if (c == '.') c = '/';
    return p;
}

}  // namespace

TEST_CASE("settings: parse_real accepts plain reals and inf, refuses everything else") {
    CHECK(parse_real("0.5", "x") == 0.5);
    CHECK(parse_real("-2", "x") == -2.0);
    CHECK(parse_real("1e-3", "x") == 1e-3);
    CHECK(parse_real("1E3", "x") == 1000.0);
    CHECK(parse_real("0.30000000000000004", "x") == 0.30000000000000004);
    CHECK(parse_real("inf", "x") == std::numeric_limits<double>::infinity());
    CHECK(parse_real("-inf", "x") == -std::numeric_limits<double>::infinity());
    CHECK(parse_real("1e400", "x") == std::numeric_limits<double>::infinity());  // overflows to inf
    // Underflow is not overflow: a tiny number is tiny (0 or subnormal), never infinite.
    CHECK(std::abs(parse_real("1e-400", "x")) < 1e-300);
    CHECK(std::abs(parse_real("-1e-400", "x")) < 1e-300);
    CHECK(parse_real("4.9e-324", "x") > 0);
    for (const char* bad : {"", " 5", "5 ", "+1000", "0x10", "1e3.5", "nan", "-nan", "NaN", "1,5", "--1", "e5", "five",
                            "1e", "\t1", "1\n"}) {
        CAPTURE(bad);
        const std::string msg = refusal([&] { parse_real(bad, "model.theta"); }, "model.theta");
        CHECK(msg == fmt::format("theta = '{}' is not a number (e.g. 0.5, -2, 1e-3)", bad));
    }
}

TEST_CASE("settings: parse_integer accepts digits and exact scientific notation, refuses the rest") {
    CHECK(parse_integer("12", "x") == 12);
    CHECK(parse_integer("-3", "x") == -3);
    CHECK(parse_integer("0", "x") == 0);
    CHECK(parse_integer("1e6", "x") == 1000000);
    CHECK(parse_integer("1.29e2", "x") == 129);
    CHECK(parse_integer("2E1", "x") == 20);
    CHECK(parse_integer("9007199254740993", "x") == 9007199254740993);  // digits: exact past 2^53
    CHECK(parse_integer("9223372036854775807", "x") == std::numeric_limits<std::int64_t>::max());
    CHECK(parse_integer("-9223372036854775808", "x") == std::numeric_limits<std::int64_t>::min());
    CHECK(parse_integer("9.007199254740992e15", "x") == 9007199254740992);  // 2^53 itself
    for (const char* bad : {"", " 5", "5 ", "+1000", "0x10", "1e3.5", "1.5", "1e-3", "inf", "nan", "1,5", "12a",
                            // scientific notation whose exact value is not the double it rounds to
                            "9.007199254740993e15", "4.5035996273704965e15", "3.0000000000000001e0"}) {
        CAPTURE(bad);
        const std::string msg = refusal([&] { parse_integer(bad, "sga.steps"); }, "sga.steps");
        CHECK(msg.find(fmt::format("steps = '{}' is not an integer", bad)) == 0);
    }
    // Integers too large for 64 bits (or past 2^53 in scientific notation) are out of range, not
    // "not an integer" (the second probe's D18: --L 18446744073709551615).
    for (const char* big : {"18446744073709551615", "9223372036854775808", "-9223372036854775809", "1e300", "1e400",
                            "-1e19", "9.007199254740994e15"}) {
        CAPTURE(big);
        const std::string msg = refusal([&] { parse_integer(big, "model.L"); }, "model.L");
        CHECK(msg.find(fmt::format("L = '{}' is out of range (accepted: an integer of magnitude", big)) == 0);
    }
}

TEST_CASE("settings: parse_seed takes unsigned 64-bit seeds exactly") {
    CHECK(parse_seed("0", "x") == 0);
    CHECK(parse_seed("9007199254740993", "x") == 9007199254740993ull);  // 2^53 + 1, not rounded
    CHECK(parse_seed("18446744073709551615", "x") == std::numeric_limits<std::uint64_t>::max());
    CHECK(parse_seed("1e3", "x") == 1000);
    CHECK(parse_seed("9.007199254740992e15", "x") == 9007199254740992ull);
    for (const char* bad : {"18446744073709551616", "99999999999999999999", "-1", "-0", "", " 5", "5 ", "+5", "0x10",
                            "1.5", "1e19", "1e3.5", "inf", "nan", "9.007199254740993e15"}) {
        CAPTURE(bad);
        const std::string msg = refusal([&] { parse_seed(bad, "sga.seed"); }, "sga.seed");
        CHECK(msg.find(fmt::format("seed = '{}' is not a seed", bad)) == 0);
    }
}

TEST_CASE("settings: parse_real_list takes comma-separated reals, no empty items") {
    CHECK(parse_real_list("0.5", "x") == std::vector<double>{0.5});
    CHECK(parse_real_list("-1,0.25,1e-3,inf", "x") ==
          std::vector<double>{-1, 0.25, 1e-3, std::numeric_limits<double>::infinity()});
    for (const char* bad : {"", ",", "1,", ",1", "1,,2", "1, 2", "1 ,2", "1;2", "nan", "1,nan", "0x1,2", "+1,2"}) {
        CAPTURE(bad);
        CHECK_FALSE(refusal([&] { parse_real_list(bad, "rho"); }, "rho").empty());
    }
}

TEST_CASE("settings: for every command and setting, set(get(job)) leaves the job unchanged") {
    for (const auto& command : job_commands()) {
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            const Job defaults = make_job(command);
            // The default job.
            Job job = make_job(command);
            const std::string text = s.get(job);
            if (s.is_list() && text.empty()) {
                // An empty list (sga --record, compare --table-columns, ode --t) reads as "": empty
                // values are refused by design (a shell variable that expanded to nothing), and the default stays.
                const std::string flag = command + " --" + s.key;
                CHECK((flag == "sga --record" || flag == "compare --table-columns" || flag == "ode --t"));
                CHECK_THROWS_AS(s.set_text(job, text), InvalidArgument);
            } else if (command == "prove" && s.key == "verify") {
                CHECK(text.empty());  // prove, not a certificate re-checked: --verify "" is refused as a file name
                CHECK_THROWS_AS(s.set_text(job, text), InvalidArgument);
            } else {
                s.set_text(job, s.is_switch() && text.empty() ? "false" : text);
            }
            CHECK(job_json(job) == job_json(defaults));
            // A job with this setting changed: get gives what set took.
            Job changed = make_job(command);
            s.set_text(changed, sample_value(command, s));
            const std::string again = s.get(changed);
            Job copy = make_job(command);
            s.set_text(copy, again);
            CHECK(job_json(copy) == job_json(changed));
            CHECK(s.get(copy) == again);
        }
    }
}

TEST_CASE("settings: each setting changes exactly the job field it names") {
    for (const auto& command : job_commands()) {
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            Job job = make_job(command);
            s.set_text(job, sample_value(command, s));
            const json diff = json::diff(job_json(make_job(command)), job_json(job));
            CHECK_FALSE(diff.empty());
            // model.convention is written as noise_convention; both it and sigma move the
            // derived key sigma_input.
            std::set<std::string> allowed = {pointer_of(s.field)};
            if (s.field == "model.convention") allowed = {"/model/noise_convention", "/model/sigma_input"};
            if (s.field == "model.sigma") allowed.insert("/model/sigma_input");
            for (const auto& op : diff) {
                const std::string path = op["path"];
                bool inside = false;
                for (const auto& a : allowed) inside = inside || path == a || path.rfind(a + "/", 0) == 0;
                CAPTURE(path);
                CHECK(inside);
            }
        }
    }
}

TEST_CASE("settings: key_for_field maps each setting's field back to its key (one table, no drift)") {
    // Switches that clear a field some other setting sets (--no-study empties --study-eta0)
    // share that field; errors about it name the valued setting. These are the only ones.
    std::set<std::string> shared;
    for (const auto& command : job_commands()) {
        std::set<std::string> keys;
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            CHECK(keys.insert(s.key).second);  // keys unique within a command
            CHECK(find_setting(command, s.key) == &s);
            const std::string back = key_for_field(command, s.field);
            if (back != s.key) {
                const Setting* owner = find_setting(command, back);
                REQUIRE(owner != nullptr);
                CHECK(s.is_switch());
                CHECK_FALSE(owner->is_switch());
                CHECK(owner->field == s.field);
                shared.insert(command + " --" + s.key);
            }
            // A path nested inside the field maps to the same key.
            CHECK(key_for_field(command, s.field + ".x") == back);
        }
        CHECK(find_setting(command, "no-such-key") == nullptr);
    }
    CHECK(shared == std::set<std::string>{"compare --no-study"});
    // A field no setting sets: its last component with '_' -> '-'.
    CHECK(key_for_field("sga", "sga.no_such_field") == "no-such-field");
    CHECK(key_for_field("compare", "sga.schedule.eta0") == "eta0");
    CHECK(key_for_field("ode", "table.exact.rel_tol") == "rel-tol");
    CHECK_THROWS_AS(settings_for("bogus"), InvalidArgument);
}

TEST_CASE("settings: finish_settings divides a per-norm sigma by sqrt(d) once, whatever the order") {
    for (const auto& command : job_commands()) {
        CAPTURE(command);
        if (!model_of(make_job(command))) continue;  // a box of models (check, prove) or a model of its own (threshold): per-coordinate sigmas
        for (bool d_first : {true, false}) {
            Job job = make_job(command);
            const Setting* d = find_setting(command, "d");
            const Setting* sigma = find_setting(command, "sigma");
            const Setting* pn = find_setting(command, "sigma-per-norm");
            REQUIRE(d);
            REQUIRE(sigma);
            REQUIRE(pn);
            if (d_first) d->set_text(job, "16");
            sigma->set_text(job, "2");
            pn->set_text(job, "true");
            if (!d_first) d->set_text(job, "16");
            finish_settings(job);
            CHECK(model_of(job)->sigma == 0.5);
            CHECK(model_of(job)->sigma_input() == 2.0);
            CHECK(model_of(job)->convention == NoiseConvention::per_norm);
        }
        Job plain = make_job(command);
        find_setting(command, "sigma")->set_text(plain, "2");
        finish_settings(plain);
        CHECK(model_of(plain)->sigma == 2.0);
    }
}

TEST_CASE("settings: a flag's text becomes a value of the setting's type once, and a setter refuses other types") {
    for (const auto& command : job_commands()) {
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            const SettingValue v = parse_setting_text(s, sample_value(command, s));
            switch (s.type) {
                case SettingType::toggle: CHECK(std::holds_alternative<bool>(v)); break;
                case SettingType::number: CHECK(std::holds_alternative<double>(v)); break;
                case SettingType::integer: CHECK(std::holds_alternative<std::int64_t>(v)); break;
                case SettingType::seed: CHECK(std::holds_alternative<std::uint64_t>(v)); break;
                case SettingType::numbers: CHECK(std::holds_alternative<std::vector<double>>(v)); break;
                case SettingType::names: CHECK(std::holds_alternative<std::vector<std::string>>(v)); break;
                case SettingType::text:
                case SettingType::number_or_text: CHECK(std::holds_alternative<std::string>(v)); break;
            }
            // The --help label says the same as the type.
            if (s.type == SettingType::toggle) CHECK(s.type_name.empty());
            if (s.type == SettingType::number) CHECK(s.type_name == "NUMBER");
            if (s.type == SettingType::integer) CHECK(s.type_name == "INT");
            if (s.type == SettingType::seed) CHECK(s.type_name == "SEED");
            if (s.type == SettingType::numbers) CHECK(s.type_name == "LIST");
            // A value of a type the setting never takes: InvalidArgument naming its field.
            Job job = make_job(command);
            const SettingValue wrong = s.type == SettingType::names ? SettingValue(true)
                                                                    : SettingValue(std::vector<std::string>{"x"});
            CHECK_FALSE(refusal([&] { s.set(job, wrong); }, s.field).empty());
        }
    }
}

TEST_CASE("settings: a file's typed values set the same job as the flag's text") {
    auto same = [](const std::string& command, const std::string& key, const SettingValue& typed,
                   const std::string& text) {
        CAPTURE(command);
        CAPTURE(key);
        CAPTURE(text);
        const Setting* s = find_setting(command, key);
        REQUIRE(s);
        Job a = make_job(command), b = make_job(command);
        s->set(a, typed);
        s->set_text(b, text);
        CHECK(job_json(a) == job_json(b));
        CHECK(job_json(a) != job_json(make_job(command)));
    };
    same("sga", "steps", std::int64_t{777}, "777");
    same("sga", "eta0", std::int64_t{2}, "2");  // a TOML integer for a real
    same("sga", "eta0", 0.30000000000000004, "0.30000000000000004");
    same("sga", "seed", std::int64_t{42}, "42");
    same("sga", "seed", std::string("18446744073709551615"), "18446744073709551615");
    same("sga", "rho0", 0.25, "0.25");
    same("sga", "rho0", std::int64_t{0}, "0");
    same("sga", "record", std::vector<double>{3, 5}, "3,5");
    same("ode", "rho0", std::vector<double>{0.1, -0.30000000000000004}, "0.1,-0.30000000000000004");
    same("compare", "table-columns", std::vector<std::string>{"t", "sga"}, "t,sga");
    same("check", "theta", 0.5, "0.5");
    same("check", "d", std::int64_t{20}, "20");
    same("check", "theta", std::string("0.5:2"), "0.5:2");
    same("stationary", "update", std::string("tangent"), "tangent");
    same("ode", "no-error-estimate", true, "true");
    // Refusals keep the messages of the text path.
    Job j = make_job("sga");
    CHECK(refusal([&] { find_setting("sga", "seed")->set(j, std::int64_t{-5}); }, "sga.seed") ==
          "seed = '-5' is not a seed: an integer in 0 ... 18446744073709551615 (digits; scientific notation up to 2^53)");
    CHECK(refusal([&] { find_setting("sga", "eta0")->set(j, std::nan("")); }, "sga.schedule.eta0") ==
          "eta0 = 'nan' is not a number (e.g. 0.5, -2, 1e-3)");
    CHECK(refusal([&] { find_setting("sga", "threads")->set(j, std::int64_t{3000000000}); }, "sga.threads") ==
          "sga.threads = 3000000000 is out of range (accepted: an integer in -2147483648 ... 2147483647)");
    Job c = make_job("compare");
    CHECK(refusal([&] { find_setting("compare", "table-columns")->set_text(c, "t,,z"); }, "table_columns") ==
          "table_columns = 't,,z' has an empty entry (accepted: comma-separated column names)");
}

TEST_CASE("settings: --scale is typed (BoxScales, in the order given) and owns the box ranges' scale errors") {
    const BoxScales s = parse_box_scales("theta=linear,R=log", "scale");
    REQUIRE(s.items.size() == 2);
    CHECK(s.items[0] == std::pair<int, AxisScale>{static_cast<int>(Axis::theta), AxisScale::linear});
    CHECK(s.items[1] == std::pair<int, AxisScale>{static_cast<int>(Axis::R), AxisScale::log});
    for (const char* text : {"auto", "log", "linear", "theta=linear,R=log", "R=log,theta=linear,R=linear"})
        CHECK(to_string(parse_box_scales(text, "scale")) == text);
    CHECK(to_string(BoxScales{}) == "auto");
    // Applied once, after the ranges are set, whatever the order of the settings.
    Job job = make_job("check");
    const Setting* scale = find_setting("check", "scale");
    scale->set_text(job, "theta=linear,R=log");
    find_setting("check", "claim")->set_text(job, "monotone");
    find_setting("check", "theta")->set_text(job, "0.5:2");
    find_setting("check", "R")->set_text(job, "1:10");
    finish_settings(job);
    const auto& box = std::get<CheckJob>(job).check.box;
    CHECK(box.theta.scale == AxisScale::linear);
    CHECK(box.R.scale == AxisScale::log);
    CHECK(box.d.scale == AxisScale::automatic);
    CHECK(job_json(job)["scale"] == "theta=linear,R=log");
    // log on a range from 0: ParamBox::validate names the range's scale, which --scale routes.
    Job bad = make_job("check");
    find_setting("check", "claim")->set_text(bad, "monotone");
    find_setting("check", "theta")->set_text(bad, "0:2");
    scale->set_text(bad, "log");
    finish_settings(bad);
    const std::string msg = refusal([&] { validate(bad); }, "check.box.theta.scale");
    CHECK(msg == "scale = log for theta = 0:2 needs LO > 0 (accepted: linear for this range)");
    CHECK(key_for_field("check", "check.box.theta.scale") == "scale");
    CHECK(key_for_field("check", "check.box.theta") == "theta");
    CHECK(key_for_field("check", "check.box.theta.lo") == "theta");
    CHECK(refusal([&] { scale->set_text(bad, "gamma=log"); }, "scale") ==
          "scale = 'gamma=log': 'gamma' is not a model parameter (accepted: d, L, R, theta, sigma, beta)");
}

namespace {

// A typed value as the job's JSON writes it (none: null; a pair {LO, HI}: a range's lo and hi).
json json_of(const SettingValue& v) {
    return std::visit(
        [](const auto& x) -> json {
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) return nullptr;
            else return json(x);
        },
        v);
}

}  // namespace

TEST_CASE("settings: value reads each default back typed, as the job's JSON has it, and set_value takes it back") {
    int compared = 0;
    for (const auto& command : job_commands()) {
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            const Job defaults = make_job(command);
            const SettingValue v = s.value(defaults);
            switch (s.type) {  // the alternative the setting's type says
                case SettingType::toggle: CHECK(std::get<bool>(v) == !s.get(defaults).empty()); break;
                case SettingType::number: CHECK(std::holds_alternative<double>(v)); break;
                case SettingType::integer: CHECK(std::holds_alternative<std::int64_t>(v)); break;
                case SettingType::seed: CHECK(std::holds_alternative<std::uint64_t>(v)); break;
                case SettingType::numbers: CHECK(std::holds_alternative<std::vector<double>>(v)); break;
                case SettingType::names: CHECK(std::holds_alternative<std::vector<std::string>>(v)); break;
                case SettingType::text: CHECK(std::holds_alternative<std::string>(v)); break;
                case SettingType::number_or_text:  // a box's point (an integer on d, L, R), sga's rho0 none
                    CHECK((std::holds_alternative<double>(v) || std::holds_alternative<std::int64_t>(v) ||
                           std::holds_alternative<std::monostate>(v)));
                    break;
            }
            // The same value as the default job's JSON (a box's point as its range's lo).
            const json doc = job_json(defaults);
            json::json_pointer at(pointer_of(s.field));
            if (!s.is_switch() && doc.contains(at)) {
                const json expected = doc[at].is_object() && doc[at].contains("lo") ? doc[at]["lo"] : doc[at];
                CHECK(json_of(v) == expected);
                ++compared;
            }
            // Given back, the job is unchanged (empty lists too, which no flag's text can give).
            Job job = make_job(command);
            if (command == "prove" && s.key == "verify") {
                CHECK_THROWS_AS(s.set_value(job, v), InvalidArgument);  // "" is no certificate file
                continue;
            }
            s.set_value(job, v);
            CHECK(job_json(job) == job_json(defaults));
        }
    }
    CHECK(compared >= 150);  // nearly every setting has its field in the JSON
}

TEST_CASE("settings: a changed job's value and text say the same, and set_value(value) copies the field") {
    for (const auto& command : job_commands()) {
        for (const Setting& s : settings_for(command)) {
            CAPTURE(command);
            CAPTURE(s.key);
            Job changed = make_job(command);
            s.set_text(changed, sample_value(command, s));
            Job typed = make_job(command), text = make_job(command);
            s.set_value(typed, s.value(changed));
            s.set_text(text, s.get(changed));
            CHECK(job_json(typed) == job_json(changed));
            CHECK(job_json(text) == job_json(changed));
        }
    }
}

TEST_CASE("settings: set_value takes typed values exactly, and refuses them with the text path's messages") {
    auto field_of = [](const std::string& command, const std::string& key, const SettingValue& v) {
        Job job = make_job(command);
        find_setting(command, key)->set_value(job, v);
        return job_json(job);
    };
    // The message set_value gives, and the one set_text gives for `text`: the same.
    auto same_refusal = [](const std::string& command, const std::string& key, const SettingValue& v,
                           const std::string& text) {
        const Setting* s = find_setting(command, key);
        Job job = make_job(command);
        const std::string typed = refusal([&] { s->set_value(job, v); }, s->field);
        CHECK_FALSE(typed.empty());
        CHECK(typed == refusal([&] { s->set_text(job, text); }, s->field));
        return typed;
    };
    // Integers exactly, past 2^53 (a double would round 2^53 + 1 to 2^53).
    CHECK(field_of("sga", "first-trial", std::int64_t{9007199254740993})["sga"]["first_trial"] == 9007199254740993);
    CHECK(field_of("sga", "seed", std::numeric_limits<std::uint64_t>::max())["sga"]["seed"] ==
          std::numeric_limits<std::uint64_t>::max());
    CHECK(field_of("sga", "seed", 1e3)["sga"]["seed"] == 1000);  // an exact double, as "1e3"
    // Reals bit for bit: the double after 0.1, and the nearest double to 2^64 - 1 from an integer.
    const double after = std::nextafter(0.1, 1.0);
    CHECK(field_of("sga", "eta0", after)["sga"]["schedule"]["eta0"].get<double>() == after);
    CHECK(field_of("sga", "eta0", std::numeric_limits<std::uint64_t>::max())["sga"]["schedule"]["eta0"].get<double>() ==
          18446744073709551616.0);
    // An integer setting takes an exact double (1e6, as the flag's "1e6"); a model's too.
    CHECK(field_of("sga", "steps", 1e6)["sga"]["steps"] == 1000000);
    CHECK(field_of("sga", "L", 2e3)["model"]["L"] == 2000);
    CHECK(same_refusal("sga", "steps", 1.5, "1.5") ==
          "steps = '1.5' is not an integer (digits, or e.g. 1e6; exact, at most 2^53 in scientific notation)");
    CHECK(same_refusal("sga", "steps", std::numeric_limits<double>::infinity(), "inf").find("is not an integer") !=
          std::string::npos);
    CHECK(same_refusal("sga", "steps", 1e17, "1e+17").find("steps = '1e+17' is out of range") == 0);
    CHECK(same_refusal("sga", "L", std::uint64_t{9223372036854775808u}, "9223372036854775808")
              .find("L = '9223372036854775808' is out of range") == 0);
    CHECK(same_refusal("sga", "seed", 1.5, "1.5").find("seed = '1.5' is not a seed") == 0);
    // A range refusal gives the exact integer, past 2^53 too (a double would print ...992).
    CHECK(same_refusal("sga", "threads", std::int64_t{9007199254740993}, "9007199254740993") ==
          "sga.threads = 9007199254740993 is out of range (accepted: an integer in -2147483648 ... 2147483647)");
    // A list takes one number as a list of one; a box's range a pair {LO, HI}, as "LO:HI".
    CHECK(field_of("ode", "rho0", 0.25) == field_of("ode", "rho0", std::vector<double>{0.25}));
    CHECK(field_of("check", "theta", std::vector<double>{0.5, 2}) == field_of("check", "theta", std::string("0.5:2")));
    CHECK(field_of("prove", "d", std::vector<double>{10, 20}) == field_of("prove", "d", std::string("10:20")));
    Job box = make_job("check");
    CHECK(refusal([&] { find_setting("check", "theta")->set_value(box, std::vector<double>{1, 2, 3}); },
                  "check.box.theta") == "theta = '1,2,3' is not a number or a range (accepted: X, LO:HI or a pair LO, HI)");
    // None is sga's uniform start; names are whole (a comma inside one is no separator) and an
    // empty list is the default columns.
    CHECK(field_of("sga", "rho0", std::monostate()) == field_of("sga", "rho0", std::string("uniform")));
    CHECK(field_of("sga", "rho0", std::monostate())["sga"]["rho0"].is_null());
    CHECK(field_of("compare", "table-columns", std::vector<std::string>{"t,sga"})["table_columns"] ==
          json::array({"t,sga"}));
    CHECK(field_of("compare", "table-columns", std::vector<std::string>{}) == job_json(make_job("compare")));
    // Other alternatives are refused naming the field, as before.
    Job j = make_job("sga");
    CHECK(refusal([&] { find_setting("sga", "steps")->set_value(j, std::string("7")); }, "sga.steps") ==
          "steps takes an integer");
    CHECK(refusal([&] { find_setting("sga", "eta0")->set_value(j, std::monostate()); }, "sga.schedule.eta0") ==
          "eta0 takes a number");
}
