// From the library's JSON documents and tables to Python objects, for the module rhoflow
// (docs/python.md). One rule for every document, live or loaded from a file:
//  - an object becomes a Record (a dict with attribute access);
//  - an array of numbers becomes a NumPy array (int64 when every element is an integer, uint64
//    for seeds beyond 2^63, float64 otherwise; a null inside an array of floats becomes NaN,
//    "not available");
//  - an array of booleans a bool array, of equally long arrays of numbers a 2-D array;
//  - an array of objects with the same keys a table: a Record of columns, each converted by
//    the same rule (so nested objects become nested tables);
//  - anything else a list, and scalars the Python scalar (null: None).
// A library Table (io/table.hpp) becomes a Table (a Record of columns with `caption` and
// `meta`): numeric columns float64 with NaN for a missing cell, int64 for a column the library
// declares integer (TableColumn::integer: steps, counts) when no cell is missing, other columns
// lists.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <vector>

#include "rhoflow/io/table.hpp"

namespace rhoflow::python {

namespace py = pybind11;

/// Sets the Python classes built by the conversion (the package's Record and Table).
void set_types(py::object record, py::object table);
/// A new, empty Record.
py::object new_record();
/// Stores `value` under `key` in a Record (or dict).
void put(py::handle record, const char* key, py::handle value);

/// A JSON value as Python objects, by the rule above.
py::object to_python(const nlohmann::json& j);
/// A library table as a Table.
py::object to_python(const Table& t);

/// A read-only NumPy view of `v` that keeps `base` (the owner of `v`) alive; no copy.
py::array view(const std::vector<double>& v, py::handle base);
/// The same for integers.
py::array view(const std::vector<std::int64_t>& v, py::handle base);
/// Rows of equal length as a new (rows x columns) array; `columns` when there are no rows.
py::array stack(const std::vector<const std::vector<double>*>& rows, std::size_t columns);

}  // namespace rhoflow::python
