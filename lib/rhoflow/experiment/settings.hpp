// Named settings of jobs: the one table that maps a name (`--eta0 0.5` on the command line,
// `eta0 = 0.5` in an experiment file) onto a job's field (`sga.schedule.eta0`). The command line
// registers its flags from these tables and the experiment runner applies file keys through
// them, so flags, file keys and params fields correspond one to one, in one place. The kinds of
// job and their settings' tables are listed once, in experiment/job_table.hpp.
//
// Settings are typed: each has a SettingType, and set_value takes a SettingValue of that type,
// the one validation path: the experiment-file reader converts a TOML value into it directly,
// the Python module a Python value (python/src/setting_value.hpp), and the command line a
// flag's text, once (parse_setting_text; set_text), strictly: no empty values, no leading or
// trailing blanks, no '+', no hexadecimal; integers accept scientific notation when the value
// is an exact integer (1e6); seeds are unsigned 64-bit integers taken exactly (digits only
// beyond 2^53). A bad value throws InvalidArgument naming the setting's field and the accepted
// form, the same message whichever way the value came. `value` reads a job's value back, typed
// (the defaults Python shows); `get` the same as a flag's text. An error a job's validate()
// raises names a field; key_for_field() maps it back to the setting that owns it (its field,
// or one of the fields it routes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rhoflow/experiment/jobs.hpp"

namespace rhoflow {

/// The kind of value a setting takes.
enum class SettingType {
    toggle,          ///< a switch: true (on) or false (left as it is)
    number,          ///< a real number
    integer,         ///< an integer (the setter checks the range of the field's type)
    seed,            ///< an unsigned 64-bit seed (a file may write it as a string of digits)
    numbers,         ///< a list of reals (a file: an array)
    text,            ///< a word or a short form the setter parses (an enumeration, a claim, a size)
    number_or_text,  ///< a number, or a word the setter knows (rho0 = uniform, a box range LO:HI)
    names            ///< a list of words (a file: an array of strings, or one comma-separated string)
};

/// A setting's value, of the alternative its SettingType says: toggle bool; number double
/// (integers accepted); integer int64 (uint64 and doubles accepted when exact integers in
/// range); seed uint64 (int64, an exact double, or a string of digits, accepted); numbers
/// vector<double> (one number accepted); text string; number_or_text double (integers
/// accepted) or string, a box's range also a pair {LO, HI}, sga's rho0 also none (uniform);
/// names vector<string>. std::monostate is none (Python's None).
using SettingValue = std::variant<bool, std::int64_t, std::uint64_t, double, std::string, std::vector<double>,
                                  std::vector<std::string>, std::monostate>;

/// One named setting of a kind of job.
struct Setting {
    std::string key;         ///< flag (--key) and experiment-file key
    std::string field;       ///< the job field it sets, as InvalidArgument names it (e.g. "sga.steps")
    std::string help;        ///< one line for --help: meaning and accepted range
    std::string type_name;   ///< the --help label of its value: NUMBER, INT, SEED, LIST, TEXT, ... ("" for a switch)
    std::string group;       ///< --help section
    SettingType type = SettingType::text;  ///< the kind of value it takes
    bool required = false;   ///< must be given (no meaningful default)
    std::string unless;      ///< a required setting need not be given when this setting is ("" = always required)
    std::string needs;       ///< given, this setting needs that one given too ("" = none)
    bool alone = false;      ///< given, no other setting may be given but those in alone_with
    std::vector<std::string> alone_with;  ///< with alone: the settings that may come with it
    std::vector<std::string> routes;  ///< other fields whose errors are this setting's (the box ranges' scales are --scale's)
    std::function<void(Job&, const SettingValue&)> set;  ///< the table's setter (callers use set_value)
    std::function<SettingValue(const Job&)> value;        ///< the job's current value, typed (set_value takes it back)
    std::function<std::string(const Job&)> get;           ///< the job's current value as text ("" for off switches)

