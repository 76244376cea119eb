// The inferred spec checked before anyone reads it (docs/infer.md): it compiles, and every trace
// it came from conforms to it (the enforcer, thesis Figures 4.14 and 4.15, admits it).
#pragma once

#include "sfg/runtime/event.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sfg::infer {

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
