// The live session's state (docs/enforcers.md): its analyses from the registry (analyses.hpp)
// and the trace writer behind the same well-formedness checker as trace files (well_formed.hpp);
// names, call sites, findings in event order and misuses.
#include "session_impl.hpp"

#include "global_state.hpp"
#include "session_options.hpp"

#include "sfg/runtime/live/control.hpp"
#include "sfg/runtime/report.hpp"
#include "trace/name_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace sfg::detail {

namespace {

// sfg::finding is the public view of a Finding (report.hpp): its fields as strings, its message
// as `sfgc trace` prints it (docs/enforcers.md). A cycle is about transactions, not one object
// (its message names the event's).
finding public_view(const Finding& f, std::string_view analysis, const Symbols& syms) {
    const bool event = f.access.event != 0;
    return make_finding(f.kind, analysis, f.kind != FindingKind::cycle ? f.var : std::string(),
                        event ? syms.threads.name(f.access.thread) : std::string(),
                        event ? std::optional(f.access.op) : std::nullopt,
                        format_finding(f, analysis, syms, ""));
}

} // namespace

finding make_finding(FindingKind kind, std::string_view analysis, std::string var,
                     std::string thread, std::optional<Op> op, std::string message) {
    finding out;
    out.kind = to_string(kind);
    if (kind != FindingKind::misuse) // a misuse is the runtime's, no analysis'
        out.analysis = analysis;
    out.var = std::move(var);
    out.thread = std::move(thread);
    if (op)
        out.op = to_string(*op);
    out.message = std::move(message);
    return out;
}

SessionImpl::SessionImpl(std::uint64_t serial, const spec* s, session_options o)
    : serial(serial), options(std::move(o)) {
    apply_environment(options);
    if (control()) { // a run of sfg::explore: its findings are the run's (docs/explore.md)
        options.policy = on_finding::collect;
        explored = true;
    }
    if (s)
        spec_ = *s;
    AnalysisInputs inputs;
    if (spec_)
        for (const auto& [var, net] : spec_->impl().nets)
            inputs.disciplines.emplace_back(var, &net);
    const AnalysisList parsed = parse_analysis_list(options.analyses, true);
    if (parsed.unknown)
        throw std::invalid_argument(
            fmt::format("sfg::session: unknown analysis '{}' (choose from {})", *parsed.unknown,
                        analysis_names()));
    for (const AnalysisInfo* info : parsed.analyses)
        if (!info->needs_disciplines || spec_)
            analyses.push_back(make_analysis(info->name, inputs));
    seen.assign(analyses.size(), 0);
    if (!text_trace::is_valid_name(Namespace::thread, options.main_thread))
        throw std::invalid_argument("sfg::session: main_thread '" + options.main_thread +
                                    "' cannot name a thread (docs/traces.md)");
    if (!options.trace_path.empty()) {
        trace_file.open(options.trace_path, std::ios::binary | std::ios::trunc);
        if (!trace_file)
            throw std::invalid_argument("sfg::session: cannot write the trace '" +
                                        options.trace_path + "'");
        trace_file << "# sfg live trace";
        if (spec_)
            trace_file << fmt::format(" checked against {} (spec hash {:016x})", spec_->file(),
                                      spec_->hash());
        trace_file << "\n";
        writer = std::make_unique<TextTraceWriter>(trace_file);
    }
    wire();
}

void SessionImpl::wire() {
    // Every sink goes to the fanout, and to one of two groups for split batches: the first
    // analysis (the costliest, enforce, comes first when given first), and the rest.
    std::size_t sinks = 0;
    const auto add_sink = [&](Analysis& a) {
        fanout.add(a);
        (sinks++ == 0 ? first : second).add(a);
    };
    for (const auto& a : analyses)
        add_sink(a->analysis());
    if (writer)
        add_sink(*writer);
    split = queued() && sinks >= 2;
    stream = std::make_unique<WellFormedStream>(syms, split ? static_cast<Analysis&>(buffered)
                                                            : static_cast<Analysis&>(fanout));
    main_thread = syms.threads.intern(options.main_thread);
}

