// ZipTrack's pair (slp.hpp, docs/compressed.md): the map file of its PrintTrace and the grammar
// of its Sequitur. Rules may come in any order and refer to any rule: they are renumbered so that
// every rule refers only to later ones, and a cycle is an error.
#include "sfg/runtime/slp/slp.hpp"
#include "trace/name_rules.hpp"
#include "trace/trace_text_parser.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fmt/format.h>
#include <ostream>
#include <unordered_map>

namespace sfg {

namespace {

struct Lines {
    std::string_view text;
    std::size_t pos = 0;
    std::uint32_t number = 0;
    bool next(std::string_view& line) {
        if (pos >= text.size())
            return false;
        const std::size_t nl = text.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
        line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        pos = end + 1;
        ++number;
        return true;
    }
};

bool parse_number(std::string_view s, std::uint64_t& v) {
    if (s.empty() || s.size() > 18)
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// ZipTrack's event types (the TYPE of its map), one letter an op, read and written from this one
// table; an op's objects are of its operand's namespace (op.hpp).
struct ZipTrackType {
    Op op;
    std::string_view letter;
};
constexpr std::array<ZipTrackType, 6> ziptrack_types{{
    {Op::read, "R"},
    {Op::write, "W"},
    {Op::acquire, "L"},
    {Op::release, "U"},
    {Op::fork, "F"},
    {Op::join, "J"},
}};

std::optional<Op> op_of_letter(std::string_view letter) {
    for (const ZipTrackType& z : ziptrack_types)
        if (z.letter == letter)
            return z.op;
    return std::nullopt;
}
std::string_view letter_of(Op op) {
    for (const ZipTrackType& z : ziptrack_types)
        if (z.op == op)
            return z.letter;
    return {};
}

// "R, W, L, U, F or J" (by letter) or "r, w, acq, rel, fork and join" (by op).
std::string type_list(bool letters, std::string_view last) {
    std::string s;
    for (std::size_t i = 0; i < ziptrack_types.size(); ++i) {
        const ZipTrackType& z = ziptrack_types[i];
        s += i == 0 ? "" : i + 1 == ziptrack_types.size() ? fmt::format(" {} ", last) : ", ";
        s += letters ? z.letter : spelling(z.op);
    }
    return s;
}

TraceError error(std::string_view file, std::uint32_t line, std::string msg) {
    return TraceError{std::string(file), line, 1, std::move(msg)};
}

// The map: `ID|THREAD,TYPE,OBJECT`, ids any distinct numbers; its terminals into `out`.
std::optional<TraceError> read_map(std::string_view map_text, std::string_view map_name,
                                   Symbols& syms, Slp& out,
                                   std::unordered_map<std::uint64_t, std::uint32_t>& terminal_of) {
    Lines map{map_text};
    std::string_view line;
    while (map.next(line)) {
        line = trim(line);
        if (line.empty())
            continue;
        const std::size_t bar = line.find('|');
        const std::size_t c1 = line.find(',', bar == std::string_view::npos ? 0 : bar);
        const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
        std::uint64_t id = 0;
        if (bar == std::string_view::npos || c2 == std::string_view::npos ||
            !parse_number(line.substr(0, bar), id))
            return error(map_name, map.number, "expected ID|THREAD,TYPE,OBJECT");
        const std::string_view thread = line.substr(bar + 1, c1 - bar - 1);
        const std::string_view type = line.substr(c1 + 1, c2 - c1 - 1);
        const std::string_view object = line.substr(c2 + 1);
        if (!text_trace::is_valid_name(Namespace::thread, thread))
            return error(map_name, map.number, "invalid thread name");
        SlpTerminal t;
        t.thread = syms.threads.intern(thread);
        const std::optional<Op> op = op_of_letter(type);
        if (!op)
            return error(map_name, map.number,
                         fmt::format("unknown type '{}' ({})", type, type_list(true, "or")));
        t.op = *op;
        const Namespace space = op_info(t.op).space;
        if (!text_trace::is_valid_name(space, object))
            return error(map_name, map.number, "invalid object name");
        if (op_info(t.op).operand == Operand::thread_set) {
            t.target = static_cast<ObjId>(syms.thread_sets.size());
            syms.thread_sets.push_back({syms.threads.intern(object)});
        } else {
            t.target = syms.names(space).intern(object);
        }
        if (!terminal_of.emplace(id, static_cast<std::uint32_t>(out.terminals.size())).second)
            return error(map_name, map.number, fmt::format("terminal {} defined twice", id));
        out.terminals.push_back(t);
    }
    return std::nullopt;
}

// The grammar as written: its rules' symbols ((terminal?, number) pairs), their names and lines.
struct Grammar {
    std::unordered_map<std::uint64_t, std::uint32_t> rule_of; // name -> index in `rules`
    std::vector<std::vector<std::pair<bool, std::uint64_t>>> rules;
    std::vector<std::uint32_t> rule_line;
};

// The grammar: `N -> SYMBOLS`, `&k` terminal k, a bare number a rule; other lines (Sequitur's
// statistics) are skipped, as ZipTrack does.
std::optional<TraceError> read_grammar(std::string_view grammar_text, std::string_view grammar_name,
                                       Grammar& out) {
    Lines g{grammar_text};
    std::string_view line;
    while (g.next(line)) {
        const std::size_t arrow = line.find(" -> ");
        std::uint64_t name = 0;
        if (arrow == std::string_view::npos || !parse_number(trim(line.substr(0, arrow)), name))
            continue;
        if (!out.rule_of.emplace(name, static_cast<std::uint32_t>(out.rules.size())).second)
            return error(grammar_name, g.number, fmt::format("rule {} defined twice", name));
        out.rules.emplace_back();
        out.rule_line.push_back(g.number);
        std::string_view rest = line.substr(arrow + 4);
        while (!(rest = trim(rest)).empty()) {
            const std::size_t sp = std::min(rest.find_first_of(" \t"), rest.size());
            std::string_view sym = rest.substr(0, sp);
            rest.remove_prefix(sp);
            const bool terminal = sym.front() == '&';
            if (terminal)
                sym.remove_prefix(1);
            std::uint64_t v = 0;
            if (!parse_number(sym, v))
                return error(grammar_name, g.number, "expected &TERMINAL or RULE");
            out.rules.back().emplace_back(terminal, v);
        }
        if (out.rules.back().empty())
            return error(grammar_name, g.number, fmt::format("rule {} is empty", name));
    }
    return std::nullopt;
}

// The rules in reverse post-order of a depth-first walk from rule 0 (iterative), so that every
// rule refers only to later ones, into `out`; a rule met again while open is a cycle.
std::optional<TraceError>
order_rules(Grammar& g, std::string_view grammar_name,
            const std::unordered_map<std::uint64_t, std::uint32_t>& terminal_of, Slp& out) {
    const auto start = g.rule_of.find(0);
    if (start == g.rule_of.end())
        return error(grammar_name, 0, "no rule 0 (the start rule)");
    const std::uint32_t no = ~0u;
    std::vector<std::uint8_t> state(g.rules.size(), 0);
    std::vector<std::uint32_t> post;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{start->second, 0}};
    state[start->second] = 1;
    while (!stack.empty()) {
        auto& [r, i] = stack.back();
        if (i == g.rules[r].size()) {
            state[r] = 2;
            post.push_back(r);
            stack.pop_back();
            continue;
        }
        const auto [terminal, v] = g.rules[r][i++];
        if (terminal) {
            if (!terminal_of.count(v))
                return error(grammar_name, g.rule_line[r],
                             fmt::format("terminal &{} is not in the map", v));
            continue;
        }
        const auto it = g.rule_of.find(v);
        if (it == g.rule_of.end())
            return error(grammar_name, g.rule_line[r], fmt::format("rule {} is not defined", v));
        if (state[it->second] == 1)
            return error(grammar_name, g.rule_line[r],
                         fmt::format("rule {} refers to itself through its rules (a cycle)", v));
        if (state[it->second] == 0) {
            state[it->second] = 1;
            stack.emplace_back(it->second, 0);
        }
    }
    std::vector<std::uint32_t> number(g.rules.size(), no);
    for (std::size_t i = 0; i < post.size(); ++i)
        number[post[i]] = static_cast<std::uint32_t>(post.size() - 1 - i);
    out.rules.resize(post.size());
    for (std::uint32_t r : post)
        for (const auto& [terminal, v] : g.rules[r])
            out.rules[number[r]].push_back(terminal ? terminal_of.at(v)
                                                    : slp_rule_bit | number[g.rule_of[v]]);
    return std::nullopt;
}

} // namespace

std::optional<TraceError> read_ziptrack(std::string_view map_text, std::string_view map_name,
                                        std::string_view grammar_text,
                                        std::string_view grammar_name, Symbols& syms, Slp& out) {
    out = Slp{};
    std::unordered_map<std::uint64_t, std::uint32_t> terminal_of;
    if (auto e = read_map(map_text, map_name, syms, out, terminal_of))
        return e;
    Grammar g;
    if (auto e = read_grammar(grammar_text, grammar_name, g))
        return e;
    if (auto e = order_rules(g, grammar_name, terminal_of, out))
        return e;
    if (auto e = out.compute_lengths())
        return error(grammar_name, 0, *e);
    return std::nullopt;
}

std::optional<std::string> write_ziptrack(std::ostream& map, std::ostream& grammar, const Slp& slp,
                                          const Symbols& syms) {
    for (std::size_t k = 0; k < slp.terminals.size(); ++k) {
        const SlpTerminal& t = slp.terminals[k];
        const std::string_view type = letter_of(t.op);
        if (type.empty())
            return fmt::format("ZipTrack's format has no {} events (only {})", spelling(t.op),
                               type_list(false, "and"));
        std::string object;
        if (op_info(t.op).operand == Operand::thread_set) {
            if (syms.thread_sets[t.target].size() != 1)
                return fmt::format("ZipTrack's format has no {} of a thread set", spelling(t.op));
            object = syms.threads.name(syms.thread_sets[t.target][0]);
        } else {
            object = syms.names(op_info(t.op).space).name(t.target);
        }
        const std::string& thread = syms.threads.name(t.thread);
        if (thread.find(',') != std::string::npos || object.find(',') != std::string::npos)
            return "a name with ',' cannot be written in ZipTrack's format";
        map << k << '|' << thread << ',' << type << ',' << object << '\n';
    }
    for (std::size_t r = 0; r < slp.rules.size(); ++r) {
        if (slp.rules[r].empty())
            continue; // the empty trace: no rule 0
        grammar << r << " ->";
        for (SlpSymbol s : slp.rules[r]) {
            if (slp_is_rule(s))
                grammar << ' ' << slp_index(s);
            else
                grammar << " &" << s;
        }
        grammar << " \n"; // ZipTrack's parser wants white space after each symbol
    }
    if (!map || !grammar)
        return "cannot write the files";
    return std::nullopt;
}

} // namespace sfg
