#include "sfg/runtime/race/analysis_eraser.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <span>

namespace sfg {

void EraserDetector::on_event(const Event& e, const Symbols&) {
    if (e.implicit)
        return;
    const ThreadId t = e.thread;
    locks_.on_event(e);
    if (!is_memory(e.op))
        return;
    // The locks t holds, as a sorted set for the lockset intersections below (mostly none or
    // one: sorted already, no copy).
    std::span<const ObjId> h = locks_.held(t);
    if (!std::is_sorted(h.begin(), h.end())) {
        held_.assign(h.begin(), h.end());
        std::sort(held_.begin(), held_.end());
        h = held_;
    }

    if (vars_.size() <= e.target)
        vars_.resize(e.target + 1);
    Var& v = vars_[e.target];
    EraserVar::Step step = v.access(t, writes(e.op), h);
    if (step.warn) {
        LocksetWarning w;
        w.var = e.target;
        w.access = AccessRef::of(e);
        const Last& other = v.last.thread != t ? v.last : v.last_other;
        if (other.thread != no_object)
            w.with = AccessRef::of(other.site, other.thread, other.op);
        w.candidates = std::move(step.before);
        w.held.assign(h.begin(), h.end());
        w.first_shared = step.first_shared;
        warnings_.push_back(std::move(w));
    }
    if (v.last.thread != t)
        v.last_other = v.last;
    v.last = {t, e.op, Site::of(e)};
}

std::vector<Finding> to_findings(const std::vector<LocksetWarning>& warnings, const Symbols& syms) {
    auto locks = [&](const std::vector<ObjId>& ls) {
        std::string s;
        for (ObjId m : ls)
            s += (s.empty() ? "" : ", ") + syms.locks.name(m);
        return s.empty() ? std::string("no lock") : "{" + s + "}";
    };
    std::vector<Finding> out;
    for (const auto& w : warnings) {
        Finding f;
        f.kind = FindingKind::warning;
        f.var = syms.vars.name(w.var);
        f.access = w.access;
        f.with = w.with;
        const std::string& t = syms.threads.name(w.access.thread);
        if (w.first_shared)
            f.message = fmt::format("{} becomes shared and written, but thread {} holds no lock "
                                    "(Eraser's lockset discipline)",
                                    f.var, t);
        else if (w.candidates.empty())
            f.message = fmt::format("no lock protects {} consistently: thread {} holds {}, and "
                                    "the earlier shared accesses held no lock in common "
                                    "(Eraser's lockset discipline)",
                                    f.var, t, locks(w.held));
        else
            f.message = fmt::format("no lock protects {} consistently: thread {} holds {}, while "
                                    "the locks common to the earlier shared accesses were {} "
                                    "(Eraser's lockset discipline)",
                                    f.var, t, locks(w.held), locks(w.candidates));
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace sfg
