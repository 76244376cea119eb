// Phases, the mechanism between two phases, and loops (docs/infer.md, "How it decides"; the
// modes and labels of the thesis' chapter 4 and docs/language.md).
#include "chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace sfg::infer {

namespace {

// A phase by the trace's ids: its threads, each one's first and last access in it.
struct RawPhase {
    std::vector<ThreadId> threads; // sorted
    std::vector<std::uint64_t> first, last;
    std::vector<std::uint64_t> rounds; // each thread's barrier departures (Run::rounds)
    bool writes = false;
    std::vector<ObjId> locks; // held at every access
    std::uint32_t lock_set;   // the LockSets id of `locks`, or none once it is an intersection
    std::uint64_t accesses = 0;

    static constexpr std::uint32_t none = ~std::uint32_t{0};
    // Where t is, or would go, in threads, and whether it is there.
    // (A phase of a few threads is counted through without a branch: a run's thread is
    // whichever the schedule picked, and a binary search mispredicts on it.)
    std::pair<std::size_t, bool> slot(ThreadId t) const {
        std::size_t i = 0;
        if (threads.size() <= 16) {
            for (ThreadId u : threads)
                i += u < t;
        } else {
            i = static_cast<std::size_t>(std::lower_bound(threads.begin(), threads.end(), t) -
                                         threads.begin());
        }
        return {i, i < threads.size() && threads[i] == t};
    }
};

enum class Side { after, before };

// The event of `log` nearest to `bound` on `side` of it (the first after it, the last before
// it), or 0; its index in *at.
std::uint64_t nearest(const SyncLog* log, std::uint64_t bound, Side side,
                      std::size_t* at = nullptr) {
    if (!log)
        return 0;
    const auto& ev = log->events;
    const std::size_t i = ev.first_above(bound, side == Side::before);
    if (side == Side::after ? i == ev.size() : i == 0)
        return 0;
    const std::size_t found = side == Side::after ? i : i - 1;
    if (at)
        *at = found;
    return ev[found];
}

// How far consecutive runs of different threads may merge into one phase: EX, RS and LOCK
// (§10's order), then without LOCK, then one thread a phase. A coarser phase that no mechanism
// can enter or leave is split rather than left without a discipline.
enum class Merge { lock_and_read, read, none };

// Whether thread t, between events `from` and `to`, left a barrier that every thread of p and t
// pass: only such a barrier can end a phase (by_barrier), one that some of them never pass
// orders nothing among them (the particles' rounds, thesis Figure 3.4).
bool passed_shared_barrier(const RawPhase& p, ThreadId t, std::uint64_t from, std::uint64_t to,
                           const TraceRecorder& rec) {
    for (ObjId bar : rec.objects(t, SyncKind::bexit)) {
        const std::vector<ThreadId>& users = rec.barrier_threads[bar];
        if (!std::all_of(p.threads.begin(), p.threads.end(), [&](ThreadId u) {
                return std::binary_search(users.begin(), users.end(), u);
            }))
            continue;
        const std::uint64_t e = nearest(rec.log(t, SyncKind::bexit, bar), from, Side::after);
        if (e != 0 && e < to)
            return true;
    }
    return false;
}

// locks ∩= other (both sorted).
void meet_locks(std::vector<ObjId>& locks, const std::vector<ObjId>& other) {
    if (locks.empty() || locks == other)
        return;
    std::vector<ObjId> both;
    std::set_intersection(locks.begin(), locks.end(), other.begin(), other.end(),
                          std::back_inserter(both));
    locks = std::move(both);
}

// Adds run r to phase p when the merge policy lets p take it; false when r starts a new phase.
bool absorbed(RawPhase& p, const Run& r, const std::vector<ObjId>& locks, Merge m,
              const TraceRecorder& rec) {
    const auto [i, has] = p.slot(r.thread);
    if (has && p.rounds[i] != r.rounds &&
        passed_shared_barrier(p, r.thread, p.last[i], r.first, rec))
        return false; // a phase ends where its threads pass a barrier
    const bool fits = (p.threads.size() == 1 && has) ||
                      (m != Merge::none && !p.writes && !r.writes) ||
                      (m == Merge::lock_and_read &&
                       std::find_first_of(p.locks.begin(), p.locks.end(), locks.begin(),
                                          locks.end()) != p.locks.end());
    if (!fits)
        return false;
    if (!has) {
        const auto at = [&](auto& v) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
        p.threads.insert(at(p.threads), r.thread);
        p.first.insert(at(p.first), r.first);
        p.last.insert(at(p.last), r.last);
        p.rounds.insert(at(p.rounds), r.rounds);
    }
    p.last[i] = r.last;
    if (p.lock_set != r.locks) {
        meet_locks(p.locks, locks);
        p.lock_set = p.locks == locks ? r.locks : RawPhase::none;
    }
    p.writes |= r.writes;
    p.accesses += r.accesses;
    return true;
}

// The phases of `runs` under policy m, in order, handed to emit (which returns false to stop:
// the phases after a boundary that nothing orders are never built); every run is still handed
// to each_run. A phase split at a barrier (Run::rounds) that stays with one thread is still
// EX(t): it is joined to the one before again, as it needs no mechanism.
template <class Emit, class EachRun>
void phases_of(const RunLog& runs, const TraceRecorder& rec, Merge m, Emit&& emit,
               EachRun&& each_run) {
    std::optional<RawPhase> open, held; // the phase runs may join; the one before it
    bool go = true;
    auto settle = [&](RawPhase&& p) {
        if (held && held->threads.size() == 1 && p.threads == held->threads) {
            RawPhase& q = *held;
            q.last = p.last, q.rounds = p.rounds;
            q.writes |= p.writes;
            q.accesses += p.accesses;
            meet_locks(q.locks, p.locks);
            q.lock_set = q.lock_set == p.lock_set ? q.lock_set : RawPhase::none;
            return;
        }
        if (held)
            go = emit(std::move(*held));
        held = std::move(p);
    };
    runs.each([&](const Run& r) {
        each_run(r);
        if (!go)
            return;
        const std::vector<ObjId>& locks = rec.lock_sets.locks(r.locks);
        if (open && absorbed(*open, r, locks, m, rec))
            return;
        if (open)
            settle(std::move(*open));
        open = RawPhase{{r.thread}, {r.first}, {r.last}, {r.rounds},
                        r.writes,   locks,     r.locks,  r.accesses};
    });
    if (go && open)
        settle(std::move(*open));
    if (go && held)
        emit(std::move(*held));
}

struct Found {
    Label label;
    std::string why;
};

// A Found built member by member (GCC 12 warns, wrongly, that a brace-built one's strings may be
// used uninitialized inside the optional).
Found found(MechKind kind, std::string name, std::string why) {
    Found f;
    f.label.kind = kind;
    f.label.name = std::move(name);
    f.why = std::move(why);
    return f;
}

// The boundary p -> q: the trace's ids and names.
struct Boundary {
    const RawPhase& p;
    const RawPhase& q;
    const TraceRecorder& rec;
    const Symbols& syms;
    ObjId var;

