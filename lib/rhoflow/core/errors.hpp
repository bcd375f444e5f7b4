// Error types shared by the whole library.
//
// Two kinds of failure matter to users, and the command line maps them to exit codes:
//  - InvalidArgument: an input is outside its accepted range (exit code 2). `field()` is the
//    path of the offending params-struct field ("R", "sga.schedule.eta0"), never a command-line
//    flag: the library does not know how its caller spells it (the CLI maps fields to flags in
//    one place). The message names the field, the value given and the accepted range, e.g.
//    "R = 600 is out of range (accepted: 0 <= R <= L = 500)".
//  - NumericalError: a numerical method could not deliver a finite result to the requested
//    accuracy (exit code 3). The message says which quantity and why.
// A third, Interrupted, is no failure: a long computation stopped because its caller asked it
// to (core/cancel.hpp, CancelFlag; the Python module's Ctrl-C). The command line never asks.
#pragma once

#include <stdexcept>
#include <string>

namespace rhoflow {

/// An input outside its accepted range, naming the params-struct field it came from.
class InvalidArgument : public std::invalid_argument {
public:
    /// `field` is the field's path in the params struct validated; `message` the full sentence.
    InvalidArgument(std::string field, const std::string& message)
        : std::invalid_argument(message), field_(std::move(field)) {}
    /// The offending field's path, e.g. "R" or "sga.schedule.eta0".
    const std::string& field() const noexcept { return field_; }
    /// The same error for a struct nested in another as member `member` ("member.field").
    InvalidArgument within(const std::string& member) const {
        return InvalidArgument(member + "." + field_, what());
    }

private:
    std::string field_;
};

/// A numerical method failed: non-finite value, no convergence, accuracy target missed.
class NumericalError : public std::runtime_error {
public:
    /// `message` says which quantity failed and why.
    explicit NumericalError(const std::string& message) : std::runtime_error(message) {}
};

/// A computation stopped on its caller's request (a CancelFlag, core/cancel.hpp).
class Interrupted : public std::runtime_error {
public:
    /// `message` says what was stopped.
    explicit Interrupted(const std::string& message) : std::runtime_error(message) {}
};

/// Formats a double the way every error message and table does (shortest round-trip form).
std::string format_number(double x);

/// Throws InvalidArgument "<name> = <value> is out of range (accepted: <range>)" unless `ok`.
void require(bool ok, const std::string& name, double value, const std::string& range);

/// Throws InvalidArgument unless `value` is finite and lo <= value <= hi.
void require_in(const std::string& name, double value, double lo, double hi);

/// Runs `validate` (a member struct's validate()), prefixing any InvalidArgument's field with
/// `member` so that the path names the field within the outer struct.
template <class F>
void validate_member(const std::string& member, F&& validate) {
    try {
        validate();
    } catch (const InvalidArgument& e) {
        throw e.within(member);
    }
}

/// Throws NumericalError naming `what` unless `value` is finite; returns `value`.
double require_finite_result(double value, const std::string& what);

}  // namespace rhoflow
