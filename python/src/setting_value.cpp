#include "setting_value.hpp"

#include <pybind11/numpy.h>

#include <cstdint>
#include <fmt/format.h>
#include <type_traits>
#include <variant>
#include <vector>

namespace rhoflow::python {

namespace {

// The Python classes the rules name, looked up once (never destroyed: they outlive the
// interpreter's teardown).
struct Classes {
    py::object np_bool, np_integer, np_floating, np_ndarray, real, mapping, set, path_like;
};

const Classes& classes() {
    static const Classes* c = [] {
        const py::module_ np = py::module_::import("numpy"), abc = py::module_::import("collections.abc");
        return new Classes{np.attr("bool_"), np.attr("integer"), np.attr("floating"), np.attr("ndarray"),
                           py::module_::import("numbers").attr("Real"), abc.attr("Mapping"), abc.attr("Set"),
                           py::module_::import("os").attr("PathLike")};
    }();
    return *c;
}

std::string type_name(py::handle v) { return py::str(py::type::handle_of(v).attr("__name__")); }

bool is_bool(py::handle v) { return PyBool_Check(v.ptr()) || py::isinstance(v, classes().np_bool); }

bool is_integer(py::handle v) {
    return !is_bool(v) && (PyLong_Check(v.ptr()) || py::isinstance(v, classes().np_integer));
}

bool is_real(py::handle v) {
    return !is_bool(v) && (PyFloat_Check(v.ptr()) || py::isinstance(v, classes().np_floating) ||
                           py::isinstance(v, classes().real));
}

// An integer exactly: int64, else uint64; nothing beyond 64 bits.
std::optional<SettingValue> integer_value(py::handle v) {
    const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow == 0) return SettingValue(static_cast<std::int64_t>(x));
    if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
        if (!PyErr_Occurred()) return SettingValue(static_cast<std::uint64_t>(u));
        PyErr_Clear();
    }
    return std::nullopt;
}

// A number as the nearest double (Python's float(): exact for floats, rounded for integers).
std::optional<double> real_value(py::handle v) {
    if (!is_integer(v) && !is_real(v)) return std::nullopt;
    const double d = PyFloat_AsDouble(v.ptr());
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();  // an integer beyond the range of double
        return std::nullopt;
    }
    return d;
}

// Not a sequence of values, though iterable: its iteration gives keys, no order, or bytes.
bool unordered_or_bytes(py::handle v) {
    return PyBytes_Check(v.ptr()) || PyByteArray_Check(v.ptr()) || py::isinstance(v, classes().mapping) ||
           py::isinstance(v, classes().set);
}

// A sequence's items: numbers or strings (empty: numbers).
std::optional<SettingValue> items_value(py::handle v) {
    if (py::isinstance(v, classes().np_ndarray)) {
        const auto a = py::reinterpret_borrow<py::array>(v);
        if (a.ndim() == 0) return setting_value_of(a.attr("item")());
        if (a.ndim() != 1) return std::nullopt;
        if (const char k = a.dtype().kind(); k == 'f' || k == 'i' || k == 'u') {
            const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
            if (!d) return std::nullopt;
            return SettingValue(std::vector<double>(d.data(), d.data() + d.size()));
        }
    }
    std::vector<double> numbers;
    std::vector<std::string> words;
    for (const py::handle item : v) {
        if (PyUnicode_Check(item.ptr())) words.push_back(item.cast<std::string>());
        else if (const auto d = real_value(item)) numbers.push_back(*d);
        else return std::nullopt;
        if (!numbers.empty() && !words.empty()) return std::nullopt;
    }
    if (!words.empty()) return SettingValue(std::move(words));
    return SettingValue(std::move(numbers));
}

// What a setting's type accepts, for messages.
const char* accepted(const Setting& s) {
    switch (s.type) {
        case SettingType::numbers: return "a number or a sequence of numbers";
        case SettingType::names: return "a string or a sequence of strings";
        case SettingType::number_or_text: return "a number, a string or a pair of numbers";
        default: return "a number";
    }
}