    std::string thread(ThreadId t) const { return syms.threads.name(t); }
    std::string threads(const std::vector<ThreadId>& ts) const {
        std::vector<std::string> names;
        for (ThreadId t : ts)
            names.push_back(thread(t));
        return fmt::format("{}", fmt::join(names, ", "));
    }
};

// fork(s -> T): one fork event by p's one thread, after its last access, made every thread of q.
// join(S -> t): q's one thread joined every thread of p in one join event before its first.
std::optional<Found> by_fork_or_join(const Boundary& b, MechKind kind) {
    const bool fork = kind == MechKind::fork;
    const std::vector<ThreadId>& ones = fork ? b.p.threads : b.q.threads;
    const std::vector<ThreadId>& many = fork ? b.q.threads : b.p.threads;
    const auto& links = fork ? b.rec.forked_by : b.rec.joined_by;
    if (ones.size() != 1)
        return std::nullopt;
    const ThreadId one = ones[0];
    const std::uint64_t bound = fork ? b.p.last[0] : b.q.first[0];
    std::optional<ThreadLink> link;
    for (ThreadId u : many) {
        const auto& l = u < links.size() ? links[u] : std::nullopt;
        if (!l || l->by != one || (fork ? l->event <= bound : l->event >= bound) ||
            (link && link->event != l->event))
            return std::nullopt;
        link = l;
    }
    return found(kind, "",
                 fmt::format("{} {} {} at event {}", b.thread(one), fork ? "forks" : "joins",
                             b.threads(many), link->event));
}

// Whether thread t's log of kind k on obj has an event of generation g on the right side of
// `bound` (after it for arrivals, before it for departures).
bool in_generation(const Boundary& b, ThreadId t, SyncKind k, ObjId obj, std::uint32_t g,
                   std::uint64_t bound) {
    const SyncLog* log = b.rec.log(t, k, obj);
    if (!log)
        return false;
    const auto it = std::lower_bound(log->tags.begin(), log->tags.end(), g);
    if (it == log->tags.end() || *it != g)
        return false;
    const std::uint64_t e = log->events[static_cast<std::size_t>(it - log->tags.begin())];
    return k == SyncKind::benter ? e > bound : e < bound;
}

// The objects on which p's first thread has ops of kind `snd` and q's first thread ops of kind
// `rcv`, ascending: a boundary looks only at what its threads touched, never at every object.
std::vector<ObjId> shared_objects(const Boundary& b, SyncKind snd, SyncKind rcv) {
    const std::vector<ObjId>& sent = b.rec.objects(b.p.threads[0], snd);
    const std::vector<ObjId>& received = b.rec.objects(b.q.threads[0], rcv);
    const bool few = sent.size() <= received.size();
    const std::vector<ObjId>& small = few ? sent : received;
    const std::vector<ObjId>& large = few ? received : sent;
    std::vector<ObjId> out;
    for (ObjId o : small)
        if (std::binary_search(large.begin(), large.end(), o))
            out.push_back(o);
    return out;
}

// A barrier b: one generation that every thread of p enters after its last access and every
// thread of q leaves before its first (docs/traces.md, generations).
std::optional<Found> by_barrier(const Boundary& b) {
    for (ObjId bar : shared_objects(b, SyncKind::benter, SyncKind::bexit)) {
        const std::vector<ThreadId>& users = b.rec.barrier_threads[bar];
        auto uses = [&](ThreadId t) { return std::binary_search(users.begin(), users.end(), t); };
        if (!std::all_of(b.p.threads.begin(), b.p.threads.end(), uses) ||
            !std::all_of(b.q.threads.begin(), b.q.threads.end(), uses))
            continue;
        std::uint32_t g = 0;
        for (std::size_t i = 0; i < b.p.threads.size(); ++i) {
            const SyncLog* log = b.rec.log(b.p.threads[i], SyncKind::benter, bar);
            std::size_t at = 0;
            if (!nearest(log, b.p.last[i], Side::after, &at)) {
                g = ~0u;
                break;
            }
            g = std::max(g, log->tags[at]);
        }
        bool ok = g != ~0u;
        for (std::size_t i = 0; ok && i < b.p.threads.size(); ++i)
            ok = in_generation(b, b.p.threads[i], SyncKind::benter, bar, g, b.p.last[i]);
        for (std::size_t i = 0; ok && i < b.q.threads.size(); ++i)
            ok = in_generation(b, b.q.threads[i], SyncKind::bexit, bar, g, b.q.first[i]);
        if (ok)
            return found(MechKind::barrier, b.syms.barriers.name(bar),
                         fmt::format("every thread passes barrier {} in its round {}",
                                     b.syms.barriers.name(bar), g + 1));
    }
    return std::nullopt;
}

// A snd by s after its last access (`snd` log) and a later rcv by t before its first (`rcv`
// log): a lock's rel/acq, a volatile's vw/vr, a queue's enq/deq of this variable.
std::optional<std::pair<std::uint64_t, std::uint64_t>>
sent_then_received(const Boundary& b, SyncKind snd, SyncKind rcv, ObjId obj) {
    const std::uint64_t w = nearest(b.rec.log(b.p.threads[0], snd, obj), b.p.last[0], Side::after);
    const std::uint64_t r =
        nearest(b.rec.log(b.q.threads[0], rcv, obj), b.q.first[0], Side::before);
    if (w == 0 || r == 0 || r < w)
        return std::nullopt;
    return std::pair{w, r};
}

// p's one thread sent on `l` at sr.first, q's one thread received at sr.second.
Found handed(const Boundary& b, Label l, std::pair<std::uint64_t, std::uint64_t> sr,
             const std::string& sent, const std::string& received) {
    return Found{std::move(l),
                 fmt::format("{} {} at event {}, {} {} at event {}", b.thread(b.p.threads[0]), sent,
                             sr.first, b.thread(b.q.threads[0]), received, sr.second)};
}

// A volatile v, with the value the reader saw when the write of that value came after p
// (thesis §5.1, vflag; docs/language.md, values).
std::optional<Found> by_volatile(const Boundary& b) {
    for (ObjId v : shared_objects(b, SyncKind::vw, SyncKind::vr)) {
        const auto plain = sent_then_received(b, SyncKind::vw, SyncKind::vr, v);
        if (!plain)
            continue;
        const std::string& name = b.syms.volatiles.name(v);
        const SyncLog* reads = b.rec.log(b.q.threads[0], SyncKind::vr, v);
        std::size_t at = 0;
        nearest(reads, b.q.first[0], Side::before, &at);
        const std::uint32_t value = reads->tags[at];
        const SyncLog* writes = b.rec.log(b.p.threads[0], SyncKind::vw, v);
        std::size_t w = 0;
        for (nearest(writes, b.p.last[0], Side::after, &w);
             value != no_object && w < writes->events.size() && writes->events[w] < plain->second;
             ++w)
            if (writes->tags[w] == value) {
                const std::int64_t k = b.syms.values.value(value);
                return handed(b, {MechKind::volatile_, name, k}, {writes->events[w], plain->second},
                              fmt::format("writes {}={}", name, k), "reads it");
            }
        return handed(b, {MechKind::volatile_, name, {}}, *plain, "writes " + name, "reads it");
    }
    return std::nullopt;
}

std::optional<Found> by_queue(const Boundary& b) {
    std::vector<ObjId> items; // of this variable, by queue
    for (ObjId item : shared_objects(b, SyncKind::enq, SyncKind::deq))
        if (b.syms.queue_items.var(item) == b.var)
            items.push_back(item);
    std::sort(items.begin(), items.end(), [&](ObjId x, ObjId y) {
        return b.syms.queue_items.queue(x) < b.syms.queue_items.queue(y);
    });
    for (ObjId item : items) {
        const std::string& name = b.syms.queues.name(b.syms.queue_items.queue(item));
        if (const auto sr = sent_then_received(b, SyncKind::enq, SyncKind::deq, item))
            return handed(b, {MechKind::queue, name, {}}, *sr, "puts it into " + name,
                          "takes it out");
    }
    return std::nullopt;
}

std::optional<Found> by_lock(const Boundary& b) {
    for (ObjId m : shared_objects(b, SyncKind::rel, SyncKind::acq))
        if (const auto sr = sent_then_received(b, SyncKind::rel, SyncKind::acq, m))
            return handed(b, {MechKind::lock, b.syms.locks.name(m), {}}, *sr,
                          "releases " + b.syms.locks.name(m), "acquires it");
    return std::nullopt;
}

// The mechanism, in §10's order: fork, join, a barrier, a volatile (with its value), a queue, a
// lock. Volatiles, queues and locks carry one sender's message to one receiver (Valid, §4.2.3).
std::optional<Found> mechanism(const Boundary& b) {
    if (auto f = by_fork_or_join(b, MechKind::fork))
        return f;
    if (auto f = by_fork_or_join(b, MechKind::join))
        return f;
    if (auto f = by_barrier(b))
        return f;
    if (b.p.threads.size() != 1 || b.q.threads.size() != 1)
        return std::nullopt;
    if (auto f = by_volatile(b))
        return f;
    if (auto f = by_queue(b))
        return f;
    return by_lock(b);
}

// A phase's mode. `written`: whether the trace writes the variable at all; one that it only
// reads gets RS even from one thread: RS(t) permits only t's reads, EX(t) its writes too, and
// nothing in the trace asks for them. A read-only phase of one thread in a variable that is
// written stays EX(t), as the thesis writes the bank's last phase (Figure 3.1).
Phase named(const RawPhase& r, const Symbols& syms, bool written) {
    Phase p;
    for (ThreadId t : r.threads)
        p.mode.threads.push_back(syms.threads.name(t));
    std::sort(p.mode.threads.begin(), p.mode.threads.end());
    p.accesses = r.accesses;
    if (r.threads.size() == 1 && !written) {
        p.mode.kind = ModeKind::RS;
        p.why = "one thread, only reads (the variable is never written)";
    } else if (r.threads.size() == 1) {
        p.mode.kind = ModeKind::EX;
        p.why = r.writes ? "one thread" : "one thread (reads only)";
    } else if (!r.writes) {
        p.mode.kind = ModeKind::RS;
        p.why = "only reads";
    } else {
        p.mode.kind = ModeKind::LOCK;
        p.mode.lock = syms.locks.name(r.locks.front());
        p.why = fmt::format("{} held at every access", p.mode.lock);
    }
    return p;
}

// The phases of one merge policy with the mechanism of every boundary, or the first boundary
// that has none.
struct Linked {
    std::vector<Phase> phases;
    std::vector<Found> labels;
    std::string unordered;
};

// Stops at the first boundary that no mechanism orders. With `totals`, what the runs add up to.
Linked link(const RunLog& runs, const TraceRecorder& rec, const Symbols& syms, ObjId var, Merge m,
            RunTotals* totals) {
    Linked l;
    const bool written = runs.written();
    std::optional<RawPhase> before;
    std::vector<char> seen; // by thread: counted in totals
    auto each_run = [&](const Run& r) {
        if (!totals)
            return;
        totals->accesses += r.accesses;
        if (seen.size() <= r.thread)
            seen.resize(r.thread + 1, 0);
        if (!seen[r.thread]) // threads in the order of their first access
            seen[r.thread] = 1, totals->threads.push_back(r.thread);
    };
    phases_of(
        runs, rec, m,
        [&](RawPhase&& p) {
            l.phases.push_back(named(p, syms, written));
            if (before) {
                std::optional<Found> f = mechanism({*before, p, rec, syms, var});
                if (!f) {
                    const std::size_t i = l.phases.size() - 1;
                    l.unordered = fmt::format(
                        "no single mechanism orders the accesses of {} (last at event {}) before "
                        "those of {} (first at event {})",
                        render_mode(l.phases[i - 1].mode),
                        *std::max_element(before->last.begin(), before->last.end()),
                        render_mode(l.phases[i].mode),
                        *std::min_element(p.first.begin(), p.first.end()));
                    return false;
                }
                l.labels.push_back(std::move(*f));
            }
            before = std::move(p);
            return true;
        },
        each_run);
    return l;
}

} // namespace

