// Enforcement of specified synchronization disciplines (thesis §4.3.3, Figures 4.14 and 4.15;
// docs/enforcement.md): its options and its verdicts as plain data. The enforcer itself is made by
// name, make_analysis("enforce") (analyses.hpp).
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
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
    // Whether the statistics count the largest candidate set (tests and benchmarks compare the
    // representations by it): a count after every sync op that changes a set, about a quarter
    // of a barrier-heavy trace's time. Verdicts do not depend on it.
    bool count_candidates = false;
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

} // namespace sfg
