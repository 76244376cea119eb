// The generated C++ header of `sfgc SPEC --emit-cpp` (docs/enforcers.md): the spec as the static
// data of sfg/spec.hpp, from which the live runtime builds the same nets N(G) as `sfgc --json`
// shows.
#include "sfg/compiler/render.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <vector>

namespace sfg {

namespace {

// A C++ string literal of arbitrary bytes.
std::string literal(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\')
            out += {'\\', c};
        else if (u < 0x20 || u >= 0x7f || c == '?') // '?': no trigraph-like sequences either
            out += fmt::format("\\{:03o}", u);
        else
            out += c;
    }
    return out + "\"";
}

// The tables of spec_data, filled in declaration order so that the output is deterministic.
class Tables {
public:
    Tables() { name(""); }

    std::uint32_t name(const std::string& n) {
        auto [it, fresh] = ids_.emplace(n, static_cast<std::uint32_t>(names.size()));
        if (fresh)
            names.push_back(n);
        return it->second;
    }
    // A list of names as indices into `lists`: "{first, count}".
    std::string names_list(const std::vector<std::string>& ns) {
        std::vector<std::uint32_t> ix;
        for (const std::string& n : ns)
            ix.push_back(name(n));
        return list(ix);
    }
    std::string list(const std::vector<std::uint32_t>& ix) {
        const std::size_t first = lists.size();
        lists.insert(lists.end(), ix.begin(), ix.end());
        return fmt::format("{{{}, {}}}", first, ix.size());
    }

    std::vector<std::string> names;
    std::vector<std::uint32_t> lists;

private:
    std::map<std::string, std::uint32_t> ids_;
};

const char* mech_enumerator(MechKind k) {
    switch (k) {
    case MechKind::lock:
        return "lock";
    case MechKind::volatile_:
        return "volatile_";
    case MechKind::barrier:
        return "barrier";
    case MechKind::fork:
        return "fork";
    case MechKind::queue:
        return "queue";
    case MechKind::join:
        break;
    }
    return "join";
}

// A table as `inline constexpr T name[] = {...};`, or nothing when empty (C++ has no empty
// arrays); `pointer` is what the spec refers to it by.
struct Table {
    std::string body, pointer, count;
};

Table table(const std::string& type, const std::string& name, const std::vector<std::string>& rows,
            std::size_t per_line) {
    if (rows.empty())
        return {"", "nullptr", "0"};
    std::string body = fmt::format("inline constexpr {} {}[] = {{", type, name);
    // A row may end in a comment ("{...}, // what"): its comma is already in place.
    for (std::size_t i = 0; i < rows.size(); ++i)
        body += (i % per_line == 0 ? "\n    " : " ") + rows[i] +
                (rows[i].find("//") == std::string::npos ? "," : "");
    body += "\n};\n";
    return {body, name, fmt::format("{}", rows.size())};
}

} // namespace

std::string cpp_namespace_for(const std::string& file) {
    std::string stem = std::filesystem::path(file).stem().string();
    std::string ns;
    for (char c : stem)
        ns += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
    if (ns.empty() || (ns[0] >= '0' && ns[0] <= '9'))
        ns.insert(0, "_");
    return ns;
}

// The rows of one variable: its modes, its edges and its own row.
struct Rows {
    std::vector<std::string> mode_rows, edge_rows, variable_rows;
    bool has_values = false;   // some edge carries v==K (thesis §5.1)
    bool has_families = false; // some edge is a family (net.hpp)
};

