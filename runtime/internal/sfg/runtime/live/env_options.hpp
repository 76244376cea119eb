// Options from the environment, TSAN_OPTIONS-style (docs/enforcers.md, "Options";
// docs/explore.md, "Environment"): SFG_OPTIONS for sessions, SFG_EXPLORE for explorations.
#pragma once

#include <functional>
#include <string>

namespace sfg::detail {

// For each KEY=VALUE of environment variable `name` (':' or blanks between them), in order:
// apply(key, value). Does nothing when it is not set; throws std::invalid_argument naming it for
// an item that is not KEY=VALUE (and whatever apply throws).
void for_each_env_option(const char* name,
                         const std::function<void(const std::string&, const std::string&)>& apply);

} // namespace sfg::detail
