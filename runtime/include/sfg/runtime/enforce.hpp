// Enforcement of specified synchronization disciplines (thesis §4.3.3, Figures 4.14 and 4.15),
// for many variables at once without the linear cost of Figure 5.2's [SLOW SYNC] rule.
//
// Each annotated variable keeps a set of candidate markings of its Petri net N(G) (Figure 4.11),
// initially M0. A memory op keeps the candidates that permit it ([WRITE EXCLUSIVE],
// [READ EXCLUSIVE], [READ SHARED]); a sync op maps every candidate M to {M} ([SKIP]) plus every M'
// reached by firing one matching snd/rcv transition ([SEND], [RECEIVE]), sync transitions being
// fired as soon as they are enabled ([SYNC]). A per-mechanism index (lock, volatile, barrier,
// fork/join mechanism x thread x role) means a sync op visits only the variables whose nets have
// a transition it could fire. See docs/enforcement.md.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

struct EnforceOptions {
    // After the first violation of a variable the enforcer re-synchronizes it (docs: the
    // candidates become { P(a) | mode a permits the offending access }) and keeps checking.
    // With report_all, the violations found after that are recorded too (all_violations());
    // `sfgc trace --analysis enforce` reports only the first per variable (violations()).
    bool report_all = false;
    // Variables whose nets keep one token (every mode has one thread: lock, volatile and
    // fork/join disciplines over EX modes) are simulated per group of variables sharing a net
    // and its mechanisms, lazily (docs/enforcement.md). false: every variable keeps its own
    // candidate set, updated on every sync op it could see (the reference the tests compare
    // against; same verdicts and explanations).
    bool group_one_token = true;
    // The other variables (several tokens: barrier and fork/join disciplines over RS modes, ...)
    // keep Figure 4.15's candidate sets, which can be large. With factor_candidates, a set is
    // kept as a few products of per-thread positions (docs/enforcement.md, "Candidate sets as
    // products"): a step costs a few words per thread of a mode, however many markings the set
    // holds. false, or a net or an op the products cannot express: the explicit sets below.
    bool factor_candidates = true;
    // The most products a mode of a variable may have (at most 16); past it the variable leaves
    // its products for explicit sets (counting a union of products costs exponentially in their
    // number).
    std::size_t max_factored_products = 8;
    // With memoize_candidates, the explicit sets of one net structure are interned and each
    // step from one to another is remembered (the deterministic analysis built lazily,
    // docs/enforcement.md): a step taken before costs a lookup. false: every variable computes
    // every step on its own set (the reference the tests compare against; same verdicts and
    // explanations).
    bool memoize_candidates = true;
    // The memory the remembered sets and steps may take beyond the sets the variables are in;
    // past it they are forgotten (every variable keeps its set) and relearned.
    std::size_t candidate_memo_bytes = std::size_t{32} << 20;
};

// One way the offending access could have been permitted: the discipline's edge
// `from -mechanism-> to`, where mode `to` permits the access. `senders` still had to perform
// `snd_op` after their accesses in `from` (empty: they all had), then `receiver` (the accessing
// thread) had to perform `rcv_op` before the access.
struct EnforceFix {
    std::uint32_t edge = 0;         // the edge's index in Net::edges
    std::string from_mode, to_mode; // mode labels, e.g. "EX(T0)", "RS(t1,t2)"
    std::string mechanism;          // canonical label: "m", "fork(t0->t1,t2)", ...
    std::vector<std::string> senders;
    std::string snd_op; // "rel(m)", "vw(v)", "benter(b)", "fork(t1,t2)", "end"
    std::string receiver;
    std::string rcv_op; // "acq(m)", "vr(v)", "bexit(b)", "start", "join(t1,t2)"
    // `to` is LOCK_m(T) and the receiver did not hold m at the access: "m", which it must hold
    // then ([READ LOCKED], [WRITE LOCKED], thesis §5.2); empty otherwise.
    std::string hold_lock;
};

