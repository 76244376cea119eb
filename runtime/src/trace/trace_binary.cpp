// The compact binary trace form; trace.hpp specifies it. About 4 bytes an access event against
// about 12 in text, and no tokenizing: large traces are cheaper to store and to read.
#include "name_rules.hpp"
#include "sfg/runtime/core/varint.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "trace_names.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <ostream>

namespace sfg {

namespace {

constexpr std::string_view magic{"SFGTRC1\n", 8};
constexpr unsigned char tag_name = 0x40;
constexpr unsigned char tag_location = 0x80;
constexpr unsigned char tag_value = 0x20; // vr/vw with a value: a zigzag varint after the target

// A namespace's name records have the tag 0x40 + namespace_wire.
constexpr std::array<std::optional<Namespace>, 0x40> namespace_of_wire = [] {
    std::array<std::optional<Namespace>, 0x40> a{};
    for (std::size_t k = 0; k < namespace_count_with_queues; ++k)
        a[namespace_wire[k]] = static_cast<Namespace>(k);
    return a;
}();

// The namespace of an op's one name operand, if it has one.
std::optional<Namespace> name_operand(Op op) {
    const OpInfo& i = op_info(op);
    return i.operand == Operand::name ? std::optional<Namespace>(i.space) : std::nullopt;
}

// A name for an error message: printable ASCII as it is, other bytes as \xHH, cut after 40.
std::string show_name(std::string_view name) {
    if (name.empty())
        return "name (empty)";
    std::string out = "name '";
    for (std::size_t i = 0; i < name.size() && i < 40; ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        out += c >= 0x20 && c < 0x7f && c != '\\' ? std::string(1, static_cast<char>(c))
                                                  : fmt::format("\\x{:02x}", c);
    }
    return out + (name.size() > 40 ? "...'" : "'");
}

class BinaryReader {
public:
    BinaryReader(std::string_view bytes, std::string_view file, Symbols& syms, Analysis& sink)
        : in_(bytes), file_(file), syms_(syms), stream_(syms, sink), sets_(syms) {}

    TraceResult run() {
        pos_ = magic.size();
        while (pos_ < in_.size()) {
            start_ = pos_;
            auto tag = static_cast<unsigned char>(in_[pos_++]);
            if (tag >= tag_name && tag < tag_name + 0x40 && namespace_of_wire[tag - tag_name]) {
                std::uint32_t len;
                if (!varint(len))
                    return result();
                if (len > in_.size() - pos_)
                    return fail("name runs past the end of the file"), result();
                // The text format's rules: a name that could not be written as text (empty,
                // blanks, control characters, separators) could forge lines of a report.
                const Namespace space = *namespace_of_wire[tag - tag_name];
                const std::string_view name = in_.substr(pos_, len);
                if (!text_trace::is_valid_name(space, name))
                    return fail(fmt::format("invalid {} {}", to_string(space), show_name(name))),
                           result();
                ids(space).push_back(syms_.names(space).intern(name));
                pos_ += len;
                continue;
            }
            const std::optional<Op> code = op_from_wire(tag & ~(tag_location | tag_value));
            if (!code || ((tag & tag_value) && op_info(*code).space != Namespace::volatile_))
                return fail(fmt::format("unknown record tag 0x{:02x}", tag)), result();
            const Op op = *code;
            std::optional<std::int64_t> value;
            ThreadId t = 0;
            ObjId target = no_object, location = no_object;
            if (!id(Namespace::thread, t))
                return result();
            if (const std::optional<Namespace> k = name_operand(op)) {
                if (!id(*k, target))
                    return result();
                if (tag & tag_value) {
                    std::uint64_t u;
                    if (!varint(u))
                        return result();
                    value = unzigzag(u);
                }
            } else if (op_info(op).operand == Operand::thread_set) {
                std::uint32_t n;
                if (!varint(n))
                    return result();
                if (n == 0 || n > in_.size() - pos_)
                    return fail("bad thread count in fork/join"), result();
                set_.clear();
                for (std::uint32_t i = 0; i < n; ++i) {
                    ThreadId u = 0;
                    if (!id(Namespace::thread, u))
                        return result();
                    if (std::find(set_.begin(), set_.end(), u) != set_.end())
                        return fail(
                                   fmt::format("thread {} is listed twice", syms_.threads.name(u))),
                               result();
                    set_.push_back(u);
                }
                target = sets_.id(set_);
            } else if (op_info(op).operand == Operand::queue_item) { // enq(q,o): q, then o
                ObjId q = 0, o = 0;
                if (!id(Namespace::queue, q) || !id(Namespace::variable, o))
                    return result();
                target = syms_.queue_items.intern(q, o);
            }
            if ((tag & tag_location) && !id(Namespace::location, location))
                return result();
            if (!stream_.push(t, op, target, location, 0,
                              value ? syms_.values.intern(*value) : no_object))
                return fail(stream_.error()), result();
        }
        stream_.finish();
        return result();
    }

private:
    TraceResult result() {
        TraceResult r;
        r.events = stream_.events();
        r.error = std::move(error_);
        return r;
    }
    bool fail(std::string msg) {
        if (!error_)
            error_ = TraceError{
                std::string(file_), 0, 0,
                fmt::format("event {} (byte offset {}): {}", stream_.events() + 1, start_, msg)};
        return false;
    }
    template <class T>
    bool varint(T& v) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(in_.data());
        switch (get_varint(bytes, in_.size(), pos_, v)) {
        case VarintStatus::ok:
            return true;
        case VarintStatus::truncated:
            return fail("truncated record");
        default:
            return fail("varint out of range");
        }
    }
    std::vector<std::uint32_t>& ids(Namespace space) {
        return ids_[static_cast<std::size_t>(space)];
    }
    bool id(Namespace space, std::uint32_t& out) {
        std::uint32_t v = 0;
        if (!varint(v))
            return false;
        if (v >= ids(space).size())
            return fail(fmt::format("undefined {} id {}", to_string(space), v));
        out = ids(space)[v];
        return true;
    }