// Opening a session per run cost about a twentieth of a small exploration (bench/README.md,
// "Per execution, fifth round"): the analyses' making, the options read again, the trace file's
// stream. The spec is the same one (its nets, which enforce was built on, shared).
bool SessionImpl::serves(const spec* s, session_options o) const {
    if (!explored || writer || !closed || !control())
        return false;
    apply_environment(o);
    o.policy = on_finding::collect;
    if (o.policy != options.policy || o.analyses != options.analyses ||
        o.main_thread != options.main_thread || o.trace_path != options.trace_path)
        return false;
    return s ? spec_ && &s->impl() == &spec_->impl() : !spec_;
}

void SessionImpl::reset(std::uint64_t new_serial) {
    serial = new_serial;
    // Copied from an empty one, each table keeps its storage (a new one allocates its own).
    static const Symbols none;
    syms = none;
    for (const auto& a : analyses)
        a->reset(); // its sink may be a new one
    seen.assign(analyses.size(), 0);
    fanout = Fanout{};
    first = Fanout{};
    second = Fanout{};
    open_blocks.clear();
    block_error.clear();
    findings.clear();
    expected.clear();
    held_misuses.clear();
    closed = false;
    fresh.clear();
    misuses.clear();
    locations.clear();
    wire();
}

void SessionImpl::analyse_buffered() {
    buffered.replay(buffered.fill, first, syms);
    buffered.replay(buffered.fill, second, syms);
    buffered.clear(buffered.fill);
}

ObjId SessionImpl::resolve(const object& o, ThreadId t) {
    const std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
    if (cache >> 32 == serial)
        return static_cast<ObjId>(cache);
    check_name(o.name, o.kind, t);
    const auto adding = adding_names();
    const ObjId id = syms.names(o.kind).intern(o.name);
    o.cache.store(object_cache(serial, id), std::memory_order_relaxed);
    return id;
}

ObjId SessionImpl::resolve_item(const object& q, const object& item, ThreadId t) {
    const ObjId qid = resolve(q, t), var = resolve(item, t);
    const auto adding = adding_names();
    return syms.queue_items.intern(qid, var);
}

void SessionImpl::check_name(const std::string& name, Namespace kind, ThreadId t) {
    if (spec_) {
        const auto& kinds = spec_->impl().kinds;
        if (auto it = kinds.find(name); it != kinds.end() && it->second != kind)
            add_misuse(name, t,
                       fmt::format("{} '{}' has the name of a {} of {}", to_string(kind), name,
                                   to_string(it->second), spec_->file()));
    }
    if (!text_trace::is_valid_name(kind, name))
        add_misuse(name, t,
                   fmt::format("{} name '{}' cannot be written in a trace (docs/traces.md: no "
                               "blanks, control characters or |(),)",
                               to_string(kind), name));
}

ObjId SessionImpl::location(const char* file, std::uint32_t line, std::uint32_t column) {
    const auto key = std::make_tuple(static_cast<const void*>(file), line, column);
    if (auto it = locations.find(key); it != locations.end())
        return it->second;
    std::string text = fmt::format("{}:{}:{}", file, line, column);
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    const auto adding = adding_names();
    const ObjId id = syms.locations.intern(text);
    locations.emplace(key, id);
    return id;
}

void SessionImpl::add(finding f) {
    if (options.policy == on_finding::log || options.policy == on_finding::abort) {
        std::fputs(f.message.c_str(), stderr);
        std::fflush(stderr);
    }
    findings.push_back(f);
    expected.push_back(false);
    fresh.push_back(std::move(f));
}

void SessionImpl::add_misuse(const std::string& object, ThreadId t, const std::string& what, Op op,
                             bool has_op) {
    if (std::optional<finding> f = make_misuse(object, t, what, op, has_op))
        add(std::move(*f));
}

std::optional<finding> SessionImpl::make_misuse(const std::string& object, ThreadId t,
                                                const std::string& what, Op op, bool has_op) {
    if (!misuses.insert(object + '\n' + what).second)
        return std::nullopt;
    Finding f;
    f.kind = FindingKind::misuse;
    f.var = object;
    f.message = what;
    // A misuse may come before any event, or from a thread the session does not know.
    return make_finding(FindingKind::misuse, "", object,
                        t == no_object ? "(a thread not started by sfg)" : syms.threads.name(t),
                        has_op ? std::optional(op) : std::nullopt,
                        format_finding(f, "sfg", syms, ""));
}

