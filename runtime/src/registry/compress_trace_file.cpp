// compress_trace_file (compress_trace_file.hpp): a trace file read once, each event mapped to its
// terminal (thread, op, operand) and fed to the grammar builder (slp.hpp).
#include "sfg/runtime/registry/compress_trace_file.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sfg {

namespace {

// Maps each explicit event to its terminal; collects the locations.
class TerminalSink : public Analysis {
public:
    TerminalSink(Slp& slp, SlpAlgorithm algorithm) : slp_(slp), algorithm_(algorithm) {}
    void on_event(const Event& e, const Symbols&) override {
        if (e.implicit)
            return;
        const SlpTerminal t{e.thread, e.op, e.target, e.value_id};
        const std::uint64_t key =
            ((std::uint64_t{e.thread} << 36) ^
             (std::uint64_t{static_cast<std::uint8_t>(e.op)} << 32) ^ std::uint64_t{e.target}) +
            (e.has_value() ? (std::uint64_t{e.value_id} + 1) * 0x9e3779b97f4a7c15ull : 0);
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
