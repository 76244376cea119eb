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
//
// Internal (tests, benchmarks, the model checker); users make the enforcer by name,
// make_analysis("enforce") (analyses.hpp), and read its verdicts as findings.
#pragma once

#include "sfg/runtime/enforce.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

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
        // With EnforceOptions::count_candidates (else 0): the largest candidate set ever held
        // (but for products of a mode of more than 64 threads, whose count walks every thread
        // at every op: counted only when their variable is added, docs/enforcement.md).
        std::uint64_t max_candidates = 0;
        std::uint64_t memo_collections = 0; // times candidate_memo_bytes was reached
        std::uint64_t unfactored = 0;       // times a variable left its products for explicit sets
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
