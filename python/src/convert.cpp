#include "convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

namespace rhoflow::python {

namespace {

using nlohmann::json;
using Items = std::vector<const json*>;

py::object& record_type() {
    static py::object* t = new py::object();  // never destroyed: outlives the interpreter's teardown
    return *t;
}
py::object& table_type() {
    static py::object* t = new py::object();
    return *t;
}

py::object items_to_python(const Items& items);

py::object scalar(const json& j) {
    switch (j.type()) {
        case json::value_t::null: return py::none();
        case json::value_t::boolean: return py::bool_(j.get<bool>());
        case json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
        case json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
        case json::value_t::number_float: return py::float_(j.get<double>());
        case json::value_t::string: return py::str(j.get_ref<const std::string&>());
        default: return to_python(j);
    }
}

template <class T>
py::object numbers(const Items& items) {
    py::array_t<T> a(static_cast<py::ssize_t>(items.size()));
    T* out = a.mutable_data();
    for (std::size_t i = 0; i < items.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>)
            out[i] = items[i]->is_null() ? std::numeric_limits<T>::quiet_NaN() : items[i]->get<T>();
        else
            out[i] = items[i]->get<T>();
    }
    return a;
}

py::object list_of(const Items& items) {
    py::list l(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) l[i] = scalar(*items[i]);
    return l;
}

// Arrays of numbers of one length as a 2-D array (nothing if they are not).
py::object matrix(const Items& items) {
    const std::size_t cols = items.front()->size();
    bool integral = true;
    for (const json* row : items) {
        if (row->size() != cols) return py::none();
        for (const json& v : *row) {
            if (!v.is_number()) return py::none();
            if (!v.is_number_integer()) integral = false;
        }
    }
    auto fill = [&](auto tag) {
        using T = decltype(tag);
        py::array_t<T> a({static_cast<py::ssize_t>(items.size()), static_cast<py::ssize_t>(cols)});
        T* out = a.mutable_data();
        for (const json* row : items)
            for (const json& v : *row) *out++ = v.get<T>();
        return py::object(std::move(a));
    };
    return integral ? fill(std::int64_t{}) : fill(double{});
}

py::object table_of(const Items& rows) {
    py::object rec = new_record();
    for (auto it = rows.front()->begin(); it != rows.front()->end(); ++it) {
        Items column;
        column.reserve(rows.size());
        for (const json* r : rows) column.push_back(&r->at(it.key()));
        put(rec, it.key().c_str(), items_to_python(column));
    }
    return rec;
}

bool same_keys(const json& a, const json& b) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
        if (it.key() != jt.key()) return false;  // nlohmann keeps keys sorted
    return true;
}

py::object items_to_python(const Items& items) {
    if (items.empty()) return py::list();
    std::size_t nulls = 0, ints = 0, uints = 0, floats = 0, bools = 0, strings = 0, arrays = 0, objects = 0;
    bool big = false;
    for (const json* j : items) {
        switch (j->type()) {
            case json::value_t::null: ++nulls; break;
            case json::value_t::number_integer: ++ints; break;
            case json::value_t::number_unsigned:
                ++uints;
                big = big || j->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
                break;
            case json::value_t::number_float: ++floats; break;
            case json::value_t::boolean: ++bools; break;
            case json::value_t::string: ++strings; break;
            case json::value_t::array: ++arrays; break;
            case json::value_t::object: ++objects; break;
            default: break;
        }
    }
    const std::size_t n = items.size(), num = ints + uints + floats;
    if (num == n && floats == 0) return big ? (ints == 0 ? numbers<std::uint64_t>(items) : list_of(items))
                                            : numbers<std::int64_t>(items);
    if (num > 0 && num + nulls == n) return numbers<double>(items);
    if (bools == n) return numbers<bool>(items);
    if (objects == n) {
        bool same = true;
        for (const json* j : items) same = same && same_keys(*j, *items.front());
        if (same && !items.front()->empty()) return table_of(items);
    }
    if (arrays == n && !items.front()->empty()) {
        py::object m = matrix(items);
        if (!m.is_none()) return m;
    }
    if (strings + nulls == n) return list_of(items);
    py::list l(n);
    for (std::size_t i = 0; i < n; ++i) l[i] = to_python(*items[i]);
    return l;
}

