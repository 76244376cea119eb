// The active scheduling controller (sfg/runtime/live/control.hpp): none outside sfg::explore.
#include "sfg/runtime/live/control.hpp"

#include <atomic>

namespace sfg::detail {

namespace {
std::atomic<Control*> active{nullptr};
} // namespace

Control* control() {
    return active.load(std::memory_order_acquire);
}

void set_control(Control* c) {
    active.store(c, std::memory_order_release);
}

} // namespace sfg::detail
