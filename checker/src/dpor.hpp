// The DPOR explorer (docs/programs.md), internal to the checker: make_explorer(Mode::dpor) returns
// it. See dpor.cpp and docs/programs.md ("Modes").
#pragma once

#include "sfg/checker/explore.hpp"

#include <memory>

namespace sfg::check {

// Source-DPOR with sleep sets (Abdulla et al., JACM 2017, Algorithm 1), extended for blocking
// steps. Explores at least one execution of every Mazurkiewicz class of maximal executions.
std::unique_ptr<Explorer> make_dpor_explorer();

} // namespace sfg::check
