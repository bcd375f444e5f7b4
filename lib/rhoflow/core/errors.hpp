// Error types shared by the whole library.
//
// Two kinds of failure matter to users, and the command line maps them to exit codes:
//  - InvalidArgument: an input is outside its accepted range (exit code 2). The message names
//    the parameter, the value given and the accepted range, e.g.
//    "R = 600 is out of range (accepted: 0 <= R <= L = 500)".
//  - NumericalError: a numerical method could not deliver a finite result to the requested
//    accuracy (exit code 3). The message says which quantity and why.
#pragma once

#include <stdexcept>
#include <string>

namespace rhoflow {

/// An input outside its accepted range; `param()` is the parameter's name as used on the CLI.
class InvalidArgument : public std::invalid_argument {
public:
    /// `param` is the parameter name (without dashes); `message` is the full sentence.
    InvalidArgument(std::string param, const std::string& message)
        : std::invalid_argument(message), param_(std::move(param)) {}
    /// The offending parameter's name, e.g. "R" or "eta0".
    const std::string& param() const noexcept { return param_; }

private:
    std::string param_;
};

/// A numerical method failed: non-finite value, no convergence, accuracy target missed.
class NumericalError : public std::runtime_error {
public:
    /// `message` says which quantity failed and why.
    explicit NumericalError(const std::string& message) : std::runtime_error(message) {}
};

/// Formats a double the way every error message and table does (shortest round-trip form).
std::string format_number(double x);

/// Throws InvalidArgument "<name> = <value> is out of range (accepted: <range>)" unless `ok`.
void require(bool ok, const std::string& name, double value, const std::string& range);

/// Throws InvalidArgument unless `value` is finite and lo <= value <= hi.
void require_in(const std::string& name, double value, double lo, double hi);

/// Throws NumericalError naming `what` unless `value` is finite; returns `value`.
double require_finite_result(double value, const std::string& what);

}  // namespace rhoflow