template <class T>
py::array view_of(const std::vector<T>& v, py::handle base) {
    if (v.empty()) return py::array_t<T>(0);
    py::array_t<T> a({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(T))}, v.data(), base);
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

}  // namespace

void set_types(py::object record, py::object table) {
    record_type() = std::move(record);
    table_type() = std::move(table);
}

py::object new_record() { return record_type()(); }

void put(py::handle record, const char* key, py::handle value) {
    if (PyDict_SetItemString(record.ptr(), key, value.ptr()) != 0) throw py::error_already_set();
}

py::object to_python(const json& j) {
    if (j.is_object()) {
        py::object rec = new_record();
        for (auto it = j.begin(); it != j.end(); ++it) put(rec, it.key().c_str(), to_python(it.value()));
        return rec;
    }
    if (j.is_array()) {
        Items items;
        items.reserve(j.size());
        for (const json& v : j) items.push_back(&v);
        return items_to_python(items);
    }
    return scalar(j);
}

namespace {

// Whether column c is one the library declares integer (a step, a count) and every cell holds an
// integer that int64 keeps: int64 then; a missing cell (NaN) or any other value keeps float64.
bool integer_column(const Table& t, std::size_t c) {
    if (!t.columns[c].integer) return false;
    for (const auto& row : t.rows) {
        const auto* d = std::get_if<double>(&row[c]);
        if (!d || std::trunc(*d) != *d || std::abs(*d) > 9007199254740992.0) return false;
    }
    return true;
}

}  // namespace

py::object to_python(const Table& t) {
    py::object out = table_type()();
    out.attr("caption") = t.caption;
    py::list meta;
    for (const auto& m : t.meta) meta.append(m);
    out.attr("meta") = meta;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
        bool numeric = true;
        for (const auto& row : t.rows) numeric = numeric && !std::holds_alternative<std::string>(row.at(c));
        py::object column;
        if (numeric && integer_column(t, c)) {
            py::array_t<std::int64_t> a(static_cast<py::ssize_t>(t.rows.size()));
            std::int64_t* v = a.mutable_data();
            for (const auto& row : t.rows) *v++ = static_cast<std::int64_t>(std::get<double>(row[c]));
            column = std::move(a);
        } else if (numeric) {
            py::array_t<double> a(static_cast<py::ssize_t>(t.rows.size()));
            double* v = a.mutable_data();
            for (const auto& row : t.rows)
                *v++ = std::holds_alternative<double>(row[c]) ? std::get<double>(row[c])
                                                              : std::numeric_limits<double>::quiet_NaN();
            column = std::move(a);
        } else {
            py::list l;
            for (const auto& row : t.rows) {
                if (const auto* s = std::get_if<std::string>(&row[c])) l.append(*s);
                else if (const auto* d = std::get_if<double>(&row[c])) l.append(*d);
                else l.append(py::none());
            }
            column = std::move(l);
        }
        put(out, t.columns[c].key.c_str(), column);
    }
    return out;
}

py::array view(const std::vector<double>& v, py::handle base) { return view_of(v, base); }
py::array view(const std::vector<std::int64_t>& v, py::handle base) { return view_of(v, base); }

py::array stack(const std::vector<const std::vector<double>*>& rows, std::size_t columns) {
    py::array_t<double> a({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(columns)});
    double* out = a.mutable_data();
    for (const auto* r : rows) {
        if (r->size() != columns) throw std::invalid_argument("rows of different lengths");
        if (columns) std::memcpy(out, r->data(), columns * sizeof(double));
        out += columns;
    }
    return a;
}

}  // namespace rhoflow::python
