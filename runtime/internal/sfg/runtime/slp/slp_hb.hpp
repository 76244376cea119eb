// Happens-before race detection on an SLP without expanding it (the SLP paper, §3 and App. D):
// every rule gets a summary of the chunk it generates, computed from its symbols' summaries, in
// time linear in the grammar. Extended from the paper's yes/no answer to the report of `hb`
// (docs/traces.md): per variable, the first racy event and the same `with_event` as the vector
// clock detector, found by descending into the grammar (docs/compressed.md, "How").
//
// Synchronization is the paper's, generalized to every op of docs/traces.md: a lock or volatile
// is an element of U, its snd (rel, vw) ordered before every later rcv (acq, vr); a barrier
// orders a generation's arrivals before its departures, each generation in a slot of its barrier
// that is an element of U, killed at the generation's first arrival (docs/compressed.md,
// "Barriers by generation"); a fork of a thread set is a fork of each thread in one event, a join
// likewise; begin and end only extend program order.
#pragma once

#include "sfg/runtime/report.hpp"
#include "sfg/runtime/slp/slp.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace sfg {

class SlpHb {
public:
    // The SLP must be well-formed (check_slp_well_formed) for the races to be those of its trace.
    SlpHb(const Slp& slp, const Symbols& syms);
    ~SlpHb();
    SlpHb(const SlpHb&) = delete;
    SlpHb& operator=(const SlpHb&) = delete;

    // Race?(S) (the paper's Theorem 3.3).
    bool racy() const;
    // The paper's summaries' racy variables at S, sorted by id.
    const std::vector<ObjId>& racy_vars() const;
    // The report of `hb` on the trace: one race per variable, in event order.
    std::vector<Race> races() const;

    // A rule's summary, for tests against the paper's worked examples: the sets of U (threads by
    // name, then objects by name) of AF, BL and the access keys (var, thread) -> set.
    struct Dump {
        std::vector<std::pair<std::string, std::vector<std::string>>> af, bl;
        std::vector<std::pair<std::string, std::vector<std::string>>> last_rd, last_wr, first_rd,
            first_wr;
        std::vector<std::string> racy;
    };
    Dump dump(std::uint32_t rule) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace sfg
