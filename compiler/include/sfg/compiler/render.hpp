// Writers for a compiled spec: DOT (built with Graphviz cgraph), SVG/PNG (laid out and rendered
// in-process with gvc), the contract's JSON, and PNML. Each is a small file of its own.
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace sfg {

enum class View { sfg, net, both };

// One digraph with a cluster per annotated variable showing its SFG (modes as labelled nodes,
// in/out modes marked by dangling arrows, edges labelled by mechanism), its Petri net (places as
// circles with tokens for the initial marking, transitions as boxes, grouped per access mode
// and per edge as in Figure 4.13), or both side by side.
std::string to_dot(const CompiledSpec& spec, View view);

// Lays the same graph out with `dot` and renders it to `path` in `format` ("svg" or "png").
// Returns an empty string on success, else what went wrong.
std::string render_image(const CompiledSpec& spec, View view, const std::string& format,
                         const std::string& path);

// The JSON document of contract §2; `spec` may be null when compilation failed.
nlohmann::ordered_json to_json(const std::string& file, const CompiledSpec* spec,
                               const Diagnostics& diags);

// PNML 2009 place/transition nets, one <net> per annotated variable. PNML has one initial
// marking, so M0 = {P(i)} is encoded with a marked place `start` and one transition
// `init[i]` per in-mode i that moves the start token into P(i).
std::string to_pnml(const CompiledSpec& spec);

} // namespace sfg
