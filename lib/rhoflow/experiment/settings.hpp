// Named settings of jobs: the one table that maps a name (`--eta0 0.5` on the command line,
// `eta0 = 0.5` in an experiment file) onto a job's field (`sga.schedule.eta0`). The command line
// registers its flags from these tables and the experiment runner applies file keys through
// them, so flags, file keys and params fields correspond one to one, in one place; errors that
// name a field are mapped back to the setting's name by key_for_field().
//
// Values arrive as text and are parsed strictly: no empty values, no leading or trailing
// blanks, no '+', no hexadecimal; integers accept scientific notation when the value is an
// exact integer (1e6); seeds are unsigned 64-bit integers taken exactly (digits only beyond
// 2^53). A bad value throws InvalidArgument naming the setting's field and the accepted form.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rhoflow/experiment/jobs.hpp"

namespace rhoflow {

/// One named setting of a kind of job.
struct Setting {
    std::string key;         ///< flag (--key) and experiment-file key
    std::string field;       ///< the job field it sets, as InvalidArgument names it (e.g. "sga.steps")
    std::string help;        ///< one line for --help: meaning and accepted range
    std::string type_name;   ///< NUMBER, INT, SEED, LIST, TEXT, ... ("" for a switch)
    std::string group;       ///< --help section
    bool is_switch = false;  ///< takes no value: present means on
    bool is_list = false;    ///< takes a comma-separated list (an experiment file may give an array)
    bool required = false;   ///< must be given (no meaningful default)
    std::function<void(Job&, const std::string&)> set;  ///< parses the text into the job (strict)
    std::function<std::string(const Job&)> get;          ///< the job's current value as text ("" for off switches)
};

/// The settings of jobs of `command` ("field", "ode", "phase", "sga", "compare"), in --help order.
const std::vector<Setting>& settings_for(std::string_view command);
/// The setting `key` of `command`, or nullptr.
const Setting* find_setting(std::string_view command, std::string_view key);
/// The key of the setting of `command` that sets `field` (or the nearest enclosing field);
/// the field's last component with '_' -> '-' when no setting sets it.
std::string key_for_field(std::string_view command, const std::string& field);
/// What must happen once after all settings were applied: a sigma given per norm is divided by
/// sqrt(d) (d may be set after sigma).
void finish_settings(Job& job);

/// A finite or infinite real number written plainly ("0.5", "-1e-3", "inf"); throws otherwise.
double parse_real(std::string_view text, const std::string& field);
/// An integer, written with digits or in scientific notation with an exact integer value.
std::int64_t parse_integer(std::string_view text, const std::string& field);
/// An unsigned 64-bit seed: digits (0 ... 18446744073709551615), or scientific notation <= 2^53.
std::uint64_t parse_seed(std::string_view text, const std::string& field);
/// A comma-separated list of reals (no empty items).
std::vector<double> parse_real_list(std::string_view text, const std::string& field);

}  // namespace rhoflow
