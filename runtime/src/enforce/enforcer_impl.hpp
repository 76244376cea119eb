// sfg::Enforcer's coordinator: it owns one component per concern and routes each event to
// them (docs/enforcement.md):
//   NetNames            the nets' threads (NetThread) and mechanisms, interned
//   NetShapes           each net's structure as tables, shared by nets that differ only in
//                       their mechanisms
//   Variables           the annotated variables
//   SyncIndex           (mechanism, thread, role) -> the variables and groups a sync op visits
//   ThreadRows          the same for fork, join, start and exit, by thread
//   CandidateMarkings   Figure 4.15's candidate sets, one variable at a time: as products of
//                       per-thread positions (FactoredCandidates), or explicit with their
//                       steps memoized per NetShape (CandidateAutomaton)
//   OneTokenGroups      one-token variables, lazily, one table per group
//   NameResolver        trace ids -> ours
//   ViolationExplainer  describe() of a violation
#pragma once

#include "candidate_markings.hpp"
#include "indices.hpp"
#include "name_resolver.hpp"
#include "net_names.hpp"
#include "net_shape.hpp"
#include "one_token_groups.hpp"
#include "sync_index.hpp"
#include "variables.hpp"
#include "violation_explainer.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/hb/barrier_generations.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sfg {

struct Enforcer::Impl {
    using NetThread = enforce::NetThread;
    using VarIx = enforce::VarIx;
    using GroupIx = enforce::GroupIx;
    using MechIx = enforce::MechIx;
    using Subscription = enforce::Subscription;

    // First, so that it shares the coordinator's address: the resolver's out-of-line lookups
    // then need no register of their own on the memory op's path (it only stores the addresses
    // of names and vars here).
    enforce::NameResolver resolver{names, vars};
    EnforceOptions options;
    enforce::NetNames names;
    enforce::NetShapes shapes;
    enforce::Variables vars;
    enforce::SyncIndex index;
    enforce::CandidateMarkings markings;
    enforce::OneTokenGroups groups;
    enforce::ViolationExplainer explainer{shapes, names, vars};

    std::vector<EnforceViolation> first, all;
    Stats stats;
    // The one-token groups' time: events since the enforcer was made, across reset(), so that a
    // wide group's table needs no clearing on reset (OneTokenGroups::reset).
    std::uint64_t clock = 0;
    // The locks each thread holds, of those LOCK modes name ([READ LOCKED], [WRITE LOCKED]).
    enforce::IndexVec<NetThread, std::vector<MechIx>> held;

    // Barrier rounds (docs/enforcement.md, "Barrier rounds"): the generations hb uses, and per
    // barrier mechanism the named threads inside its open generation.
    BarrierGenerations generations;
    std::vector<enforce::BarrierRound> rounds; // by MechIx
    // The barrier and generation each thread waits in, if any.
    struct Waiting {
        MechIx barrier;
        BarrierGenerations::Generation generation = 0;
    };
    enforce::IndexVec<NetThread, Waiting> arrived;
    MechIx flags_of; // the barrier whose round inside_flags holds
    // Per barrier: whether variables have edges on it, and whether one-token groups do.
    enum class BarrierKind : std::uint8_t { unknown, uncoloured, coloured, groups };
    std::vector<BarrierKind> barrier_kinds; // by MechIx, found again after freeze()
    BarrierKind barrier_kind(MechIx m) {
        return m.ix() < barrier_kinds.size() && barrier_kinds[m.ix()] != BarrierKind::unknown
                   ? barrier_kinds[m.ix()]
                   : barrier_kind_slow(m);
    }
    BarrierKind barrier_kind_slow(MechIx m);
    void size_rounds();

    // The index's keys of the fork and join mechanisms by thread (made with it, in freeze): a
    // member's start and exit, and the fork and join of the mechanisms' own thread. (After the
    // members a memory op reads.)
    enforce::ThreadRows starts, exits, forks, joins;

    // Scratch.
    std::vector<std::uint8_t> inside_flags; // by NetThread: inside the op's open generation
    std::vector<VarIx> fired_vars;          // coloured_steps
    std::vector<Subscription> gathered;
    std::vector<enforce::TransitionIx> merged_trs;
    std::vector<enforce::ReachRule> merged_rules;
    std::vector<NetThread> set_threads;                       // operand_threads
    enforce::IndexVec<NetThread, std::uint8_t> operand_flags; // by NetThread: in set_threads
    enforce::CandidateSet materialized;

    bool add_variable(std::string name, const Net& net);
    void freeze();
    // Before an event: the index frozen, the resolver on this trace's symbols.
    [[gnu::noinline]] void prepare(const Symbols& syms);
    void reset();

