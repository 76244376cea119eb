// sfg::session (docs/enforcers.md): opening and closing the one session, and its queries, each
// after the events so far are checked.
#include "event_lock.hpp"
#include "event_queue.hpp"
#include "global_state.hpp"
#include "session_impl.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace sfg {

namespace {

std::unique_ptr<detail::SessionImpl> open_session(const spec* s, session_options o) {
    detail::GlobalState& g = detail::global();
    detail::HiddenScope hidden;
    std::unique_ptr<detail::SessionImpl> stale; // a kept session not to serve: freed unlocked
    std::lock_guard opening(g.lifecycle);
    std::optional<finding> second;
    {
        detail::EventLock lock;
        if (detail::SessionImpl* open = g.current) {
            const std::size_t before = open->fresh.size();
            open->add_misuse("session", open->main_thread,
                             "a second sfg::session was opened while one is open (one at a time)");
            if (open->fresh.size() > before)
                second = open->fresh.back();
            open->fresh.clear();
        } else {
            if (g.next_serial > 0xffffffffu) // serials fit object::cache's upper half
                g.next_serial = 1;
            std::unique_ptr<detail::SessionImpl> impl(std::exchange(g.spare, nullptr));
            if (impl && impl->serves(s, o)) {
                impl->reset(g.next_serial++);
            } else {
                stale = std::move(impl);
                impl = std::make_unique<detail::SessionImpl>(g.next_serial++, s, std::move(o));
            }
            if (impl->queued()) // first: starting the checker thread may throw
                detail::queue().open(impl.get());
            detail::this_thread = {impl->serial, impl->main_thread};
            g.current = impl.get();
            if (impl->queued())
                g.deferring.store(impl->serial, std::memory_order_relaxed);
            return impl;
        }
    }
    if (!second) // reported before: report again to this caller
        second =
            detail::make_finding(FindingKind::misuse, "", "session", "", std::nullopt,
                                 "sfg::session: a second session was opened while one is open");
    throw finding_error(std::move(*second));
}

} // namespace

session::session(const spec& s, session_options o) : impl_(open_session(&s, std::move(o))) {
    detail::EventLock lock;
    detail::global().current_session = this;
}
session::session(session_options o) : impl_(open_session(nullptr, std::move(o))) {
    detail::EventLock lock;
    detail::global().current_session = this;
}

session::~session() {
    close();
    if (!impl_->explored)
        return;
    // Kept for the next run of the exploration (open_session).
    detail::GlobalState& g = detail::global();
    detail::HiddenScope hidden;
    std::unique_ptr<detail::SessionImpl> replaced; // freed unlocked
    std::lock_guard keeping(g.lifecycle);
    detail::EventLock lock;
    replaced.reset(std::exchange(g.spare, impl_.release()));
}

void session::close() {
    detail::GlobalState& g = detail::global();
    // Until the checker thread has stopped: no other session opens meanwhile.
    detail::HiddenScope hidden;
    std::lock_guard closing(g.lifecycle);
    const bool queued = impl_->queued();
    if (queued) // every event appended so far is checked (not under the lock: the checker takes it)
        detail::queue().drain(impl_->serial);
    {
        detail::EventLock lock;
        if (impl_->closed)
            return;
        impl_->closed = true;
        g.deferring.store(0, std::memory_order_relaxed);
        if (detail::this_thread.serial == impl_->serial)
            detail::this_thread = {};
        g.current = nullptr;
        g.current_session = nullptr;
    }
    if (queued)
        detail::queue().close();
    detail::EventLock lock;
    impl_->finish();
}

std::size_t session::mark() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::EventLock lock;
    return impl_->findings.size();
}

bool session::expect(std::size_t mark, std::string_view kind, std::string_view var) {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::EventLock lock;
    bool found = false;
    for (std::size_t i = mark; i < impl_->findings.size(); ++i)
        if (impl_->findings[i].kind == kind && impl_->findings[i].var == var)
            impl_->expected[i] = found = true;
    return found;
}

std::vector<finding> session::unexpected_findings() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::EventLock lock;
    std::vector<finding> out;
    for (std::size_t i = 0; i < impl_->findings.size(); ++i)
        if (!impl_->expected[i])
            out.push_back(impl_->findings[i]);
    return out;
}

session* session::current() {
    detail::EventLock lock;
    return detail::global().current_session;
}

std::vector<finding> session::findings() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::EventLock lock;
    return impl_->findings;
}

std::uint64_t session::events() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::EventLock lock;
    return impl_->stream->events();
}

} // namespace sfg
