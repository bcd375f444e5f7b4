// Settings cross from Python as typed values (experiment/settings.hpp's SettingValue), never as
// text: the type_caster below converts by the Python type alone, and value_for() fits it to one
// setting, refusing a wrong Python type with a TypeError that names the keyword.
//  - None: none (std::monostate; sga's rho0 = None is uniform);
//  - bool and numpy.bool_: bool (never a number: steps=True is a TypeError);
//  - int and numpy integers: int64, or uint64 from 2^63 to 2^64 - 1, exactly (2**53 + 1 arrives
//    as itself); an int beyond 64 bits is no value here (value_for gives it, as digits, to the
//    setting's parser: refused by range with its exact digits, or rounded as a flag is);
//  - float, numpy floats (float32 widened exactly) and other real numbers: double, bit for bit;
//  - str: string (value_for: a numeric setting parses it as the flag's text, "0.5:2", "1e6");
//  - a 0-d array: its element;
//  - a list, tuple, range, 1-D array or other iterable (not a str, bytes, mapping or set): of
//    numbers vector<double>, of strings vector<string>, empty vector<double>. A box's range is a
//    pair (lo, hi), a vector of two.
// Back to Python (the defaults the functions show): bool, int, float, str, list, None.
#pragma once

#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>

#include "rhoflow/experiment/settings.hpp"

namespace rhoflow::python {

namespace py = pybind11;

/// The value a Python object stands for by the rules above; nothing if it stands for no value.
std::optional<SettingValue> setting_value_of(py::handle v);
/// A value as the Python object it stands for.
py::object setting_to_python(const SettingValue& v);
/// The value `v` gives setting `s`, fitted to its type; throws py::type_error (or
/// py::value_error for an array of more dimensions) naming the keyword `name`, or InvalidArgument
/// from the setting's parser for a string.
SettingValue value_for(const Setting& s, py::handle v, const std::string& name);

}  // namespace rhoflow::python

namespace pybind11::detail {

/// SettingValue from and to Python (pybind11/stl.h's variant caster would try the alternatives
/// in order: an int as a bool, a float as an int).
template <>
struct type_caster<rhoflow::SettingValue> {
    PYBIND11_TYPE_CASTER(rhoflow::SettingValue, const_name("SettingValue"));
    /// Converts by the rules of setting_value.hpp; false if `src` stands for no value.
    bool load(handle src, bool) {
        auto v = rhoflow::python::setting_value_of(src);
        if (v) value = std::move(*v);
        return v.has_value();
    }
    /// The Python object a value stands for.
    static handle cast(const rhoflow::SettingValue& v, return_value_policy, handle) {
        return rhoflow::python::setting_to_python(v).release();
    }
};

}  // namespace pybind11::detail