    // A memory op (most events) in few instructions and registers; the rest out of line.
    void on_event(const Event& e) {
        ++stats.events;
        ++clock;
        const NetThread t = resolver.thread_of(e.thread);
        if (!is_memory(e.op))
            return on_sync(e, t);
        const enforce::VarRef r = resolver.var_of(e.target);
        if (!r.var.valid())
            return;
        if (!r.group.valid())
            return eager_memory(r.var, t, e);
        const std::uint64_t want = groups.permitting_rows(r.group, t, writes(e.op));
        if (groups.keep_if_all_permit(r.var, want, clock))
            return;
        lazy_memory(r.var, r.group, t, want, e);
    }
    [[gnu::noinline]] void on_sync(const Event& e, NetThread t); // every op but r and w
    // on_sync's steps for what is not a lock, volatile or barrier op: a value a vr/vw carries
    // (false: no net names it), a fork or join with its thread set, the start or exit of a
    // member of one, an enq or deq.
    bool on_value_sync(const Event& e, NetThread t, const OpInfo& op, MechIx m);
    // benter / bexit: the snd / rcv transitions, then the colours (ColourOp).
    [[gnu::noinline]] void on_barrier_sync(const Event& e, NetThread t, const OpInfo& op);
    void open_round(MechIx m, NetThread t, BarrierGenerations::Generation g,
                    enforce::BarrierRound& round);
    void on_barrier_groups(std::span<const Subscription> found, NetThread t, MechIx m,
                           enforce::BarrierRound& round, BarrierGenerations::Generation g,
                           bool closes);
    void colour_step(MechIx m, const enforce::ColourOp& op);
    // inside_flags for the round of barrier m.
    std::span<const std::uint8_t> round_flags(MechIx m, NetThread arriving);
    void coloured_steps(std::span<const Subscription> found);
    void count_fired();
    void freeze_thread_rows();
    void on_thread_set_sync(const Event& e, NetThread t, const OpInfo& op);
    void operand_threads(const Event& e); // into set_threads and operand_flags
    void on_thread_sync(const Event& e, NetThread t, const OpInfo& op);
    void on_queue_item_sync(const Event& e, NetThread t, const OpInfo& op);
    void eager_memory(VarIx v, NetThread t, const Event& e);
    enforce::HeldLocks held_by(NetThread t) const {
        return t.valid() && t.ix() < held.size() ? enforce::HeldLocks(held[t])
                                                 : enforce::HeldLocks();
    }
    // acq(m) / rel(m) by t of a lock some LOCK mode names.
    void track_mode_lock(NetThread t, MechIx m, bool acquired);
    void lazy_memory(VarIx v, GroupIx g, NetThread t, std::uint64_t want, const Event& e);
    // Counts a violation of v; true when it is to be recorded (the first, or every one with
    // report_all).
    bool count_violation(VarIx v);
    void record(EnforceViolation viol, VarIx v);

    // Collects the subscriptions of one key into `gathered` (fork, join, start and exit ops and
    // a volatile's value may have several keys).
    void lookup(MechIx mech, NetThread t, Role role) { gather(index.find(mech, t, role)); }
    void gather(std::span<const Subscription> found) {
        gathered.insert(gathered.end(), found.begin(), found.end());
    }
    void step(const Subscription& sub) {
        if (sub.is_group())
            group_step(sub.group(), groups.rules(sub));
        else
            counted_sync_step(sub.var(), markings.sync_step(sub, shapes));
    }
    void group_step(GroupIx g, std::span<const enforce::ReachRule> rules) {
        ++stats.variable_visits;
        stats.candidate_updates += groups.step(g, rules, clock);
    }
    // The stats of a CandidateMarkings sync step on v (fired: a transition fired).
    void counted_sync_step(VarIx v, bool fired) {
        ++stats.variable_visits;
        if (!fired)
            return;
        ++stats.candidate_updates;
        if (options.count_candidates && markings.countable(v))
            stats.max_candidates = std::max<std::uint64_t>(stats.max_candidates, markings.count(v));
    }
    // The steps of a barrier op whose subscriptions are variables' (no one-token group has
    // edges on its barrier) and whose largest set is not counted: the stats summed once.
    void variable_steps(std::span<const Subscription> found) {
        std::uint64_t updates = 0;
        for (const Subscription& sub : found)
            updates += markings.sync_step(sub, shapes);
        stats.variable_visits += found.size();
        stats.candidate_updates += updates;
    }
    void apply_gathered();
    // The current candidates of v (materialized for a OneTokenGroups variable into `scratch`).
    enforce::CandidateView candidates(VarIx v, enforce::CandidateSet& scratch) const;
};

} // namespace sfg
