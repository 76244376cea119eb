// The scheduling point of an operation (sfg/runtime/live/control.hpp), private to
// runtime/src/live: `run` when no controller is active.
#pragma once

#include "sfg/runtime/live/control.hpp"

namespace sfg::detail {

inline Scheduled schedule(const Point& p) {
    Control* c = control();
    return c ? c->point(p) : Scheduled::run;
}

} // namespace sfg::detail