void discipline_rows(Tables& t, const CompiledVariable& v, Rows& r) {
    const std::uint32_t n = t.name(v.name);
    if (!v.sfg) {
        r.variable_rows.push_back(
            fmt::format("{{{}, false, {{0, 0}}, {{0, 0}}, {{0, 0}}, {{0, 0}}}}, // {}", n, v.name));
        return;
    }
    const Discipline& g = *v.sfg;
    const std::size_t first_mode = r.mode_rows.size(), first_edge = r.edge_rows.size();
    for (const AccessMode& a : g.modes) {
        const std::string threads = t.names_list(a.threads);
        if (a.kind == ModeKind::LOCK) { // (EX and RS rows leave the lock out: names[0])
            const std::uint32_t lock = t.name(a.lock);
            r.mode_rows.push_back(fmt::format("{{::sfg::ModeKind::LOCK, {}, {}}}, // {}: {}",
                                              threads, lock, v.name, a.label()));
            continue;
        }
        r.mode_rows.push_back(fmt::format("{{::sfg::ModeKind::{}, {}}}, // {}: {}",
                                          a.kind == ModeKind::EX ? "EX" : "RS", threads, v.name,
                                          a.label()));
    }
    for (const ModeEdge& e : g.edges) {
        const Mechanism& z = e.mech;
        // One table entry after the other: the output must not depend on the order in
        // which a compiler evaluates arguments.
        const std::uint32_t name = t.name(z.name);
        const std::uint32_t thread = t.name(z.thread);
        const std::string threads = t.names_list(z.threads);
        // v==K (thesis §5.1): the value after the threads; other edges leave it out.
        std::string value;
        if (z.value) {
            r.has_values = true;
            value = *z.value == std::numeric_limits<std::int64_t>::min()
                        ? ", true, -9223372036854775807 - 1"
                        : fmt::format(", true, {}", *z.value);
        }
        r.edge_rows.push_back(
            fmt::format("{{{}, {}, ::sfg::MechKind::{}, {}, {}, {}{}}}, // {}: {} -{}-> {}", e.from,
                        e.to, mech_enumerator(z.kind), name, thread, threads, value, v.name,
                        g.modes[e.from].label(), z.label(), g.modes[e.to].label()));
    }
    for (const EdgeFamily& f : g.families) { // after the edges, as their ids (net.hpp)
        const Mechanism& z = f.mech;
        const std::uint32_t name = t.name(z.name);
        const std::uint32_t thread = t.name(z.thread);
        const std::string threads = t.names_list(z.threads);
        const std::string value = !z.value ? "false, 0"
                                  : *z.value == std::numeric_limits<std::int64_t>::min()
                                      ? "true, -9223372036854775807 - 1"
                                      : fmt::format("true, {}", *z.value);
        const std::string from = t.list(f.from);
        const std::string to = t.list(f.to);
        r.has_families = true;
        r.has_values = r.has_values || z.value;
        r.edge_rows.push_back(fmt::format(
            "{{0, 0, ::sfg::MechKind::{}, {}, {}, {}, {}, {}, {}}}, // {}: {} modes -{}-> {} modes",
            mech_enumerator(z.kind), name, thread, threads, value, from, to, v.name, f.from.size(),
            z.label(), f.to.size()));
    }
    const std::string in = t.list(g.in);
    const std::string out_modes = t.list(g.out);
    r.variable_rows.push_back(fmt::format(
        "{{{}, true, {{{}, {}}}, {{{}, {}}}, {}, {}}}, // {}", n, first_mode, g.modes.size(),
        first_edge, g.edges.size() + g.families.size(), in, out_modes, v.name));
}

// The header's opening: what it is, the runtime features it needs, its hash.
std::string prologue(const std::string& file, const std::string& ns, std::uint64_t hash,
                     bool has_values, bool has_queues, bool has_families) {
    return fmt::format(
        "// Generated by sfgc from {0}: do not edit. The synchronization disciplines of {0} as\n"
        "// static data for the sfg live runtime (docs/enforcers.md): `{1}::spec()` is what an\n"
        "// sfg::session checks a program against.\n"
        "#pragma once\n\n"
        "#include <sfg/sfg.hpp>\n\n"
        "#include <cstdint>\n\n"
        "#if !defined(SFG_ABI_VERSION) || SFG_ABI_VERSION != 1\n"
        "#error \"this header was generated by sfgc for sfg runtime ABI 1; regenerate it with the "
        "sfgc of the runtime you build against\"\n"
        "#endif\n{3}{4}{5}\n"
        "namespace {1} {{\n\n"
        "// FNV-1a of {0}'s bytes.\n"
        "inline constexpr std::uint64_t spec_hash = 0x{2:016x}ull;\n\n"
        "namespace sfg_spec_data {{\n\n",
        file, ns, hash,
        has_values
            ? "#if !defined(SFG_SPEC_VALUES)\n"
              "#error \"this header has value labels (thesis §5.1), which this sfg runtime "
              "does not read; regenerate it with the sfgc of the runtime you build against\"\n"
              "#endif\n"
            : "",
        !has_queues
            ? ""
            : "#if !defined(SFG_SPEC_QUEUES)\n"
              "#error \"this header has queues (thesis §5.1), which this sfg runtime does not "
              "read; regenerate it with the sfgc of the runtime you build against\"\n"
              "#endif\n",
        !has_families
            ? ""
            : "#if !defined(SFG_SPEC_FAMILIES)\n"
              "#error \"this header has edge families, which this sfg runtime does not read; "
              "regenerate it with the sfgc of the runtime you build against\"\n"
              "#endif\n");
}

