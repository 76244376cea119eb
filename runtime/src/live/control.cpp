// The active scheduling controller (sfg/runtime/live/control.hpp): none outside sfg::explore.
#include "sfg/runtime/live/control.hpp"

#include <atomic>
#include <utility>

namespace sfg::detail {

namespace {
std::atomic<Control*> active{nullptr};
constinit thread_local Control* bound = nullptr;
} // namespace

Control* control() {
    if (Control* c = bound)
        return c;
    return active.load(std::memory_order_acquire);
}

void set_control(Control* c) {
    active.store(c, std::memory_order_release);
}

Control* bind_control(Control* c) {
    return std::exchange(bound, c);
}

} // namespace sfg::detail