RunTotals run_totals(const RunLog& runs) {
    RunTotals t;
    std::unordered_set<ThreadId> seen;
    runs.each([&](const Run& r) {
        t.accesses += r.accesses;
        if (seen.insert(r.thread).second)
            t.threads.push_back(r.thread);
    });
    return t;
}

std::variant<Chain, std::string> infer_chain(const RunLog& runs, const TraceRecorder& rec,
                                             const Symbols& syms, ObjId var, RunTotals* totals) {
    // The levels from the coarsest phases to one thread a phase; when all fail, the reason is
    // the last one's: its phases are the most specific (EX), so what it names is the order the
    // trace lacks between two threads, not a boundary that finer phases would have avoided.
    std::string unordered;
    for (Merge m : {Merge::lock_and_read, Merge::read, Merge::none}) {
        Linked l = link(runs, rec, syms, var, m, m == Merge::lock_and_read ? totals : nullptr);
        if (!l.unordered.empty()) {
            unordered = std::move(l.unordered);
            continue;
        }
        std::vector<Label> labels;
        std::vector<std::string> whys;
        for (Found& f : l.labels) {
            labels.push_back(std::move(f.label));
            whys.push_back(std::move(f.why));
        }
        return fold_loops(l.phases, labels, whys);
    }
    return unordered;
}

} // namespace sfg::infer
