// From traces to SLPs and back: compression reads a trace once, mapping each event to its
// terminal (thread, op, operand) and the grammar builder; expansion walks the grammar depth-first
// and hands the events to the well-formedness checker, as a trace reader does.
#include "sfg/runtime/slp.hpp"
#include "sfg/runtime/well_formed.hpp"

#include <fmt/format.h>
#include <unordered_map>

namespace sfg {

TraceResult expand_slp(const Slp& slp, std::string_view file_name, const Symbols& syms,
                       Analysis& sink) {
    WellFormedStream stream(syms, sink);
    TraceResult r;
    auto loc = slp.locations.begin();
    const auto loc_end = slp.locations.end();
    std::uint64_t next_loc = loc != loc_end ? loc->first : 0;
    std::uint64_t number = 0;
    // The rules in one array, each rule's symbols from start[r] to start[r + 1]: expansion jumps
    // from rule to rule, and two loads a jump from small arrays beat two from scattered vectors.
    std::vector<SlpSymbol> flat;
    flat.reserve(slp.size());
    std::vector<std::uint64_t> start;
    start.reserve(slp.rules.size() + 1);
    for (const auto& rule : slp.rules) {
        start.push_back(flat.size());
        flat.insert(flat.end(), rule.begin(), rule.end());
    }
    start.push_back(flat.size());
    // The symbols left of each open rule: depth at most the number of rules.
    std::vector<std::pair<const SlpSymbol*, const SlpSymbol*>> stack;
    if (!flat.empty() && start[1] > 0)
        stack.emplace_back(flat.data(), flat.data() + start[1]);
    const SlpTerminal* const terminals = slp.terminals.data();
    while (!stack.empty()) {
        auto& top = stack.back();
        const SlpSymbol s = *top.first++;
        if (top.first == top.second)
            stack.pop_back(); // before a push: `top` may move
        if (slp_is_rule(s)) {
            const std::uint32_t r = slp_index(s);
            stack.emplace_back(flat.data() + start[r], flat.data() + start[r + 1]);
            continue;
        }
        const SlpTerminal& t = terminals[s];
        ObjId location = no_object;
        if (++number == next_loc) {
            location = (loc++)->second;
            next_loc = loc != loc_end ? loc->first : 0;
        }
        if (!stream.push(t.thread, t.op, t.target, location, 0)) {
            r.error = TraceError{std::string(file_name), 0, 0,
                                 fmt::format("event {}: {}", number, stream.error())};
            r.events = stream.events();
            return r;
        }
    }
    stream.finish();
    r.events = stream.events();
    return r;
}

TraceResult read_slp_trace(std::string_view bytes, std::string_view file_name, Symbols& syms,
                           Analysis& sink) {
    Slp slp;
    if (auto e = read_slp(bytes, file_name, syms, slp)) {
        TraceResult r;
        r.error = std::move(e);
        return r;
    }
    return expand_slp(slp, file_name, syms, sink);
}

namespace {

// Maps each explicit event to its terminal; collects the locations.
class TerminalSink : public Analysis {
public:
    TerminalSink(Slp& slp, SlpAlgorithm algorithm) : slp_(slp), algorithm_(algorithm) {}
    void on_event(const Event& e, const Symbols&) override {
        if (e.implicit)
            return;
        const SlpTerminal t{e.thread, e.op, e.target};
        const std::uint64_t key = (std::uint64_t{e.thread} << 36) ^
                                  (std::uint64_t{static_cast<std::uint8_t>(e.op)} << 32) ^
                                  std::uint64_t{e.target};
        auto [it, fresh] = ids_.try_emplace(key, 0);
        if (fresh || !(slp_.terminals[it->second] == t)) {
            // A new terminal (or, rarely, a hash clash: then look for it).
            std::uint32_t id = fresh ? static_cast<std::uint32_t>(slp_.terminals.size()) : find(t);
            if (id == slp_.terminals.size())
                slp_.terminals.push_back(t);
            if (fresh)
                it->second = id;
            emit(id);
        } else {
            emit(it->second);
        }
        if (e.location != no_object)
            slp_.locations.emplace_back(e.number, e.location);
    }
    std::vector<std::uint32_t> sequence; // repair's input

    SequiturBuilder sequitur;

private:
    std::uint32_t find(const SlpTerminal& t) const {
        for (std::size_t i = 0; i < slp_.terminals.size(); ++i)
            if (slp_.terminals[i] == t)
                return static_cast<std::uint32_t>(i);
        return static_cast<std::uint32_t>(slp_.terminals.size());
    }
    void emit(std::uint32_t id) {
        if (algorithm_ == SlpAlgorithm::sequitur)
            sequitur.add(id);
        else
            sequence.push_back(id);
    }
    Slp& slp_;
    SlpAlgorithm algorithm_;
    std::unordered_map<std::uint64_t, std::uint32_t> ids_;
};

} // namespace

TraceResult compress_trace_file(const std::string& path, SlpAlgorithm algorithm, Symbols& syms,
                                Slp& out) {
    out = Slp{};
    TerminalSink sink(out, algorithm);
    TraceResult r = read_trace_file(path, syms, sink);
    if (!r.ok())
        return r;
    if (out.terminals.size() >= (std::size_t{1} << 30)) {
        r.error = TraceError{path, 0, 0, "too many distinct events to compress (2^30 or more)"};
        return r;
    }
    out.rules =
        algorithm == SlpAlgorithm::sequitur ? sink.sequitur.finish() : repair(sink.sequence);
    if (out.rules.empty())
        out.rules.emplace_back(); // an empty trace: an empty start rule (written as such)
    if (auto e = out.compute_lengths())
        r.error = TraceError{path, 0, 0, *e};
    return r;
}

} // namespace sfg
