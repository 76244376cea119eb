// The ops of a trace and everything every reader, writer and analysis needs to know about each:
// one table (docs/traces.md "Operations"), so that no file keeps its own list.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sfg {

// Trace ops (docs/traces.md) plus the implicit start/end of a thread (thesis Figure 4.1), which a
// stream carries as synthetic events so that every consumer agrees on where they happen:
// - thread_start of u comes right before u's first event (or right before the first join of u,
//   when u has no event of its own but was forked);
// - thread_end of u comes right before the first event that joins u.
// Synthetic events have `implicit == true` and take the number of the event they precede.
// The numeric values are internal: files carry `OpInfo::wire`, never these.
enum class Op : std::uint8_t {
    read,
    write,
    acquire,
    release,
    vol_read,
    vol_write,
    barrier_enter,
    barrier_exit,
    fork,
    join,
    begin,
    end,
    thread_start,
    thread_end,
    enqueue, // enq(q,o): o put into queue q (thesis §5.1, q(o))
    dequeue, // deq(q,o): o taken out of queue q
};
inline constexpr std::size_t op_count = 16;

// A synchronization mechanism's kind in SyncMech (thesis §4.1.1); `queue` is the hand-off q(o)
// of thesis §5.1 (docs/language.md, "Queues").
enum class MechKind : std::uint8_t { lock, volatile_, barrier, fork, join, queue };

// The namespaces of names (docs/traces.md): each kind of object has its own. namespace_count
// counts those every trace form lists its names by (an SLP's name tables); the queues of
// enq/deq (thesis §5.1) come after them, in the forms that have them.
enum class Namespace : std::uint8_t { thread, variable, lock, volatile_, barrier, location, queue };
inline constexpr std::size_t namespace_count = 6;
inline constexpr std::size_t namespace_count_with_queues = namespace_count + 1;

// What an op's operand is.
enum class Operand : std::uint8_t {
    none,       // begin, end
    name,       // one name of OpInfo::space: r(x), acq(m), vr(v), benter(b)
    thread_set, // fork(u1,u2), join(u1,u2): distinct thread names
    thread,     // start/exit (implicit): the forker / the joiner, if any
    queue_item, // enq(q,o), deq(q,o): a queue and a variable (Symbols::queue_items)
};

// An op's part in synchronization (thesis Figure 4.2): an access to a shared variable, the
// snd or rcv of a mechanism, or the boundary of a deterministic block.
enum class Role : std::uint8_t { memory, snd, rcv, block };

struct OpInfo {
    Op op;
    std::string_view spelling; // in text traces and reports; implicit ops only in reports
    Operand operand;
    Namespace space; // of the operand's names (threads for sets and threads)
    Role role;
    std::optional<MechKind> mech; // of a snd or rcv; none for accesses and block boundaries
    bool writes;                  // changes its object: w (a variable), vw (a volatile)
    bool implicit;                // made by streams, never written to a file
    std::uint8_t wire; // binary trace code (docs/traces.md; 12 and 13 are unassigned); no_wire for
                       // implicit ops
};
inline constexpr std::uint8_t no_wire = 0xff;

// Indexed by Op.
inline constexpr std::array<OpInfo, op_count> op_table{{
    // clang-format off
    // op                 spelling   operand               space                 role          mech                 writes implicit wire
    {Op::read,          "r",      Operand::name,       Namespace::variable,  Role::memory, std::nullopt,        false, false, 0},
    {Op::write,         "w",      Operand::name,       Namespace::variable,  Role::memory, std::nullopt,        true,  false, 1},
    {Op::acquire,       "acq",    Operand::name,       Namespace::lock,      Role::rcv,    MechKind::lock,      false, false, 2},
    {Op::release,       "rel",    Operand::name,       Namespace::lock,      Role::snd,    MechKind::lock,      false, false, 3},
    {Op::vol_read,      "vr",     Operand::name,       Namespace::volatile_, Role::rcv,    MechKind::volatile_, false, false, 4},
    {Op::vol_write,     "vw",     Operand::name,       Namespace::volatile_, Role::snd,    MechKind::volatile_, true,  false, 5},
    {Op::barrier_enter, "benter", Operand::name,       Namespace::barrier,   Role::snd,    MechKind::barrier,   false, false, 6},
    {Op::barrier_exit,  "bexit",  Operand::name,       Namespace::barrier,   Role::rcv,    MechKind::barrier,   false, false, 7},
    {Op::fork,          "fork",   Operand::thread_set, Namespace::thread,    Role::snd,    MechKind::fork,      false, false, 8},
    {Op::join,          "join",   Operand::thread_set, Namespace::thread,    Role::rcv,    MechKind::join,      false, false, 9},
    {Op::begin,         "begin",  Operand::none,       Namespace::thread,    Role::block,  std::nullopt,        false, false, 10},
    {Op::end,           "end",    Operand::none,       Namespace::thread,    Role::block,  std::nullopt,        false, false, 11},
    {Op::thread_start,  "start",  Operand::thread,     Namespace::thread,    Role::rcv,    MechKind::fork,      false, true,  no_wire},
    {Op::thread_end,    "exit",   Operand::thread,     Namespace::thread,    Role::snd,    MechKind::join,      false, true,  no_wire},
    {Op::enqueue,       "enq",    Operand::queue_item, Namespace::queue,     Role::snd,    MechKind::queue,     false, false, 14},
    {Op::dequeue,       "deq",    Operand::queue_item, Namespace::queue,     Role::rcv,    MechKind::queue,     false, false, 15},
    // clang-format on
}};