// Why `v` stands for no value of setting `s`: the first item that is not one, an array of more
// dimensions, or its type.
[[noreturn]] void refuse(const Setting& s, py::handle v, const std::string& name) {
    if (py::isinstance(v, classes().np_ndarray) && py::reinterpret_borrow<py::array>(v).ndim() > 1)
        throw py::value_error(fmt::format("{} must be one-dimensional, not an array of shape {}", name,
                                          std::string(py::repr(v.attr("shape")))));
    if (unordered_or_bytes(v))
        throw py::type_error(
            fmt::format("{} must be {} (a list, tuple or 1-D array), not {}", name, accepted(s), type_name(v)));
    if (s.type != SettingType::number && s.type != SettingType::integer && s.type != SettingType::seed &&
        py::isinstance<py::iterable>(v)) {
        const bool words = s.type == SettingType::names;
        std::size_t i = 0;
        for (const py::handle item : v) {
            if (words ? !PyUnicode_Check(item.ptr()) : !real_value(item))
                throw py::type_error(fmt::format("{}[{}] must be {}, not {}", name, i, words ? "a string" : "a number",
                                                 type_name(item)));
            ++i;
        }
    }
    throw py::type_error(fmt::format("{} must be {}, not {}", name, accepted(s), type_name(v)));
}

bool is_number(const SettingValue& x) {
    return std::holds_alternative<std::int64_t>(x) || std::holds_alternative<std::uint64_t>(x) ||
           std::holds_alternative<double>(x);
}

// A value of the right Python type for the setting's type; the setter checks the rest.
SettingValue fit(const Setting& s, SettingValue x, py::handle v, const std::string& name) {
    const auto* list = std::get_if<std::vector<double>>(&x);
    bool ok = is_number(x);
    switch (s.type) {
        case SettingType::numbers: ok = ok || list; break;
        case SettingType::names:
            if (list && list->empty()) return std::vector<std::string>{};
            ok = std::holds_alternative<std::vector<std::string>>(x);
            break;
        case SettingType::number_or_text:  // a pair for a box's range, None for sga's rho0
            ok = ok || list || std::holds_alternative<std::monostate>(x);
            break;
        default: break;
    }
    if (!ok) {
        if (std::holds_alternative<std::vector<std::string>>(x) && s.type == SettingType::numbers)
            throw py::type_error(fmt::format("{}[0] must be a number, not str", name));
        throw py::type_error(fmt::format("{} must be {}, not {}", name, accepted(s), type_name(v)));
    }
    return x;
}

}  // namespace

std::optional<SettingValue> setting_value_of(py::handle v) {
    if (v.is_none()) return SettingValue(std::monostate());
    if (is_bool(v)) return SettingValue(PyObject_IsTrue(v.ptr()) == 1);
    if (PyUnicode_Check(v.ptr())) return SettingValue(v.cast<std::string>());
    if (is_integer(v)) return integer_value(v);
    if (const auto d = real_value(v)) return SettingValue(*d);
    if (py::isinstance(v, classes().np_ndarray)) return items_value(v);  // a 0-d one is not iterable
    if (unordered_or_bytes(v) || !py::isinstance<py::iterable>(v)) return std::nullopt;
    return items_value(v);
}

py::object setting_to_python(const SettingValue& v) {
    return std::visit(
        [](const auto& x) -> py::object {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::monostate>) return py::none();
            else return py::cast(x);  // bool, int, float, str, list
        },
        v);
}

SettingValue value_for(const Setting& s, py::handle v, const std::string& name) {
    if (s.is_switch()) {
        if (!is_bool(v)) throw py::type_error(fmt::format("{} must be True or False, not {}", name, type_name(v)));
        return PyObject_IsTrue(v.ptr()) == 1;
    }
    const bool text = PyUnicode_Check(v.ptr());
    if (s.type == SettingType::text && !text) {
        if (s.type_name == "FILE" && py::isinstance(v, classes().path_like))
            return py::module_::import("os").attr("fsdecode")(v).cast<std::string>();
        throw py::type_error(fmt::format("{} must be a string, not {}", name, type_name(v)));
    }
    if (text) return parse_setting_text(s, v.cast<std::string>());  // the flag's text ("0.5:2", "uniform", "1e6")
    py::detail::make_caster<SettingValue> caster;
    if (!caster.load(v, true)) {
        if (is_integer(v) && s.type != SettingType::names)  // beyond 64 bits: its digits, as a flag gives them
            return parse_setting_text(s, std::string(py::str(py::int_(py::reinterpret_borrow<py::object>(v)))));
        refuse(s, v, name);
    }
    return fit(s, std::move(static_cast<SettingValue&>(caster)), v, name);
}

}  // namespace rhoflow::python
