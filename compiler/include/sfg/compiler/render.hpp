// Writers for a compiled spec: DOT (written as text), SVG/PNG (the DOT laid out and rendered
// in-process with Graphviz' gvc), JSON, and PNML. Each is a small file of its own.
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace sfg {

enum class View { sfg, net, both };

// The writers stream: their cost is proportional to what they write, and they stop formatting
// once `out` fails (e.g. an output limit was hit).

// One digraph with a cluster per annotated variable showing its SFG (modes as labelled nodes,
// in/out modes marked by dangling arrows, edges labelled by mechanism), its Petri net (places as
// circles with tokens for the initial marking, transitions as boxes, grouped per access mode
// and per edge as in Figure 4.13), or both side by side.
void write_dot(std::ostream& out, const CompiledSpec& spec, View view);
std::string to_dot(const CompiledSpec& spec, View view);

// Nodes and edges Graphviz would lay out for `view`: the layout's cost grows faster than
// linearly in it (docs/limits.md), so callers bound it before render_image. Above
// quick_layout_above, render_image asks dot for fewer optimization passes.
std::size_t layout_size(const CompiledSpec& spec, View view);
inline constexpr std::size_t quick_layout_above = 1000;

// Lays the DOT out with Graphviz' `dot` and renders it to `path` in `format` ("svg" or "png").
// Returns an empty string on success, else what went wrong.
std::string render_image(const CompiledSpec& spec, View view, const std::string& format,
                         const std::string& path);

// The JSON document of docs/tutorial.md ("JSON for tools"); `spec` may be null when compilation
// failed. Bytes that are not UTF-8 (a file name) are written as U+FFFD. Ends with a newline.
void write_json(std::ostream& out, const std::string& file, const CompiledSpec* spec,
                const Diagnostics& diags);
std::string to_json(const std::string& file, const CompiledSpec* spec, const Diagnostics& diags);

// PNML 2009 place/transition nets, one <net> per annotated variable. PNML has one initial
// marking, so M0 = {P(i)} is encoded with a marked place `start` and one transition
// `init[i]` per in-mode i that moves the start token into P(i).
void write_pnml(std::ostream& out, const CompiledSpec& spec);
std::string to_pnml(const CompiledSpec& spec);

// The C++ header of `sfgc SPEC --emit-cpp` (docs/enforcers.md): the spec as sfg/spec.hpp's static
// data in namespace `ns` (may be nested, `a::b`), with `ns::spec()`; `hash` is spec_hash() of the
// file's bytes. Deterministic: the same spec gives the same bytes.
void write_cpp(std::ostream& out, const CompiledSpec& spec, const std::string& ns,
               std::uint64_t hash);
// The default namespace of a generated header: the file's stem with every character that cannot
// be in an identifier replaced by '_' ("bank-account.sfg" -> "bank_account"; a leading digit
// gets a '_' before it).
std::string cpp_namespace_for(const std::string& file);

} // namespace sfg