void write_cpp(std::ostream& out, const CompiledSpec& spec, const std::string& ns,
               std::uint64_t hash) {
    const std::string file = std::filesystem::path(spec.file).filename().string();
    Tables t;
    // Declared names first, in their order, so the names table reads like the spec.
    const auto [locks, volatiles, queues, barriers] = mechanisms_by_kind(spec);
    const std::string threads_list = t.names_list(spec.threads);
    const std::string locks_list = t.names_list(locks);
    const std::string volatiles_list = t.names_list(volatiles);
    // Queues (thesis §5.1) after the volatiles, and only when there are some: the tables of a
    // spec without one are what they were.
    const std::string queues_list = queues.empty() ? "" : t.names_list(queues);
    std::vector<std::string> barrier_rows;
    for (const MechanismDecl* b : barriers) {
        const std::uint32_t n = t.name(b->name);
        const std::string threads = t.names_list(b->threads);
        barrier_rows.push_back(fmt::format("{{{}, {}}}, // {}", n, threads, b->name));
    }
    Rows rows;
    for (const CompiledVariable& v : spec.variables)
        discipline_rows(t, v, rows);
    std::vector<std::string> name_rows;
    for (const std::string& n : t.names)
        name_rows.push_back(literal(n));
    std::vector<std::string> list_rows;
    for (std::uint32_t i : t.lists)
        list_rows.push_back(fmt::format("{}", i));
    const Table names = table("const char*", "names", name_rows, 8);
    const Table lists = table("std::uint32_t", "lists", list_rows, 16);
    const Table barrier_table = table("::sfg::spec_data::barrier", "barriers", barrier_rows, 1);
    const Table modes = table("::sfg::spec_data::mode", "modes", rows.mode_rows, 1);
    const Table edges = table("::sfg::spec_data::edge", "edges", rows.edge_rows, 1);
    const Table variables = table("::sfg::spec_data::variable", "variables", rows.variable_rows, 1);

    std::ostringstream s;
    s << prologue(file, ns, hash, rows.has_values, !queues.empty(), rows.has_families);
    for (const Table* tb : {&names, &lists, &barrier_table, &modes, &edges, &variables})
        if (!tb->body.empty())
            s << tb->body << "\n";
    s << fmt::format("inline constexpr ::sfg::spec_data::spec data = {{\n"
                     "    {}, spec_hash,\n"
                     "    {}, {}, {}, {},\n"
                     "    {}, // threads\n"
                     "    {}, // locks\n"
                     "    {}, // volatiles\n"
                     "    {}, {},\n"
                     "    {}, {},\n"
                     "    {}, {},\n"
                     "    {}, {},\n"
                     "{}"
                     "}};\n\n"
                     "}} // namespace sfg_spec_data\n\n"
                     "// The specification, built on first use (its nets: thesis Figure 4.11).\n"
                     "inline const ::sfg::spec& spec() {{\n"
                     "    static const ::sfg::spec s(sfg_spec_data::data);\n"
                     "    return s;\n"
                     "}}\n\n"
                     "}} // namespace {}\n",
                     literal(file), names.pointer, names.count, lists.pointer, lists.count,
                     threads_list, locks_list, volatiles_list, barrier_table.pointer,
                     barrier_table.count, modes.pointer, modes.count, edges.pointer, edges.count,
                     variables.pointer, variables.count,
                     queues.empty() ? "" : fmt::format("    {}, // queues\n", queues_list), ns);
    out << s.str();
}

} // namespace sfg