constexpr const OpInfo& op_info(Op op) {
    return op_table[static_cast<std::size_t>(op)];
}

constexpr std::string_view spelling(Op op) {
    return op_info(op).spelling;
}
const char* to_string(Op op); // spelling(op), NUL-terminated

constexpr bool is_memory(Op op) {
    return op_info(op).role == Role::memory;
}
// A snd or rcv of a mechanism (Figure 4.2), explicit or implicit.
constexpr bool is_sync(Op op) {
    return op_info(op).role == Role::snd || op_info(op).role == Role::rcv;
}
// An op with one named operand (r .. bexit).
constexpr bool has_name_operand(Op op) {
    return op_info(op).operand == Operand::name;
}

// The op a text trace spells `s` (implicit ops are never read).
constexpr std::optional<Op> op_from_spelling(std::string_view s) {
    for (const OpInfo& i : op_table)
        if (!i.implicit && i.spelling == s)
            return i.op;
    return std::nullopt;
}

// The op of a binary trace's wire code.
constexpr std::optional<Op> op_from_wire(unsigned code) {
    for (const OpInfo& i : op_table)
        if (!i.implicit && i.wire == code)
            return i.op;
    return std::nullopt;
}

// The op that is the snd / rcv of a mechanism kind (thesis Figure 4.2): rel/acq, vw/vr,
// benter/bexit, fork/start, exit/join, enq/deq (thesis §5.1, q(o)).
constexpr Op snd_op(MechKind k) {
    for (const OpInfo& i : op_table)
        if (i.role == Role::snd && i.mech == k)
            return i.op;
    return Op::begin; // not reached: every kind has one
}
constexpr Op rcv_op(MechKind k) {
    for (const OpInfo& i : op_table)
        if (i.role == Role::rcv && i.mech == k)
            return i.op;
    return Op::begin; // not reached: every kind has one
}

// The binary trace's name-record code of each namespace (docs/traces.md): tag 0x40 + code.
inline constexpr std::array<std::uint8_t, namespace_count_with_queues> namespace_wire{0, 1, 2, 3,
                                                                                      4, 5, 6};
const char* to_string(Namespace n); // "thread", "variable", "lock", "volatile", "barrier", ...

namespace op_checks {
constexpr bool table_is_indexed_by_op() {
    for (std::size_t i = 0; i < op_count; ++i)
        if (static_cast<std::size_t>(op_table[i].op) != i)
            return false;
    return true;
}
constexpr bool wire_codes_are_distinct() {
    for (std::size_t i = 0; i < op_count; ++i)
        for (std::size_t j = i + 1; j < op_count; ++j)
            if (op_table[i].wire != no_wire && op_table[i].wire == op_table[j].wire)
                return false;
    return true;
}
static_assert(table_is_indexed_by_op());
static_assert(wire_codes_are_distinct());
static_assert(op_from_spelling("benter") == Op::barrier_enter && !op_from_spelling("start"));
static_assert(snd_op(MechKind::lock) == Op::release &&
              rcv_op(MechKind::barrier) == Op::barrier_exit);
static_assert(rcv_op(MechKind::fork) == Op::thread_start &&
              snd_op(MechKind::join) == Op::thread_end);
static_assert(snd_op(MechKind::queue) == Op::enqueue && rcv_op(MechKind::queue) == Op::dequeue);
} // namespace op_checks

} // namespace sfg
