#include "rhoflow/core/cancel.hpp"

#include "rhoflow/core/errors.hpp"

namespace rhoflow {

namespace {
thread_local const CancelFlag* current_flag = nullptr;
}  // namespace

CancelScope::CancelScope(const CancelFlag* flag) noexcept : previous_(current_flag) { current_flag = flag; }

CancelScope::~CancelScope() { current_flag = previous_; }

const CancelFlag* current_cancel_flag() noexcept { return current_flag; }

void throw_if_cancelled() {
    if (current_flag && current_flag->requested()) throw Interrupted("interrupted on request");
}

}  // namespace rhoflow