void SessionImpl::collect(std::uint64_t up_to) {
    // New findings of every analysis, in event order (several events may have been pushed).
    std::vector<std::pair<std::uint64_t, finding>> found;
    for (std::size_t i = 0; i < analyses.size(); ++i) {
        const RunningAnalysis& a = *analyses[i];
        const std::size_t n = a.finding_count(syms);
        if (n <= seen[i])
            continue;
        const std::vector<Finding> all = a.findings(syms);
        std::size_t j = seen[i];
        for (; j < n && j < all.size() && all[j].access.event <= up_to; ++j) {
            const Finding& f = all[j];
            found.emplace_back(f.access.event, public_view(f, a.info().name, syms));
        }
        seen[i] = j;
    }
    // Keyed 2·n for a finding about event n, 2·n + 1 for a misuse after event n.
    for (auto& f : found)
        f.first *= 2;
    std::erase_if(held_misuses, [&](auto& m) {
        if (m.first > up_to)
            return false;
        found.emplace_back(2 * m.first + 1, std::move(m.second));
        return true;
    });
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& f : found)
        add(std::move(f.second));
}

bool SessionImpl::deliver_block(ThreadId t, Op op, ObjId loc) {
    if (open_blocks.size() <= t)
        open_blocks.resize(t + 1, 0);
    if (op == Op::begin && open_blocks[t]) {
        block_error = fmt::format("thread {} begins a deterministic block inside its own block of "
                                  "event {} (blocks do not nest)",
                                  syms.threads.name(t), open_blocks[t]);
        return false;
    }
    if (op == Op::end && !open_blocks[t]) {
        block_error =
            fmt::format("thread {} ends a deterministic block outside one", syms.threads.name(t));
        return false;
    }
    if (!stream->push(t, op, no_object, loc))
        return false;
    open_blocks[t] = op == Op::begin ? stream->events() : 0;
    return true;
}

bool SessionImpl::push(ThreadId t, Op op, ObjId target, ObjId loc, const std::string& object,
                       ObjId value) {
    const bool ok = deliver(t, op, target, loc, value);
    if (split)
        analyse_buffered();
    if (!ok)
        push_failed(t, op, target, object);
    collect();
    return ok;
}

void SessionImpl::push_failed(ThreadId t, Op op, ObjId target, const std::string& object) {
    const std::string why = block_error.empty() ? stream->error() : std::exchange(block_error, {});
    if (std::optional<finding> f = make_misuse(object.empty() ? object_name(op, target) : object, t,
                                               "ill-formed operation: " + why, op, true))
        held_misuses.emplace_back(stream->events(), std::move(*f));
}

std::optional<finding> SessionImpl::take_fresh() {
    if (fresh.empty()) // the common case: nothing to do
        return std::nullopt;
    if (options.policy == on_finding::abort)
        std::abort();
    std::optional<finding> out;
    if (options.policy == on_finding::throw_error)
        out = std::move(fresh.front());
    fresh.clear();
    return out;
}

void SessionImpl::finish() {
    stream->finish();
    if (split)
        analyse_buffered();
    fanout.finish(syms);
    collect();
    fresh.clear();
    if (writer)
        trace_file.flush();
}

std::string SessionImpl::object_name(Op op, ObjId target) const {
    const OpInfo& info = op_table[static_cast<std::size_t>(op)];
    if (info.role == Role::block)
        return "deterministic"; // sfg::deterministic
    if (info.operand == Operand::name)
        return syms.names(info.space).name(target);
    if (info.operand == Operand::thread_set) {
        std::vector<std::string> names;
        for (ThreadId t : syms.thread_sets[target])
            names.push_back(syms.threads.name(t));
        return fmt::format("{}", fmt::join(names, ","));
    }
    return {};
}

std::optional<finding> orphan(const object& o, const char* what) {
    // No session to hold a finding: the report goes to standard error, once per object.
    GlobalState& g = global();
    if (g.orphans.insert(std::string(to_string(o.kind)) + ' ' + o.name).second) {
        std::fputs(fmt::format("sfg: misuse: {} '{}' {} with no open sfg::session\n",
                               to_string(o.kind), o.name, what)
                       .c_str(),
                   stderr);
        std::fflush(stderr);
    }
    return std::nullopt;
}

} // namespace sfg::detail
