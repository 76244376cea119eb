// The inferred spec checked before anyone reads it (docs/infer.md): it compiles, and every trace
// it came from conforms to it (the enforcer, thesis Figures 4.14 and 4.15, admits it).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sfg::infer {

// nullopt when `spec_text` compiles without errors and `enforce` reports nothing on any of
// `trace_files` (read as `sfgc trace` reads them); else what went wrong, naming the variable,
// the trace and the event.
std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<std::string>& trace_files);

} // namespace sfg::infer
