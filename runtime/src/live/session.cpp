// The live session (docs/enforcers.md): one global lock orders every instrumented operation, so
// that the events form one linearization of the real execution; they go through the same
// well-formedness checker as trace files (well_formed.hpp) to the analyses of the registry
// (analyses.hpp) and, when recording, to the text trace writer.
#include "session_impl.hpp"

#include "sfg/runtime/report.hpp"
#include "trace/trace_text_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace sfg {

namespace detail {

global_state& global() {
    static auto* g = new global_state; // never destroyed: threads may outlive static destructors
    return *g;
}

constinit thread_local thread_record this_thread;
constinit thread_local unsigned mutexes_held = 0;
constinit thread_local unsigned checking_forbidden = 0;

namespace {

// The trace format's rule for names (docs/traces.md), as the text reader checks it.
bool writable_name(const std::string& name, Namespace kind) {
    return kind == Namespace::thread      ? text_trace::is_valid_thread_name(name)
           : kind == Namespace::volatile_ ? text_trace::is_valid_volatile_name(name)
                                          : text_trace::is_valid_name(name);
}

on_finding parse_policy(const std::string& v) {
    if (v == "log")
        return on_finding::log;
    if (v == "throw_error" || v == "throw")
        return on_finding::throw_error;
    if (v == "abort")
        return on_finding::abort;
    if (v == "collect")
        return on_finding::collect;
    throw std::invalid_argument("SFG_OPTIONS: policy '" + v +
                                "' is none of log, throw_error, abort, collect");
}

// SFG_OPTIONS="key=value key=value" (':' separates too, like TSAN_OPTIONS), then SFG_TRACE.
void apply_environment(session_options& o) {
    if (const char* env = std::getenv("SFG_OPTIONS")) {
        const std::string text(env);
        std::size_t pos = 0;
        while (pos < text.size()) {
            const std::size_t end = std::min(text.find_first_of(": \t\n", pos), text.size());
            const std::string item = text.substr(pos, end - pos);
            pos = end + 1;
            if (item.empty())
                continue;
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos)
                throw std::invalid_argument("SFG_OPTIONS: '" + item + "' is not KEY=VALUE");
            const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
            if (key == "policy")
                o.policy = parse_policy(value);
            else if (key == "analyses")
                o.analyses = value;
            else if (key == "trace" || key == "trace_path")
                o.trace_path = value;
            else if (key == "main_thread")
                o.main_thread = value;
            else
                throw std::invalid_argument("SFG_OPTIONS: unknown option '" + key +
                                            "' (known: policy, analyses, trace, main_thread)");
        }
    }
    if (o.trace_path.empty())
        if (const char* env = std::getenv("SFG_TRACE"))
            o.trace_path = env;
}

} // namespace

session_impl::session_impl(std::uint64_t serial, const spec* s, session_options o)
    : serial(serial), options(std::move(o)) {
    apply_environment(options);
    if (s)
        spec_ = *s;
    AnalysisInputs inputs;
    if (spec_)
        for (const auto& [var, net] : spec_->impl().nets)
            inputs.disciplines.emplace_back(var, &net);
    // Every sink goes to the fanout, and to one of two groups for split batches: the first
    // analysis (the costliest, enforce, comes first when given first), and the rest.
    std::size_t sinks = 0;
    const auto add_sink = [&](Analysis& a) {
        fanout.add(a);
        (sinks++ == 0 ? first : second).add(a);
    };
    const AnalysisList parsed = parse_analysis_list(options.analyses, true);
    if (parsed.unknown)
        throw std::invalid_argument(
            fmt::format("sfg::session: unknown analysis '{}' (choose from {})", *parsed.unknown,
                        analysis_names()));
    for (const AnalysisInfo* info : parsed.analyses) {
        if (info->needs_disciplines && !spec_)
            continue;
        analyses.push_back(make_analysis(info->name, inputs));
        add_sink(analyses.back()->analysis());
    }
    seen.assign(analyses.size(), 0);
    if (!writable_name(options.main_thread, Namespace::thread))
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
        add_sink(*writer);
    }
    split = queued() && sinks >= 2;
    stream = std::make_unique<WellFormedStream>(syms, split ? static_cast<Analysis&>(buffered)
                                                            : static_cast<Analysis&>(fanout));
    main_thread = syms.threads.intern(options.main_thread);
}