    std::string_view in_;
    std::string_view file_;
    Symbols& syms_;
    WellFormedStream stream_;
    ThreadSetCache sets_;
    std::vector<std::uint32_t> ids_[namespace_count_with_queues]; // file id -> Symbols id
    std::vector<ThreadId> set_;
    std::size_t pos_ = 0, start_ = 0;
    std::optional<TraceError> error_;
};

} // namespace

bool is_binary_trace(std::string_view bytes) {
    return bytes.substr(0, magic.size()) == magic;
}

TraceResult read_trace_binary(std::string_view bytes, std::string_view file_name, Symbols& syms,
                              Analysis& sink) {
    if (!is_binary_trace(bytes)) {
        TraceResult r;
        r.error = TraceError{std::string(file_name), 0, 0, "not a binary sfg trace (bad magic)"};
        return r;
    }
    return BinaryReader(bytes, file_name, syms, sink).run();
}

BinaryTraceWriter::BinaryTraceWriter(std::ostream& out) : out_(out) {
    buf_ = magic;
}

std::uint32_t BinaryTraceWriter::file_id(Namespace space, std::uint32_t id,
                                         const SymbolTable& table) {
    const auto kind = static_cast<std::size_t>(space);
    auto& ids = ids_[kind];
    if (id >= ids.size())
        ids.resize(id + 1, 0);
    if (ids[id] == 0) {
        const std::string& name = table.name(id);
        buf_ += static_cast<char>(tag_name + namespace_wire[kind]);
        put_varint(buf_, static_cast<std::uint32_t>(name.size()));
        buf_ += name;
        ids[id] = ++next_[kind];
    }
    return ids[id] - 1;
}

void BinaryTraceWriter::on_event(const Event& e, const Symbols& syms) {
    if (e.implicit)
        return;
    // Define names first: a record refers only to names defined before it.
    std::uint32_t t = file_id(Namespace::thread, e.thread, syms.threads);
    std::uint32_t target = 0;
    const std::optional<Namespace> k = name_operand(e.op);
    if (k)
        target = file_id(*k, e.target, syms.names(*k));
    const bool set = op_info(e.op).operand == Operand::thread_set;
    if (set)
        for (ThreadId u : syms.thread_sets[e.target])
            file_id(Namespace::thread, u, syms.threads);
    const bool item = op_info(e.op).operand == Operand::queue_item;
    std::uint32_t queue = 0, var = 0;
    if (item) {
        queue = file_id(Namespace::queue, syms.queue_items.queue(e.target), syms.queues);
        var = file_id(Namespace::variable, syms.queue_items.var(e.target), syms.vars);
    }
    std::uint32_t loc = 0;
    if (e.location != no_object)
        loc = file_id(Namespace::location, e.location, syms.locations);

    const bool value = e.has_value() && op_info(e.op).space == Namespace::volatile_;
    buf_ += static_cast<char>(op_info(e.op).wire | (e.location != no_object ? tag_location : 0) |
                              (value ? tag_value : 0));
    put_varint(buf_, t);
    if (k) {
        put_varint(buf_, target);
        if (value)
            put_varint(buf_, zigzag(syms.values.value(e.value_id)));
    } else if (set) {
        const auto& us = syms.thread_sets[e.target];
        put_varint(buf_, static_cast<std::uint32_t>(us.size()));
        for (ThreadId u : us)
            put_varint(buf_, ids_[static_cast<std::size_t>(Namespace::thread)][u] - 1);
    } else if (item) {
        put_varint(buf_, queue);
        put_varint(buf_, var);
    }
    if (e.location != no_object)
        put_varint(buf_, loc);
    if (buf_.size() >= (1u << 16))
        flush();
}

void BinaryTraceWriter::flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
}

void BinaryTraceWriter::finish(const Symbols&) {
    flush();
    out_.flush();
}

} // namespace sfg
