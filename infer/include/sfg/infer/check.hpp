// The inferred spec checked before anyone reads it (docs/infer.md): it compiles, and every trace
// it came from conforms to it (the enforcer, thesis Figures 4.14 and 4.15, admits it).
#pragma once

#include "sfg/infer/infer.hpp"
#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sfg::infer {

// A trace's events kept in memory during the inference's one pass (a few bytes an event,
// LEB128), so that the check replays them instead of reading and parsing the trace again (and
// a trace read from standard input is checked too).
class EventLog final : public Analysis {
public:
    void on_event(const Event& e, const Symbols& syms) override;
    // Hands `sink` every event in order, as the pass saw them with `syms`.
    void replay(const Symbols& syms, Analysis& sink) const;

private:
    ByteLog bytes_;
    std::uint64_t number_ = 0; // the previous event's
    std::uint32_t line_ = 0;
};

// One input to replay: its name and how to hand its events to a sink, interning names into the
// given Symbols (an error message when the input cannot be read).
struct Replay {
    std::string name;
    std::function<std::optional<std::string>(Symbols&, Analysis&)> feed;
};

// nullopt when `spec_text` compiles without errors and `enforce` reports nothing on any input;
// else what went wrong, naming the variable, the input and the event.
std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<Replay>& inputs);
// The same on trace files, read as `sfgc trace` reads them (text, binary or SLP).
std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<std::string>& trace_files);

} // namespace sfg::infer