    /// Takes no value: present means on.
    bool is_switch() const noexcept { return type == SettingType::toggle; }
    /// Takes a list (comma-separated on the command line, an array in an experiment file).
    bool is_list() const noexcept { return type == SettingType::numbers || type == SettingType::names; }
    /// Sets a typed value into the job, checked strictly (InvalidArgument naming the field).
    void set_value(Job& job, const SettingValue& v) const { set(job, v); }
    /// Sets the value a command-line text stands for (parse_setting_text, then set_value).
    void set_text(Job& job, std::string_view text) const;
};

/// The value a flag's text stands for, by the setting's type ("true"/"false" for a switch);
/// throws InvalidArgument naming the setting's field.
SettingValue parse_setting_text(const Setting& s, std::string_view text);

/// The settings of jobs of `command` (a name of job_table.hpp), in --help order; throws
/// InvalidArgument naming "command" (with every job's name) for another name.
const std::vector<Setting>& settings_for(std::string_view command);
/// The setting `key` of `command`, or nullptr.
const Setting* find_setting(std::string_view command, std::string_view key);
/// The key of the setting of `command` that owns `field`: the one that sets or routes it, else
/// the one that sets the nearest enclosing field; the field's last component with '_' -> '-'
/// when no setting owns it.
std::string key_for_field(std::string_view command, const std::string& field);
/// How a front end spells a setting's key in its messages.
enum class SettingSpelling {
    flag,     ///< the command line's flag: "--t-end"
    key,      ///< an experiment file's key: "t-end"
    keyword,  ///< a Python keyword: "t_end"
};
/// `key` as `spelling` writes it.
std::string spelled(const std::string& key, SettingSpelling spelling);
/// Checks which settings of `command` were given together (`given(key)`): each setting's
/// `needs` given with it, an `alone` setting with none but its `alone_with`, a required one (or
/// its `unless`). Throws InvalidArgument whose field is the offending setting's key, its message
/// naming the settings as the front end spells them ("--verify", "verify", ...).
void check_given(std::string_view command, const std::function<bool(const std::string&)>& given,
                 SettingSpelling spelling);
/// What must happen once after all settings were applied: a sigma given per norm is divided by
/// sqrt(d) (d may be set after sigma); a check box's ranges get the scales --scale gave.
void finish_settings(Job& job);

/// The model's settings (d, L, R, theta, sigma, beta, sigma-per-norm) that every job with a model
/// has, for a registered job whose JobType gives its model (experiment/register_job.hpp).
std::vector<Setting> shared_model_settings();

/// A setting's value as a number (integers accepted; not NaN); InvalidArgument naming `field` otherwise.
double number_of(const SettingValue& v, const std::string& field);
/// As an integer (uint64 up to 2^63 - 1 and exact doubles up to 2^53 accepted).
std::int64_t integer_of(const SettingValue& v, const std::string& field);
/// As a seed (an unsigned 64-bit integer; a string of digits accepted).
std::uint64_t seed_of(const SettingValue& v, const std::string& field);
/// As a list of numbers (one number: a list of one).
std::vector<double> numbers_of(const SettingValue& v, const std::string& field);
/// As a text.
const std::string& text_of_value(const SettingValue& v, const std::string& field);
/// As a switch (true or false).
bool switch_of(const SettingValue& v, const std::string& field);
/// A value as a flag writes it: numbers in their shortest round-trip form, lists comma-separated,
/// an off switch and none "".
std::string text_of_setting(const SettingValue& v);

/// A finite or infinite real number written plainly ("0.5", "-1e-3", "inf"); throws otherwise.
double parse_real(std::string_view text, const std::string& field);
/// An integer, written with digits or in scientific notation with an exact integer value.
std::int64_t parse_integer(std::string_view text, const std::string& field);
/// An unsigned 64-bit seed: digits (0 ... 18446744073709551615), or scientific notation <= 2^53.
std::uint64_t parse_seed(std::string_view text, const std::string& field);
/// A comma-separated list of reals (no empty items).
std::vector<double> parse_real_list(std::string_view text, const std::string& field);

}  // namespace rhoflow
