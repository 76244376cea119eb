// Barrier generations on the grammar (docs/compressed.md, "Barriers by generation"). A barrier
// orders only a generation's arrivals before its departures (docs/traces.md), and a trace may hold
// any number of generations, while the grammar's summaries need a finite set U of objects. So each
// generation of barrier b is given a *slot* of b, the lowest one that no generation still in use
// holds (open, or with a thread yet to leave), and the summaries see slot s of b as an object:
// benter its snd, bexit its rcv, and the first arrival of a generation *kills* the slot (what it
// held before is forgotten) before sending. A slot is reused only once its previous generation is
// over, so a departure learns exactly its own generation's arrivals. A barrier needs at most one
// slot more than it has threads waiting at once.
//
// The slot of an event depends on the state at the start of its rule's chunk, not on the rule
// alone, so a rule met in different barrier states is labelled once per state (a *chunk*):
// memoized by the state of the barriers the rule touches, so repetitive traces (a loop that
// passes a barrier) keep a few chunks per rule.
#pragma once

#include "sfg/runtime/slp/slp.hpp"

#include <cstdint>
#include <vector>

namespace sfg::slp_detail {

struct BarrierSlots {
    // A barrier event with its slot; kill: the generation's first arrival.
    struct Leaf {
        std::uint32_t terminal = 0;
        std::uint32_t slot = 0;
        bool kill = false;
    };
    std::vector<Leaf> leaves;
    // A rule labelled for one barrier state. Symbols: terminal k (not a barrier event) is k,
    // leaves[i] is terminals.size() + i, chunk c is slp_rule_bit | c.
    struct Chunk {
        std::uint32_t rule = 0;
        std::vector<SlpSymbol> symbols;
    };
    std::vector<Chunk> chunks; // each after the chunks it uses: the last is the trace's
    // A chunk of each rule (the first made), or none_chunk for a rule the trace never uses.
    static constexpr std::uint32_t none_chunk = ~std::uint32_t{0};
    std::vector<std::uint32_t> rule_chunk;
    std::vector<std::uint32_t> slots; // by barrier: how many slots its generations use (>= 1)
};

// Whether any terminal is a barrier event.
bool has_barriers(const Slp& slp);

// Labels every barrier event of a well-formed SLP with its generation's slot.
BarrierSlots label_barrier_slots(const Slp& slp, const Symbols& syms);

} // namespace sfg::slp_detail
