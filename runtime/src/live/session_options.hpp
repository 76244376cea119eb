// The options of a session from its environment (docs/enforcers.md, "Options"), private to
// runtime/src/live.
#pragma once

#include "sfg/sfg.hpp"

namespace sfg::detail {

// SFG_OPTIONS="key=value key=value" (':' separates too, like TSAN_OPTIONS) over `o`, then
// SFG_TRACE when o.trace_path is empty. Throws std::invalid_argument on a bad option.
void apply_environment(session_options& o);

} // namespace sfg::detail