// A possible mode LOCK_m(T) that would have permitted the access had the thread held m
// ([READ LOCKED], [WRITE LOCKED], thesis §5.2).
struct EnforceLockNeeded {
    std::string mode; // "LOCK_m(t0,t1)"
    std::string lock; // "m"
};

// A memory op that no candidate marking permits (Figure 4.15 with an empty result). Plain data;
// explain() formats it.
struct EnforceViolation {
    std::string var;
    std::uint64_t event = 0; // the event number (docs/traces.md)
    ThreadId thread = 0;
    std::string thread_name;
    Op op = Op::read;                        // Op::read or Op::write
    ObjId location = no_object;              // Symbols::locations id, as in the event
    std::uint32_t line = 0;                  // as in the event
    bool after_resync = false;               // false for the first violation of the variable
    std::vector<std::string> possible_modes; // modes the candidates were in, before the access
    // Modes of the discipline that permit the access (a LOCK mode counts: it would, with its
    // lock held).
    std::vector<std::string> permitting_modes;
    std::vector<EnforceLockNeeded> locks_needed; // possible LOCK modes whose lock was not held
    std::vector<EnforceFix> fixes;               // the cheapest ways in (fewest missing ops) first
    // When no edge leads from a possible mode straight into a permitting mode: a shortest route
    // through the discipline, e.g. "EX(t0) -m-> EX(t1) -n-> EX(t2)" (empty if there is none).
    std::string route;
};

// The one-paragraph explanation (the JSON "message" of docs/traces.md), e.g.
// "w(x) by T1 is not permitted: the possible mode was EX(T0); to enter EX(T1) (edge EX(T0) -m->
// EX(T1)), T0 must rel(m) after its accesses in EX(T0) and T1 must acq(m) before writing x".
std::string explain(const EnforceViolation& v);

class Enforcer : public Analysis {
public:
    explicit Enforcer(EnforceOptions options = {});
    ~Enforcer() override;
    Enforcer(const Enforcer&) = delete;
    Enforcer& operator=(const Enforcer&) = delete;

    // Annotates the variable `var_name` (as named in traces) with N(G). The net's threads and
    // mechanisms are matched to the trace's by name, lazily: the trace may name threads the net
    // does not, and the net threads the trace never does. Adding a variable twice replaces
    // nothing: the second call is ignored (returns false).
    bool add_variable(std::string var_name, const Net& net);

    // Every event of one trace comes with the same Symbols (names may be added as it goes);
    // call reset() before feeding a trace with another Symbols object.
    void on_event(const Event& e, const Symbols& syms) override;

    // Forgets the events seen so far: every variable back to M0, no violations, zeroed stats.
    // The variables, their nets and the index are kept, so one Enforcer can check many traces
    // (e.g. every execution of a model-checker run) without rebuilding them.
    void reset();

    // The first violation of each variable, in event order.
    const std::vector<EnforceViolation>& violations() const;
    // Every violation recorded: the first ones, and with report_all the later ones, in event
    // order.
    const std::vector<EnforceViolation>& all_violations() const;

    std::size_t variable_count() const;

    struct Stats {
        std::uint64_t events = 0;
        std::uint64_t sync_ops = 0;            // snd/rcv ops seen (incl. implicit start/end)
        std::uint64_t sync_ops_irrelevant = 0; // sync ops that no net mentions (touch nothing)
        std::uint64_t variable_visits = 0;     // (sync op, variable) pairs looked at
        std::uint64_t candidate_updates = 0;   // visits that changed a candidate set
        std::uint64_t max_candidates = 0;      // largest candidate set ever held
        std::uint64_t memo_collections = 0;    // times candidate_memo_bytes was reached
        std::uint64_t unfactored = 0; // times a variable left its products for explicit sets
    };
    const Stats& stats() const;

    // Introspection (tests, debugging): the current candidate markings of a variable as sorted
    // place indices of its net, sorted; and the labels of the modes they are in. Empty for an
    // unknown variable.
    std::vector<Marking> candidates(std::string_view var) const;
    std::vector<std::string> possible_modes(std::string_view var) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sfg
