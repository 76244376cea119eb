// sfg::Enforcer: the coordinator (enforcer_impl.hpp) and the public API. Which trace op is the
// snd / rcv of which mechanism (thesis Figure 4.2, docs/traces.md) is the op table's (op.hpp).
#include "enforcer_impl.hpp"

#include <algorithm>

namespace sfg {

using namespace enforce;

bool Enforcer::Impl::add_variable(std::string name, const Net& net) {
    if (vars.ids.count(name))
        return false;
    const VarIx vi = vars.list.next_index();
    Variable v;
    v.name = name;
    v.shape = shapes.intern(net, names);
    v.edge_mech = static_cast<std::uint32_t>(vars.edge_mechs.size());
    for (std::uint32_t e = 0; e < net.edge_count(); ++e) // edges, then families (net.hpp)
        vars.edge_mechs.push_back(names.intern_mechanism(net.mechanism(e), name));
    const NetShape& s = shapes[v.shape];
    const auto edge_mechs = vars.mechanisms(v, net.edge_count());
    const bool lazy = s.one_token && options.group_one_token;
    if (lazy)
        v.group = groups.group_for(v.shape, s, edge_mechs, names, index);
    groups.add_variable(v.group, s, clock);
    markings.add_variable(vi, v.shape, s, !lazy, edge_mechs, names, index);
    vars.ids.emplace(std::move(name), vi);
    vars.list.push_back(std::move(v));
    if (lazy)
        return true;
    if (options.count_candidates)
        stats.max_candidates = std::max<std::uint64_t>(stats.max_candidates, markings.count(vi));
    resolver.reset(nullptr); // names resolved to "unknown" before may be known now
    return true;
}

void Enforcer::Impl::freeze() {
    index.freeze(names.mechanism_count(), names.thread_count());
    groups.freeze(shapes, names.thread_count());
    freeze_thread_rows();
    size_rounds();
    barrier_kinds.clear(); // (a variable added since may have edges on a barrier)
}

void Enforcer::Impl::freeze_thread_rows() {
    const Role start = op_info(Op::thread_start).role, exit = op_info(Op::thread_end).role,
               fork = op_info(Op::fork).role, join = op_info(Op::join).role;
    for (ThreadRows* rows : {&starts, &exits, &forks, &joins})
        rows->clear();
    for (std::size_t i = 0; i < names.thread_count(); ++i) {
        const NetThread u = NetThread::at(i);
        for (ThreadRows* rows : {&starts, &exits, &forks, &joins})
            rows->start_row();
        for (MechIx m : names.forks_with_member(u))
            starts.add(names.mechanism(m).thread, {}, index.find(m, u, start));
        for (MechIx m : names.joins_with_member(u))
            exits.add(names.mechanism(m).thread, {}, index.find(m, u, exit));
        for (MechIx m : names.forks_by(u))
            forks.add(u, names.mechanism(m).threads, index.find(m, u, fork));
        for (MechIx m : names.joins_by(u))
            joins.add(u, names.mechanism(m).threads, index.find(m, u, join));
    }
}

// One round per mechanism and one flag per thread in each, one Waiting per thread: the barrier
// ops index them without a test.
void Enforcer::Impl::size_rounds() {
    rounds.resize(names.mechanism_count());
    for (BarrierRound& r : rounds)
        r.left.resize(names.thread_count(), 0);
    arrived.resize(names.thread_count());
}

void Enforcer::Impl::prepare(const Symbols& syms) {
    if (index.dirty())
        freeze();
    if (resolver.symbols() != &syms)
        resolver.reset(&syms);
}

void Enforcer::Impl::reset() {
    markings.reset(shapes);
    groups.reset(shapes, clock);
    for (Variable& v : vars.list)
        v.violations = 0;
    held = {};
    generations = {};
    rounds.clear();
    arrived = {};
    size_rounds();
    std::fill(inside_flags.begin(), inside_flags.end(), 0);
    flags_of = MechIx::none();
    first.clear();
    all.clear();
    stats = {};
    resolver.next_trace();
}

bool Enforcer::Impl::count_violation(VarIx v) {
    Variable& var = vars.list[v];
    ++var.violations;
    return var.violations == 1 || options.report_all;
}

void Enforcer::Impl::record(EnforceViolation viol, VarIx v) {
    viol.after_resync = vars.list[v].violations > 1;
    if (!viol.after_resync)
        first.push_back(viol);
    all.push_back(std::move(viol));
}

// [WRITE EXCLUSIVE], [READ EXCLUSIVE], [READ SHARED], [WRITE LOCKED], [READ LOCKED]; no
// candidate permitting the access is a violation, after which the variable is re-synchronized
// (docs/enforcement.md).
void Enforcer::Impl::eager_memory(VarIx v, NetThread t, const Event& e) {
    const bool write = writes(e.op);
    const HeldLocks h = held_by(t);
    const NetShape& s = shapes[vars.list[v].shape];
    if (s.fixed_mode.valid() && s.fixed_permits(t, write, h))
        return; // candidates that never change (NetShape::fixed_mode)
    if (markings.memory_step(v, t, write, h, shapes))
        return;
    if (count_violation(v)) {
        const CandidateView cands = markings.explained(v, t, materialized);
        record(explainer.describe(v, cands, t, h, e, resolver.symbols()), v);
        materialized.clear();
    }
    markings.resync(v, t, write, h, shapes);
}

void Enforcer::Impl::track_mode_lock(NetThread t, MechIx m, bool acquired) {
    if (held.size() <= t.ix())
        held.resize(t.ix() + 1);
    std::vector<MechIx>& mine = held[t];
    if (acquired)
        mine.push_back(m); // not re-entrant: a well-formed trace does not acquire it twice
    else if (auto it = std::find(mine.begin(), mine.end(), m); it != mine.end())
        mine.erase(it);
}

void Enforcer::Impl::lazy_memory(VarIx v, GroupIx g, NetThread t, std::uint64_t want,
                                 const Event& e) {
    const bool write = writes(e.op);
    if (groups.memory_step(v, g, t, write, want, clock))
        return;
    if (count_violation(v)) {
        groups.materialize(v, shapes, materialized);
        record(explainer.describe(v, materialized.view(), t, {}, e, resolver.symbols()), v);
        materialized.clear();
    }
    groups.resync(v, g, t, write, want, clock);
}

// Applies one sync op to every variable gathered, each once with the union of its matching
// transitions (one op fires at most one transition per candidate: a thread has one token).
void Enforcer::Impl::apply_gathered() {
    if (gathered.empty()) {
        ++stats.sync_ops_irrelevant;
        return;
    }
    // By target, to merge each one's; a pool's fork (n keys of one group) is already.
    const auto by_target = [](const Subscription& a, const Subscription& b) {
        return a.target < b.target;
    };
    if (!std::is_sorted(gathered.begin(), gathered.end(), by_target))
        std::sort(gathered.begin(), gathered.end(), by_target);
    for (std::size_t i = 0; i < gathered.size();) {
        std::size_t j = i + 1;
        while (j < gathered.size() && gathered[j].target == gathered[i].target)
            ++j;
        if (j == i + 1) {
            step(gathered[i]);
        } else if (gathered[i].is_group()) {
            merged_rules.clear();
            for (std::size_t k = i; k < j; ++k) {
                const auto rules = groups.rules(gathered[k]);
                merged_rules.insert(merged_rules.end(), rules.begin(), rules.end());
            }
            group_step(gathered[i].group(), merged_rules);
        } else {
            merged_trs.clear();
            for (std::size_t k = i; k < j; ++k) {
                const auto trs = markings.transitions(gathered[k]);
                merged_trs.insert(merged_trs.end(), trs.begin(), trs.end());
            }
            counted_sync_step(gathered[i].var(),
                              markings.sync_step(gathered[i].var(), merged_trs, shapes));
        }
        i = j;
    }
}

void Enforcer::Impl::on_sync(const Event& e, NetThread t) {
    const OpInfo& op = op_info(e.op);
    if (op.operand == Operand::name) { // acq .. bexit (r and w never come here): one key
        ++stats.sync_ops;
        if (op.mech == MechKind::barrier) [[unlikely]] // (most sync ops are a lock's)
            return on_barrier_sync(e, t, op);
        const MechIx m = t.valid() ? resolver.mechanism_of(op, e.target) : MechIx::none();
        if (e.has_value() && t.valid() && names.has_value_mechanisms()) [[unlikely]] {
            if (on_value_sync(e, t, op, m))
                return;
        }
        if (op.mech == MechKind::lock && m.valid() && names.mechanism(m).mode_lock) [[unlikely]]
            track_mode_lock(t, m, op.role == Role::rcv); // acq: the lock's rcv
        const std::span<const Subscription> found =
            m.valid() ? index.find(m, t, op.role) : std::span<const Subscription>();
        stats.sync_ops_irrelevant += found.empty();
        for (const Subscription& sub : found) // one key: distinct targets, nothing to merge
            step(sub);
        return;
    }
    switch (op.operand) {
    case Operand::name: // above
    case Operand::none: // begin, end
        return;
    case Operand::thread_set:
        return on_thread_set_sync(e, t, op);
    case Operand::thread:
        return on_thread_sync(e, t, op);
    case Operand::queue_item:
        return on_queue_item_sync(e, t, op);
    }
}

// A barrier edge's tokens are coloured by the barrier's generation (docs/enforcement.md,
// "Barrier rounds"): snd[s:e] at an arrival of generation g marks PostSnd[s:e] g, sync[e] needs
// one g on all its tokens and marks PreRcv g, rcv[t:e] fires only at a departure from g. The
// colours need not be stored: a generation takes no arrival after its first departure, so then
// its sent tokens can never sync (live ones all carry the open generation, and "one g" is "all
// sent"), and a receiver's token is armed for t's next departure once t is inside g (at the
// sync, or at t's next arrival while g is open), dies if that departure does not fire it, and
// dies waiting if g closes first.
void Enforcer::Impl::on_barrier_sync(const Event& e, NetThread t, const OpInfo& op) {
    const MechIx m = resolver.mechanism_of(op, e.target);
    const bool enter = op.role == Role::snd;
    BarrierGenerations::Exit left;
    BarrierGenerations::Generation g = 0;
    if (enter)
        g = generations.enter(e.thread, e.target).generation;
    else
        left = generations.exit(e.thread, e.target);
    if (!m.valid()) {
        ++stats.sync_ops_irrelevant;
        return;
    }
    const std::span<const Subscription> found =
        t.valid() ? index.find(m, t, op.role) : std::span<const Subscription>();
    const BarrierKind kind = barrier_kind(m);
    if (kind == BarrierKind::uncoloured) {
        stats.sync_ops_irrelevant += found.empty();
        for (const Subscription& sub : found)
            step(sub);
        return;
    }
    // Sized by freeze() and reset(): every barrier and thread a net names.
    BarrierRound& round = rounds[m.ix()];
    if (kind == BarrierKind::groups || options.count_candidates) [[unlikely]]
        return on_barrier_groups(found, t, m, round, enter ? g : 0, left.closes);
    if (!enter) {
        if (left.closes) { // (before the rcv steps: the close arms what they may fire)
            markings.colour_steps(m, {ColourOp::close, NetThread::none(), round_flags(m, {})},
                                  shapes);
            std::fill(round.left.begin(), round.left.end(), 0); // (their stale tokens died)
        }
        if (t.valid() && round.left[t.ix()]) [[unlikely]] // (left again, no close since)
            markings.colour_steps(m, {ColourOp::exit, t, {}}, shapes);
        variable_steps(found);
        if (t.valid()) {
            arrived[t] = {};
            round.left[t.ix()] = 1;
        }
        if (left.closes)
            round.open = 0;
        return;
    }
    if (round.open != g) [[unlikely]]
        open_round(m, t, g, round);
    if (t.valid()) {
        // Arrived again without a departure, in a later generation: the armed tokens of the one
        // it left are stale (its next departure is from this one). After a departure, those
        // its rcv step did not fire are killed by the next close (explicit sets).
        if (arrived[t].barrier == m && arrived[t].generation != g) [[unlikely]]
            colour_step(m, {ColourOp::exit, t, {}, false});
        arrived[t] = {m, g};
        round.inside.push_back(t);
    }
    if (flags_of == m) // (the close rebuilds the flags)
        flags_of = MechIx::none();
    variable_steps(found);
}

Enforcer::Impl::BarrierKind Enforcer::Impl::barrier_kind_slow(MechIx m) {
    if (barrier_kinds.size() <= m.ix())
        barrier_kinds.resize(m.ix() + 1, BarrierKind::unknown);
    BarrierKind& k = barrier_kinds[m.ix()];
    k = !groups.coloured(m).empty()     ? BarrierKind::groups
        : !markings.coloured(m).empty() ? BarrierKind::coloured
                                        : BarrierKind::uncoloured;
    // (variable_steps takes every subscription on m for a variable's.)
    for (std::size_t u = 0; u < names.thread_count() && k == BarrierKind::coloured; ++u)
        for (Role role : {Role::snd, Role::rcv})
            for (const Subscription& sub : index.find(m, NetThread::at(u), role))
                if (sub.is_group())
                    k = BarrierKind::groups;
    size_rounds();
    return k;
}

// The first arrival of generation g on barrier m.
void Enforcer::Impl::open_round(MechIx m, NetThread t, BarrierGenerations::Generation g,
                                BarrierRound& round) {
    if (round.open == 0) // (the close left explicit sets' sent tokens: they die now)
        markings.colour_steps(m, {ColourOp::open, t, {}}, shapes);
    round.open = g;
    if (flags_of == m)
        for (NetThread u : round.inside)
            inside_flags[u.ix()] = 0;
    round.inside.clear();
}

// on_barrier_sync with one-token groups that have edges on m (their colour moves are not
// late: an arrival arms, a departure kills), or with the largest candidate set counted
// (enter: g, the arrival's generation; else 0).
void Enforcer::Impl::on_barrier_groups(std::span<const Subscription> found, NetThread t, MechIx m,
                                       BarrierRound& round, BarrierGenerations::Generation g,
                                       bool closes) {
    if (g == 0) {
        if (closes) { // (before the rcv steps: the close arms what they may fire)
            markings.colour_steps(m, {ColourOp::close, NetThread::none(), round_flags(m, {})},
                                  shapes);
            std::fill(round.left.begin(), round.left.end(), 0); // (their stale tokens died)
        }
        if (t.valid() && round.has_left(t)) // (left again, no close since: stale tokens)
            markings.colour_steps(m, {ColourOp::exit, t, {}}, shapes);
        coloured_steps(found);
        if (t.valid()) {
            for (GroupIx gi : groups.coloured(m))
                groups.colour_step(gi, m, {ColourOp::exit, t, {}});
            arrived[t] = {};
            round.left[t.ix()] = 1;
        }
        if (closes) {
            for (GroupIx gi : groups.coloured(m))
                groups.colour_step(gi, m, {ColourOp::close, NetThread::none(), {}});
            round.open = 0;
        }
        if (options.count_candidates)
            count_fired();
        return;
    }
    if (round.open != g)
        open_round(m, t, g, round);
    if (t.valid()) {
        if (arrived[t].barrier == m && arrived[t].generation != g)
            colour_step(m, {ColourOp::exit, t, {}, false});
        arrived[t] = {m, g};
        round.inside.push_back(t);
    }
    if (groups.coloured(m).empty()) { // (the close rebuilds the flags)
        if (flags_of == m)
            flags_of = MechIx::none();
        coloured_steps(found);
    } else {
        const std::span<const std::uint8_t> flags = round_flags(m, t);
        coloured_steps(found);
        for (GroupIx gi : groups.coloured(m))
            groups.colour_step(gi, m, {ColourOp::enter, t, flags});
    }
    if (options.count_candidates)
        count_fired();
}

// The flags of the round's threads (kept set between its arrivals: a barrier op on another
// barrier clears and sets its own).
std::span<const std::uint8_t> Enforcer::Impl::round_flags(MechIx m, NetThread arriving) {
    if (inside_flags.size() < names.thread_count())
        inside_flags.resize(names.thread_count(), 0);
    if (flags_of != m) {
        std::fill(inside_flags.begin(), inside_flags.end(), 0);
        flags_of = m;
        for (NetThread u : rounds[m.ix()].inside)
            inside_flags[u.ix()] = 1;
    } else if (arriving.valid()) // the others' are set: one flag an arrival, not a round's
        inside_flags[arriving.ix()] = 1;
    return inside_flags;
}

// A barrier op's steps: the largest candidate set is counted after its colour steps
// (count_fired), as the representations differ before them (products kill at the rcv step).
void Enforcer::Impl::coloured_steps(std::span<const Subscription> found) {
    fired_vars.clear();
    for (const Subscription& sub : found) {
        if (sub.is_group()) {
            group_step(sub.group(), groups.rules(sub));
            continue;
        }
        ++stats.variable_visits;
        if (markings.sync_step(sub, shapes)) {
            ++stats.candidate_updates;
            if (options.count_candidates)
                fired_vars.push_back(sub.var());
        }
    }
}

void Enforcer::Impl::count_fired() {
    for (VarIx v : fired_vars)
        if (markings.countable(v))
            stats.max_candidates = std::max<std::uint64_t>(stats.max_candidates, markings.count(v));
}

void Enforcer::Impl::colour_step(MechIx m, const ColourOp& op) {
    markings.colour_steps(m, op, shapes);
    for (GroupIx g : groups.coloured(m))
        groups.colour_step(g, m, op);
}

// vw(v=K) is the snd, vr(v=K) the rcv, of both v and v==K (thesis §5.1, docs/enforcement.md):
// one op, so at most one transition per candidate. False when no net names v==K.
bool Enforcer::Impl::on_value_sync(const Event& e, NetThread t, const OpInfo& op, MechIx m) {
    const MechIx mv = resolver.value_mechanism_of(e.target, e.value_id);
    if (!mv.valid())
        return false;
    gathered.clear();
    if (m.valid())
        lookup(m, t, op.role);
    lookup(mv, t, op.role);
    apply_gathered();
    return true;
}

// The fork and join mechanisms (thesis Figure 4.2): the op with a thread set is the side of the
// mechanism's own thread t, fork(t -> U) or join(S -> t); the implicit op with one thread
// (on_thread_sync) is the side of a member u of U or S. Which side sends is the op's role.
void Enforcer::Impl::on_thread_set_sync(const Event& e, NetThread t, const OpInfo& op) {
    gathered.clear();
    ++stats.sync_ops;
    const ThreadRows& rows = op.mech == MechKind::fork ? forks : joins;
    if (const auto row = rows.row(t); !row.empty()) {
        // Every mechanism of t whose U or S is within the operand, U looked up member by
        // member: a pool's fork(main -> w) for each of its n workers is n lookups, not n walks
        // of the operand.
        operand_threads(e);
        for (const ThreadRows::Entry& en : row) {
            const auto us = rows.threads(en);
            if (std::all_of(us.begin(), us.end(), [&](NetThread u) { return operand_flags[u]; }))
                gather(rows.subscriptions(en));
        }
        for (NetThread u : set_threads)
            operand_flags[u] = 0;
    }
    apply_gathered();
}

// fork/join operands as NetThreads, each flagged in operand_flags (threads no net names are
// dropped: no U or S has them).
void Enforcer::Impl::operand_threads(const Event& e) {
    const Symbols& syms = *resolver.symbols();
    set_threads.clear();
    if (operand_flags.size() < names.thread_count())
        operand_flags.resize(names.thread_count(), 0);
    if (e.target != no_object && e.target < syms.thread_sets.size())
        for (ThreadId u : syms.thread_sets[e.target])
            if (const NetThread nu = resolver.thread_of(u); nu.valid()) {
                set_threads.push_back(nu);
                operand_flags[nu] = 1;
            }
}

void Enforcer::Impl::on_thread_sync(const Event& e, NetThread t, const OpInfo& op) {
    gathered.clear();
    ++stats.sync_ops;
    if (!t.valid())
        return apply_gathered();
    if (op.mech == MechKind::fork) { // start: every fork(t' -> U), u ∈ U, t' the forker of u
        const auto row = starts.row(t);
        const NetThread forker = row.empty() ? NetThread::none() : resolver.thread_of(e.target);
        if (forker.valid())
            for (const ThreadRows::Entry& en : row)
                if (en.thread == forker)
                    gather(starts.subscriptions(en));
    } else { // exit: every join(S -> t'), u ∈ S, whatever t'
        for (const ThreadRows::Entry& en : exits.row(t))
            gather(exits.subscriptions(en));
    }
    apply_gathered();
}

// snd / rcv of q(o), queue q on variable o (thesis §5.1).
void Enforcer::Impl::on_queue_item_sync(const Event& e, NetThread t, const OpInfo& op) {
    ++stats.sync_ops;
    const MechIx m = t.valid() ? resolver.queue_item_mechanism_of(e.target) : MechIx::none();
    const std::span<const Subscription> found =
        m.valid() ? index.find(m, t, op.role) : std::span<const Subscription>();
    stats.sync_ops_irrelevant += found.empty();
    for (const Subscription& sub : found)
        step(sub);
}

CandidateView Enforcer::Impl::candidates(VarIx v, CandidateSet& scratch) const {
    if (!vars.list[v].group.valid())
        return markings.candidates(v, scratch);
    groups.materialize(v, shapes, scratch);
    return scratch.view();
}

// ---------------------------------------------------------------------------------------------
// Public API

Enforcer::Enforcer(EnforceOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
    impl_->markings.configure(options.factor_candidates, options.max_factored_products,
                              options.memoize_candidates, options.candidate_memo_bytes);
    impl_->markings.watch_rounds(&impl_->rounds);
}

Enforcer::~Enforcer() = default;

bool Enforcer::add_variable(std::string var_name, const Net& net) {
    return impl_->add_variable(std::move(var_name), net);
}

void Enforcer::on_event(const Event& e, const Symbols& syms) {
    Impl& im = *impl_;
    if (im.index.dirty() || im.resolver.symbols() != &syms) [[unlikely]]
        im.prepare(syms);
    im.on_event(e);
}

void Enforcer::reset() {
    impl_->reset();
}

const std::vector<EnforceViolation>& Enforcer::violations() const {
    return impl_->first;
}
const std::vector<EnforceViolation>& Enforcer::all_violations() const {
    return impl_->all;
}
std::size_t Enforcer::variable_count() const {
    return impl_->vars.list.size();
}
const Enforcer::Stats& Enforcer::stats() const {
    impl_->stats.memo_collections = impl_->markings.collections();
    impl_->stats.unfactored = impl_->markings.unfactored();
    return impl_->stats;
}

std::vector<Marking> Enforcer::candidates(std::string_view var) const {
    std::vector<Marking> out;
    const VarIx v = impl_->vars.find(std::string(var));
    if (!v.valid())
        return out;
    CandidateSet scratch;
    impl_->candidates(v, scratch).for_each([&](std::span<const PlaceIx> m) {
        Marking& marking = out.emplace_back();
        for (PlaceIx p : m)
            marking.push_back(p.v);
    });
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> Enforcer::possible_modes(std::string_view var) const {
    std::vector<std::string> out;
    const VarIx v = impl_->vars.find(std::string(var));
    if (!v.valid())
        return out;
    const NetShape& s = impl_->shapes[impl_->vars.list[v].shape];
    std::vector<ModeIx> modes;
    CandidateSet scratch;
    // (A few candidates per product have all its modes: no need to list a large set.)
    const CandidateView cands = impl_->vars.list[v].group.valid()
                                    ? impl_->candidates(v, scratch)
                                    : impl_->markings.explained(v, NetThread::none(), scratch);
    cands.for_each([&](std::span<const PlaceIx> m) {
        for (PlaceIx p : m)
            s.place_modes(p, modes);
    });
    std::sort(modes.begin(), modes.end());
    modes.erase(std::unique(modes.begin(), modes.end()), modes.end());
    for (ModeIx a : modes)
        out.push_back(s.mode_labels[a]);
    return out;
}

} // namespace sfg