void session_impl::analyse_buffered() {
    buffered.replay(buffered.fill, first, syms);
    buffered.replay(buffered.fill, second, syms);
    buffered.clear(buffered.fill);
}

ObjId session_impl::resolve(const object& o, ThreadId t) {
    const std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
    if (cache >> 32 == serial)
        return static_cast<ObjId>(cache);
    check_name(o.name, o.kind, t);
    const auto adding = adding_names();
    const ObjId id = syms.names(o.kind).intern(o.name);
    o.cache.store(object_cache(serial, id), std::memory_order_relaxed);
    return id;
}

void session_impl::check_name(const std::string& name, Namespace kind, ThreadId t) {
    if (spec_) {
        const auto& kinds = spec_->impl().kinds;
        if (auto it = kinds.find(name); it != kinds.end() && it->second != kind)
            add_misuse(name, t,
                       fmt::format("{} '{}' has the name of a {} of {}", to_string(kind), name,
                                   to_string(it->second), spec_->file()));
    }
    if (!writable_name(name, kind))
        add_misuse(name, t,
                   fmt::format("{} name '{}' cannot be written in a trace (docs/traces.md: no "
                               "blanks, control characters or |(),)",
                               to_string(kind), name));
}

ObjId session_impl::location(const char* file, std::uint32_t line, std::uint32_t column) {
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

void session_impl::add(finding f) {
    if (options.policy == on_finding::log || options.policy == on_finding::abort) {
        std::fputs(f.message.c_str(), stderr);
        std::fflush(stderr);
    }
    findings.push_back(f);
    expected.push_back(false);
    fresh.push_back(std::move(f));
}

void session_impl::add_misuse(const std::string& object, ThreadId t, const std::string& what, Op op,
                              bool has_op) {
    if (std::optional<finding> f = make_misuse(object, t, what, op, has_op))
        add(std::move(*f));
}

std::optional<finding> session_impl::make_misuse(const std::string& object, ThreadId t,
                                                 const std::string& what, Op op, bool has_op) {
    if (!misuses.insert(object + '\n' + what).second)
        return std::nullopt;
    Finding f;
    f.kind = FindingKind::misuse;
    f.var = object;
    f.message = what;
    finding out;
    out.kind = "misuse";
    out.var = object;
    out.thread = t == no_object ? "(a thread not started by sfg)" : syms.threads.name(t);
    out.op = has_op ? to_string(op) : "";
    out.message = format_finding(f, "sfg", syms, "");
    return out;
}

void session_impl::collect(std::uint64_t up_to) {
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
            finding out;
            out.kind = to_string(f.kind);
            out.analysis = a.info().name;
            // A cycle is about transactions, not one object (its message names the event's).
            if (f.kind != FindingKind::cycle)
                out.var = f.var;
            if (f.access.event) {
                out.thread = syms.threads.name(f.access.thread);
                out.op = to_string(f.access.op);
            }
            out.message = format_finding(f, a.info().name, syms, "");
            found.emplace_back(f.access.event, std::move(out));
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

bool session_impl::deliver_block(ThreadId t, Op op, ObjId loc) {
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

bool session_impl::push(ThreadId t, Op op, ObjId target, ObjId loc, const std::string& object,
                        ObjId value) {
    const bool ok = deliver(t, op, target, loc, value);
    if (split)
        analyse_buffered();
    if (!ok)
        push_failed(t, op, target, object);
    collect();
    return ok;
}

void session_impl::push_failed(ThreadId t, Op op, ObjId target, const std::string& object) {
    const std::string why = block_error.empty() ? stream->error() : std::exchange(block_error, {});
    if (std::optional<finding> f = make_misuse(object.empty() ? object_name(op, target) : object, t,
                                               "ill-formed operation: " + why, op, true))
        held_misuses.emplace_back(stream->events(), std::move(*f));
}

std::optional<finding> session_impl::take_fresh() {
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

void session_impl::finish() {
    stream->finish();
    if (split)
        analyse_buffered();
    fanout.finish(syms);
    collect();
    fresh.clear();
    if (writer)
        trace_file.flush();
}

std::optional<finding> orphan(const object& o, const char* what) {
    // No session to hold a finding: the report goes to standard error, once per object.
    global_state& g = global();
    if (g.orphans.insert(std::string(to_string(o.kind)) + ' ' + o.name).second) {
        std::fputs(fmt::format("sfg: misuse: {} '{}' {} with no open sfg::session\n",
                               to_string(o.kind), o.name, what)
                       .c_str(),
                   stderr);
        std::fflush(stderr);
    }
    return std::nullopt;
}

namespace {

queued_event make_event(Op op, ObjId target, const sfg::source_location* where) {
    return {where ? where->file_name() : nullptr,
            where ? where->line() : 0,
            where ? where->column() : 0,
            target,
            this_thread.id,
            op};
}

} // namespace

std::optional<finding> record_event(const object& o, Op op, const sfg::source_location* where,
                                    void (*access)(void*), void* context,
                                    const std::int64_t* value) {
    // A session with a checker thread: a thread of it appends the event, resolving the object
    // first if it is new (docs/enforcers.md, "How it works").
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial) {
        std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
        if (cache >> 32 != serial) {
            // Resolving may report a misuse of the name: after the events before it.
            queue().drain(serial);
            event_lock lock;
            if (session_impl* s = global().current; s && s->serial == serial)
                cache = object_cache(serial, s->resolve(o, this_thread.id));
        }
        if (cache >> 32 == serial) {
            const queued_event e = make_event(op, static_cast<ObjId>(cache), where);
            const append_result r = queue().append(serial, &e, access, context, &o, true, value);
            if (r == append_result::appended)
                return std::nullopt;
            if (r == append_result::refused_after_access)
                access = nullptr; // done once
        }
        // The session has closed meanwhile: reported below.
    }
    event_lock lock;
    if (access) { // under the object's lock too: a session's threads access it under that alone
        std::lock_guard object(object_lock(&o));
        access_atomically(op, &o, access, context);
    }
    session_impl* s = global().current;
    if (!s)
        return orphan(o, "used");
    const thread_record& me = this_thread;
    if (me.serial != s->serial) {
        s->add_misuse(o.name, no_object,
                      fmt::format("{} '{}' used by a thread not started through sfg::thread or "
                                  "sfg::thread_group (nor the session's main thread)",
                                  to_string(o.kind), o.name),
                      op, true);
        return s->take_fresh();
    }
    forget_stale_ring(s->serial);
    const ObjId id = s->resolve(o, me.id);
    s->push(me.id, op, id,
            where ? s->location(where->file_name(), where->line(), where->column()) : no_object,
            o.name, value ? s->syms.values.intern(*value) : no_object);
    return s->take_fresh();
}

void record_access(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
                   void* context) {
    // The common case, without any lock: a thread of a session with a checker thread, an
    // object it has resolved. The access is done now; its event waits in the thread's ring.
    const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
    const std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
    if (serial == 0 || this_thread.serial != serial || cache >> 32 != serial)
        return record(o, op, where, access, context);
    hidden_access(access, context);
    if (!queue().push_access(serial, make_event(op, static_cast<ObjId>(cache), where)))
        record(o, op, where, nullptr, nullptr); // the session has closed meanwhile
}

void drain_before_misuse() {
    // A misuse is reported after the events that came before it (findings in event order).
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial)
        queue().drain(serial);
}

void record(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
            void* context, const std::int64_t* value) {
    if (std::optional<finding> f = record_event(o, op, where, access, context, value))
        throw finding_error(std::move(*f));
}

std::optional<finding> misuse(const object& o, const std::string& what) {
    drain_before_misuse();
    event_lock lock;
    session_impl* s = global().current;
    if (!s)
        return orphan(o, "misused");
    const thread_record& me = this_thread;
    s->add_misuse(o.name, me.serial == s->serial ? me.id : no_object, what);
    return s->take_fresh();
}

} // namespace detail

namespace {

std::unique_ptr<detail::session_impl> open_session(const spec* s, session_options o) {
    detail::global_state& g = detail::global();
    detail::hidden_scope hidden;
    std::lock_guard opening(g.lifecycle);
    std::optional<finding> second;
    {
        detail::event_lock lock;
        if (detail::session_impl* open = g.current) {
            const std::size_t before = open->fresh.size();
            open->add_misuse("session", open->main_thread,
                             "a second sfg::session was opened while one is open (one at a time)");
            if (open->fresh.size() > before)
                second = open->fresh.back();
            open->fresh.clear();
        } else {
            if (g.next_serial > 0xffffffffu) // serials fit object::cache's upper half
                g.next_serial = 1;
            auto impl = std::make_unique<detail::session_impl>(g.next_serial++, s, std::move(o));
            if (impl->queued()) // first: starting the checker thread may throw
                detail::queue().open(impl.get());
            detail::this_thread = {impl->serial, impl->main_thread};
            g.current = impl.get();
            if (impl->queued())
                g.deferring.store(impl->serial, std::memory_order_relaxed);
            return impl;
        }
    }
    if (!second) { // reported before: report again to this caller
        finding f;
        f.kind = "misuse";
        f.var = "session";
        f.message = "sfg::session: a second session was opened while one is open";
        second = f;
    }
    throw finding_error(std::move(*second));
}

} // namespace

session::session(const spec& s, session_options o) : impl_(open_session(&s, std::move(o))) {
    detail::event_lock lock;
    detail::global().current_session = this;
}
session::session(session_options o) : impl_(open_session(nullptr, std::move(o))) {
    detail::event_lock lock;
    detail::global().current_session = this;
}

session::~session() {
    close();
}

void session::close() {
    detail::global_state& g = detail::global();
    // Until the checker thread has stopped: no other session opens meanwhile.
    detail::hidden_scope hidden;
    std::lock_guard closing(g.lifecycle);
    const bool queued = impl_->queued();
    if (queued) // every event appended so far is checked (not under the lock: the checker takes it)
        detail::queue().drain(impl_->serial);
    {
        detail::event_lock lock;
        if (impl_->closed)
            return;
        impl_->closed = true;
        g.deferring.store(0, std::memory_order_relaxed);
        if (detail::this_thread.serial == impl_->serial)
            detail::this_thread = {};
        g.current = nullptr;
        g.current_session = nullptr;
    }
    if (queued)
        detail::queue().close();
    detail::event_lock lock;
    impl_->finish();
}

std::size_t session::mark() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::event_lock lock;
    return impl_->findings.size();
}

bool session::expect(std::size_t mark, std::string_view kind, std::string_view var) {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::event_lock lock;
    bool found = false;
    for (std::size_t i = mark; i < impl_->findings.size(); ++i)
        if (impl_->findings[i].kind == kind && impl_->findings[i].var == var)
            impl_->expected[i] = found = true;
    return found;
}

std::vector<finding> session::unexpected_findings() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::event_lock lock;
    std::vector<finding> out;
    for (std::size_t i = 0; i < impl_->findings.size(); ++i)
        if (!impl_->expected[i])
            out.push_back(impl_->findings[i]);
    return out;
}

session* session::current() {
    detail::event_lock lock;
    return detail::global().current_session;
}

std::vector<finding> session::findings() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::event_lock lock;
    return impl_->findings;
}

std::uint64_t session::events() const {
    if (impl_->queued())
        detail::queue().drain(impl_->serial);
    detail::event_lock lock;
    return impl_->stream->events();
}

} // namespace sfg
